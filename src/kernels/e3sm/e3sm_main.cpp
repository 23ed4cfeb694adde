// iokernels e3sm: E3SM climate-model history output (F, G, I cases) replayed
// from decomposition maps on any backend and strategy.
#include <mpi.h>

#include <cstdio>
#include <memory>

#include "core/collective.hpp"
#include "core/kernel_registry.hpp"
#include "core/output_files.hpp"
#include "core/report.hpp"
#include "core/stats.hpp"
#include "driver/driver.hpp"
#include "kernels/e3sm/case_spec.hpp"
#include "kernels/e3sm/case_stats.hpp"
#include "kernels/e3sm/decomp_map.hpp"
#include "kernels/e3sm/e3sm_options.hpp"
#include "kernels/e3sm/e3sm_plan.hpp"
#include "runner/runner.hpp"

namespace iok::e3sm {
namespace {

std::string history_path(const std::string& stem, const std::string& label, std::size_t nfiles) {
    return nfiles > 1 ? insert_suffix(stem, label) : stem;
}

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

void print_var_counts(const FilePlan& p, int ndecomps) {
    const VarCounts vc = count_vars(p.spec, ndecomps);
    TextReport t;
    t.section("history file " + p.spec.label);
    t.count("Variables not partitioned", static_cast<std::uint64_t>(vc.not_partitioned));
    for (std::size_t k = 0; k < vc.per_decomp.size(); ++k)
        t.count("Variables using decomposition D" + std::to_string(k + 1), static_cast<std::uint64_t>(vc.per_decomp[k]));
    t.count("Total number of variables", static_cast<std::uint64_t>(vc.total));
    t.print();
}

void run(int argc, char** argv, MPI_Comm world) {
    CLI::App app{"E3SM climate-model history output (F, G and I cases) from decomposition maps.\n"
                 "Accepts the E3SM-IO command line: e3sm [-k] [-r n] [-f h] [-s n] [-m] [-t] [-i path] [-o path]\n"
                 "[-a api] [-x strategy] [-g n] [-v] MAP",
                 "iokernels e3sm"};
    Options o;
    o.add_to(app);
    Driver d("e3sm", world, app, argc, argv);
    if (!d.parse([&] { o.validate(); })) return;
    const int rank = d.rank(), nprocs = d.size();
    const CommonOptions& c = d.options();
    d.outputs().require_readable(o.map_path);

    // Prepare: read the map, pick the case, build this rank's plans.
    MPI_Barrier(world);
    double t_prepare = MPI_Wtime();
    DecompMap map;
    collective_step(world, [&] { map = read_decomp_map_collective(o.map_path, world); });
    CaseOptions copt;
    copt.float_vars = o.use_float;
    std::string case_label;
    std::vector<FileSpec> all_files;
    collective_step(world, [&] {
        const CaseKind kind = o.case_name == "auto" ? case_for_map(map) : case_from_name(o.case_name);
        case_label = case_name(kind);
        all_files = case_files(kind, map, copt);
    });

    // I/O ranks: every stride-th rank; the others sit out of the I/O.
    const bool io_rank = rank % o.stride == 0;
    MPI_Comm io;
    MPI_Comm_split(world, io_rank ? 0 : MPI_UNDEFINED, rank, &io);
    int io_me = 0, io_size = (nprocs + o.stride - 1) / o.stride;
    if (io_rank) MPI_Comm_rank(io, &io_me);

    std::vector<FileSpec> specs;
    for (const auto& f : all_files)
        if (o.hist < 0 || (o.hist == 0 && f.label != "h1") || (o.hist == 1 && f.label == "h1")) specs.push_back(f);
    PlanSettings ps;
    ps.io_rank = io_me;
    ps.io_size = io_size;
    ps.sort = !o.no_sort;
    ps.fill = o.fill;
    ps.flush_every = o.flush_every;
    ps.two_d_first = o.two_d_first;
    std::vector<FilePlan> plans;
    collective_step(world, [&] {
        if (!io_rank) return;
        for (const auto& s : specs) {
            PlanSettings fs = ps;
            fs.records = records_of(case_label, s.label, o.records);
            plans.push_back(make_file_plan(s, map, fs));
        }
    });
    t_prepare = MPI_Wtime() - t_prepare;
    auto prep = reduce_over_ranks(world, {t_prepare});

    d.set_fill(o.fill);
    if (o.vard) d.default_param("pnetcdf.api", "vard");
    if (o.blocking) d.default_param("pnetcdf.api", "blocking");
    std::unique_ptr<Backend> backend = d.make_stack();
    if (rank == 0 && !c.quiet) print_header(o, map, case_label, nprocs, io_size, d);

    Result& result = d.result();
    result.add_input("map", o.map_path);
    result.params().update({{"case", case_label},        {"records", o.records},  {"flush_every", o.flush_every},
                            {"float", o.use_float},      {"fill", o.fill},        {"sort", !o.no_sort},
                            {"stride", o.stride},        {"noncontig_buffer", o.noncontig_buf},
                            {"io_processes", io_size}});
    if (rank == 0) result.summary()["prepare_seconds"] = {{"min", prep[0].min}, {"max", prep[0].max}};

    RunOptions ro = d.run_options();
    ro.noncontig_buffer = o.noncontig_buf;
    double write_seconds = 0;
    auto take = [&](FileOutcome& out) {
        if (rank == 0) {
            out.text.print();
            if (out.json["mode"] == "write") write_seconds += out.json["seconds"]["end_to_end"]["max"].get<double>();
        }
        d.record(out);
    };

    // Claim every output first, on all ranks (OutputFiles is collective over
    // the world communicator; the I/O below runs on the I/O ranks only).
    std::vector<std::string> out_paths;
    for (const auto& s : specs) out_paths.push_back(o.output.empty() ? "" : history_path(o.output, s.label, all_files.size()));
    for (const auto& p : out_paths)
        if (!p.empty()) d.outputs().claim(p);
    for (const auto& s : specs)
        if (!o.input.empty()) d.outputs().require_readable(history_path(o.input, s.label, all_files.size()));

    if (io_rank) {
        Runner runner(io, *backend, ro);
        for (std::size_t i = 0; i < plans.size(); ++i) {
            const FilePlan& p = plans[i];
            if (rank == 0 && !c.quiet) print_var_counts(p, static_cast<int>(map.decomps.size()));
            if (!o.input.empty()) {
                auto out = runner.read(p, history_path(o.input, p.spec.label, all_files.size()));
                take(out);
            }
            if (!o.output.empty()) {
                auto out = runner.write(p, out_paths[i]);
                take(out);
                if (c.verify) {
                    auto rd = runner.read(p, out_paths[i]);
                    take(rd);
                }
            }
        }
    }
    if (rank == 0) {
        if (write_seconds > 0) result.summary()["prepare_fraction_of_write"] = prep[0].max / write_seconds;
        TextReport t;
        t.section("summary");
        t.line("Time preparing requests (max)", prep[0].max, "s");
        if (write_seconds > 0) t.line("Preparing / write time", 100.0 * prep[0].max / write_seconds, "%", 2);
        if (!o.input.empty() || c.verify)
            t.line("Verification", d.mismatches() ? "FAILED (" + std::to_string(d.mismatches()) + " elements)"
                                                  : std::string("passed"));
        if (!c.quiet) t.print();
    }
    if (io_rank) MPI_Comm_free(&io);
    d.finish("the file does not hold what was written");
}

}  // namespace

int e3sm_main(int argc, char** argv) {
    return run_kernel_main("e3sm", MPI_COMM_WORLD, [&] { run(argc, argv, MPI_COMM_WORLD); });
}

}  // namespace iok::e3sm

IOK_REGISTER_KERNEL(e3sm, "e3sm", "E3SM climate history output (F, G, I cases) from decomposition maps",
                    iok::e3sm::e3sm_main)
