// S3D checkpoint plans: file names as the reference prints them, the data
// model (dims, vars, attributes), per-rank selections and byte counts.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "kernels/s3d/s3d_options.hpp"
#include "kernels/s3d/s3d_plan.hpp"

using iok::s3d::Grid;

TEST(S3dPlan, FileNamesMatchReference) {
    EXPECT_EQ(iok::s3d::time_label(0), "0.000E+00");
    EXPECT_EQ(iok::s3d::time_label(1), "1.000E-06");
    EXPECT_EQ(iok::s3d::time_label(4), "4.000E-06");
    EXPECT_EQ(iok::s3d::time_label(12), "1.200E-05");
    EXPECT_EQ(iok::s3d::checkpoint_name(0, ".nc"), "pressure_wave_test.0.000E+00.field.nc");
    EXPECT_EQ(iok::s3d::checkpoint_name(3, ".h5"), "pressure_wave_test.3.000E-06.field.h5");
    EXPECT_EQ(iok::s3d::join_path("out", "a.nc"), "out/a.nc");
    EXPECT_EQ(iok::s3d::join_path("out/", "a.nc"), "out/a.nc");
}

TEST(S3dPlan, DataModelAsReference) {
    auto p = iok::s3d::checkpoint_plan(Grid{40, 30, 20, 2, 1, 1}, 1, 2);
    const auto& f = p.spec;
    ASSERT_EQ(f.dims.size(), 5u);
    const char* dn[] = {"x", "y", "z", "nsc", "three"};
    const std::uint64_t dl[] = {40, 30, 20, 11, 3};
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(f.dims[i].name, dn[i]);
        EXPECT_EQ(f.dims[i].length, dl[i]);
        EXPECT_FALSE(f.dims[i].unlimited);
    }
    ASSERT_EQ(f.vars.size(), 4u);
    EXPECT_EQ(f.vars[0].name, "yspecies");
    EXPECT_EQ(f.vars[0].dims, (std::vector<int>{3, 2, 1, 0}));
    EXPECT_EQ(f.vars[1].name, "u");
    EXPECT_EQ(f.vars[1].dims, (std::vector<int>{4, 2, 1, 0}));
    EXPECT_EQ(f.vars[2].name, "pressure");
    EXPECT_EQ(f.vars[2].dims, (std::vector<int>{2, 1, 0}));
    EXPECT_EQ(f.vars[3].name, "temp");
    for (const auto& v : f.vars) EXPECT_EQ(v.type, iok::DType::Double);
    ASSERT_EQ(f.global_attrs.size(), 3u);
    EXPECT_EQ(f.global_attrs[0].name, "time");
    EXPECT_DOUBLE_EQ(f.global_attrs[0].values.at(0), 2 * 0.076988811077757);
    EXPECT_EQ(f.global_attrs[1].name, "tstep");
    EXPECT_DOUBLE_EQ(f.global_attrs[1].values.at(0), 0.076988811077757);
    EXPECT_EQ(f.global_attrs[2].name, "time_save");
    EXPECT_DOUBLE_EQ(f.global_attrs[2].values.at(0), 100000.0);
    auto p0 = iok::s3d::checkpoint_plan(Grid{40, 30, 20, 2, 1, 1}, 0, 0);
    EXPECT_DOUBLE_EQ(p0.spec.global_attrs[0].values.at(0), 0.0);
    EXPECT_DOUBLE_EQ(p0.spec.global_attrs[1].values.at(0), 0.0);
}

