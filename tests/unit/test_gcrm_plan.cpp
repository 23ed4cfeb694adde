// GCRM inputs and plans: parsers, schedule, file names and byte totals.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "kernels/gcrm/gcrm_inputs.hpp"
#include "kernels/gcrm/gcrm_plan.hpp"

using namespace iok::gcrm;

namespace {
// A small description and file configurations in the reference's syntax (as
// tests/integration/gen_inputs.py writes them): grid variables, fields that
// always have data, one that has data only with physics (water_vapor_lyr),
// restart doubles.  The reference's own inputs: test_real_data.cpp.
const char* kParams =
    "level_max 5\nend_minutes 1\nphysics_mode enabled\niotype nonblocking_collective\n"
    "cdf_output_frequency 60\ncdf_output_nsamples 2\ncdf_grid_option sep_grid\ncdf_sep_grid grid\n"
    "restart_interval 60\nrestart_output restart.nc\n";
const char* kDesc = R"(property title "unit test"
name time
type double
dimension time
restart

name grid_center_lat
type float
dimension cells
isgridvar

name cell_edges
type integer
dimension cells celledges
isgridvar

name relative
type float
dimension time cells layers

name mass
type float
dimension time cells layers

name pressure
type float
dimension time cells interfaces

name u
type float
dimension time ns_ew i_uniq_corner layers
slice component 1

name wind
type float
dimension time cells i_cell_edges layers

name water_vapor_lyr
type float
dimension time cells layers

name dbl_psi
type double
dimension time cells layers
restart

name dbl_ts
type double
dimension time cells
restart
)";
const char* kGroups =
    "#\nfile_prefix \"vorticity_mass_\"\nfield time\nfield relative\nfield mass\n"
    "#\nfile_prefix \"state_\"\nfield time\nfield pressure\n"
    "#\nfile_prefix \"wind_\"\nfield time\nfield u\nfield wind\n";
const char* kPhysics =
    "#\nfile_prefix \"vapor_\"\nfield time\nfield water_vapor_lyr\n"
    "#\nfile_prefix \"relative_\"\nfield time\nfield relative\n";

}  // namespace

TEST(GcrmInputs, ParamsSyntax) {
    RunParams p = parse_params(
        "! comment\n LEVEL_MAX 6   ! trailing\nend_minutes 2\nend_seconds 5\n# hash comment\n"
        "physics_mode disabled_for_test\niotype blocking_independent\ncdf_output_frequency 30\n"
        "cdf_output_nsamples 2\ncdf_grid_option all_files\nrestart_interval 0\nrestart_overwrite true\n"
        "io_config_file \"ZGrd.CP.lyr.fcfg.one\"\noutput_path ./\nio_procs 4\nread_restart .true.\n",
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
    try {  // a typo is named, not ignored
        parse_params("level_max 4\nend_minuts 2\n", "t.in");
        FAIL();
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("t.in:2: unknown parameter 'end_minuts'"), std::string::npos) << e.what();
    }
    try {  // the original GCRM's methods that GCRM-IO lacks say so
        parse_params("iotype direct\n", "t.in");
        FAIL();
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("does not implement"), std::string::npos) << e.what();
    }
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

// Each rank's selections cover every element once: the per-rank byte sum
// equals the plan's total (P=8, L4, one fcfg per kind of file).
TEST(GcrmPlan, SelectionsCoverEachVariableOnce) {
    RunParams p = parse_params(kParams, "params");
    p.level_max = 4;
    p.grid_option = GridOption::AllFiles;
    const Description d = parse_desc(kDesc, "desc");
    const auto groups = parse_fcfg(kGroups, "fcfg");
    GridParams g = grid_params(4, 8);
    std::vector<RunPlan> plans;
    for (int r = 0; r < 8; ++r) plans.push_back(build_run_plan(p, g, d, groups, r, "", ".nc"));
    ASSERT_FALSE(plans[0].files.empty());
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
        EXPECT_GT(bytes, 0u) << plans[0].files[f].path;
        EXPECT_EQ(bytes, plans[0].files[f].data_bytes) << plans[0].files[f].path;
    }
    // history file "wind_" holds u, wind + time + the grid variables (all_files)
    const OutputFile* wind = nullptr;
    const OutputFile* vort = nullptr;
    for (const auto& f : plans[0].files) {
        if (f.path == "wind_19010101_000000.nc") wind = &f;
        if (f.path == "vorticity_mass_19010101_000000.nc") vort = &f;
    }
    ASSERT_TRUE(wind && vort);
    EXPECT_GE(wind->plan.spec.find_var("wind"), 0);
    EXPECT_GE(wind->plan.spec.find_var("u"), 0);
    EXPECT_GE(wind->plan.spec.find_var("grid_center_lat"), 0);
    EXPECT_LT(wind->plan.spec.find_var("mass"), 0);
    // the rank-0 cell selection of a (time, cells, layers) field: poles first, then block runs
    const int mass = vort->plan.spec.find_var("mass");
    ASSERT_GE(mass, 0);
    const auto& sel = *vort->plan.selection[static_cast<std::size_t>(mass)];
    ASSERT_EQ(sel.nblocks(), 6u);
    EXPECT_EQ(sel.start(0)[0], 0);
    EXPECT_EQ(sel.start(2)[0], 66);
    EXPECT_EQ(sel.start(3)[0], 194);
    EXPECT_EQ(sel.count(1)[1], 256);
}

TEST(GcrmPlan, RolloverNogridAndNophysics) {
    RunParams p = parse_params(kParams, "params");
    p.end_seconds = 300;  // 6 dumps at L5
    p.nsamples = 4;
    p.grid_option = GridOption::NoGrid;
    p.restart_interval = 0;
    p.physics = false;
    const Description d = parse_desc(kDesc, "desc");
    RunPlan rp = build_run_plan(p, grid_params(5, 4), d, parse_fcfg(kGroups, "fcfg"), 0, "", ".nc");
    ASSERT_EQ(rp.files.size(), 6u);  // 3 groups x 2 files (4 + 2 records), no grid, no restart
    EXPECT_EQ(rp.files[0].path, "vorticity_mass_19010101_000000.nc");
    EXPECT_EQ(rp.files[0].plan.nrecords, 4);
    EXPECT_EQ(rp.files[1].path, "vorticity_mass_19010101_000400.nc");
    EXPECT_EQ(rp.files[1].plan.nrecords, 2);
    for (const auto& f : rp.files) EXPECT_TRUE(f.no_data.empty()) << f.path;
    // a physics field without physics: no data (warned), its files hold time only
    RunPlan rc = build_run_plan(p, grid_params(5, 4), d, parse_fcfg(kPhysics, "fcfg"), 0, "", ".nc");
    ASSERT_EQ(rc.files.size(), 4u);
    int time_only = 0;
    for (const auto& f : rc.files) {
        if (f.plan.spec.vars.size() == 1) {
            ++time_only;
            EXPECT_EQ(f.path.rfind("vapor_", 0), 0u) << f.path;
            EXPECT_FALSE(f.no_data.empty()) << f.path;
        }
    }
    EXPECT_EQ(time_only, 2);
    p.physics = true;  // with physics it has data
    rc = build_run_plan(p, grid_params(5, 4), d, parse_fcfg(kPhysics, "fcfg"), 0, "", ".nc");
    for (const auto& f : rc.files) EXPECT_EQ(f.plan.spec.vars.size(), 2u) << f.path;
}
