// iokernels s3d: the S3D-IO checkpoint kernel.  Every checkpoint is a new
// file holding four double arrays of the block-block-block decomposed grid;
// optionally checkpoint 0 of a previous run is read first (restart).  The
// kernel builds plans and hands them to the runner; the I/O stack is
// whatever -a and -x name.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/kernel_registry.hpp"
#include "core/resource_check.hpp"
#include "driver/driver.hpp"
#include "kernels/s3d/s3d_decomp.hpp"
#include "kernels/s3d/s3d_dry_run.hpp"
#include "kernels/s3d/s3d_options.hpp"
#include "kernels/s3d/s3d_plan.hpp"
#include "kernels/s3d/s3d_report.hpp"
#include "kernels/s3d/s3d_summary.hpp"
#include "model/plan_size.hpp"
#include "model/readback_plan.hpp"

namespace iok::s3d {
namespace {

void run(int argc, char** argv, MPI_Comm comm) {
    CLI::App app{"S3D-IO checkpoint kernel: every checkpoint writes yspecies(11,z,y,x), u(3,z,y,x), "
                 "pressure(z,y,x) and temp(z,y,x) (double, block-block-block over the ranks) to a new file "
                 "pressure_wave_test.<time>.field<ext>; --restart first reads checkpoint 0.",
                 "iokernels s3d"};
    Options opt;
    opt.add_to(app);
    DriverDefaults defaults;
    defaults.verify = true;  // after the timed run, not part of the reference's figures
    Driver d("s3d", comm, app, argc, argv, defaults);
    Grid grid;
    if (!d.parse([&] {
            const int nranks = opt.planned_ranks(d.size());
            grid = opt.resolve(nranks);
            validate(grid, nranks);
            // The reference keeps and clobbers its checkpoints; its form does too.
            if (opt.reference_form()) d.options().keep = d.options().overwrite = true;
        }))
        return;
    if (opt.dry_run) return dry_run(d, opt, grid);
    const int rank = d.rank();
    const CommonOptions& c = d.options();
    check_output_directory(comm, opt.dir);

    // The reference's hints (io_profiling_m.f90): no alignment padding
    // between variables, byte swap in place (no extra buffer).  It sets no
    // nc_header_align_size, so with PnetCDF >= 1.13 the data start right
    // after the header (588 bytes for the five dimensions and four
    // variables): the file is 588 + 128 N bytes, as S3D-IO's today.  Other
    // MPI-IO layers ignore these keys; --hint overrides each (e.g.
    // --hint nc_header_align_size=512 gives the 1024-byte header of
    // PnetCDF releases before 1.13).
    d.default_hint("nc_var_align_size", "1");
    d.default_hint("nc_in_place_swap", "enable");
    d.default_param("pnetcdf.api", opt.nonblocking() ? "varn" : "blocking");
    std::unique_ptr<Backend> backend = d.make_stack();

    std::vector<std::string> paths;
    for (int k = 0; k < opt.checkpoints; ++k) paths.push_back(join_path(opt.dir, checkpoint_name(k, d.extension())));
    const Block blk = block_of(grid, rank);
    RunOptions ropt = d.run_options();
    ropt.progress = false;
    // Before any buffer exists: one checkpoint in memory, all on disk.
    {
        const FilePlan p0 = checkpoint_plan(grid, rank, 0);
        ResourceNeeds need;
        need.memory_bytes = plan_buffer_bytes(p0);
        need.file_bytes = saturating_mul(plan_file_bytes(p0), static_cast<std::uint64_t>(opt.checkpoints));
        need.output_path = opt.dir;
        d.check_resources(need, "the grid (--grid/--local) or -c/--checkpoints");
    }
    Runner runner(comm, *backend, ropt);
    Totals totals;
    std::vector<TextReport> file_reports;
    const char* mismatch_hint = "the file does not hold what an s3d run with this grid writes: was it modified, "
                                "or written with other --grid/--local options?";

    // Restart: checkpoint 0 of a previous run, read and verified before
    // anything is written (the reference reads it, then carries on).
    RestartNote restart;
    if (opt.restart) {
        if (exists_on_rank0(comm, paths[0])) {
            FileOutcome r = runner.read(checkpoint_plan(grid, rank, 0), paths[0]);
            collective_step(comm, [&] {
                if (r.mismatches) throw Error("restart file " + paths[0] + " failed verification: " + std::to_string(r.mismatches) +
                                                  " element(s) differ; first: " + r.first_mismatch,
                                              mismatch_hint);
            });
            restart = {true, "True (read and verified " + paths[0] + ")"};
            if (rank == 0) {
                totals.add(r.metrics);
                file_reports.push_back(r.text);
            }
            d.record(r, {{"role", "restart"}});
        } else {
            restart.text = "True (" + paths[0] + " not found: no restart read)";
            if (rank == 0 && !c.quiet)
                std::printf("restart: %s not found; continuing without the restart read\n", paths[0].c_str());
        }
    }

    // Claim every output before writing any.  A restart file that just
    // passed verification is this benchmark's own output and is rewritten
    // as checkpoint 0, as the reference does.
    OutputFiles restart_output(comm, c.keep, true);
    for (int k = 0; k < opt.checkpoints; ++k) {
        if (k == 0 && restart.read) restart_output.claim(paths[0]);
        else d.outputs().claim(paths[static_cast<std::size_t>(k)]);
    }

    for (int k = 0; k < opt.checkpoints; ++k) {
        FileOutcome w = runner.write(checkpoint_plan(grid, rank, k), paths[static_cast<std::size_t>(k)]);
        if (rank == 0) {
            totals.add(w.metrics);
            file_reports.push_back(w.text);
            if (c.verbose) std::fprintf(stderr, "  checkpoint %d written: %s\n", k, paths[k].c_str());
        }
        d.record(w, {{"role", "checkpoint"}, {"checkpoint", k}});
    }

    // Read-back of every checkpoint: not part of the reference's figures.
    // Each rank reads a contiguous 1/P of every variable (the blocks cover
    // the arrays) rather than its own 3-D block: a collective read of the
    // blocks moved every byte through one aggregator and cost as much as
    // the write (issue 19).  Strategies that read back only with the
    // writers' selections keep them.
    const bool by_file = !d.strategy().read_needs_same_ranks;
    if (c.verify)
        for (int k = 0; k < opt.checkpoints; ++k) {
            const FilePlan written = checkpoint_plan(grid, rank, k);
            FileOutcome r = runner.read(by_file ? contiguous_readback_plan(written, rank, d.size()) : written,
                                        paths[static_cast<std::size_t>(k)]);
            if (rank == 0 && c.verbose) file_reports.push_back(r.text);
            d.record(r, {{"role", "verify"}, {"checkpoint", k}});
        }

    if (rank == 0) {
        if (c.verbose)
            for (const auto& t : file_reports) t.print();
        summarize(d, opt, grid, blk, totals, restart);
    }
    d.finish(mismatch_hint);
}

}  // namespace

int s3d_main(int argc, char** argv) {
    return run_kernel_main("s3d", MPI_COMM_WORLD, [&] { run(argc, argv, MPI_COMM_WORLD); });
}

}  // namespace iok::s3d

IOK_REGISTER_KERNEL(s3d, "s3d", "S3D-IO combustion checkpoints: 4 double arrays, block-block-block, one file each",
                    iok::s3d::s3d_main)
