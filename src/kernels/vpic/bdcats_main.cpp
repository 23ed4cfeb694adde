// iokernels bdcats: the BDCATS-IO particle read kernel of h5bench
// (h5bench_read).  Reads the files `iokernels vpic` writes -- the compound
// (INTERLEAVED) ones too, which the reference cannot -- with the patterns
// FULL, PARTIAL, STRIDED (1-D) and LDC, RDC, PRL, CS (2-D, shared over all
// ranks instead of rank 0 alone), and verifies every particle read.
#include <mpi.h>

#include <optional>
#include <string>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "driver/kernel.hpp"
#include "kernels/vpic/vpic_geometry.hpp"
#include "kernels/vpic/vpic_plan.hpp"
#include "kernels/vpic/vpic_report.hpp"
#include "kernels/vpic/vpic_run.hpp"

namespace iok::vpic {
namespace {

class Bdcats final : public Kernel {
public:
    const char* name() const override { return "bdcats"; }
    std::string description() const override {
        return "BDCATS-IO particle read (h5bench_read): reads the 8 particle variables of every time step written by "
               "`iokernels vpic` with READ_OPTION FULL, PARTIAL, STRIDED (1-D) or LDC, RDC, PRL, CS (2-D), and "
               "verifies each value (--no-verify: reads and times only, as h5bench_read). Give the configuration the "
               "file was written with.";
    }
    void add_options(CLI::App& app, DriverDefaults& defaults) override {
        cli_.add_to(app, true);
        defaults = particle_defaults(false);
    }
    void validate(Driver&) override {
        cli_.resolve(true, "vpic_particles");
        // Storage settings only matter when writing (h5bench: "no effect for read").
        cli_.cfg.compress = false;
        cli_.cfg.align = false;
    }
    void configure(Driver& d) override;
    KernelPlan plan(Driver& d) override;
    void report(Driver& d, const std::vector<StepOutcome>& done, const std::vector<GroupOutcome>& groups) override {
        const Config& cfg = cli_.cfg;
        const bool fpp = cfg.file_per_proc;
        const FileOutcome& r = done.at(0).out;
        const Metrics m = reduce_metrics(d.comm(), false, r.metrics, fpp || d.rank() == 0, groups.at(0).seconds,
                                         steps_->compute, done.at(0).step->plan->selection[0]->elements());
        // Mismatches: per file; sum over ranks for file-per-process.
        std::uint64_t bad = fpp ? r.mismatches : (d.rank() == 0 ? r.mismatches : 0);
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_UINT64_T, MPI_SUM, d.comm());
        if (d.rank() == 0) report_read(d, cli_, geometry_, r, m, writers_, bad);
        if (!cfg.csv_file.empty())
            collective_step(d.comm(), [&] {
                if (d.rank() == 0) write_csv(cfg.csv_file, m, cfg, {{"read option", vpic::name(cfg.read)}});
            });
    }

private:
    Cli cli_;
    Geometry geometry_;
    int writers_ = 0;
    std::optional<TimeSteps> steps_;
};

void Bdcats::configure(Driver& d) {
    const Config& cfg = cli_.cfg;
    configure_stack(d, cfg);
    if (cli_.path == "vpic_particles") cli_.path += d.extension();
    writers_ = cli_.writers > 0 ? cli_.writers : d.size();
    // blob and log keep each writer's blocks as written: only the same
    // selections on the same ranks read them back (their replay tools
    // rebuild a canonical file for any other read).
    d.expressible(!d.strategy().read_needs_same_ranks || (cfg.read == ReadOption::Full && writers_ == d.size()),
                  std::string("READ_OPTION=") + vpic::name(cfg.read) + " on " + std::to_string(d.size()) +
                      " ranks reads other blocks than " + std::to_string(writers_) + " writers wrote, which strategy " +
                      d.options().strategy + " cannot serve",
                  "read FULL with the writers' rank count, or rebuild the canonical file with " + d.options().strategy +
                      "_replay and read it with -x canonical");
}

KernelPlan Bdcats::plan(Driver& d) {
    const Config& cfg = cli_.cfg;
    const bool fpp = cfg.file_per_proc;
    FilePlan plan;
    collective_step(d.comm(), [&] {
        if (fpp && writers_ != d.size())
            throw Error("FILE_PER_PROC files are read by as many ranks as wrote them (" + std::to_string(writers_) +
                            "), not " + std::to_string(d.size()),
                        "run bdcats with " + std::to_string(writers_) + " ranks");
        geometry_ = fpp ? own_file_geometry(cfg, writers_, d.rank()) : make_geometry(cfg, writers_);
        plan = particle_plan(
            cfg, geometry_,
            fpp ? read_selection(geometry_, cfg, 0, 1) : read_selection(geometry_, cfg, d.rank(), d.size()));
    });
    steps_.emplace(TimeSteps{cfg, !d.options().quiet && d.rank() == 0, "read"});
    KernelPlan p;
    p.shrink_hint = "DIM_1 x DIM_2 x DIM_3 (particles per rank)";
    p.mismatch_hint =
        "the file does not hold what `iokernels vpic` writes with this configuration: was it modified, "
        "or written with another configuration or rank count (--writers)?";
    p.runner_progress = d.options().verbose;
    p.check_reads = d.options().verify;
    p.groups.push_back(steps_->group({StepKind::Read,
                                      share(std::move(plan)),
                                      fpp ? insert_suffix(cli_.path, std::to_string(d.rank())) : cli_.path,
                                      PathUse::Input,
                                      {{"role", "particles"}}},
                                     fpp));
    return p;
}

}  // namespace
}  // namespace iok::vpic

IOK_REGISTER_KERNEL(bdcats, "bdcats",
                    "BDCATS-IO particle read (h5bench_read): FULL/PARTIAL/STRIDED/LDC/RDC/PRL/CS, verified",
                    iok::vpic::Bdcats)
