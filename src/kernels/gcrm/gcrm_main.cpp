// iokernels gcrm [paramfile]: the GCRM-IO kernel.  Reads the reference's
// parameter file (zgrd.in), variable description (ZGrd.desc) and file
// configuration (.fcfg), builds the geodesic-grid decomposition, and at each
// dump of the simulated run writes a record to every history file (plus the
// grid file and restart files) through the chosen backend; then reads every
// file back and verifies it.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/kernel_registry.hpp"
#include "core/memory.hpp"
#include "core/resource_check.hpp"
#include "driver/driver.hpp"
#include "kernels/gcrm/gcrm_model.hpp"
#include "kernels/gcrm/gcrm_report.hpp"
#include "kernels/gcrm/gcrm_setup.hpp"
#include "model/plan_size.hpp"

namespace iok::gcrm {
namespace {

void run(int argc, char** argv, MPI_Comm comm) {
    const double t_start = MPI_Wtime();
    CLI::App app{"GCRM I/O kernel: the GCRM-IO benchmark's history, grid and restart files on a geodesic grid"};
    app.name("iokernels gcrm");
    Options o;
    o.add_to(app);
    DriverDefaults defaults;
    defaults.verify = true;
    Driver drv("gcrm", comm, app, argc, argv, defaults);
    if (!drv.parse()) return;
    const int rank = drv.rank(), nprocs = drv.size();
    const CommonOptions& common = drv.options();
    o.verify = common.verify;
    const Inputs in = load_inputs(comm, o);

    configure_stack(drv, in);
    RunPlan plan;
    collective_step(comm, [&] { plan = build_run_plan(in.params, in.grid, in.desc, in.groups, rank, in.out_dir, drv.extension()); });
    if (rank == 0) warn_no_data(plan, in.params.physics);
    std::set<std::string> distinct;
    for (const auto& f : plan.files) distinct.insert(f.path);
    const TextReport params = run_parameters(in, plan, o, drv, distinct.size());
    if (o.dry_run) {
        if (rank == 0) print_plan(params, plan);
        return;
    }

    OutputFiles& outputs = drv.outputs();
    if (o.read_only) {
        if (!o.verify) collective_step(comm, [&] { throw Error("--read-only with --no-verify does nothing", "drop one of them"); });
        for (const auto& path : distinct) outputs.require_readable(path);
    } else {
        for (const auto& path : distinct) outputs.claim(path);  // stale files are refused, never written into
    }
    // Before any buffer exists: one record of one file in memory at a time,
    // the last version of every path on disk.
    {
        ResourceNeeds need;
        std::map<std::string, std::uint64_t> on_disk;
        for (const auto& f : plan.files) {
            need.memory_bytes = std::max(need.memory_bytes, plan_buffer_bytes(f.plan, 1));
            on_disk[f.path] = plan_file_bytes(f.plan);
        }
        if (!o.read_only)
            for (const auto& [path, bytes] : on_disk) need.file_bytes = saturating_add(need.file_bytes, bytes);
        need.output_path = o.read_only ? std::string() : in.out_dir;
        drv.check_resources(need, "level_max (--level) or the simulated time");
    }

    ModelMemory model = o.model_memory ? ModelMemory(in.grid, o.model_arrays) : ModelMemory();
    RunOptions ropt = drv.run_options();
    ropt.progress = false;
    const double t_init = MPI_Wtime() - t_start;
    double t_compute = 0, t_io = 0, t_read = 0;
    Measured m;
    m.nprocs = nprocs;

    // One I/O stack holds every file open at once, each with its writer: a
    // history file gets one record per dump, the grid and restart files theirs.
    const std::unique_ptr<Backend> stack = drv.make_stack();
    std::map<std::size_t, std::unique_ptr<RecordWriter>> open;
    for (const Dump& d : plan.dumps) {
        if (o.read_only) break;
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        if (o.model_memory) model.compute(rank, d.index);
        t_compute += MPI_Wtime() - t0;
        if (rank == 0 && !common.quiet)
            std::fprintf(stderr, "  dump %d at t=%g s%s%s\n", d.index + 1, d.seconds, d.history ? " history" : "",
                         d.restart ? " restart" : "");
        t0 = MPI_Wtime();
        for (std::size_t i = 0; i < plan.files.size(); ++i) {
            const OutputFile& f = plan.files[i];
            const int k = static_cast<int>(std::find(f.dumps.begin(), f.dumps.end(), d.index) - f.dumps.begin());
            if (k == static_cast<int>(f.dumps.size())) continue;  // no record of this file at this dump
            if (k == 0) open[i] = std::make_unique<RecordWriter>(comm, *stack, ropt, f.plan, f.path);
            RecordWriter& writer = *open.at(i);
            if (f.plan.nrecords > 0) writer.write(k, k + 1);
            if (k + 1 == static_cast<int>(f.dumps.size())) {
                FileOutcome out = writer.close();
                m.add(out);
                drv.record(out);
                open.erase(i);
            }
        }
        t_io += MPI_Wtime() - t0;
    }

    // Read back every file (the last version of a path rewritten in place).
    if (o.verify) {
        MPI_Barrier(comm);
        const double t0 = MPI_Wtime();
        std::map<std::string, std::size_t> last;
        for (std::size_t i = 0; i < plan.files.size(); ++i) last[plan.files[i].path] = i;
        for (std::size_t i = 0; i < plan.files.size(); ++i) {
            if (last[plan.files[i].path] != i) continue;
            FileOutcome r = Runner(comm, *stack, ropt).read(plan.files[i].read_plan(), plan.files[i].path);
            m.add(r);
            drv.record(r);
        }
        t_read = MPI_Wtime() - t0;
    }

    const double t_fin0 = MPI_Wtime();
    m.times = reduce_over_ranks(comm, {t_init, t_compute, t_io, t_read, static_cast<double>(peak_rss_bytes())});
    const auto fin = reduce_over_ranks(comm, {MPI_Wtime() - t_fin0});  // the finalize time
    m.model_bytes = model.bytes();
    if (rank == 0) {
        m.finalize = fin[0];
        if (common.verbose)
            for (const auto& t : m.file_reports) t.print();
        if (!common.quiet) print_hints(drv.hints_in_effect());
        params.print();
        print_results(m, o);
        fill_result(drv.result(), m, o, in, plan, distinct.size());
    }
    if (rank == 0 && model.checksum() < 0) std::printf("\n");  // keeps the model compute observable
    drv.finish("the library returned data that was not written; rerun with -v for per-file reports");
}

int gcrm_main(int argc, char** argv) {
    MPI_Comm comm = MPI_COMM_WORLD;
    return run_kernel_main("gcrm", comm, [&] { run(argc, argv, comm); });
}

}  // namespace
}  // namespace iok::gcrm

IOK_REGISTER_KERNEL(gcrm, "gcrm", "GCRM-IO: geodesic-grid history, grid and restart files (PnetCDF benchmark kernel)",
                    iok::gcrm::gcrm_main)
