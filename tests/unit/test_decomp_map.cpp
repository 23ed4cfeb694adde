// Decomposition maps: reading both formats, validation errors, block
// distribution, coalescing, and the spec's coverage and run counts; every
// container (classic, HDF5, NetCDF-4, ADIOS2 BP) written and read back, and
// content that is none of them refused with one message.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>

#include "core/error.hpp"
#include "formats/array_file.hpp"
#include "formats/cdf_classic.hpp"
#include "formats/decomp_map.hpp"
#include "formats/map_synth.hpp"
#include "formats/map_writer.hpp"
#include "scratch_dir.hpp"

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

// A rank's runs are sorted segments laid end to end (its map processes'
// lists); they are merged rather than sorted.  Whatever the segments, the
// result must be the one a plain sort and coalesce gives.
TEST(DecompMap, CoalesceOfSortedSegmentsEqualsSortThenCoalesce) {
    std::mt19937_64 rng(7);
    for (int segments : {1, 2, 3, 5, 32, 33, 400}) {
        // distinct cells of 2 elements, rows of 6: some neighbours merge
        std::vector<std::int64_t> cells(4000);
        std::iota(cells.begin(), cells.end(), 0);
        std::shuffle(cells.begin(), cells.end(), rng);
        std::vector<iok::Run> in;
        const std::size_t per = cells.size() / static_cast<std::size_t>(segments);
        for (int k = 0; k < segments; ++k) {
            std::vector<std::int64_t> seg(cells.begin() + k * per, cells.begin() + (k + 1) * per);
            std::sort(seg.begin(), seg.end());
            for (auto c : seg) in.push_back({2 * c, 1 + c % 2});  // lengths 1 and 2: gaps and neighbours
        }
        std::vector<iok::Run> expect = in;
        std::sort(expect.begin(), expect.end(),
                  [](const iok::Run& a, const iok::Run& b) { return a.offset < b.offset; });
        std::vector<iok::Run> merged;
        for (const auto& r : expect)
            if (!merged.empty() && merged.back().offset + merged.back().length == r.offset && r.offset % 6 != 0)
                merged.back().length += r.length;
            else
                merged.push_back(r);
        const auto got = coalesce_runs(in, 6, true);
        ASSERT_EQ(got.size(), merged.size()) << segments << " segments";
        for (std::size_t i = 0; i < got.size(); ++i) {
            EXPECT_EQ(got[i].offset, merged[i].offset) << segments << " segments, run " << i;
            EXPECT_EQ(got[i].length, merged[i].length) << segments << " segments, run " << i;
        }
    }
}

