// GCRM inputs and plans: parsers, schedule, file names and byte totals.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "kernels/gcrm/gcrm_inputs.hpp"
#include "kernels/gcrm/gcrm_plan.hpp"

using namespace iok::gcrm;
namespace fs = std::filesystem;

namespace {
std::string shared_dir() {
    const char* s = std::getenv("IOK_SHARED");
    std::string base = s ? s : std::string(IOK_SOURCE_DIR) + "/../shared";
    return base + "/datasets/gcrm";
}
#define NEED_SHARED()                                                              \
    if (!fs::exists(shared_dir() + "/ZGrd.desc")) GTEST_SKIP() << "no " << shared_dir()

std::uint64_t sum_bytes(const RunPlan& p, FileKind k) {
    std::uint64_t n = 0;
    for (const auto& f : p.files)
        if (f.kind == k) n += f.data_bytes;
    return n;
}
}  // namespace

TEST(GcrmInputs, ParamsSyntax) {
    RunParams p = parse_params(
        "! comment\n LEVEL_MAX 6   ! trailing\nend_minutes 2\nend_seconds 5\n# hash comment\n"
        "physics_mode disabled_for_test\niotype blocking_independent\ncdf_output_frequency 30\n"
        "cdf_output_nsamples 2\ncdf_grid_option all_files\nrestart_interval 0\nrestart_overwrite true\n"
        "io_config_file \"ZGrd.CP.lyr.fcfg.one\"\nunknown_key 7\n",
        "t.in");
    EXPECT_EQ(p.level_max, 6);
    EXPECT_EQ(p.end_seconds, 125);
    EXPECT_FALSE(p.physics);
    EXPECT_EQ(p.iotype, IoType::BlockingIndependent);
    EXPECT_EQ(p.output_frequency, 30);
    EXPECT_EQ(p.nsamples, 2);
    EXPECT_EQ(p.grid_option, GridOption::AllFiles);
    EXPECT_TRUE(p.restart_overwrite);
    EXPECT_EQ(p.io_config_file, "ZGrd.CP.lyr.fcfg.one");
}

TEST(GcrmInputs, ParamsErrors) {
    EXPECT_THROW(parse_params("iotype direct\n", "t.in"), iok::Error);
    EXPECT_THROW(parse_params("level_max five\n", "t.in"), iok::Error);
    EXPECT_THROW(parse_params("cdf_grid_option some\n", "t.in"), iok::Error);
    EXPECT_THROW(parse_params("cdf_output_nsamples 0\n", "t.in"), iok::Error);
    try {
        parse_params("\niotype interleaved\n", "t.in");
        FAIL();
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("t.in:2"), std::string::npos) << e.what();
    }
}

TEST(GcrmInputs, DescAndFcfgSyntax) {
    Description d = parse_desc(
        "property title \"T\"\nname a\ntype double\nunits m\nlong_name \"A b\"\nz layers\n"
        "index all\ndimension time cells layers nprog\nrestart\n\nname g\ntype integer\nno_data \"true\"\nisgridvar\n",
        "t.desc");
    ASSERT_EQ(d.vars.size(), 2u);
    EXPECT_EQ(d.properties[0].value, "T");
    EXPECT_TRUE(d.vars[0].index_all);
    EXPECT_TRUE(d.vars[0].restart);
    EXPECT_EQ(d.vars[0].dims.size(), 4u);
    EXPECT_EQ(*d.vars[0].attr("long_name"), "A b");
    EXPECT_TRUE(d.vars[1].no_data);
    EXPECT_THROW(parse_desc("type float\n", "t.desc"), iok::Error);
    auto g = parse_fcfg("#\nfile_prefix \"x_\"\nfield time\nfield a avg\nfield b\n", "t.fcfg");
    ASSERT_EQ(g.size(), 1u);
    EXPECT_EQ(g[0].prefix, "x_");
    ASSERT_EQ(g[0].fields.size(), 2u);
    EXPECT_EQ(g[0].fields[0].file_name(), "a_avg");
    EXPECT_THROW(parse_fcfg("field a\n", "t.fcfg"), iok::Error);
    EXPECT_THROW(parse_fcfg("file_prefix a\nfield b max\n", "t.fcfg"), iok::Error);
}

TEST(GcrmPlan, ScheduleAndStamps) {
    RunParams p;
    p.end_seconds = 60;
    p.output_frequency = 60;
    p.restart_interval = 60;
    auto d = dump_schedule(p, 5);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_TRUE(d[1].history && d[1].restart);
    p.output_frequency = 30;
    p.restart_interval = 0;
    EXPECT_EQ(dump_schedule(p, 6).size(), 3u);
    EXPECT_EQ(time_stamp(0), "19010101_000000");
    EXPECT_EQ(time_stamp(60), "19010101_000100");
    EXPECT_EQ(time_stamp(86400 * 31 + 3661), "19010201_010101");
    EXPECT_EQ(time_stamp(86400.0 * 365), "19020101_000000");
}

TEST(GcrmPlan, DescriptionCounts) {
    NEED_SHARED();
    Description d = parse_desc_file(shared_dir() + "/ZGrd.desc");
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
    // "divergence" is described twice; the 19/41 count is over distinct fields
    EXPECT_EQ(fields_data - 1, 19);
    EXPECT_EQ(fields_phys - 1, 41);
}