TEST(S3dPlan, SelectionsAreOneBlockPerArray) {
    // rank 5 of 2x2x2 on 100^3: px 1, py 0, pz 1
    auto p = iok::s3d::checkpoint_plan(Grid{100, 100, 100, 2, 2, 2}, 5, 0);
    ASSERT_EQ(p.selection.size(), 4u);
    const auto& y = *p.selection[0];
    ASSERT_EQ(y.nblocks(), 1u);
    EXPECT_EQ(y.shape(), (std::vector<std::uint64_t>{11, 100, 100, 100}));
    EXPECT_EQ(std::vector<std::int64_t>(y.start(0), y.start(0) + 4), (std::vector<std::int64_t>{0, 50, 0, 50}));
    EXPECT_EQ(std::vector<std::int64_t>(y.count(0), y.count(0) + 4), (std::vector<std::int64_t>{11, 50, 50, 50}));
    const auto& u = *p.selection[1];
    EXPECT_EQ(std::vector<std::int64_t>(u.count(0), u.count(0) + 4), (std::vector<std::int64_t>{3, 50, 50, 50}));
    const auto& pr = *p.selection[2];
    EXPECT_EQ(pr.shape(), (std::vector<std::uint64_t>{100, 100, 100}));
    EXPECT_EQ(std::vector<std::int64_t>(pr.start(0), pr.start(0) + 3), (std::vector<std::int64_t>{50, 0, 50}));
    EXPECT_EQ(p.requests, 4u);
    EXPECT_EQ(p.nrecords, 1);
}

TEST(S3dPlan, ByteCountsSumToReferenceTotals) {
    const Grid g{100, 100, 100, 2, 2, 2};
    std::uint64_t bytes = 0;
    for (int r = 0; r < 8; ++r) {
        auto p = iok::s3d::checkpoint_plan(g, r, 0);
        for (const auto& s : p.selection) bytes += s->elements() * sizeof(double);
    }
    EXPECT_EQ(bytes, 128'000'000u);
    EXPECT_EQ(iok::s3d::checkpoint_bytes(g), 128'000'000u);
    // README: 5 checkpoints -> 0.60 GiB written, restart 0.12 GiB read
    EXPECT_NEAR(5.0 * iok::s3d::checkpoint_bytes(g) / (1 << 30), 0.596, 0.001);
    // 800^3, 4096 ranks: 305.18 GiB in 5 checkpoints
    EXPECT_NEAR(5.0 * iok::s3d::checkpoint_bytes(Grid{800, 800, 800, 16, 16, 16}) / (1 << 30), 305.18, 0.01);
}

TEST(S3dOptions, LogicalValuesLikeFortran) {
    EXPECT_TRUE(iok::s3d::parse_logical("T", "restart"));
    EXPECT_TRUE(iok::s3d::parse_logical(".true.", "restart"));
    EXPECT_FALSE(iok::s3d::parse_logical("f", "restart"));
    EXPECT_FALSE(iok::s3d::parse_logical("False", "restart"));
    EXPECT_THROW(iok::s3d::parse_logical("maybe", "restart"), iok::Error);
}

TEST(S3dOptions, ReferenceFormSetsEverything) {
    iok::s3d::Options o;
    o.reference_args = {"100", "100", "100", "2", "2", "2", "0", "T", "/tmp/x"};
    auto g = o.resolve(8);
    EXPECT_EQ(g.nx_g, 100);
    EXPECT_EQ(g.npz, 2);
    EXPECT_EQ(o.method, "blocking");
    EXPECT_TRUE(o.restart);
    EXPECT_EQ(o.dir, "/tmp/x");
    EXPECT_TRUE(o.reference_form());  // the kernel then keeps and clobbers, as the reference
    o.reference_args = {"100", "100"};
    EXPECT_THROW(o.resolve(8), iok::Error);
    o.reference_args = {"100", "1x0", "100", "2", "2", "2", "1", "T", "."};
    EXPECT_THROW(o.resolve(8), iok::Error);
}

TEST(S3dOptions, LocalTimesProcsWhenNoGrid) {
    iok::s3d::Options o;
    o.procs = {2, 1, 1};
    o.local = {10, 20, 30};
    auto g = o.resolve(2);
    EXPECT_EQ(g.nx_g, 20);
    EXPECT_EQ(g.ny_g, 20);
    EXPECT_EQ(g.nz_g, 30);
}