// Runs that overlap, are empty or cross a row cannot take the bitmap; the
// result must still be sort-then-coalesce's, runs kept apart as before.
TEST(DecompMap, CoalesceKeepsOverlappingEmptyAndRowCrossingRuns) {
    const auto c = coalesce_runs({{8, 4}, {0, 2}, {10, 1}, {2, 2}}, 6, true);  // {8,4} and {10,1} overlap
    ASSERT_EQ(c.size(), 3u);
    EXPECT_EQ(c[0].offset, 0);
    EXPECT_EQ(c[0].length, 4);
    EXPECT_EQ(c[1].offset, 8);
    EXPECT_EQ(c[2].offset, 10);
    const auto cross = coalesce_runs({{4, 4}, {0, 2}}, 6, true);  // {4,4} crosses the row at 6
    ASSERT_EQ(cross.size(), 2u);
    EXPECT_EQ(cross[1].offset, 4);
    EXPECT_EQ(cross[1].length, 4);
    const auto empty = coalesce_runs({{3, 0}, {0, 2}}, 6, true);
    ASSERT_EQ(empty.size(), 2u);
    EXPECT_EQ(empty[1].length, 0);
    // long runs spanning whole 64-bit words, cut at rows of 100
    const auto wide = coalesce_runs({{300, 100}, {0, 100}, {100, 100}, {250, 50}, {200, 50}}, 100, true);
    ASSERT_EQ(wide.size(), 4u);
    EXPECT_EQ(wide[2].offset, 200);
    EXPECT_EQ(wide[2].length, 100);
    EXPECT_EQ(wide[3].offset, 300);
    EXPECT_EQ(wide[3].length, 100);
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
    EXPECT_NE(m.find(p + ": D1, process 1, run 0 (offset 7, length 2): outside the 8 elements"), std::string::npos)
        << m;
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
    FMapOptions o;  // an F map as big as the real one (ne4, 16 processes)
    o.ne = 4;
    o.nprocs = 16;
    const std::string src = iok_test::scratch_path("f.nc"), p = tmp_path("trunc.nc");
    write_decomp_map(src, synth_f_map(o), {});
    fs::copy_file(src, p, fs::copy_options::overwrite_existing);
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

// ---- the map forms on generated maps (the real maps' figures: test_real_data.cpp) ----
namespace {

// The seed's map form (E3SM-IO's first dat2nc, as f_case_866x72_16p.nc and
// g_case_cmpaso_16p.nc): each process's runs sorted and merged, all real, no
// Dk.fill_starts, CDF-1.
void write_seed_form(const std::string& path, const DecompMap& m) {
    iok::cdf::Writer w(1);
    w.def_dim("num_decomp", m.decomps.size());
    const int np = w.def_dim("decomp_nprocs", m.nprocs);
    for (const Decomp& d : m.decomps) {
        std::vector<std::int64_t> nreqs, offsets, lengths;
        for (int p = 0; p < m.nprocs; ++p) {
            const auto runs = rank_runs(d, p, m.nprocs, true);
            nreqs.push_back(static_cast<std::int64_t>(runs.size()));
            for (const auto& r : runs) {
                offsets.push_back(r.offset);
                lengths.push_back(r.length);
            }
        }
        const int tot = w.def_dim(d.name + ".total_nreqs", offsets.size());
        w.put_att(-1, iok::cdf::Attr::Ints(d.name + ".ndims", iok::cdf::NcType::Int,
                                           {static_cast<std::int64_t>(d.dims.size())}));
        w.put_att(-1, iok::cdf::Attr::Ints(d.name + ".dims", iok::cdf::NcType::Int, d.dims));
        w.put_ints(w.def_var(d.name + ".nreqs", iok::cdf::NcType::Int, {np}), nreqs);
        w.put_ints(w.def_var(d.name + ".offsets", iok::cdf::NcType::Int, {tot}), offsets);
        w.put_ints(w.def_var(d.name + ".lengths", iok::cdf::NcType::Int, {tot}), lengths);
    }
    w.write(path);
}

}  // namespace

TEST(DecompMap, GeneratedFMapReadsBackWithItsRuns) {
    FMapOptions o;
    o.ne = 4;
    o.nprocs = 16;
    const DecompMap g = synth_f_map(o);
    const std::string p = iok_test::scratch_path("f.nc", MPI_COMM_WORLD);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) write_decomp_map(p, g, {});
    MPI_Barrier(MPI_COMM_WORLD);
    const DecompMap m = read_decomp_map_collective(p, MPI_COMM_WORLD);
    EXPECT_EQ(m.nprocs, 16);
    EXPECT_TRUE(m.has_fill_starts);
    ASSERT_EQ(m.decomps.size(), 3u);
    EXPECT_EQ(m.decomps[2].dims, (std::vector<std::int64_t>{72, 866}));
    EXPECT_EQ(m.decomps[0].covered_elements(), 866);
    EXPECT_EQ(m.decomps[1].covered_elements(), 866);
    EXPECT_EQ(m.decomps[2].covered_elements(), 72 * 866);
    for (const auto& d : m.decomps) EXPECT_FALSE(d.has_fill_runs()) << d.name;
    EXPECT_EQ(m.decomps[0].real_runs(), 47);  // the real ne4 map's dynamics runs
    // Sorting merges runs (D2's physics chunks), never splits them; fewer
    // ranks than processes merge across processes too.
    const auto sorted = runs_per_rank(m, 16, true), unsorted = runs_per_rank(m, 16, false);
    for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(sum(unsorted[k]), static_cast<std::uint64_t>(m.decomps[k].real_runs())) << k;
        EXPECT_LE(sum(sorted[k]), sum(unsorted[k])) << k;
        EXPECT_LE(sum(runs_per_rank(m, 4, true)[k]), sum(sorted[k])) << k;
    }
    EXPECT_LT(sum(sorted[1]), sum(unsorted[1]));
    EXPECT_EQ(sum(sorted[2]), 72 * sum(sorted[1]));  // D3: D2's runs on each level
}

