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
#include <optional>
#include <set>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "driver/kernel.hpp"
#include "kernels/gcrm/gcrm_model.hpp"
#include "kernels/gcrm/gcrm_report.hpp"
#include "kernels/gcrm/gcrm_setup.hpp"

namespace iok::gcrm {
namespace {

class Gcrm final : public Kernel {
public:
    const char* name() const override { return "gcrm"; }
    std::string description() const override {
        return "GCRM I/O kernel: the GCRM-IO benchmark's history, grid and restart files on a geodesic grid";
    }
    void add_options(CLI::App& app, DriverDefaults& defaults) override {
        t_start_ = MPI_Wtime();
        o_.add_to(app);
        defaults.verify = true;
    }
    void validate(Driver& d) override {
        o_.verify = d.options().verify;
        o_.dry_run = d.options().dry_run;
        if (o_.read_only && !o_.verify) throw Error("--read-only with --no-verify does nothing", "drop one of them");
    }
    void configure(Driver& d) override {
        in_.emplace(load_inputs(d.comm(), o_));
        configure_stack(d, *in_);
        collective_step(d.comm(), [&] {
            run_ =
                build_run_plan(in_->params, in_->grid, in_->desc, in_->groups, d.rank(), in_->out_dir, d.extension());
        });
        if (d.rank() == 0) warn_no_data(run_, in_->params.physics);
        for (const auto& f : run_.files) distinct_.insert(f.path);
        params_ = run_parameters(*in_, run_, o_, d, distinct_.size());
    }
    void dry_run(Driver& d) override {
        if (d.rank() == 0) print_plan(params_, run_);
    }
    KernelPlan plan(Driver& d) override;
    void begin(Driver& d) override {
        if (o_.model_memory) model_ = ModelMemory(in_->grid, o_.model_arrays);
        m_.nprocs = d.size();
        t_init_ = MPI_Wtime() - t_start_;
    }
    void step_done(Driver&, const StepOutcome& o) override { m_.add(o.out); }
    void report(Driver& d, const std::vector<StepOutcome>&, const std::vector<GroupOutcome>& groups) override;

private:
    Options o_;
    std::optional<Inputs> in_;
    RunPlan run_;
    std::set<std::string> distinct_;
    TextReport params_;
    ModelMemory model_;
    Measured m_;
    double t_start_ = 0, t_init_ = 0, t_compute_ = 0, t_io_ = 0, t_io0_ = 0;
};

KernelPlan Gcrm::plan(Driver& d) {
    KernelPlan p;
    p.shrink_hint = "level_max (--level) or the simulated time";
    p.mismatch_hint = "the library returned data that was not written; rerun with -v for per-file reports";
    p.runner_progress = false;
    p.output_dir = in_->out_dir;
    // One I/O stack holds every file open at once: a history file gets one
    // record per dump, the grid and restart files theirs.
    StepGroup writes;
    if (!o_.read_only) {
        writes.ticks = static_cast<int>(run_.dumps.size());
        for (const OutputFile& f : run_.files) {
            Step s{StepKind::Write, share(f.plan), f.path};
            for (int dump : f.dumps)
                for (std::size_t t = 0; t < run_.dumps.size(); ++t)
                    if (run_.dumps[t].index == dump) s.ticks.push_back(static_cast<int>(t));
            writes.steps.push_back(std::move(s));
        }
        writes.before_tick = [this, &d](int t) {
            const Dump& dump = run_.dumps[static_cast<std::size_t>(t)];
            MPI_Barrier(d.comm());
            const double t0 = MPI_Wtime();
            if (o_.model_memory) model_.compute(d.rank(), dump.index);
            t_compute_ += MPI_Wtime() - t0;
            if (d.rank() == 0 && !d.options().quiet)
                std::fprintf(stderr, "  dump %d at t=%g s%s%s\n", dump.index + 1, dump.seconds,
                             dump.history ? " history" : "", dump.restart ? " restart" : "");
            t_io0_ = MPI_Wtime();
        };
        writes.after_tick = [this](int) { t_io_ += MPI_Wtime() - t_io0_; };
    }
    p.groups.push_back(std::move(writes));
    // Read back every file (the last version of a path rewritten in place).
    StepGroup reads;
    if (o_.verify) {
        std::map<std::string, std::size_t> last;
        for (std::size_t i = 0; i < run_.files.size(); ++i) last[run_.files[i].path] = i;
        for (std::size_t i = 0; i < run_.files.size(); ++i)
            if (last[run_.files[i].path] == i)
                reads.steps.push_back({StepKind::Read, share(run_.files[i].read_plan()), run_.files[i].path,
                                       o_.read_only ? PathUse::Input : PathUse::Written});
    }
    p.groups.push_back(std::move(reads));
    return p;
}

void Gcrm::report(Driver& d, const std::vector<StepOutcome>&, const std::vector<GroupOutcome>& groups) {
    const double t_fin0 = MPI_Wtime();
    const double t_read = o_.verify ? groups.at(1).seconds : 0;
    m_.times = reduce_over_ranks(d.comm(), {t_init_, t_compute_, t_io_, t_read, static_cast<double>(peak_rss_bytes())});
    const auto fin = reduce_over_ranks(d.comm(), {MPI_Wtime() - t_fin0});  // the finalize time
    m_.model_bytes = model_.bytes();
    if (d.rank() == 0) {
        m_.finalize = fin[0];
        if (d.options().verbose)
            for (const auto& t : m_.file_reports) t.print();
        if (!d.options().quiet) print_hints(d.hints_in_effect());
        params_.print();
        print_results(m_, o_);
        fill_result(d.result(), m_, o_, *in_, run_, distinct_.size());
    }
    if (d.rank() == 0 && model_.checksum() < 0) std::printf("\n");  // keeps the model compute observable
}

}  // namespace
}  // namespace iok::gcrm

IOK_REGISTER_KERNEL(gcrm, "gcrm", "GCRM-IO: geodesic-grid history, grid and restart files (PnetCDF benchmark kernel)",
                    iok::gcrm::Gcrm)
