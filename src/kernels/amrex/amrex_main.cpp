// iokernels amrex: h5bench's AMReX benchmark (h5bench_amrex, AMReX
// Tests/HDF5Benchmark) as a kernel.  nplotfile plot files in AMReX's HDF5
// layout, then nparticlefile particle checkpoints, `sleeptime` seconds of
// emulated compute before each but the first of either kind; then every file
// read back and verified (and, with restart_check, the first particle file
// as the original's restart check).  Only libraries with groups and
// attributes on them express the layout (HDF5, ADIOS2); the others are
// refused with exit status 2.  Configured by the original's ParmParse input
// file and/or its keys as options (amrex_plan.hpp says what is written).
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/report.hpp"
#include "driver/kernel.hpp"
#include "kernels/amrex/amrex_config.hpp"
#include "kernels/amrex/amrex_plan.hpp"

namespace iok::amrex {
namespace {

std::string numbered(const Config& c, int file) {
    char name[32];
    std::snprintf(name, sizeof name, "plt%05d", file);
    return c.directory + name;
}

class Amrex final : public Kernel {
public:
    const char* name() const override { return "amrex"; }
    std::string description() const override {
        return "h5bench's AMReX benchmark (h5bench_amrex): nplotfile AMReX plot files (plt%05d.h5: level groups "
               "with boxes, data:offsets=0, boxcenter and one data:datatype=0 dataset of every box's cells x ncomp "
               "doubles) over a ncells^3 domain cut in max_grid_size boxes, then nparticlefile particle checkpoints "
               "(plt%05d/particle0/particle0.h5, nppc particles per cell), sleeptime seconds between files; read back "
               "and verified. Configure with the original's input file (iokernels amrex amrex.ini) and/or its keys "
               "as options (they win over the file).";
    }
    void add_options(CLI::App& app, DriverDefaults& defaults) override {
        app_ = &app;
        app.add_option("input", input_, "h5bench_amrex's ParmParse input file (key = value lines)");
        const std::vector<std::pair<std::string, std::string>> help = {
            {"ncells", "cells per side of the cubic domain (required)"},
            {"max_grid_size", "largest box side: the domain is cut in boxes of at most this (required)"},
            {"nlevs", "levels: 1 (the original asserts nlevs < 2 for its nested grids) (required)"},
            {"ncomp", "components of the MultiFab (variables per cell) (required)"},
            {"nppc", "particles per cell (required)"},
            {"nplotfile", "plot files written [default: 1]"},
            {"nparticlefile", "particle files written [default: 1]"},
            {"sleeptime", "seconds of emulated compute before each file but the first of its kind [default: 0]"},
            {"restart_check", "1: read the first particle file back (the original's restart check) [default: 0]"},
            {"grids_from_file", "1: grids from grids/Level_<n> (not supported here) [default: 0]"},
            {"ref_ratio_file", "refinement ratios between levels, with grids_from_file [default: none]"},
            {"hdf5compression", "compression; ignored, as in h5bench's build without ZFP/SZ [default: None@0]"},
            {"directory", "directory of the files [default: the working directory]"},
            {"mode", "h5bench's SYNC, ASYNC or LOG: always runs synchronously here [default: SYNC]"}};
        app.add_flag("--read-only", read_only_,
                     "only read: verify the files an earlier run with this configuration and rank count wrote");
        values_.resize(help.size());
        for (std::size_t i = 0; i < help.size(); ++i) app.add_option("--" + help[i].first, values_[i], help[i].second);
        defaults.backend = "hdf5";
        defaults.verify = true;
    }
    void validate(Driver& d) override {
        if (!input_.empty()) read_input(cfg_, input_);
        const auto& keys = config_keys();
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (app_->count("--" + keys[i])) set_key(cfg_, keys[i], values_[i], "--" + keys[i]);
        check(cfg_);
        // The original leaves its files and truncates existing ones.
        d.options().keep = d.options().overwrite = true;
    }
    void configure(Driver& d) override {
        d.require(d.library().caps.groups, "the AMReX plot file layout (groups level_<n> with attributes)", "groups");
        d.expressible(d.strategy().keeps_canonical_layout,
                      "the AMReX plot file is the library's own groups and datasets, which strategy " +
                          d.options().strategy + " replaces by its own container",
                      "use -x canonical or -x rearrange");
        d.set_collective(true);  // the data are written collectively (dxpl_col), as the original
        style_.compound = d.library().caps.compound_files;
        levels_ = levels(cfg_, d.size());
    }
    KernelPlan plan(Driver& d) override;
    void begin(Driver& d) override {
        if (d.rank() != 0 || d.options().quiet) return;
        if (cfg_.mode != "SYNC")
            std::printf("note: mode = %s runs synchronously (no asynchronous VOL connector here)\n", cfg_.mode.c_str());
        if (cfg_.hdf5compression != "None@0" && cfg_.hdf5compression != "None")
            std::printf("note: hdf5compression = %s is ignored, as by h5bench_amrex built without ZFP/SZ\n",
                        cfg_.hdf5compression.c_str());
        std::fflush(stdout);
    }
    void step_start(Driver& d, const Step& s) override {
        if (d.rank() != 0 || d.options().quiet) return;
        const std::string role = s.tags.value("role", "");
        std::printf("%s [%s] ...",
                    role == "plotfile"   ? "Writing plot file"
                    : role == "particle" ? "Writing particle file"
                                         : "Reading back",
                    s.path.c_str());
        std::fflush(stdout);
    }
    void step_done(Driver& d, const StepOutcome& o) override {
        if (d.rank() != 0 || d.options().quiet) return;
        std::printf(" done%s\n",
                    o.step->kind == StepKind::Read ? (o.out.mismatches ? ": MISMATCHES" : ", verified") : "");
        std::fflush(stdout);
    }
    void report(Driver& d, const std::vector<StepOutcome>& done, const std::vector<GroupOutcome>& groups) override;

private:
    CLI::App* app_ = nullptr;
    std::string input_;
    std::vector<std::string> values_;
    Config cfg_;
    Style style_;
    std::vector<Level> levels_;
    std::vector<std::string> dirs_;
    bool read_only_ = false;  // particle file directories this run made
};

KernelPlan Amrex::plan(Driver& d) {
    const std::string ext = d.extension();
    KernelPlan k;
    k.shrink_hint = "ncells, ncomp, nppc, nplotfile or nparticlefile";
    k.mismatch_hint =
        "the file does not hold what h5bench_amrex's layout holds for this configuration: was it modified?";
    k.runner_progress = false;
    StepGroup writes, reads;
    std::vector<std::pair<std::shared_ptr<const FilePlan>, std::string>> particle_files;
    const PathUse written = read_only_ ? PathUse::Input : PathUse::Written;
    const bool verify = d.options().verify || read_only_;
    for (int f = 0; f < cfg_.nplotfile; ++f) {
        auto p = share(plotfile_plan(cfg_, levels_, d.rank(), style_, f));
        const std::string path = numbered(cfg_, f) + ext;
        Step s{StepKind::Write, p, path, PathUse::Output, {{"role", "plotfile"}, {"file", f}}};
        s.ticks = {writes.ticks++};
        writes.steps.push_back(s);
        if (verify) reads.steps.push_back({StepKind::Read, p, path, written, {{"role", "verify"}, {"file", f}}});
    }
    for (int f = 0; f < cfg_.nparticlefile; ++f) {
        auto p = share(particle_plan(cfg_, levels_, d.rank(), d.size(), style_, f));
        const std::string dir = numbered(cfg_, f) + "/particle0";
        const std::string path = dir + "/particle0" + ext;
        dirs_.push_back(dir);
        Step s{StepKind::Write, p, path, PathUse::Output, {{"role", "particle"}, {"file", f}}};
        s.ticks = {writes.ticks++};
        writes.steps.push_back(s);
        if (verify || (cfg_.restart_check && f == 0))
            reads.steps.push_back(
                {StepKind::Read, p, path, written, {{"role", verify ? "verify" : "restart"}, {"file", f}}});
    }
    // The original's fake computation: sleeptime before each file but the
    // first plot file and the first particle file.
    const int nplot = cfg_.nplotfile, sleep = cfg_.sleeptime;
    writes.before_tick = [nplot, sleep](int t) {
        const int ts = t < nplot ? t : t - nplot;
        if (ts > 0 && sleep > 0) std::this_thread::sleep_for(std::chrono::seconds(sleep));
    };
    // AMReX makes plt%05d/particle0 (rank 0) before the particle file; the
    // directory of the files is made here too (h5bench's driver makes it).
    if (!d.options().dry_run && !read_only_)
        collective_step(d.comm(), [&] {
            if (d.rank() != 0) return;
            std::vector<std::string> all = dirs_;
            if (!cfg_.directory.empty()) all.push_back(cfg_.directory);
            for (const auto& dir : all) {
                std::error_code ec;
                std::filesystem::create_directories(dir, ec);
                if (ec) throw Error("cannot create the particle directory " + dir + ": " + ec.message());
            }
        });
    if (!read_only_) k.groups.push_back(std::move(writes));
    if (!reads.steps.empty()) k.groups.push_back(std::move(reads));
    return k;
}

void Amrex::report(Driver& d, const std::vector<StepOutcome>& done, const std::vector<GroupOutcome>& groups) {
    std::uint64_t bad = 0, plot_files = 0, particle_files = 0, bytes = 0, on_disk = 0, verified = 0;
    double write_s = 0, read_s = 0;
    std::string first;
    for (const auto& o : done) {
        const std::string role = o.tags.value("role", "");
        if (o.step->kind == StepKind::Write) {
            (role == "plotfile" ? plot_files : particle_files) += 1;
            bytes += static_cast<std::uint64_t>(o.out.metrics.bytes.sum);
            on_disk += o.out.metrics.bytes_on_disk;
            write_s += o.out.metrics.max_seconds(Phase::EndToEnd);
        } else {
            ++verified;
            read_s += o.out.metrics.max_seconds(Phase::EndToEnd);
            if (o.out.mismatches && first.empty()) first = o.step->path + ": " + o.out.first_mismatch;
            bad += o.out.mismatches;
        }
    }
    std::uint64_t boxes = 0;
    for (const auto& l : levels_) boxes += l.boxes.size();
    d.result().params().update({{"input", input_},
                                {"ncells", cfg_.ncells},
                                {"max_grid_size", cfg_.max_grid_size},
                                {"nlevs", cfg_.nlevs},
                                {"ncomp", cfg_.ncomp},
                                {"nppc", cfg_.nppc},
                                {"nplotfile", cfg_.nplotfile},
                                {"nparticlefile", cfg_.nparticlefile},
                                {"sleeptime", cfg_.sleeptime},
                                {"restart_check", cfg_.restart_check},
                                {"mode", cfg_.mode},
                                {"directory", cfg_.directory}});
    d.result().summary() = {{"boxes", boxes},
                            {"plot_files", plot_files},
                            {"particle_files", particle_files},
                            {"bytes_written", bytes},
                            {"bytes_on_disk", on_disk},
                            {"write_seconds", write_s},
                            {"files_read_back", verified},
                            {"read_seconds", read_s},
                            {"wall_seconds", groups.empty() ? 0.0 : groups[0].seconds},
                            {"mismatches", bad}};
    if (d.rank() != 0) return;
    TextReport t;
    t.section("h5bench AMReX (h5bench_amrex)");
    t.line("I/O library", d.stack_label() + " / " + d.library_label());
    t.line("Domain", std::to_string(cfg_.ncells) + "^3 cells in " + std::to_string(boxes) + " boxes of at most " +
                         std::to_string(cfg_.max_grid_size) + "^3, " + std::to_string(cfg_.ncomp) + " components");
    t.count("Plot files", plot_files);
    t.count("Particle files", particle_files);
    t.line("Bytes written", format_bytes(static_cast<double>(bytes)));
    t.line("Bytes on disk", format_bytes(static_cast<double>(on_disk)));
    t.line("Write time (files, slowest rank)", write_s, "s", 3);
    t.line("Write rate", write_s > 0 ? static_cast<double>(bytes) / MiB / write_s : 0.0, "MiB/s", 1);
    t.line("Wall clock (sleeps included)", groups.empty() ? 0.0 : groups[0].seconds, "s", 2);
    t.line("Verification", verified == 0 ? std::string("not done (--no-verify)")
                           : bad         ? "FAILED: " + std::to_string(bad) + " element(s); first: " + first
                                         : "passed (" + std::to_string(verified) + " file(s) read back)");
    if (!d.options().quiet) t.print();
}

}  // namespace
}  // namespace iok::amrex

IOK_REGISTER_KERNEL(amrex, "amrex",
                    "h5bench AMReX (h5bench_amrex): plot files and particle checkpoints in AMReX's HDF5 layout",
                    iok::amrex::Amrex)
