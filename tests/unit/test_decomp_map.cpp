// Decomposition maps: reading both formats, validation errors, block
// distribution, coalescing, and the spec's coverage and run counts.
#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>

#include "core/error.hpp"
#include "e3sm_test_data.hpp"
#include "formats/cdf_classic.hpp"
#include "kernels/e3sm/decomp_map.hpp"

using namespace iok::e3sm;

namespace fs = std::filesystem;

namespace {

std::string tmp_path(const std::string& name) {
    return (fs::temp_directory_path() / ("iok_map_" + std::to_string(::getpid()) + "_" + name)).string();
}

// A one-decomposition map of dims (2, 4) over 2 processes, current format.
void write_tiny_map(const std::string& path, std::vector<std::int64_t> offsets, std::vector<std::int64_t> lengths,
                    std::vector<std::int64_t> nreqs = {2, 1}) {
    iok::cdf::Writer w(5);
    w.def_dim("num_decomp", 1);
    int np = w.def_dim("decomp_nprocs", 2);
    int tot = w.def_dim("D1.total_nreqs", offsets.size());
    w.put_att(-1, iok::cdf::Attr::Ints("D1.ndims", iok::cdf::NcType::Int, {2}));
    w.put_att(-1, iok::cdf::Attr::Ints("D1.dims", iok::cdf::NcType::Int, {2, 4}));
    int v = w.def_var("D1.nreqs", iok::cdf::NcType::Int, {np});
    w.put_ints(v, nreqs);
    v = w.def_var("D1.fill_starts", iok::cdf::NcType::Int, {np});
    w.put_ints(v, nreqs);
    v = w.def_var("D1.offsets", iok::cdf::NcType::Int, {tot});
    w.put_ints(v, offsets);
    v = w.def_var("D1.lengths", iok::cdf::NcType::Int, {tot});
    w.put_ints(v, lengths);
    w.write(path);
}

std::string error_of(const std::string& path) {
    try {
        read_decomp_map(path);
    } catch (const iok::Error& e) {
        return e.what();
    }
    return "";
}

std::uint64_t sum(const std::vector<std::uint64_t>& v) { return std::accumulate(v.begin(), v.end(), std::uint64_t{0}); }

}  // namespace

TEST(DecompMap, BlockDistribution) {
    // 16 map processes over 5 ranks: 4,3,3,3,3.
    EXPECT_EQ(map_procs_of_rank(16, 0, 5).first, 0);
    EXPECT_EQ(map_procs_of_rank(16, 0, 5).count, 4);
    EXPECT_EQ(map_procs_of_rank(16, 1, 5).first, 4);
    EXPECT_EQ(map_procs_of_rank(16, 1, 5).count, 3);
    EXPECT_EQ(map_procs_of_rank(16, 4, 5).first, 13);
    EXPECT_EQ(map_procs_of_rank(16, 4, 5).count, 3);
    // More ranks than map processes: the extra ranks own nothing.
    EXPECT_EQ(map_procs_of_rank(16, 15, 20).count, 1);
    EXPECT_EQ(map_procs_of_rank(16, 16, 20).count, 0);
    EXPECT_EQ(map_procs_of_rank(16, 19, 20).count, 0);
}

TEST(DecompMap, CoalesceStaysWithinRows) {
    std::vector<iok::Run> in = {{6, 2}, {4, 2}, {0, 2}, {2, 2}, {8, 1}};
    auto sorted = coalesce_runs(in, 4, true);
    // 0..3 in one row, 4..7 in the next, 8 starts a third row.
    ASSERT_EQ(sorted.size(), 3u);
    EXPECT_EQ(sorted[0].offset, 0);
    EXPECT_EQ(sorted[0].length, 4);
    EXPECT_EQ(sorted[1].offset, 4);
    EXPECT_EQ(sorted[1].length, 4);
    EXPECT_EQ(sorted[2].offset, 8);
    // Without sorting only neighbours in the given order merge: {6,2},{4,2}
    // are not adjacent in that order, {0,2},{2,2} are.
    auto unsorted = coalesce_runs(in, 4, false);
    EXPECT_EQ(unsorted.size(), 4u);
}