TEST(DecompMap, SeedFormMatchesCurrentFormAfterSorting) {
    FMapOptions fo;
    fo.ne = 2;
    fo.nprocs = 5;
    GMapOptions go;
    go.ncells = 60;
    go.nlev = 3;
    go.nprocs = 4;
    for (const DecompMap& gen : {synth_f_map(fo), synth_g_map(go)}) {
        const std::string cur = iok_test::scratch_path("cur.nc"), seed = iok_test::scratch_path("seed.nc");
        write_decomp_map(cur, gen, {});
        write_seed_form(seed, gen);
        const DecompMap a = read_decomp_map(seed), b = read_decomp_map(cur);
        EXPECT_FALSE(a.has_fill_starts);
        EXPECT_TRUE(b.has_fill_starts);
        ASSERT_EQ(a.decomps.size(), gen.decomps.size());
        for (std::size_t k = 0; k < a.decomps.size(); ++k) {
            EXPECT_EQ(a.decomps[k].dims, b.decomps[k].dims);
            EXPECT_EQ(a.decomps[k].fill_starts, a.decomps[k].nreqs);  // seed form: every run is real
            for (int r = 0; r < gen.nprocs; ++r) {
                auto x = rank_runs(a.decomps[k], r, gen.nprocs, true), y = rank_runs(b.decomps[k], r, gen.nprocs, true);
                ASSERT_EQ(x.size(), y.size()) << "D" << k + 1 << " rank " << r;
                for (std::size_t i = 0; i < x.size(); ++i) {
                    EXPECT_EQ(x[i].offset, y[i].offset);
                    EXPECT_EQ(x[i].length, y[i].length);
                }
            }
        }
    }
}

TEST(DecompMap, GeneratedICaseHasFillRuns) {
    const DecompMap gen = synth_i_map(IMapOptions{});
    const std::string p = iok_test::scratch_path("i.nc");
    write_decomp_map(p, gen, {});
    const DecompMap m = read_decomp_map(p);
    ASSERT_EQ(m.decomps.size(), 5u);
    EXPECT_EQ(m.decomps[0].dims, (std::vector<std::int64_t>{96, 144}));
    for (const auto& d : m.decomps) {
        EXPECT_TRUE(d.has_fill_runs()) << d.name;
        // Real plus fill runs cover each array exactly once.
        std::int64_t all = 0;
        for (auto l : d.lengths) all += l;
        EXPECT_EQ(all, d.elements()) << d.name;
        EXPECT_LT(d.covered_elements(), d.elements()) << d.name;
    }
}

// ---- every container E3SM-IO keeps maps in --------------------------------------
namespace {

// Two decompositions over 3 processes: D1 (2 x 4) with fill runs and a
// process without runs, D2 (5) fully covered.
DecompMap small_map_with_fill() {
    DecompMap m;
    m.nprocs = 3;
    m.has_fill_starts = true;
    Decomp a;
    a.name = "D1";
    a.dims = {2, 4};
    a.nreqs = {2, 0, 2};
    a.fill_starts = {1, 0, 2};
    a.offsets = {4, 0, 2, 6};
    a.lengths = {2, 2, 1, 1};
    Decomp b;
    b.name = "D2";
    b.dims = {5};
    b.nreqs = {1, 1, 1};
    b.fill_starts = b.nreqs;
    b.offsets = {3, 0, 1};
    b.lengths = {2, 1, 2};
    for (Decomp* d : {&a, &b}) {
        std::int64_t acc = 0;
        for (auto n : d->nreqs) {
            d->first.push_back(acc);
            acc += n;
        }
    }
    m.decomps = {a, b};
    return m;
}

void expect_same_map(const DecompMap& x, const DecompMap& y, const std::string& what) {
    EXPECT_EQ(x.nprocs, y.nprocs) << what;
    EXPECT_EQ(x.has_fill_starts, y.has_fill_starts) << what;
    ASSERT_EQ(x.decomps.size(), y.decomps.size()) << what;
    for (std::size_t k = 0; k < x.decomps.size(); ++k) {
        const Decomp &a = x.decomps[k], &b = y.decomps[k];
        EXPECT_EQ(a.name, b.name) << what;
        EXPECT_EQ(a.dims, b.dims) << what << " " << a.name;
        EXPECT_EQ(a.nreqs, b.nreqs) << what << " " << a.name;
        EXPECT_EQ(a.fill_starts, b.fill_starts) << what << " " << a.name;
        EXPECT_EQ(a.offsets, b.offsets) << what << " " << a.name;
        EXPECT_EQ(a.lengths, b.lengths) << what << " " << a.name;
        EXPECT_EQ(a.first, b.first) << what << " " << a.name;
    }
}

std::string read_error(const std::string& path) {
    try {
        read_decomp_map(path);
    } catch (const iok::Error& e) {
        return std::string(e.what()) + " | hint: " + e.hint();
    }
    return "(no error)";
}

const char* kAccepted =
    "maps are NetCDF classic (CDF-1, CDF-2, CDF-5), HDF5 or NetCDF-4 files, ADIOS2 BP3 files or BP4/BP5 directories";

}  // namespace