// The README run: 20 ranks, zgrd.in (L5, 2 dumps, CP.lyr, physics, sep_grid, restart each dump).
TEST(GcrmPlan, ReadmeCaseBytesAndNames) {
    NEED_SHARED();
    const std::string dir = shared_dir();
    RunParams p = parse_params_file(dir + "/zgrd.in");
    Description d = parse_desc_file(dir + "/ZGrd.desc");
    auto groups = parse_fcfg_file(dir + "/" + p.io_config_file);
    GridParams g = grid_params(p.level_max, 20);
    RunPlan rp = build_run_plan(p, g, d, groups, 0, "out/", ".nc");
    EXPECT_EQ(rp.data_bytes, 3654442380ull);
    const std::uint64_t N = 10242, C = 20480, E = 30720, K = 256;
    EXPECT_EQ(sum_bytes(rp, FileKind::Grid), 4 * (513 + 33 * N + 2 * C + 4 * E));
    EXPECT_EQ(sum_bytes(rp, FileKind::History), 2 * (4 * (26 * N * K + 5 * N * (K + 1) + 2 * C * K + E * K + 4 * N) + 38 * 8));
    EXPECT_EQ(sum_bytes(rp, FileKind::Restart), 2 * (8 * (61 * N * K + 7 * N * (K + 1) + 5 * N) + 8));
    EXPECT_EQ(rp.files.size(), 41u);
    EXPECT_EQ(rp.files.front().path, "out/grid.nc");
    EXPECT_EQ(rp.files[1].path, "out/rel_vorticity_19010101_000000.nc");
    EXPECT_EQ(rp.files.back().path, "out/restart.nc19010101_000100.nc");
    EXPECT_EQ(rp.grid_vars, 16);
    EXPECT_EQ(rp.field_vars, 74);
    EXPECT_EQ(rp.files[1].plan.nrecords, 2);
}

// Each rank's selections cover every element once: the per-rank byte sum
// equals the plan's total (P=8, L4, one fcfg per kind of file).
TEST(GcrmPlan, SelectionsCoverEachVariableOnce) {
    NEED_SHARED();
    const std::string dir = shared_dir();
    RunParams p = parse_params_file(dir + "/zgrd.in");
    p.level_max = 4;
    p.grid_option = GridOption::AllFiles;
    Description d = parse_desc_file(dir + "/ZGrd.desc");
    auto groups = parse_fcfg_file(dir + "/ZGrd.CP.lyr.fcfg.groups");
    GridParams g = grid_params(4, 8);
    std::vector<RunPlan> plans;
    for (int r = 0; r < 8; ++r) plans.push_back(build_run_plan(p, g, d, groups, r, "", ".nc"));
    for (std::size_t f = 0; f < plans[0].files.size(); ++f) {
        const auto& spec = plans[0].files[f].plan.spec;
        std::uint64_t bytes = 0;
        for (int r = 0; r < 8; ++r) {
            const auto& fp = plans[r].files[f].plan;
            for (std::size_t v = 0; v < spec.vars.size(); ++v) {
                const auto n = fp.selection[v]->elements() * iok::dtype_size(spec.vars[v].type);
                bytes += spec.vars[v].is_record(spec) ? n * static_cast<std::uint64_t>(fp.nrecords) : n;
            }
        }
        EXPECT_EQ(bytes, plans[0].files[f].data_bytes) << plans[0].files[f].path;
    }
    // history file "wind_" of the groups config holds u, v, wind, w_vert + time + grid vars
    const auto& wind = plans[0].files[5].plan.spec;
    EXPECT_EQ(plans[0].files[5].path, "wind_19010101_000000.nc");
    EXPECT_GE(wind.find_var("w_vert"), 0);
    EXPECT_GE(wind.find_var("grid_center_lat"), 0);
    // the rank-0 cell selection of a (time, cells, layers) field: poles first, then block runs
    const int mass = plans[0].files[1].plan.spec.find_var("mass");
    ASSERT_GE(mass, 0);
    const auto& sel = *plans[0].files[1].plan.selection[static_cast<std::size_t>(mass)];
    ASSERT_EQ(sel.nblocks(), 6u);
    EXPECT_EQ(sel.start(0)[0], 0);
    EXPECT_EQ(sel.start(2)[0], 66);
    EXPECT_EQ(sel.start(3)[0], 194);
    EXPECT_EQ(sel.count(1)[1], 256);
}

TEST(GcrmPlan, RolloverNogridAndNophysics) {
    NEED_SHARED();
    const std::string dir = shared_dir();
    RunParams p = parse_params_file(dir + "/zgrd.in");
    p.end_seconds = 300;  // 6 dumps at L5
    p.nsamples = 4;
    p.grid_option = GridOption::NoGrid;
    p.restart_interval = 0;
    p.physics = false;
    Description d = parse_desc_file(dir + "/ZGrd.desc");
    auto groups = parse_fcfg_file(dir + "/ZGrd.LZ.fcfg.nophys");
    RunPlan rp = build_run_plan(p, grid_params(5, 4), d, groups, 0, "", ".nc");
    ASSERT_EQ(rp.files.size(), 22u);  // 11 groups x 2 files (4 + 2 records)
    EXPECT_EQ(rp.files[0].path, "rel_vorticity_19010101_000000.nc");
    EXPECT_EQ(rp.files[0].plan.nrecords, 4);
    EXPECT_EQ(rp.files[1].path, "rel_vorticity_19010101_000400.nc");
    EXPECT_EQ(rp.files[1].plan.nrecords, 2);
    for (const auto& f : rp.files) EXPECT_TRUE(f.no_data.empty()) << f.path;
    // a physics config without physics: the physics fields have no data (warned, time only)
    auto cp = parse_fcfg_file(dir + "/ZGrd.CP.lyr.fcfg");
    RunPlan rc = build_run_plan(p, grid_params(5, 4), d, cp, 0, "", ".nc");
    int time_only = 0;
    for (const auto& f : rc.files)
        if (f.plan.spec.vars.size() == 1) ++time_only;
    EXPECT_EQ(time_only, 2 * 22);
}
