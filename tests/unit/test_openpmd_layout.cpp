// openPMD kernels: 8a's layout of mesh patches and particles over the ranks
// covers the mesh and the particle list exactly once at every step,
// balanced or not, with one or many requests per rank; the patch shapes 8a
// picks; grids the ranks cannot share are refused.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "core/error.hpp"
#include "kernels/openpmd/openpmd_layout.hpp"

using namespace iok::openpmd;

namespace {

Config make(int dim, std::vector<std::uint64_t> block, std::vector<std::uint64_t> grid, bool balanced = true,
            bool rank_blocks = true) {
    Config c;
    c.set("dim", std::to_string(dim));
    c.min_block = std::move(block);
    c.grid = std::move(grid);
    c.given["minBlock"] = c.given["grid"] = "x";
    c.balanced = balanced;
    c.rank_blocks = rank_blocks;
    c.ratio = 2;
    c.resolve(1);
    return c;
}

// Every cell written once and every particle once, over all ranks.
void covers_once(const Config& c, int ranks, int step) {
    const Layout l(c, ranks);
    const auto shape = c.global_mesh();
    std::uint64_t cells = 1;
    for (auto n : shape) cells *= n;
    std::vector<int> hit(cells, 0), phit(c.particles(), 0);
    for (int r = 0; r < ranks; ++r) {
        const RankStep s = l.at(r, step);
        ASSERT_EQ(s.mesh.size(), s.particles.size());
        for (const Block& b : s.mesh) {
            std::vector<std::uint64_t> i(shape.size(), 0);
            for (;;) {
                std::uint64_t flat = 0;
                for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + b.offset[d] + i[d];
                ++hit[flat];
                std::size_t d = shape.size();
                while (d-- > 0 && ++i[d] == b.count[d]) i[d] = 0;
                if (d == static_cast<std::size_t>(-1)) break;
            }
        }
        for (const Range& p : s.particles)
            for (std::uint64_t k = 0; k < p.count; ++k) ++phit[p.offset + k];
    }
    for (auto h : hit) ASSERT_EQ(h, 1);
    for (auto h : phit) ASSERT_EQ(h, 1);
}

}  // namespace

TEST(OpenpmdLayout, EveryCellAndParticleOnceAtEveryStep) {
    for (bool balanced : {true, false})
        for (bool blocks : {true, false}) {
            covers_once(make(3, {4, 6, 5}, {4, 2, 1}, balanced, blocks), 4, 1);
            covers_once(make(3, {4, 6, 5}, {4, 2, 1}, balanced, blocks), 4, 2);
            covers_once(make(2, {3, 5}, {4, 3}, balanced, blocks), 4, 1);
            covers_once(make(3, {2, 2, 2}, {3, 4, 2}, balanced, blocks), 6, 4);
            covers_once(make(1, {7}, {20}, balanced, blocks), 10, 1);
            covers_once(make(3, {2, 2, 2}, {2, 2, 2}, balanced, blocks), 1, 1);
        }
}

TEST(OpenpmdLayout, PatchesAs8aPicksThem) {
    EXPECT_EQ(Layout(make(3, {1, 1, 1}, {8, 8, 8}), 4).patch_units(), (std::vector<std::uint64_t>{2, 8, 8}));
    EXPECT_EQ(Layout(make(3, {1, 1, 1}, {3, 8, 8}), 4).patch_units(), (std::vector<std::uint64_t>{3, 2, 8}));
    EXPECT_EQ(Layout(make(2, {1, 1}, {6, 4}), 8).patch_units(), (std::vector<std::uint64_t>{3, 1}));
    EXPECT_EQ(Layout(make(3, {1, 1, 1}, {2, 2, 2}), 8).patch_units(), (std::vector<std::uint64_t>{1, 1, 1}));
}

TEST(OpenpmdLayout, UnbalancedStepsIdleAndDouble) {
    const Config c = make(3, {4, 6, 5}, {4, 2, 1}, false);
    const Layout l(c, 4);
    EXPECT_TRUE(l.at(0, 1).mesh.empty());   // step 1: rank 0 idle
    EXPECT_EQ(l.at(1, 1).mesh.size(), 2u);  // rank 1: its patch and rank 0's
    EXPECT_EQ(l.at(1, 1).particles[0].offset, 0u);
    EXPECT_EQ(l.at(0, 2).mesh.size(), 1u);  // step 2: balanced
    EXPECT_EQ(l.at(0, 4).mesh.size(), 0u);  // step 4 again
}

TEST(OpenpmdLayout, GridRanksCannotShareIsRefused) {
    EXPECT_THROW(Layout(make(3, {1, 1, 1}, {3, 1, 1}), 2), iok::Error);
    EXPECT_THROW(Layout(make(2, {1, 1}, {8, 9}), 12), iok::Error);  // 8a: "patch unit needs to be {4,3}"
}

TEST(OpenpmdConfig, BadValuesAreRefused) {
    Config c;
    EXPECT_THROW(c.set("dim", "4"), iok::Error);
    EXPECT_THROW(c.set("ratio", "0"), iok::Error);
    EXPECT_THROW(c.set("steps", "-1"), iok::Error);
    EXPECT_THROW(c.set("minBlock", ""), iok::Error);
    EXPECT_THROW(c.set("encoding", "f"), iok::Error);
    EXPECT_THROW(c.set("pattern", "sq"), iok::Error);
    EXPECT_THROW(c.set("colour", "red"), iok::Error);
    c.set("dim", "2");
    c.set("minBlock", "4 4 4");
    EXPECT_THROW(c.resolve(2), iok::Error);  // three values for two dimensions
}
