// iokernels bdcats: the BDCATS-IO particle read kernel of h5bench
// (h5bench_read).  Reads the files `iokernels vpic` writes -- the compound
// (INTERLEAVED) ones too, which the reference cannot -- with the patterns
// FULL, PARTIAL, STRIDED (1-D) and LDC, RDC, PRL, CS (2-D, shared over all
// ranks instead of rank 0 alone), and verifies every particle read.
#include <mpi.h>

#include <cstdio>
#include <memory>
#include <string>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/kernel_registry.hpp"
#include "core/output_files.hpp"
#include "core/resource_check.hpp"
#include "kernels/vpic/vpic_geometry.hpp"
#include "kernels/vpic/vpic_plan.hpp"
#include "kernels/vpic/vpic_report.hpp"
#include "kernels/vpic/vpic_run.hpp"
#include "model/plan_size.hpp"

namespace iok::vpic {
namespace {

int bdcats_main(int argc, char** argv) {
    MPI_Comm world = MPI_COMM_WORLD;
    return run_kernel_main("bdcats", world, [&] {
        CLI::App app{"BDCATS-IO particle read (h5bench_read): reads the 8 particle variables of every time step "
                     "written by `iokernels vpic` with READ_OPTION FULL, PARTIAL, STRIDED (1-D) or LDC, RDC, PRL, "
                     "CS (2-D), and verifies each value. Give the configuration the file was written with.",
                     "iokernels bdcats"};
        Cli cli;
        cli.add_to(app, true);
        DriverDefaults defaults = particle_defaults();
        Driver d("bdcats", world, app, argc, argv, defaults);
        const int rank = d.rank(), nprocs = d.size();
        Config& cfg = cli.cfg;
        if (!d.parse([&] {
                cli.resolve(true, "vpic_particles");
                // Storage settings only matter when writing (h5bench: "no effect for read").
                cfg.compress = false;
                cfg.align = false;
            }))
            return;

        configure_stack(d, cfg);
        std::unique_ptr<Backend> backend = d.make_stack();
        if (cli.path == "vpic_particles") cli.path += d.extension();

        const bool fpp = cfg.file_per_proc;
        const int writers = cli.writers > 0 ? cli.writers : nprocs;
        // blob and log keep each writer's blocks as written: only the same
        // selections on the same ranks read them back (their replay tools
        // rebuild a canonical file for any other read).
        d.expressible(!d.strategy().read_needs_same_ranks || (cfg.read == ReadOption::Full && writers == nprocs),
                      std::string("READ_OPTION=") + name(cfg.read) + " on " + std::to_string(nprocs) +
                          " ranks reads other blocks than " + std::to_string(writers) + " writers wrote, which strategy " +
                          d.options().strategy + " cannot serve",
                      "read FULL with the writers' rank count, or rebuild the canonical file with " +
                          d.options().strategy + "_replay and read it with -x canonical");
        Geometry g;
        FilePlan plan;
        collective_step(world, [&] {
            if (fpp && writers != nprocs)
                throw Error("FILE_PER_PROC files are read by as many ranks as wrote them (" + std::to_string(writers) +
                                "), not " + std::to_string(nprocs),
                            "run bdcats with " + std::to_string(writers) + " ranks");
            g = fpp ? own_file_geometry(cfg, writers, rank) : make_geometry(cfg, writers);
            plan = particle_plan(cfg, g, fpp ? read_selection(g, cfg, 0, 1) : read_selection(g, cfg, rank, nprocs));
        });
        const std::uint64_t my_particles = plan.selection[0]->elements();  // per time step
        const std::string my_path = fpp ? insert_suffix(cli.path, std::to_string(rank)) : cli.path;
        MPI_Comm io_comm = fpp ? MPI_COMM_SELF : world;
        OutputFiles& inputs = d.outputs();
        if (fpp) {
            for (int r = 0; r < nprocs; ++r) inputs.require_readable(insert_suffix(cli.path, std::to_string(r)));
        } else {
            inputs.require_readable(cli.path);
        }
        // Before any buffer exists: one time step's particles in memory (twice
        // with struct memory); a read puts nothing on disk.
        ResourceNeeds need;
        need.memory_bytes = saturating_mul(plan_buffer_bytes(plan, 1), plan.memory_struct.empty() ? 1 : 2);
        d.check_resources(need, "DIM_1 x DIM_2 x DIM_3 (particles per rank)");

        RunOptions ropt = d.run_options();
        ropt.progress = !d.options().quiet && d.options().verbose;
        MPI_Barrier(world);
        const double t0 = MPI_Wtime();
        double compute = 0;
        FileOutcome r;
        {
            RecordReader reader(io_comm, *backend, ropt, plan, my_path);
            compute = run_time_steps(cfg, !d.options().quiet && rank == 0, "read", t0,
                                     [&](int t) { reader.read(t, t + 1); });
            r = reader.close();
        }
        MPI_Barrier(world);
        const double observed = MPI_Wtime() - t0;
        Metrics m = reduce_metrics(world, false, r.metrics, fpp || rank == 0, observed, compute, my_particles);
        // Mismatches: per file; sum over ranks for file-per-process.
        std::uint64_t bad = fpp ? r.mismatches : (rank == 0 ? r.mismatches : 0);
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_UINT64_T, MPI_SUM, world);

        if (rank == 0) report_read(d, cli, g, r, m, writers, bad);
        if (!cfg.csv_file.empty())
            collective_step(world, [&] {
                if (rank == 0) write_csv(cfg.csv_file, m, cfg, {{"read option", name(cfg.read)}});
            });
        d.record(r, {{"role", "particles"}});
        d.finish("the file does not hold what `iokernels vpic` writes with this configuration: was it "
                 "modified, or written with another configuration or rank count (--writers)?");
    });
}

}  // namespace
}  // namespace iok::vpic

IOK_REGISTER_KERNEL(bdcats, "bdcats", "BDCATS-IO particle read (h5bench_read): FULL/PARTIAL/STRIDED/LDC/RDC/PRL/CS, verified",
                    iok::vpic::bdcats_main)