TEST(MapFormats, EveryFormatRoundTripsTheSameMap) {
    const DecompMap m = small_map_with_fill();
    std::vector<RawOffsets> raw(2);
    raw[0] = {{3, 0, 2}, {5, 6, 1, 3, 8}};
    raw[1] = {{2, 1, 2}, {4, 5, 1, 2, 3}};
    int tested = 0;
    for (const std::string& name : iok::formats::file_format_names()) {
        const auto fmt = iok::formats::parse_file_format(name);
        if (!iok::formats::file_format_available(fmt)) continue;  // a build without that library
        const std::string p = iok_test::scratch_path("map." + name);
        MapWriteOptions opt;
        opt.format = fmt;
        opt.command_line = "unit test";
        write_decomp_map(p, m, opt, &raw);
        DecompMap back = read_decomp_map(p);
        EXPECT_EQ(back.path, p);
        expect_same_map(m, back, name);
        // Writing again over the previous file (or BP directory) replaces it.
        write_decomp_map(p, m, opt, &raw);
        expect_same_map(m, read_decomp_map(p), name + " rewritten");
        ++tested;
    }
#if defined(IOK_HAVE_HDF5) && defined(IOK_HAVE_NETCDF4) && defined(IOK_HAVE_ADIOS2)
    EXPECT_EQ(tested, 8);
#endif
    EXPECT_GE(tested, 3);
}

// Parts of arrays: NetCDF classic reads them alone (ranks then read their
// own runs of a map); every container gives the same entries as the whole
// array cut, and refuses a range outside it.
TEST(MapFormats, SlicesOfArraysEqualTheWholeArrayCut) {
    const DecompMap m = small_map_with_fill();
    std::vector<RawOffsets> raw(2);
    raw[0] = {{3, 0, 2}, {5, 6, 1, 3, 8}};
    raw[1] = {{2, 1, 2}, {4, 5, 1, 2, 3}};
    for (const std::string& name : iok::formats::file_format_names()) {
        const auto fmt = iok::formats::parse_file_format(name);
        if (!iok::formats::file_format_available(fmt)) continue;
        const std::string p = iok_test::scratch_path("slices." + name);
        MapWriteOptions opt;
        opt.format = fmt;
        write_decomp_map(p, m, opt, &raw);
        auto r = iok::formats::open_array_file(p);
        EXPECT_EQ(r->reads_slices(), name.rfind("cdf", 0) == 0) << name;
        for (const char* a : {"D1.offsets", "D2.lengths"}) {
            const auto whole = r->read_ints(a);
            ASSERT_EQ(r->array_length(a), whole.size()) << name << " " << a;
            for (std::uint64_t b = 0; b <= whole.size(); ++b)
                for (std::uint64_t c = 0; b + c <= whole.size(); ++c)
                    EXPECT_EQ(r->read_int_slice(a, b, c),
                              std::vector<std::int64_t>(whole.begin() + static_cast<long>(b),
                                                        whole.begin() + static_cast<long>(b + c)))
                        << name << " " << a << " [" << b << ", +" << c << ")";
            EXPECT_THROW(r->read_int_slice(a, whole.size(), 1), iok::Error) << name;
            EXPECT_THROW(r->read_int_slice(a, 1, whole.size()), iok::Error) << name;
        }
        // a rank's share: the runs of its map processes, as the whole map has them
        const DecompMap whole = read_decomp_map(p);
        for (int share = 0; share < 3; ++share) {
            const DecompMap part = read_decomp_map_share(p, MPI_COMM_WORLD, share, 3);
            for (std::size_t k = 0; k < whole.decomps.size(); ++k) {
                const Decomp &w = whole.decomps[k], &d = part.decomps[k];
                // rank 0 (this process) keeps the whole map unless each rank reads its own runs
                EXPECT_EQ(d.whole(), !r->reads_slices()) << name;
                const ProcRange pr = map_procs_of_rank(m.nprocs, share, 3);
                for (int q = pr.first; q < pr.first + pr.count; ++q)
                    for (bool fill : {false, true})
                        EXPECT_EQ(fill ? d.process_fill_runs(q).size() : d.process_runs(q).size(),
                                  fill ? w.process_fill_runs(q).size() : w.process_runs(q).size())
                            << name << " D" << k + 1 << " process " << q;
                for (int q = pr.first; q < pr.first + pr.count; ++q) {
                    const auto a = d.process_runs(q), b = w.process_runs(q);
                    for (std::size_t i = 0; i < a.size(); ++i) {
                        EXPECT_EQ(a[i].offset, b[i].offset) << name << " process " << q << " run " << i;
                        EXPECT_EQ(a[i].length, b[i].length) << name << " process " << q << " run " << i;
                    }
                }
            }
        }
    }
}

