// Comparisons with the user's real data (../shared, or $IOK_SHARED): the
// figures of the spec on E3SM's own maps and PIO .dat files, and of the GCRM
// reference's inputs.  One test per dataset, so a clone without ../shared
// skips two tests; every property these figures rest on (reading each map
// form and container, fill runs, sorting, plans) is also tested on generated
// inputs in the other files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "e3sm_test_data.hpp"
#include "formats/array_file.hpp"
#include "formats/decomp_map.hpp"
#include "formats/map_writer.hpp"
#include "formats/pio_dat.hpp"
#include "kernels/e3sm/case_spec.hpp"
#include "kernels/e3sm/case_stats.hpp"
#include "kernels/gcrm/gcrm_format.hpp"
#include "kernels/gcrm/gcrm_inputs.hpp"
#include "kernels/gcrm/gcrm_plan.hpp"

using namespace iok;
using namespace iok::e3sm;

namespace {

std::uint64_t sum(const std::vector<std::uint64_t>& v) {
    std::uint64_t n = 0;
    for (auto x : v) n += x;
    return n;
}

void expect_same_runs(const Decomp& a, const Decomp& b, int nprocs, const std::string& what) {
    for (int r = 0; r < nprocs; ++r) {
        auto x = rank_runs(a, r, nprocs, true), y = rank_runs(b, r, nprocs, true);
        ASSERT_EQ(x.size(), y.size()) << what << " rank " << r;
        for (std::size_t i = 0; i < x.size(); ++i) {
            EXPECT_EQ(x[i].offset, y[i].offset) << what << " rank " << r;
            EXPECT_EQ(x[i].length, y[i].length) << what << " rank " << r;
        }
    }
}

void expect_same_map(const DecompMap& x, const DecompMap& y, const std::string& what) {
    EXPECT_EQ(x.nprocs, y.nprocs) << what;
    EXPECT_EQ(x.has_fill_starts, y.has_fill_starts) << what;
    ASSERT_EQ(x.decomps.size(), y.decomps.size()) << what;
    for (std::size_t k = 0; k < x.decomps.size(); ++k) {
        const Decomp &a = x.decomps[k], &b = y.decomps[k];
        EXPECT_EQ(a.dims, b.dims) << what << " " << a.name;
        EXPECT_EQ(a.nreqs, b.nreqs) << what << " " << a.name;
        EXPECT_EQ(a.fill_starts, b.fill_starts) << what << " " << a.name;
        EXPECT_EQ(a.offsets, b.offsets) << what << " " << a.name;
        EXPECT_EQ(a.lengths, b.lengths) << what << " " << a.name;
    }
}

std::string gcrm_dir() {
    const char* s = std::getenv("IOK_SHARED");
    return (s ? std::string(s) : std::string(IOK_SOURCE_DIR) + "/../shared") + "/datasets/gcrm";
}

}  // namespace

