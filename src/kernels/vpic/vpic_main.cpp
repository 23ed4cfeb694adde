// iokernels vpic: the VPIC-IO particle write kernel of h5bench (h5bench_write).
// Every time step writes 8 particle variables (32 bytes per particle); HDF5
// puts a step in group /Timestep_<i>, other libraries use a record per step.
// Emulated compute (a sleep) separates the steps.  The kernel builds the plan
// and drives the runner's RecordWriter; it never calls an I/O library.
// IO_OPERATION=OVERWRITE / APPEND (h5bench_overwrite / h5bench_append) open
// an existing file for update instead: OVERWRITE rewrites its first
// TIMESTEPS steps with new values (DATA_SEED), APPEND adds TIMESTEPS steps
// after the ones it holds (UNLIMITED=YES files).
#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/kernel_registry.hpp"
#include "core/output_files.hpp"
#include "core/resource_check.hpp"
#include "kernels/vpic/vpic_geometry.hpp"
#include "model/plan_size.hpp"
#include "kernels/vpic/vpic_plan.hpp"
#include "kernels/vpic/vpic_report.hpp"
#include "kernels/vpic/vpic_run.hpp"

namespace iok::vpic {
namespace {

int vpic_main(int argc, char** argv) {
    MPI_Comm world = MPI_COMM_WORLD;
    return run_kernel_main("vpic", world, [&] {
        CLI::App app{"VPIC-IO particle write (h5bench_write): 8 variables x y z px py pz id_1 id_2 per particle, "
                     "TIMESTEPS steps as /Timestep_<i> groups (HDF5) or records (other libraries). Configure with "
                     "an h5bench KEY=VALUE file (iokernels vpic CONFIG FILE) or the named options below.",
                     "iokernels vpic"};
        Cli cli;
        cli.add_to(app, false);
        DriverDefaults defaults = particle_defaults();
        Driver d("vpic", world, app, argc, argv, defaults);
        const int rank = d.rank(), nprocs = d.size();
        if (!d.parse([&] { cli.resolve(false, "vpic_particles"); })) return;

        Config& cfg = cli.cfg;
        configure_stack(d, cfg);
        std::unique_ptr<Backend> backend = d.make_stack();
        // A default path gets the library's extension.
        if (cli.path == "vpic_particles") cli.path += d.extension();
        // The reference keeps (and clobbers) its file.
        OutputFiles reference_outputs(world, true, true);
        OutputFiles& outputs = cli.reference_form() ? reference_outputs : d.outputs();

        // Geometry and plan: one shared file, or one file per rank.
        const bool fpp = cfg.file_per_proc;
        Geometry g;
        FilePlan plan;
        collective_step(world, [&] {
            g = fpp ? own_file_geometry(cfg, nprocs, rank) : make_geometry(cfg, nprocs);
            plan = particle_plan(cfg, g, write_selection(g, cfg, fpp ? 0 : rank));
        });
        const std::uint64_t my_particles = plan.selection[0]->elements();

        std::vector<std::string> paths;
        if (fpp)
            for (int r = 0; r < nprocs; ++r) paths.push_back(insert_suffix(cli.path, std::to_string(r)));
        else
            paths.push_back(cli.path);
        const bool update = cfg.update();
        const char* op = cfg.operation == IoOperation::Append ? "APPEND" : "OVERWRITE";
        if (update) {
            // The file is the input: it must exist, and stays whatever happens.
            for (const auto& p : paths)
                collective_step(world, [&] {
                    std::error_code ec;
                    if (!std::filesystem::exists(p, ec))
                        throw Error(std::string("IO_OPERATION=") + op + " needs an existing file, and '" + p +
                                        "' does not exist",
                                    cfg.operation == IoOperation::Append
                                        ? "write it first with UNLIMITED=YES (h5bench's write-unlimited), the same "
                                          "DIM_* and rank count, then append to it"
                                        : "write it first (h5bench's write) with the same DIM_* and rank count, "
                                          "then overwrite it");
                });
        } else {
            for (const auto& p : paths) outputs.claim(p);
        }
        // Before any buffer exists: one time step's particles in memory (twice
        // with struct memory: the structs and the fields packed from them),
        // every step on disk.
        ResourceNeeds need;
        need.memory_bytes = saturating_mul(plan_buffer_bytes(plan, 1), plan.memory_struct.empty() ? 1 : 2);
        need.file_bytes = cfg.operation == IoOperation::Overwrite ? 0 : plan_file_bytes(plan);
        need.output_path = paths[0];
        d.check_resources(need, "DIM_1 x DIM_2 x DIM_3 (particles per rank) or TIMESTEPS");
        const std::string my_path = fpp ? paths[static_cast<std::size_t>(rank)] : paths[0];
        MPI_Comm io_comm = fpp ? MPI_COMM_SELF : world;

        if (!cfg.env_metadata_file.empty())
            collective_step(world, [&] {
                if (rank == 0) write_env_metadata(cfg.env_metadata_file);
            });

        RunOptions ropt = d.run_options();
        ropt.progress = !d.options().quiet && d.options().verbose;
        // Observed time: create -> close, compute between steps included.
        MPI_Barrier(world);
        const double t0 = MPI_Wtime();
        double compute = 0;
        FileOutcome w;
        {
            RecordWriter writer(io_comm, *backend, ropt, plan, my_path, update ? Access::Update : Access::Read);
            // Append starts after the file's last step; overwrite needs the steps it rewrites.
            std::int64_t first = 0;
            if (update)
                collective_step(world, [&] {
                    const std::int64_t have = writer.records_in_file();
                    if (have < 0)
                        throw Error(std::string("IO_OPERATION=") + op + ": backend " + backend->name() +
                                        " cannot tell how many time steps '" + my_path + "' holds",
                                    "use -a hdf5, pnetcdf, netcdf4, adios or mpiio");
                    if (cfg.operation == IoOperation::Append) first = have;
                    else if (have < cfg.timesteps)
                        throw Error("IO_OPERATION=OVERWRITE TIMESTEPS=" + std::to_string(cfg.timesteps) + ": '" +
                                        my_path + "' holds " + std::to_string(have) + " time steps",
                                    "overwrite at most the " + std::to_string(have) + " steps it has (TIMESTEPS=" +
                                        std::to_string(have) + "), or APPEND new ones");
                });
            compute = run_time_steps(cfg, !d.options().quiet && rank == 0,
                                     cfg.operation == IoOperation::Overwrite ? "overwritten"
                                     : update                                ? "appended"
                                                                             : "written",
                                     t0, [&](int t) {
                                         const int r = static_cast<int>(first) + t;
                                         writer.write(r, r + 1);
                                     });
            w = writer.close();
        }
        MPI_Barrier(world);
        const double observed = MPI_Wtime() - t0;
        Metrics m = reduce_metrics(world, true, w.metrics, fpp || rank == 0, observed, compute, my_particles);

        if (rank == 0) report_write(d, cli, g, w, m);
        if (!cfg.csv_file.empty())
            collective_step(world, [&] {
                if (rank == 0)
                    write_csv(cfg.csv_file, m, cfg, {{"mem pattern", name(cfg.mem)}, {"file pattern", name(cfg.file)}});
            });
        d.record(w, {{"role", "particles"}});
        d.finish();
    });
}

}  // namespace
}  // namespace iok::vpic

IOK_REGISTER_KERNEL(vpic, "vpic", "VPIC-IO particle write (h5bench_write): 8 fields per particle, time steps as groups",
                    iok::vpic::vpic_main)