TEST(MapFormats, ContainersAreRecognisedByContentNotName) {
    const DecompMap m = small_map_with_fill();
    for (const std::string& name :
         {std::string("hdf5"), std::string("netcdf4"), std::string("bp4"), std::string("bp5")}) {
        const auto fmt = iok::formats::parse_file_format(name);
        if (!iok::formats::file_format_available(fmt)) continue;
        const std::string p = iok_test::scratch_path("misnamed_" + name + ".nc");  // .nc, but not classic
        MapWriteOptions opt;
        opt.format = fmt;
        write_decomp_map(p, m, opt);
        expect_same_map(m, read_decomp_map(p), name + " named .nc");
    }
    if (!iok::formats::file_format_available(iok::formats::FileFormat::Bp3)) return;
    // ADIOS2 would write a BP3 map named m.nc as m.nc.bp: refused, not written elsewhere.
    MapWriteOptions opt;
    opt.format = iok::formats::FileFormat::Bp3;
    const std::string nc = iok_test::scratch_path("m.nc");
    try {
        write_decomp_map(nc, m, opt);
        FAIL() << "BP3 written as " << nc;
    } catch (const iok::Error& e) {
        EXPECT_EQ(std::string(e.what()), nc +
                                             ": ADIOS2 writes BP3 files only under names ending in .bp (this one "
                                             "would become " +
                                             nc + ".bp)");
    }
    EXPECT_FALSE(fs::exists(nc));
    EXPECT_FALSE(fs::exists(nc + ".bp"));
}