// E3SM's maps (../shared/datasets/e3sm): the F map's runs and requests as
// the spec gives them, the seed-form maps equal to the current ones after
// sorting, the I map's fill runs, the PIO .dat files converted as the seed's
// dat2nc did, and E3SM-IO's HDF5 / NetCDF-4 / BP maps equal to their .nc.
TEST(RealData, E3smMapsGiveTheSpecsFigures) {
    IOK_REQUIRE_DATASET(f_nc, "map_f_case_16p.nc");
    IOK_REQUIRE_DATASET(f_seed, "f_case_866x72_16p.nc");
    IOK_REQUIRE_DATASET(g_nc, "map_g_case_16p.nc");
    IOK_REQUIRE_DATASET(g_seed, "g_case_cmpaso_16p.nc");
    IOK_REQUIRE_DATASET(i_nc, "map_i_case_16p.nc");

    // F, current form: coverage and runs as in the spec.
    const DecompMap f = read_decomp_map_collective(f_nc, MPI_COMM_WORLD);
    EXPECT_EQ(f.nprocs, 16);
    EXPECT_TRUE(f.has_fill_starts);
    ASSERT_EQ(f.decomps.size(), 3u);
    EXPECT_EQ(f.decomps[0].covered_elements(), 866);
    EXPECT_EQ(f.decomps[0].real_runs(), 47);
    EXPECT_EQ(f.decomps[1].covered_elements(), 866);
    EXPECT_EQ(f.decomps[1].real_runs(), 866);
    EXPECT_EQ(f.decomps[2].dims, (std::vector<std::int64_t>{72, 866}));
    EXPECT_EQ(f.decomps[2].covered_elements(), 72 * 866);
    EXPECT_EQ(f.decomps[2].real_runs(), 62352);
    for (const auto& d : f.decomps) EXPECT_FALSE(d.has_fill_runs());
    const auto runs16 = runs_per_rank(f, 16, true);  // sorted and coalesced: the seed map's runs
    EXPECT_EQ(sum(runs16[0]), 47u);
    EXPECT_EQ(sum(runs16[1]), 407u);
    EXPECT_EQ(sum(runs16[2]), 29304u);
    EXPECT_EQ(sum(runs_per_rank(f, 16, false)[2]), 62352u);  // unsorted keeps the file's runs
    EXPECT_LE(sum(runs_per_rank(f, 4, true)[2]), 29304u);    // fewer ranks: more merging

    // F requests and bytes per file as in the spec (16 ranks, one record).
    const RequestCounts h0 = request_counts(case_file("f_h0", f), runs16, 1);
    EXPECT_EQ(h0.total, 1977687u);
    EXPECT_EQ(h0.max, 189503u);
    EXPECT_EQ(h0.min, 63170u);
    const RequestCounts h1 = request_counts(case_file("f_h1", f), runs16, 1);
    EXPECT_EQ(h1.total, 38332u);
    EXPECT_EQ(h1.max, 3668u);
    EXPECT_EQ(h1.min, 1225u);
    EXPECT_EQ(byte_counts(case_file("f_h0", f), f).per_record, 33649404u);

    // The seed forms (no fill_starts) give the current maps' runs after sorting.
    const DecompMap fs = read_decomp_map(f_seed);
    EXPECT_FALSE(fs.has_fill_starts);
    for (std::size_t k = 0; k < 3; ++k)
        expect_same_runs(fs.decomps[k], f.decomps[k], 16, "F D" + std::to_string(k + 1));
    const DecompMap g = read_decomp_map(g_nc), gs = read_decomp_map(g_seed);
    ASSERT_EQ(g.decomps.size(), 6u);
    ASSERT_EQ(gs.decomps.size(), 6u);
    EXPECT_EQ(gs.decomps[5].dims, (std::vector<std::int64_t>{28571, 101}));

    // I: partial coverage, completed by fill runs.
    const DecompMap im = read_decomp_map(i_nc);
    ASSERT_EQ(im.decomps.size(), 5u);
    EXPECT_EQ(im.decomps[0].dims, (std::vector<std::int64_t>{96, 144}));
    for (const auto& d : im.decomps) {
        EXPECT_TRUE(d.has_fill_runs()) << d.name;
        std::int64_t all = 0;
        for (auto l : d.lengths) all += l;
        EXPECT_EQ(all, d.elements()) << d.name;
        EXPECT_LT(d.covered_elements(), d.elements()) << d.name;
    }

    // The PIO .dat files, sorted as the seed's dat2nc did, are the seed map.
    const char* dats[] = {"piodecomp16tasks16io01dims_ioid_514.dat", "piodecomp16tasks16io01dims_ioid_516.dat",
                          "piodecomp16tasks16io02dims_ioid_548.dat"};
    for (int k = 0; k < 3; ++k) {
        IOK_REQUIRE_DATASET(p, dats[k]);
        const Decomp d = decomp_from_pio(read_pio_decomp_dat(p), true);
        EXPECT_EQ(d.dims, fs.decomps[k].dims) << dats[k];
        EXPECT_EQ(d.nreqs, fs.decomps[k].nreqs) << dats[k];
        EXPECT_EQ(d.offsets, fs.decomps[k].offsets) << dats[k];
        EXPECT_EQ(d.lengths, fs.decomps[k].lengths) << dats[k];
    }

    // E3SM-IO's nine other maps: each is exactly its .nc's map.
    for (const std::string c : {"f", "g", "i"}) {
        const DecompMap ref = read_decomp_map(iok_e3sm_dataset("map_" + c + "_case_16p.nc"));
        for (const std::string ext : {"h5", "nc4", "bp"}) {
            const std::string p = iok_e3sm_dataset("map_" + c + "_case_16p." + ext);
            ASSERT_FALSE(p.empty()) << "map_" << c << "_case_16p." << ext << " is missing";
            if (ext == "h5" && !formats::file_format_available(formats::FileFormat::Hdf5)) continue;
            if (ext == "nc4" && !formats::file_format_available(formats::FileFormat::NetCdf4)) continue;
            if (ext == "bp" && !formats::file_format_available(formats::FileFormat::Bp3)) continue;
            expect_same_map(ref, read_decomp_map(p), p);
        }
    }
}

