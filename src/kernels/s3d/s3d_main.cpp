// iokernels s3d: the S3D-IO checkpoint kernel.  Every checkpoint is a new
// file holding four double arrays of the block-block-block decomposed grid;
// optionally checkpoint 0 of a previous run is read first (restart).  The
// kernel describes its steps; the driver runs them (driver/kernel.hpp).
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "driver/kernel.hpp"
#include "kernels/s3d/s3d_dry_run.hpp"
#include "kernels/s3d/s3d_plan.hpp"
#include "kernels/s3d/s3d_summary.hpp"
#include "model/readback_plan.hpp"

namespace iok::s3d {
namespace {

const char* const kMismatchHint =
    "the file does not hold what an s3d run with this grid writes: was it modified, "
    "or written with other --grid/--local options?";

class S3d final : public Kernel {
public:
    const char* name() const override { return "s3d"; }
    std::string description() const override {
        return "S3D-IO checkpoint kernel: every checkpoint writes yspecies(11,z,y,x), u(3,z,y,x), pressure(z,y,x) and "
               "temp(z,y,x) (double, block-block-block over the ranks) to a new file "
               "pressure_wave_test.<time>.field<ext>; --restart first reads checkpoint 0.";
    }
    void add_options(CLI::App& app, DriverDefaults& defaults) override {
        opt_.add_to(app);
        defaults.verify = true;  // after the timed run, not part of the reference's figures
    }
    void validate(Driver& d) override {
        opt_.dry_run = d.options().dry_run;
        const int nranks = opt_.planned_ranks(d.size());
        grid_ = opt_.resolve(nranks);
        s3d::validate(grid_, nranks);
        // The reference keeps and clobbers its checkpoints; its form does too.
        if (opt_.reference_form()) d.options().keep = d.options().overwrite = true;
    }
    void configure(Driver& d) override {
        // The reference's hints (io_profiling_m.f90): no alignment padding
        // between variables, byte swap in place (no extra buffer).  It sets
        // no nc_header_align_size, so with PnetCDF >= 1.13 the data start
        // right after the header (588 bytes for the five dimensions and four
        // variables): the file is 588 + 128 N bytes, as S3D-IO's today.
        // Other MPI-IO layers ignore these keys; --hint overrides each (e.g.
        // --hint nc_header_align_size=512 gives the 1024-byte header of
        // PnetCDF releases before 1.13).
        d.default_hint("nc_var_align_size", "1");
        d.default_hint("nc_in_place_swap", "enable");
        d.default_param("pnetcdf.api", opt_.nonblocking() ? "varn" : "blocking");
    }
    void dry_run(Driver& d) override { s3d::dry_run(d, opt_, grid_); }
    KernelPlan plan(Driver& d) override;
    void step_done(Driver& d, const StepOutcome& o) override {
        if (d.rank() != 0) return;
        const std::string role = o.step->tags.value("role", "");
        if (role == "verify") {
            if (d.options().verbose) reports_.push_back(o.out.text);
            return;
        }
        totals_.add(o.out.metrics);
        reports_.push_back(o.out.text);
        if (role == "checkpoint" && d.options().verbose)
            std::fprintf(stderr, "  checkpoint %d written: %s\n", o.step->tags.value("checkpoint", 0),
                         o.step->path.c_str());
    }
    void report(Driver& d, const std::vector<StepOutcome>&, const std::vector<GroupOutcome>&) override {
        if (d.rank() != 0) return;
        if (d.options().verbose)
            for (const auto& t : reports_) t.print();
        summarize(d, opt_, grid_, block_of(grid_, d.rank()), totals_, restart_);
    }

private:
    Options opt_;
    Grid grid_;
    RestartNote restart_;
    Totals totals_;
    std::vector<TextReport> reports_;
};

KernelPlan S3d::plan(Driver& d) {
    check_output_directory(d.comm(), opt_.dir);
    std::vector<std::string> paths;
    for (int k = 0; k < opt_.checkpoints; ++k) paths.push_back(join_path(opt_.dir, checkpoint_name(k, d.extension())));
    KernelPlan p;
    p.shrink_hint = "the grid (--grid/--local) or -c/--checkpoints";
    p.mismatch_hint = kMismatchHint;
    p.output_dir = opt_.dir;
    p.runner_progress = false;
    StepGroup g;
    // Restart: checkpoint 0 of a previous run, read and verified before
    // anything is written (the reference reads it, then carries on); then
    // it is this benchmark's own output, rewritten as checkpoint 0.
    if (opt_.restart) {
        restart_.read = exists_on_rank0(d.comm(), paths[0]);
        if (restart_.read) {
            restart_.text = "True (read and verified " + paths[0] + ")";
            Step r{StepKind::Read,
                   share(checkpoint_plan(grid_, d.rank(), 0)),
                   paths[0],
                   PathUse::Input,
                   {{"role", "restart"}}};
            r.check = [path = paths[0]](const FileOutcome& out) {
                if (out.mismatches)
                    throw Error("restart file " + path + " failed verification: " + std::to_string(out.mismatches) +
                                    " element(s) differ; first: " + out.first_mismatch,
                                kMismatchHint);
            };
            g.steps.push_back(std::move(r));
        } else {
            restart_.text = "True (" + paths[0] + " not found: no restart read)";
            if (d.rank() == 0 && !d.options().quiet)
                std::printf("restart: %s not found; continuing without the restart read\n", paths[0].c_str());
        }
    }
    for (int k = 0; k < opt_.checkpoints; ++k)
        g.steps.push_back({StepKind::Write,
                           share(checkpoint_plan(grid_, d.rank(), k)),
                           paths[static_cast<std::size_t>(k)],
                           k == 0 && restart_.read ? PathUse::Replaced : PathUse::Output,
                           {{"role", "checkpoint"}, {"checkpoint", k}}});
    // Read-back of every checkpoint, not part of the reference's figures.
    // Each rank reads a contiguous 1/P of every variable (the blocks cover
    // the arrays) rather than its own 3-D block: a collective read of the
    // blocks moved every byte through one aggregator and cost as much as
    // the write (issue 19).  Strategies that read back only with the
    // writers' selections keep them.
    const bool by_file = !d.strategy().read_needs_same_ranks;
    if (d.options().verify)
        for (int k = 0; k < opt_.checkpoints; ++k) {
            FilePlan written = checkpoint_plan(grid_, d.rank(), k);
            g.steps.push_back({StepKind::Read,
                               share(by_file ? contiguous_readback_plan(written, d.rank(), d.size()) : written),
                               paths[static_cast<std::size_t>(k)],
                               PathUse::Written,
                               {{"role", "verify"}, {"checkpoint", k}}});
        }
    p.groups.push_back(std::move(g));
    return p;
}

}  // namespace
}  // namespace iok::s3d

IOK_REGISTER_KERNEL(s3d, "s3d", "S3D-IO combustion checkpoints: 4 double arrays, block-block-block, one file each",
                    iok::s3d::S3d)
