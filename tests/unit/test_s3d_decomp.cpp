// S3D block-block-block decomposition: the reference's rank numbering (X
// fastest), block sizes and starts, and its input checks.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "core/error.hpp"
#include "kernels/s3d/s3d_decomp.hpp"

using iok::s3d::Block;
using iok::s3d::Grid;

TEST(S3dDecomp, RankNumberingIsXFastest) {
    const Grid g{100, 100, 100, 2, 2, 2};
    // rank 1 -> px 1; rank 2 -> py 1; rank 4 -> pz 1; rank 7 -> all 1
    const int expect[8][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};
    for (int r = 0; r < 8; ++r) {
        Block b = iok::s3d::block_of(g, r);
        EXPECT_EQ(b.px, expect[r][0]) << "rank " << r;
        EXPECT_EQ(b.py, expect[r][1]) << "rank " << r;
        EXPECT_EQ(b.pz, expect[r][2]) << "rank " << r;
        EXPECT_EQ(b.nx, 50);
        EXPECT_EQ(b.ny, 50);
        EXPECT_EQ(b.nz, 50);
        EXPECT_EQ(b.x0, 50 * expect[r][0]);
        EXPECT_EQ(b.y0, 50 * expect[r][1]);
        EXPECT_EQ(b.z0, 50 * expect[r][2]);
    }
}

TEST(S3dDecomp, UnevenProcessGridCoversEveryPointOnce) {
    const Grid g{12, 10, 8, 3, 5, 2};
    iok::s3d::validate(g, 30);
    std::set<std::tuple<long, long, long>> seen;
    std::uint64_t points = 0;
    for (int r = 0; r < 30; ++r) {
        Block b = iok::s3d::block_of(g, r);
        EXPECT_EQ(b.nx, 4);
        EXPECT_EQ(b.ny, 2);
        EXPECT_EQ(b.nz, 4);
        EXPECT_EQ(r, b.pz * 15 + b.py * 3 + b.px);
        seen.insert({b.x0, b.y0, b.z0});
        points += static_cast<std::uint64_t>(b.nx * b.ny * b.nz);
    }
    EXPECT_EQ(seen.size(), 30u);  // distinct blocks
    EXPECT_EQ(points, g.points());
}

TEST(S3dDecomp, RejectsIndivisibleGrid) {
    try {
        iok::s3d::validate(Grid{100, 101, 100, 2, 2, 2}, 8);
        FAIL() << "no error";
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("along Y (101) is not divisible"), std::string::npos) << e.what();
    }
}

TEST(S3dDecomp, RejectsProcessGridNotMatchingRanks) {
    try {
        iok::s3d::validate(Grid{100, 100, 100, 2, 2, 2}, 4);
        FAIL() << "no error";
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("= 8 processes, but the job has 4"), std::string::npos) << e.what();
        EXPECT_NE(e.hint().find("mpiexec -n 8"), std::string::npos);
    }
}

TEST(S3dDecomp, RejectsNonPositiveSizes) {
    EXPECT_THROW(iok::s3d::validate(Grid{0, 10, 10, 1, 1, 1}, 1), iok::Error);
    EXPECT_THROW(iok::s3d::validate(Grid{10, 10, 10, 1, 0, 1}, 1), iok::Error);
}