// The GCRM reference's inputs (../shared/datasets/gcrm): the description's
// variable counts and the README run's bytes and file names.
TEST(RealData, GcrmReferenceInputsGiveTheReadmesFigures) {
    using namespace iok::gcrm;
    const std::string dir = gcrm_dir();
    if (!std::filesystem::exists(dir + "/ZGrd.desc")) GTEST_SKIP() << "no " << dir << " (../shared)";

    const Description d = parse_desc_file(dir + "/ZGrd.desc");
    EXPECT_EQ(d.vars.size(), 140u);
    EXPECT_EQ(d.properties.size(), 5u);
    int grid = 0, restart_dbl = 0, fields = 0, fields_data = 0, fields_phys = 0, rdata = 0, rphys = 0;
    for (const auto& v : d.vars) {
        if (v.isgridvar) ++grid;
        if (v.name == "time") continue;
        if (v.restart && v.type == "double") {
            ++restart_dbl;
            rdata += has_data(v, false);
            rphys += has_data(v, true);
        }
        if (!v.isgridvar && !v.restart && v.type == "float") {
            ++fields;
            fields_data += has_data(v, false);
            fields_phys += has_data(v, true);
        }
    }
    EXPECT_EQ(grid, 16);
    EXPECT_EQ(restart_dbl, 50);
    EXPECT_EQ(fields, 73);
    EXPECT_EQ(rdata, 21);
    EXPECT_EQ(rphys, 36);
    EXPECT_EQ(fields_data - 1, 19);  // "divergence" is described twice: 19/41 distinct fields
    EXPECT_EQ(fields_phys - 1, 41);

    // GCRM-IO's format: CDF-2 at level 3 (largest field by its check: the
    // cells x edges x interfaces floats), CDF-5 from level 4 (its listings).
    EXPECT_EQ(gcrm_io_largest_field(d, grid_params(3, 4)), 642LL * 1920 * 257 * 4);
    EXPECT_EQ(gcrm_io_file_format(d, grid_params(3, 4)), "cdf2");
    EXPECT_EQ(gcrm_io_file_format(d, grid_params(4, 4)), "cdf5");

    // The README run: 20 ranks, zgrd.in (L5, 2 dumps, CP.lyr, physics, sep_grid, restart each dump).
    const RunParams p = parse_params_file(dir + "/zgrd.in");
    const auto groups = parse_fcfg_file(dir + "/" + p.io_config_file);
    const RunPlan rp = build_run_plan(p, grid_params(p.level_max, 20), d, groups, 0, "out/", ".nc");
    EXPECT_EQ(rp.data_bytes, 3654442380ull);
    const std::uint64_t N = 10242, C = 20480, E = 30720, K = 256;
    auto bytes = [&](FileKind k) {
        std::uint64_t n = 0;
        for (const auto& f : rp.files)
            if (f.kind == k) n += f.data_bytes;
        return n;
    };
    EXPECT_EQ(bytes(FileKind::Grid), 4 * (513 + 33 * N + 2 * C + 4 * E));
    EXPECT_EQ(bytes(FileKind::History), 2 * (4 * (26 * N * K + 5 * N * (K + 1) + 2 * C * K + E * K + 4 * N) + 38 * 8));
    EXPECT_EQ(bytes(FileKind::Restart), 2 * (8 * (61 * N * K + 7 * N * (K + 1) + 5 * N) + 8));
    ASSERT_EQ(rp.files.size(), 41u);
    EXPECT_EQ(rp.files.front().path, "out/grid.nc");
    EXPECT_EQ(rp.files[1].path, "out/rel_vorticity_19010101_000000.nc");
    EXPECT_EQ(rp.files.back().path, "out/restart.nc19010101_000100.nc");
    EXPECT_EQ(rp.grid_vars, 16);
    EXPECT_EQ(rp.field_vars, 74);
    EXPECT_EQ(rp.files[1].plan.nrecords, 2);
}
