// iokernels openpmd_write / openpmd_read: h5bench's openPMD benchmark
// (h5bench_openpmd_write / _read, openPMD-api's examples 8a and 8b) as a
// kernel pair.  The writer lays out the openPMD standard's file -- iterations
// /data/<i>/ with meshes E, B (a component per axis) and rho and the particle
// species ion -- over the ranks as 8a does (mini blocks, patches, balanced or
// not); the reader reads it with 8b's patterns and verifies every value.
// Only libraries with groups and attributes on them express the layout
// (HDF5, ADIOS2); the others are refused with exit status 2.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "driver/kernel.hpp"
#include "kernels/openpmd/openpmd_config.hpp"
#include "kernels/openpmd/openpmd_layout.hpp"
#include "kernels/openpmd/openpmd_plan.hpp"

namespace iok::openpmd {
namespace {

// The command line shared by both kernels: h5bench's openpmd.input as the
// positional argument, every key also as a named option (which wins).
struct Cli {
    std::string input, path;
    bool default_path = false;  // the reference's name, which gets the library's extension
    int writers = 0;
    std::vector<std::pair<std::string, CLI::Option*>> named;
    std::vector<std::string> values;
    Config cfg;

    void add_to(CLI::App& app, bool reading) {
        app.add_option("input", input,
                       "h5bench's openpmd.input (KEY=VALUE lines: dim, balanced, ratio, steps, minBlock, grid, "
                       "fileLocation" +
                           std::string(reading ? ", pattern)" : ")"));
        app.add_option(reading ? "-i,--input-file" : "-o,--output", path,
                       "the openPMD file (default: <fileLocation>/8a_parallel_<dim>D<b|u><ext>, the reference's name)");
        if (reading)
            app.add_option("--writers", writers,
                           "ranks that wrote the file (default: as many as read it); fixes the default grid")
                ->check(CLI::NonNegativeNumber);
        const std::vector<std::tuple<std::string, std::string, std::string>> keys = {
            {"dim", "--dim", "mesh dimensions: 1, 2 or 3 (default 3)"},
            {"balanced", "--balanced",
             "true, or false: on steps 1, 4, 7, ... ranks r%4==0 write nothing, r%4==1 double"},
            {"ratio", "--ratio", "particles per mesh cell (default 1)"},
            {"steps", "--steps", "iterations written (default 1)"},
            {"minBlock", "--min-block", "cells of a mini block per axis, e.g. \"16 32 32\" (default 64 32 32)"},
            {"grid", "--grid", "mini blocks per axis, e.g. \"32 32 16\" (default <ranks> 8 8)"},
            {"rankBlocks", "--rank-blocks", "true (one block per rank), false (a request per mini block)"},
            {"fileLocation", "--file-location", "directory of the file (default .)"},
        };
        values.resize(keys.size() + 1);
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const auto& [key, opt, help] = keys[i];
            named.push_back({key, app.add_option(opt, values[i], "configuration key " + key + ": " + help)});
        }
        if (reading)
            named.push_back({"pattern", app.add_option("--pattern", values.back(),
                                                       "read pattern: m (metadata), sx/sy/sz (slice of rho), fx/fy/fz "
                                                       "(slice of B, 3-D), full (every value; default)")});
    }

    void resolve(bool reading, int ranks) {
        if (!input.empty()) cfg.load_file(input);
        for (std::size_t i = 0; i < named.size(); ++i)
            if (named[i].second->count() > 0) cfg.set(named[i].first, values[i]);
        if (!reading && cfg.given.count("pattern"))
            throw Error("pattern is a read setting", "give it to iokernels openpmd_read (h5bench_openpmd_read)");
        cfg.resolve(reading && writers > 0 ? writers : ranks);
        if (reading) cfg.validate_read();
        default_path = path.empty();
        if (default_path) path = (cfg.file_location.empty() ? "" : cfg.file_location + "/") + cfg.file_stem();
    }
};

// Rank 0's date, user and version, for the root attributes every rank writes.
Provenance agreed_provenance(MPI_Comm comm) {
    char buf[256] = {};
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        char date[64];
        const std::time_t now = std::time(nullptr);
        std::tm tm{};
        gmtime_r(&now, &tm);
        std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S +0000", &tm);
        const char* user = std::getenv("USER");
        std::snprintf(buf, sizeof buf, "%s\n%s", date, user && *user ? user : "unknown");
    }
    MPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, comm);
    const std::string s(buf);
    const auto nl = s.find('\n');
    return {s.substr(0, nl), s.substr(nl + 1), "iokernels"};
}

// What both kernels ask of the stack: groups with attributes, and a strategy
// that leaves the library's own objects in place.
void configure_stack(Driver& d) {
    d.require(d.library().caps.groups, "the openPMD layout (groups /data/<i>/... with attributes)", "groups");
    d.expressible(d.strategy().keeps_canonical_layout,
                  "the openPMD layout is the library's own groups and datasets, which strategy " +
                      d.options().strategy + " replaces by its own container",
                  "use -x canonical or -x rearrange");
}

// The suite's report of each file (bytes, times, bandwidths, Verification).
void print_report(Driver& d, const StepOutcome& o) {
    if (d.rank() == 0 && !d.options().quiet) o.out.text.print();
}