TEST(DecompMap, TinyMapRoundTripAndRankRuns) {
    const std::string p = tmp_path("tiny.nc");
    write_tiny_map(p, {4, 0, 2}, {2, 2, 2});
    DecompMap m = read_decomp_map(p);
    ASSERT_EQ(m.decomps.size(), 1u);
    EXPECT_TRUE(m.has_fill_starts);
    EXPECT_EQ(m.decomps[0].dims, (std::vector<std::int64_t>{2, 4}));
    EXPECT_EQ(m.decomps[0].covered_elements(), 6);
    // One rank owns both processes: runs {4,2},{0,2},{2,2} -> {0,4},{4,2}.
    auto r = rank_runs(m.decomps[0], 0, 1, true);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].length, 4);
    EXPECT_EQ(r[1].offset, 4);
    EXPECT_EQ(runs_per_rank(m, 3, true)[0], (std::vector<std::uint64_t>{2, 1, 0}));
    fs::remove(p);
}

TEST(DecompMap, OffsetOutOfRangeIsAnError) {
    const std::string p = tmp_path("range.nc");
    write_tiny_map(p, {4, 0, 7}, {2, 2, 2});  // 7+2 > 8 elements
    std::string m = error_of(p);
    EXPECT_NE(m.find(p + ": D1, process 1, run 0 (offset 7, length 2): outside the 8 elements"), std::string::npos) << m;
    fs::remove(p);
}

TEST(DecompMap, RunCrossingARowIsAnError) {
    const std::string p = tmp_path("cross.nc");
    write_tiny_map(p, {4, 2, 0}, {2, 3, 1});  // 2..4 crosses the row end at 4
    std::string m = error_of(p);
    EXPECT_NE(m.find("D1, process 0, run 1 (offset 2, length 3): crosses a row of the fastest dimension"),
              std::string::npos)
        << m;
    fs::remove(p);
}

TEST(DecompMap, BadLengthsAndCountsAreErrors) {
    const std::string p = tmp_path("bad.nc");
    write_tiny_map(p, {4, 0, 2}, {2, 0, 2});
    EXPECT_NE(error_of(p).find("length must be >= 1"), std::string::npos) << error_of(p);
    write_tiny_map(p, {4, 0, 2}, {2, 2, 2}, {1, 1});
    EXPECT_NE(error_of(p).find("nreqs of all processes sum to 2 but D1.total_nreqs is 3"), std::string::npos)
        << error_of(p);
    fs::remove(p);
}

TEST(DecompMap, TruncatedMapIsAnError) {
    IOK_REQUIRE_DATASET(src, "map_f_case_16p.nc");
    const std::string p = tmp_path("trunc.nc");
    fs::copy_file(src, p, fs::copy_options::overwrite_existing);
    fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write);
    fs::resize_file(p, fs::file_size(src) / 2);
    std::string m = error_of(p);
    EXPECT_NE(m.find(p + ": truncated: variable D3."), std::string::npos) << m;
    EXPECT_NE(m.find("but the file has " + std::to_string(fs::file_size(src) / 2)), std::string::npos) << m;
    fs::remove(p);
}

TEST(DecompMap, NotAMapIsAnError) {
    const std::string p = tmp_path("notmap.nc");
    iok::cdf::Writer w(1);
    w.def_dim("x", 1);
    w.write(p);
    EXPECT_NE(error_of(p).find("dimension 'num_decomp' is missing"), std::string::npos);
    fs::remove(p);
}

TEST(DecompMap, CollectiveReadFailsOnEveryRankWithTheSameError) {
    try {
        read_decomp_map_collective("/nonexistent/map.nc", MPI_COMM_WORLD);
        FAIL();
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/map.nc: cannot open"), std::string::npos);
    }
}