TEST(MapFormats, UnknownContentIsRefusedWithOneMessage) {
    const std::string garbage = iok_test::scratch_path("garbage.nc");
    std::ofstream(garbage, std::ios::binary) << std::string("\x13\x37\xbe\xef garbage bytes\x01\x02", 20);
    std::string e = read_error(garbage);
    EXPECT_NE(e.find(garbage +
                     ": not a decomposition map file: it looks like a binary file of 20 bytes starting 13 37 be ef"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find(kAccepted), std::string::npos) << e;

    const std::string empty = iok_test::scratch_path("empty.h5");
    std::ofstream(empty, std::ios::binary).flush();
    e = read_error(empty);
    EXPECT_NE(e.find(empty + ": not a decomposition map file: it looks like an empty file;"), std::string::npos) << e;

    const std::string dir = iok_test::scratch_path("x.bp");
    fs::create_directory(dir);
    e = read_error(dir);
    EXPECT_NE(e.find(dir + ": not a decomposition map file: it looks like an empty directory without the md.idx of an "
                           "ADIOS2 BP4/BP5 dataset"),
              std::string::npos)
        << e;

    // The PIO text a map is made from: the message says how to convert it.
    const std::string dat = iok_test::scratch_path("decomp.dat");
    std::ofstream(dat) << "version 2001 npes 2 ndims 1\n8\n0 2\n1 2\n1 2\n5 6 7 8\n";
    e = read_error(dat);
    EXPECT_NE(e.find("it looks like a PIO decomposition text file ('version 2001 npes 2 ndims 1...')"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("hint: convert it (one .dat per decomposition) with: dat2nc"), std::string::npos) << e;

    // A classic file of an unknown version byte is not read as classic.
    const std::string cdf9 = iok_test::scratch_path("cdf9.nc");
    std::ofstream(cdf9, std::ios::binary) << std::string("CDF\x09\0\0\0\0", 8);
    e = read_error(cdf9);
    EXPECT_NE(e.find("it looks like a NetCDF classic file of unknown version byte 9"), std::string::npos) << e;
}

TEST(MapFormats, TruncatedFilesOfEachContainerAreErrors) {
    const DecompMap m = small_map_with_fill();
    for (const std::string& name : {std::string("hdf5"), std::string("netcdf4"), std::string("bp")}) {
        const auto fmt = iok::formats::parse_file_format(name);
        if (!iok::formats::file_format_available(fmt)) continue;
        const std::string p = iok_test::scratch_path("trunc." + name);
        MapWriteOptions opt;
        opt.format = fmt;
        write_decomp_map(p, m, opt);
        fs::resize_file(p, fs::file_size(p) / 2);
        const std::string e = read_error(p);
        EXPECT_EQ(e.rfind(p + ": ", 0), 0u) << name << ": " << e;
        if (name != "bp") {  // HDF5 and NetCDF-4 keep their signature at byte 0
            EXPECT_NE(e.find(p + ": has the HDF5 signature but HDF5 cannot open it"), std::string::npos) << e;
            EXPECT_NE(e.find("hint: the file is truncated or damaged"), std::string::npos) << e;
        } else {  // BP3's identity is its footer: half a file has none
            EXPECT_NE(e.find("not a decomposition map file: it looks like a binary file"), std::string::npos) << e;
        }
    }
}

TEST(MapFormats, AMissingLibraryOrFormatNameIsNamed) {
    try {
        iok::formats::parse_file_format("zarr");
        FAIL();
    } catch (const iok::Error& e) {
        EXPECT_EQ(std::string(e.what()), "unknown map format 'zarr'");
        EXPECT_EQ(e.hint(), "use one of cdf1, cdf2, cdf5, hdf5, netcdf4, bp, bp4, bp5");
    }
}

TEST(MapFormats, CollectiveReadOfGarbageFailsOnEveryRank) {
    const std::string p = iok_test::scratch_path("garbage.bp", MPI_COMM_WORLD);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) std::ofstream(p, std::ios::binary) << std::string(100, '\x07');
    MPI_Barrier(MPI_COMM_WORLD);
    try {
        read_decomp_map_collective(p, MPI_COMM_WORLD);
        FAIL();
    } catch (const iok::Error& e) {
        EXPECT_NE(
            std::string(e.what()).find(p + ": not a decomposition map file: it looks like a binary file of 100 bytes"),
            std::string::npos)
            << e.what();
    }
}

// E3SM-IO's reading of a map with fill runs (--map-reading e3sm-io): each
// rank's window of the concatenated runs is counted by fill_starts, so it
// slides over the blocks; without fill runs both readings agree.
TEST(DecompMap, E3smIoReadingCountsWindowsByFillStarts) {
    Decomp d;
    d.name = "D1";
    d.dims = {1, 100};
    // process 0: real runs at 0, 10 and a fill run at 90; process 1: real 20, 30, fill 95
    d.nreqs = {3, 3};
    d.fill_starts = {2, 2};
    d.offsets = {0, 10, 90, 20, 30, 95};
    d.lengths = {5, 5, 5, 5, 5, 5};
    d.first = {0, 3};
    auto offsets = [](const std::vector<iok::Run>& runs) {
        std::vector<std::int64_t> o;
        for (const auto& r : runs) o.push_back(r.offset);
        return o;
    };
    // the map's definition: each process's own real runs
    EXPECT_EQ(offsets(rank_runs(d, 0, 2, false)), (std::vector<std::int64_t>{0, 10}));
    EXPECT_EQ(offsets(rank_runs(d, 1, 2, false)), (std::vector<std::int64_t>{20, 30}));
    // E3SM-IO: rank 1 starts at entry 2 (process 0's fill run) and never reaches 30
    EXPECT_EQ(offsets(rank_runs(d, 0, 2, false, false, MapReading::E3smIo)), (std::vector<std::int64_t>{0, 10}));
    EXPECT_EQ(offsets(rank_runs(d, 1, 2, false, false, MapReading::E3smIo)), (std::vector<std::int64_t>{90, 20}));
    // one rank: the first Σ fill_starts = 4 entries
    EXPECT_EQ(offsets(rank_runs(d, 0, 1, false, false, MapReading::E3smIo)),
              (std::vector<std::int64_t>{0, 10, 90, 20}));
    // fill runs are read by process in either reading
    EXPECT_EQ(offsets(rank_runs(d, 1, 2, false, true, MapReading::E3smIo)), (std::vector<std::int64_t>{95}));
    // no fill runs: the same runs
    d.fill_starts = {3, 3};
    for (int r = 0; r < 2; ++r)
        EXPECT_EQ(offsets(rank_runs(d, r, 2, true, false, MapReading::E3smIo)), offsets(rank_runs(d, r, 2, true)));
}
