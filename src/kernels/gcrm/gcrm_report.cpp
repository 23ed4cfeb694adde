#include "kernels/gcrm/gcrm_report.hpp"

#include <cstdio>
#include <set>

namespace iok::gcrm {
namespace {

const char* kind_name(FileKind k) {
    return k == FileKind::Grid ? "grid" : k == FileKind::History ? "history" : "restart";
}

}  // namespace

void warn_no_data(const RunPlan& plan, bool physics) {
    std::set<std::string> warned;
    for (const auto& f : plan.files)
        for (const auto& n : f.no_data)
            if (warned.insert(n).second)
                std::fprintf(stderr, "iokernels gcrm: warning: field %s has no data %s; file %s holds only time\n",
                             n.c_str(), physics ? "in this model" : "without physics (physics_mode disabled)",
                             f.path.c_str());
}

TextReport run_parameters(const Inputs& in, const RunPlan& plan, const Options& o, Driver& d, std::size_t nfiles) {
    const GridParams& grid = in.grid;
    const RunParams& p = in.params;
    const BackendConfig& cfg = d.config();
    TextReport params;
    params.section("GCRM run parameters");
    params.count("Number of processes", static_cast<std::uint64_t>(d.size()));
    params.count("level_max", static_cast<std::uint64_t>(grid.level));
    params.count("sbdmn_iota", static_cast<std::uint64_t>(grid.iota));
    params.count("level_glbl", static_cast<std::uint64_t>(grid.level_glbl()));
    params.count("km (vertical layers)", static_cast<std::uint64_t>(grid.km));
    params.count("cell_max (global cells)", static_cast<std::uint64_t>(grid.cells));
    params.count("im / jm (local cells along i / j)", static_cast<std::uint64_t>(grid.im));
    params.count("nsdm_glbl (global blocks)", static_cast<std::uint64_t>(grid.nsdm_glbl));
    params.count("nsdm (local blocks)", static_cast<std::uint64_t>(grid.nsdm));
    params.line("Physics variables", p.physics ? "enabled" : "disabled");
    params.line("File configuration", in.fcfg_path);
    params.line("Grid option", grid_option_name(p.grid_option));
    params.count("Number of files written", nfiles);
    params.count("Grid variables written", static_cast<std::uint64_t>(plan.grid_vars));
    params.count("Field variables written", static_cast<std::uint64_t>(plan.field_vars));
    params.count("Snapshot dumps (history / restart)", plan.dumps.size());
    params.line("History / restart dumps",
                std::to_string(plan.history_dumps) + " / " + std::to_string(plan.restart_dumps));
    params.line("I/O method",
                std::string(iotype_name(p.iotype)) + " (" + d.stack_label() +
                    (cfg.params.count("pnetcdf.api") ? ", api=" + cfg.param("pnetcdf.api") : "") +
                    (cfg.params.count("pnetcdf.format") ? ", format=" + cfg.param("pnetcdf.format") : "") +
                    (cfg.collective ? ", collective" : ", independent") + ")");
    params.line("Output path", in.out_dir);
    params.line("Model memory", o.model_memory ? format_bytes(static_cast<double>(o.model_arrays) * grid.nsdm *
                                                              grid.im * grid.jm * grid.km * 8) +
                                                     " per rank"
                                               : std::string("off"));
    params.line("Planned data bytes", with_commas(plan.data_bytes));
    return params;
}

void print_plan(const TextReport& params, const RunPlan& plan) {
    params.print();
    for (const auto& f : plan.files)
        std::printf("plan %-8s %-60s records %d bytes %s\n", kind_name(f.kind), f.path.c_str(), f.plan.nrecords,
                    with_commas(f.data_bytes).c_str());
    std::printf("plan total data bytes = %llu\n", static_cast<unsigned long long>(plan.data_bytes));
}

void print_hints(MPI_Info info) {
    if (info == MPI_INFO_NULL) {
        std::printf("---- MPI file info: not exposed by this backend ----\n");
        return;
    }
    int n = 0;
    MPI_Info_get_nkeys(info, &n);
    std::printf("---- MPI file info used ----\n");
    for (int i = 0; i < n; ++i) {
        char key[MPI_MAX_INFO_KEY + 1];
        MPI_Info_get_nthkey(info, i, key);
        int len = 0, flag = 0;
        MPI_Info_get_valuelen(info, key, &len, &flag);
        std::string v(static_cast<std::size_t>(len) + 1, '\0');
        MPI_Info_get(info, key, len + 1, v.data(), &flag);
        v.resize(static_cast<std::size_t>(len));
        std::printf("MPI File Info: [%2d] key = %25s, value = %s\n", i, key, v.c_str());
    }
}

void Measured::add(const FileOutcome& out) {
    const FileMetrics& m = out.metrics;
    (m.writing ? write_bytes : read_bytes) += static_cast<std::uint64_t>(m.bytes.sum);
    for (int p = 0; p < kPhases; ++p) {
        if (!m.ran[static_cast<std::size_t>(p)]) continue;
        const Stat& s = m.seconds[static_cast<std::size_t>(p)];
        auto& e = api[std::string(m.writing ? "write " : "read ") + phase_name(static_cast<Phase>(p))];
        e.first += s.max;
        e.second += s.mean * nprocs;
    }
    file_reports.push_back(out.text);
    if (out.mismatches && first_bad.empty()) first_bad = m.path + ": " + out.first_mismatch;
    mismatches += out.mismatches;
}

void print_results(const Measured& m, const Options& o) {
    const std::vector<Stat>& red = m.times;
    const std::uint64_t write_bytes = m.write_bytes, read_bytes = m.read_bytes;
    TextReport t;
    t.section("Timing results (max among all processes)");
    char v[64];
    auto secs = [&](double s) {
        std::snprintf(v, sizeof v, "%.4f s", s);
        return std::string(v);
    };
    t.line("init time", secs(red[0].max));
    t.line("Max comp time", secs(red[1].max));
    t.line("Max I/O time (write)", secs(red[2].max));
    t.line("Max read-back time", secs(red[3].max));
    t.line("finalize time", secs(m.finalize.max));
    t.section("Amounts");
    t.line("Write amount", format_bytes(static_cast<double>(write_bytes)));
    t.line("Read amount", format_bytes(static_cast<double>(read_bytes)));
    t.line("I/O amount", format_bytes(static_cast<double>(write_bytes + read_bytes)));
    t.count("Data bytes written", write_bytes);
    t.line("Write bandwidth", red[2].max > 0 ? write_bytes / MiB / red[2].max : 0.0, "MiB/s");
    t.line("Read bandwidth", red[3].max > 0 ? read_bytes / MiB / red[3].max : 0.0, "MiB/s");
    t.line("I/O bandwidth",
           (red[2].max + red[3].max) > 0 ? (write_bytes + read_bytes) / MiB / (red[2].max + red[3].max) : 0.0, "MiB/s");
    t.section("Memory high-water (peak RSS)");
    t.line("memory MAX usage", red[4].max / MiB, "MiB", 2);
    t.line("memory MIN usage", red[4].min / MiB, "MiB", 2);
    t.line("memory AVG usage", red[4].mean / MiB, "MiB", 2);
    if (o.model_memory) t.line("model arrays per rank", static_cast<double>(m.model_bytes) / MiB, "MiB", 2);
    t.section("Per-API time (sum over files of max over ranks / sum over ranks)");
    for (const auto& [phase, s] : m.api) {
        std::snprintf(v, sizeof v, "%.4f / %.4f s", s.first, s.second);
        t.line("time in " + phase, v);
    }
    t.line("Verification", !o.verify      ? std::string("skipped (--no-verify)")
                           : m.mismatches ? "FAILED: " + m.first_bad
                                          : std::string("passed (every file read back matches the pattern)"));
    t.print();
}

void fill_result(Result& result, const Measured& m, const Options& o, const Inputs& in, const RunPlan& plan,
                 std::size_t nfiles) {
    const GridParams& grid = in.grid;
    const std::vector<Stat>& red = m.times;
    nlohmann::json& jp = result.params();
    jp["paramfile"] = o.paramfile;
    jp["desc"] = in.desc_path;
    jp["fcfg"] = in.fcfg_path;
    jp["nprocs"] = m.nprocs;
    jp["level_max"] = grid.level;
    jp["sbdmn_iota"] = grid.iota;
    jp["km"] = grid.km;
    jp["cells"] = grid.cells;
    jp["im"] = grid.im;
    jp["jm"] = grid.jm;
    jp["nsdm_glbl"] = grid.nsdm_glbl;
    jp["nsdm"] = grid.nsdm;
    jp["physics"] = in.params.physics;
    jp["iotype"] = iotype_name(in.params.iotype);
    jp["grid_option"] = grid_option_name(in.params.grid_option);
    jp["output_path"] = in.out_dir;
    jp["model_memory"] = o.model_memory;
    nlohmann::json& js = result.summary();
    js["files"] = nfiles;
    js["grid_variables"] = plan.grid_vars;
    js["field_variables"] = plan.field_vars;
    js["dumps"] = plan.dumps.size();
    js["planned_data_bytes"] = plan.data_bytes;
    js["write_bytes"] = m.write_bytes;
    js["read_bytes"] = m.read_bytes;
    js["seconds"] = {{"init", red[0].max},
                     {"compute", red[1].max},
                     {"io_write", red[2].max},
                     {"read_back", red[3].max},
                     {"finalize", m.finalize.max}};
    js["write_bandwidth_mib_s"] = red[2].max > 0 ? m.write_bytes / MiB / red[2].max : 0.0;
    js["memory_bytes"] = {{"max", red[4].max}, {"min", red[4].min}, {"mean", red[4].mean}};
    nlohmann::json ja = nlohmann::json::object();
    for (const auto& [phase, s] : m.api) ja[phase] = {{"sum_of_max", s.first}, {"sum_over_ranks", s.second}};
    js["api_seconds"] = ja;
    js["verify"] = {{"enabled", o.verify}, {"mismatches", m.mismatches}, {"first", m.first_bad}};
    result.add_input("paramfile", o.paramfile);
    result.add_input("desc", in.desc_path);
    result.add_input("fcfg", in.fcfg_path);
}

}  // namespace iok::gcrm