TEST(DecompMap, FCaseCurrentFormatCoverage) {
    IOK_REQUIRE_DATASET(p, "map_f_case_16p.nc");
    DecompMap m = read_decomp_map_collective(p, MPI_COMM_WORLD);
    EXPECT_EQ(m.nprocs, 16);
    EXPECT_TRUE(m.has_fill_starts);
    ASSERT_EQ(m.decomps.size(), 3u);
    EXPECT_EQ(m.decomps[0].covered_elements(), 866);
    EXPECT_EQ(m.decomps[0].real_runs(), 47);
    EXPECT_EQ(m.decomps[1].covered_elements(), 866);
    EXPECT_EQ(m.decomps[1].real_runs(), 866);
    EXPECT_EQ(m.decomps[2].dims, (std::vector<std::int64_t>{72, 866}));
    EXPECT_EQ(m.decomps[2].covered_elements(), 72 * 866);
    EXPECT_EQ(m.decomps[2].real_runs(), 62352);
    for (const auto& d : m.decomps) EXPECT_FALSE(d.has_fill_runs());
    // Sorting and coalescing on 16 ranks gives the seed map's run counts.
    auto c = runs_per_rank(m, 16, true);
    EXPECT_EQ(sum(c[0]), 47u);
    EXPECT_EQ(sum(c[1]), 407u);
    EXPECT_EQ(sum(c[2]), 29304u);
    // Unsorted keeps the file's runs.
    EXPECT_EQ(sum(runs_per_rank(m, 16, false)[2]), 62352u);
    // Fewer ranks than map processes: more merging across processes is possible.
    EXPECT_LE(sum(runs_per_rank(m, 4, true)[2]), 29304u);
}

TEST(DecompMap, FCaseSeedFormatMatchesCurrentAfterSorting) {
    IOK_REQUIRE_DATASET(seed, "f_case_866x72_16p.nc");
    IOK_REQUIRE_DATASET(cur, "map_f_case_16p.nc");
    DecompMap a = read_decomp_map(seed), b = read_decomp_map(cur);
    EXPECT_FALSE(a.has_fill_starts);
    for (std::size_t k = 0; k < 3; ++k)
        for (int r = 0; r < 16; ++r) {
            auto x = rank_runs(a.decomps[k], r, 16, true), y = rank_runs(b.decomps[k], r, 16, true);
            ASSERT_EQ(x.size(), y.size()) << "D" << k + 1 << " rank " << r;
            for (std::size_t i = 0; i < x.size(); ++i) {
                EXPECT_EQ(x[i].offset, y[i].offset);
                EXPECT_EQ(x[i].length, y[i].length);
            }
        }
}

TEST(DecompMap, ICaseHasFillRuns) {
    IOK_REQUIRE_DATASET(p, "map_i_case_16p.nc");
    DecompMap m = read_decomp_map(p);
    ASSERT_EQ(m.decomps.size(), 5u);
    EXPECT_EQ(m.decomps[0].dims, (std::vector<std::int64_t>{96, 144}));
    for (const auto& d : m.decomps) {
        EXPECT_TRUE(d.has_fill_runs());
        // Real plus fill runs cover each array exactly once.
        std::int64_t all = 0;
        for (auto l : d.lengths) all += l;
        EXPECT_EQ(all, d.elements()) << d.name;
        EXPECT_LT(d.covered_elements(), d.elements());
    }
}

TEST(DecompMap, GCaseBothFormatsRead) {
    IOK_REQUIRE_DATASET(a, "map_g_case_16p.nc");
    IOK_REQUIRE_DATASET(b, "g_case_cmpaso_16p.nc");
    EXPECT_EQ(read_decomp_map(a).decomps.size(), 6u);
    DecompMap g = read_decomp_map(b);
    EXPECT_EQ(g.decomps[5].dims, (std::vector<std::int64_t>{28571, 101}));
}
