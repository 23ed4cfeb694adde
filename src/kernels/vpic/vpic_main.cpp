// iokernels vpic: the VPIC-IO particle write kernel of h5bench (h5bench_write).
// Every time step writes 8 particle variables (32 bytes per particle); HDF5
// puts a step in group /Timestep_<i>, other libraries use a record per step.
// Emulated compute (a sleep) separates the steps.  The kernel describes one
// file (or one per rank) written a record per time step; the driver runs it.
// IO_OPERATION=OVERWRITE / APPEND (h5bench_overwrite / h5bench_append) open
// an existing file for update instead: OVERWRITE rewrites its first
// TIMESTEPS steps with new values (DATA_SEED), APPEND adds TIMESTEPS steps
// after the ones it holds (UNLIMITED=YES files).
#include <mpi.h>

#include <filesystem>
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

class Vpic final : public Kernel {
public:
    const char* name() const override { return "vpic"; }
    std::string description() const override {
        return "VPIC-IO particle write (h5bench_write): 8 variables x y z px py pz id_1 id_2 per particle, TIMESTEPS "
               "steps as /Timestep_<i> groups (HDF5) or records (other libraries). Configure with an h5bench "
               "KEY=VALUE file (iokernels vpic CONFIG FILE) or the named options below.";
    }
    void add_options(CLI::App& app, DriverDefaults& defaults) override {
        cli_.add_to(app, false);
        defaults = particle_defaults(true);
    }
    void validate(Driver& d) override {
        cli_.resolve(false, "vpic_particles");
        if (d.options().verify && cli_.cfg.update())
            throw Error(std::string("--verify reads back a file this run writes, and IO_OPERATION=") +
                            vpic::name(cli_.cfg.operation) + " changes part of an existing one",
                        "read the updated file with iokernels bdcats (the same configuration and DATA_SEED)");
        // The reference keeps (and clobbers) its file.
        if (cli_.reference_form()) d.options().keep = d.options().overwrite = true;
    }
    void configure(Driver& d) override {
        configure_stack(d, cli_.cfg);
        if (cli_.path == "vpic_particles") cli_.path += d.extension();  // a default path gets the library's extension
    }
    KernelPlan plan(Driver& d) override;
    void begin(Driver& d) override {
        if (!cli_.cfg.env_metadata_file.empty())
            collective_step(d.comm(), [&] {
                if (d.rank() == 0) write_env_metadata(cli_.cfg.env_metadata_file);
            });
    }
    void report(Driver& d, const std::vector<StepOutcome>& done, const std::vector<GroupOutcome>& groups) override {
        const Config& cfg = cli_.cfg;
        const FileOutcome& w = done.at(0).out;
        // Observed: create -> close, compute between steps included.
        const Metrics m =
            reduce_metrics(d.comm(), true, w.metrics, cfg.file_per_proc || d.rank() == 0, groups.at(0).seconds,
                           steps_->compute, done.at(0).step->plan->selection[0]->elements());
        const FileOutcome* verified = done.size() > 1 ? &done.at(1).out : nullptr;  // --verify's read-back
        if (d.rank() == 0) report_write(d, cli_, geometry_, w, m, verified);
        if (!cfg.csv_file.empty())
            collective_step(d.comm(), [&] {
                if (d.rank() == 0)
                    write_csv(cfg.csv_file, m, cfg,
                              {{"mem pattern", vpic::name(cfg.mem)}, {"file pattern", vpic::name(cfg.file)}});
            });
    }

private:
    Cli cli_;
    Geometry geometry_;
    std::optional<TimeSteps> steps_;
};

KernelPlan Vpic::plan(Driver& d) {
    const Config& cfg = cli_.cfg;
    const bool fpp = cfg.file_per_proc;
    FilePlan plan;
    collective_step(d.comm(), [&] {  // one shared file, or one file per rank
        geometry_ = fpp ? own_file_geometry(cfg, d.size(), d.rank()) : make_geometry(cfg, d.size());
        plan = particle_plan(cfg, geometry_, write_selection(geometry_, cfg, fpp ? 0 : d.rank()));
    });
    const std::string path = fpp ? insert_suffix(cli_.path, std::to_string(d.rank())) : cli_.path;
    const bool update = cfg.update();
    const std::string op = cfg.operation == IoOperation::Append ? "APPEND" : "OVERWRITE";
    if (update)  // the file is the input: it must exist, and stays whatever happens
        collective_step(d.comm(), [&] {
            std::error_code ec;
            if (!std::filesystem::exists(path, ec))
                throw Error(
                    "IO_OPERATION=" + op + " needs an existing file, and '" + path + "' does not exist",
                    cfg.operation == IoOperation::Append
                        ? "write it first with UNLIMITED=YES (h5bench's write-unlimited), the same DIM_* and "
                          "rank count, then append to it"
                        : "write it first (h5bench's write) with the same DIM_* and rank count, then overwrite it");
        });
    Step s{update ? StepKind::Update : StepKind::Write,
           share(std::move(plan)),
           path,
           update ? PathUse::Input : PathUse::Output,
           {{"role", "particles"}}};
    s.grows_file = cfg.operation != IoOperation::Overwrite;
    if (update)  // append starts after the file's last step; overwrite needs the steps it rewrites
        s.first_record = [this, op, path, backend = d.options().backend](std::int64_t have) {
            const Config& c = cli_.cfg;
            if (have < 0)
                throw Error("IO_OPERATION=" + op + ": backend " + backend + " cannot tell how many time steps '" +
                                path + "' holds",
                            "use -a hdf5, pnetcdf, netcdf4, adios or mpiio");
            if (c.operation == IoOperation::Append) return static_cast<int>(have);
            if (have < c.timesteps)
                throw Error("IO_OPERATION=OVERWRITE TIMESTEPS=" + std::to_string(c.timesteps) + ": '" + path +
                                "' holds " + std::to_string(have) + " time steps",
                            "overwrite at most the " + std::to_string(have) +
                                " steps it has (TIMESTEPS=" + std::to_string(have) + "), or APPEND new ones");
            return 0;
        };
    steps_.emplace(TimeSteps{cfg, !d.options().quiet && d.rank() == 0,
                             cfg.operation == IoOperation::Overwrite ? "overwritten"
                             : update                                ? "appended"
                                                                     : "written"});
    std::shared_ptr<const FilePlan> written = s.plan;
    KernelPlan p;
    p.shrink_hint = "DIM_1 x DIM_2 x DIM_3 (particles per rank) or TIMESTEPS";
    p.runner_progress = d.options().verbose;
    p.groups.push_back(steps_->group(std::move(s), fpp));
    if (d.options().verify) {  // after the last step: the whole file read back, every element checked
        StepGroup check;
        check.steps.push_back({StepKind::Read, std::move(written), path, PathUse::Written, {{"role", "verify"}}});
        check.comm = fpp ? MPI_COMM_SELF : MPI_COMM_NULL;
        p.groups.push_back(std::move(check));
    }
    return p;
}

}  // namespace
}  // namespace iok::vpic

IOK_REGISTER_KERNEL(vpic, "vpic", "VPIC-IO particle write (h5bench_write): 8 fields per particle, time steps as groups",
                    iok::vpic::Vpic)
