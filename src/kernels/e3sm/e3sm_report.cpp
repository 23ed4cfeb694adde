#include "kernels/e3sm/e3sm_report.hpp"

#include "core/report.hpp"
#include "kernels/e3sm/case_stats.hpp"

namespace iok::e3sm {

void print_header(const Options& o, const DecompMap& map, const std::string& case_name, int nprocs, int io_procs,
                  Driver& d) {
    TextReport t;
    t.section("iokernels e3sm: E3SM " + case_name + " case");
    t.count("Total number of MPI processes", static_cast<std::uint64_t>(nprocs));
    t.count("Number of I/O processes", static_cast<std::uint64_t>(io_procs));
    t.line("Input decomposition file", map.path);
    t.count("Processes in the map", static_cast<std::uint64_t>(map.nprocs));
    for (const auto& dc : map.decomps) {
        std::string dims;
        for (auto x : dc.dims) dims += (dims.empty() ? "" : " x ") + std::to_string(x);
        t.line("Decomposition " + dc.name + " dims (C order)", dims);
    }
    if (!o.output.empty()) t.line("Output path", o.output);
    if (!o.input.empty()) t.line("Input path (read test)", o.input);
    t.line("API / strategy", d.writing_library() + " / " + d.options().strategy);
    t.line("I/O stack", d.stack_label());
    t.count("Records", static_cast<std::uint64_t>(o.records));
    t.line("Record variable type", o.use_float ? "float" : "double");
    t.line("Flush", o.flush_every == 0 ? "once at the end" : "every " + std::to_string(o.flush_every) + " record(s)");
    t.line("Sort and coalesce requests", o.no_sort ? "no" : "yes");
    t.line("Fill mode", o.fill ? "yes" : "no");
    t.line("Noncontiguous user buffer", o.noncontig_buf ? "yes" : "no");
    t.print();
}

nlohmann::json result_params(const Options& o, const std::string& case_name, int io_procs) {
    return {{"case", case_name},
            {"records", o.records},
            {"flush_every", o.flush_every},
            {"float", o.use_float},
            {"fill", o.fill},
            {"sort", !o.no_sort},
            {"stride", o.stride},
            {"noncontig_buffer", o.noncontig_buf},
            {"io_processes", io_procs},
            {"map_reading", o.map_reading}};
}

void print_var_counts(const FileSpec& spec, int ndecomps) {
    const VarCounts vc = count_vars(spec, ndecomps);
    TextReport t;
    t.section("history file " + spec.label);
    t.count("Variables not partitioned", static_cast<std::uint64_t>(vc.not_partitioned));
    for (std::size_t k = 0; k < vc.per_decomp.size(); ++k)
        t.count("Variables using decomposition D" + std::to_string(k + 1),
                static_cast<std::uint64_t>(vc.per_decomp[k]));
    t.count("Total number of variables", static_cast<std::uint64_t>(vc.total));
    t.print();
}

void print_summary(double prepare_seconds, double map_seconds, double plan_seconds, double write_seconds, bool verified,
                   std::uint64_t mismatches) {
    TextReport t;
    t.section("summary");
    t.line("Time preparing requests (max)", prepare_seconds, "s");
    t.line("  reading the map (max)", map_seconds, "s");
    t.line("  planning requests (max)", plan_seconds, "s");
    if (write_seconds > 0) t.line("Preparing / write time", 100.0 * prepare_seconds / write_seconds, "%", 2);
    if (verified)
        t.line("Verification",
               mismatches ? "FAILED (" + std::to_string(mismatches) + " elements)" : std::string("passed"));
    t.print();
}

}  // namespace iok::e3sm