void print_summary(Driver& d, const Config& cfg, const char* verb, const FileOutcome& o, const std::string& path) {
    if (d.rank() != 0 || d.options().quiet) return;
    std::string mesh;
    for (auto n : cfg.global_mesh()) mesh += (mesh.empty() ? "" : "x") + std::to_string(n);
    const FileMetrics& m = o.metrics;
    std::printf("openPMD %s %s (%s): %d iteration(s), mesh %s, %llu particles; %.3f MiB in %.3f s (%.1f MiB/s)%s\n",
                verb, path.c_str(), d.stack_label().c_str(), cfg.steps, mesh.c_str(),
                static_cast<unsigned long long>(cfg.particles()), m.bytes.sum / 1048576.0,
                m.max_seconds(Phase::EndToEnd), m.bandwidth_open_to_close(),
                m.writing ? "" : (o.mismatches == 0 ? ", every value verified" : ", MISMATCHES"));
}

// What openpmd_write and openpmd_read share: the benchmark's options (the
// reader's add the pattern), HDF5 by default, the stack and the default path.
class OpenpmdKernel : public Kernel {
public:
    void add_options(CLI::App& app, DriverDefaults& defaults) override {
        cli_.add_to(app, reading_);
        defaults.backend = "hdf5";
        defaults.verify = false;
        if (reading_) defaults.verify_option = false;  // reading always verifies
    }
    void validate(Driver& d) override { cli_.resolve(reading_, d.size()); }
    void configure(Driver& d) override {
        configure_stack(d);
        if (cli_.default_path) cli_.path += d.extension();
    }
    void step_done(Driver& d, const StepOutcome& o) override { print_report(d, o); }

protected:
    explicit OpenpmdKernel(bool reading) : reading_(reading) {}
    Cli cli_;

private:
    bool reading_;
};

class Write final : public OpenpmdKernel {
public:
    Write() : OpenpmdKernel(false) {}
    const char* name() const override { return "openpmd_write"; }
    std::string description() const override {
        return "openPMD write (h5bench_openpmd_write): iterations /data/<i>/ of E, B and rho meshes and an ion species "
               "(id, charge, position, positionOffset) in the openPMD standard's layout, laid out over the ranks as "
               "the benchmark does. Configure with h5bench's openpmd.input or the named options.";
    }
    KernelPlan plan(Driver& d) override {
        FilePlan p;
        const Provenance who = agreed_provenance(d.comm());
        collective_step(d.comm(), [&] {
            const Layout layout(cli_.cfg, d.size());
            p = write_plan(cli_.cfg, openpmd_spec(cli_.cfg, who), layout, d.rank());
        });
        auto shared = share(std::move(p));
        KernelPlan k;
        k.shrink_hint = "minBlock x grid (mesh cells), ratio or steps";
        StepGroup g;
        g.steps.push_back({StepKind::Write, shared, cli_.path, PathUse::Output, {{"role", "openpmd"}}});
        k.groups.push_back(std::move(g));
        if (d.options().verify) {
            StepGroup check;
            check.steps.push_back({StepKind::Read, shared, cli_.path, PathUse::Written, {{"role", "verify"}}});
            k.groups.push_back(std::move(check));
        }
        return k;
    }
    void report(Driver& d, const std::vector<StepOutcome>& done, const std::vector<GroupOutcome>&) override {
        print_summary(d, cli_.cfg, "write", done.at(0).out, cli_.path);
        if (done.size() > 1) print_summary(d, cli_.cfg, "read-back", done.at(1).out, cli_.path);
    }
};

class Read final : public OpenpmdKernel {
public:
    Read() : OpenpmdKernel(true) {}
    const char* name() const override { return "openpmd_read"; }
    std::string description() const override {
        return "openPMD read (h5bench_openpmd_read): reads the file openpmd_write wrote with the pattern m "
               "(metadata), sx/sy/sz (a slice of rho), fx/fy/fz (a slice of B) or full, and verifies every value. "
               "Give the configuration the file was written with.";
    }
    KernelPlan plan(Driver& d) override {
        FilePlan p;  // the attributes' values are not read: no provenance needed
        collective_step(d.comm(), [&] { p = read_plan(cli_.cfg, openpmd_spec(cli_.cfg, {}), d.rank(), d.size()); });
        KernelPlan k;
        k.shrink_hint = "the readers' share (more ranks)";
        k.mismatch_hint =
            "the file does not hold what `iokernels openpmd_write` writes with this configuration: was it modified, "
            "or written with other dim/minBlock/grid/ratio/steps?";
        StepGroup g;
        g.steps.push_back({StepKind::Read,
                           share(std::move(p)),
                           cli_.path,
                           PathUse::Input,
                           {{"role", "openpmd"}, {"pattern", openpmd::name(cli_.cfg.pattern)}}});
        k.groups.push_back(std::move(g));
        return k;
    }
    void report(Driver& d, const std::vector<StepOutcome>& done, const std::vector<GroupOutcome>&) override {
        print_summary(d, cli_.cfg, (std::string("read (pattern ") + openpmd::name(cli_.cfg.pattern) + ")").c_str(),
                      done.at(0).out, cli_.path);
    }
};

}  // namespace
}  // namespace iok::openpmd

IOK_REGISTER_KERNEL(openpmd_write, "openpmd_write",
                    "openPMD write (h5bench_openpmd_write): meshes and particles in the openPMD layout, HDF5/ADIOS2",
                    iok::openpmd::Write)
IOK_REGISTER_KERNEL(openpmd_read, "openpmd_read",
                    "openPMD read (h5bench_openpmd_read): patterns m, sx/sy/sz, fx/fy/fz, full, verified",
                    iok::openpmd::Read)
