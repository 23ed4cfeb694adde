// iokernels noncontig: MPI collective write through a file view of many
// small noncontiguous runs (a real E3SM decomposition), once from a
// contiguous user buffer and once from a noncontiguous one (gaps between
// variables), as the mpi_io_test/noncontig_buf reference; both tiles are
// read back and verified.  Reference command line: [-q] [-n nvars] [-o file] input_file.
// With -a mpiio -x canonical (the default) the tiles are the kernel's own
// MPI-IO calls (the derived buffer type and MPI_Pack are what it measures);
// on any other stack they are a plan of two records the driver runs.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <string>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "driver/kernel.hpp"
#include "kernels/noncontig/noncontig_decomp.hpp"
#include "kernels/noncontig/noncontig_native.hpp"
#include "kernels/noncontig/noncontig_stack.hpp"

namespace iok::noncontig {
namespace {

class Noncontig final : public Kernel {
public:
    const char* name() const override { return "noncontig"; }
    std::string description() const override {
        return "MPI-IO collective write of a noncontiguous file view (E3SM decomposition over nvars variables) from a "
               "contiguous and from a noncontiguous user buffer; the reference's [-q] [-n nvars] [-o file] "
               "input_file works as is. With -a mpiio -x canonical (the default) the hints default to "
               "romio_ds_write=disable, romio_cb_write=enable, romio_no_indep_rw=true (collective only); "
               "--independent uses MPI_File_write instead of MPI_File_write_all.";
    }
    void add_options(CLI::App& app, DriverDefaults& defaults) override {
        app.add_option("input_file", s_.input, "decomposition: mpi_io_test format (off_NNNNN/len_NNNNN) or an E3SM map")
            ->required();
        app.add_option("-n,--nvars", s_.nvars, "number of variables")->capture_default_str();
        app.add_option("-o,--output", s_.output, "output file")->capture_default_str();
        app.add_option("--decomp", s_.decomp, "decomposition of an E3SM map to use (D1, D2, ...)")->capture_default_str();
        app.add_option("--gap", s_.gap, "floats between variables in the noncontiguous buffer")
            ->capture_default_str()->check(CLI::NonNegativeNumber);
        app.add_flag("--verify-existing", s_.verify_existing,
                     "write nothing: read the existing output file (-o) back and verify both tiles")
            ->capture_default_str();
        defaults.backend = "mpiio";
        defaults.verify = true;
    }
    void validate(Driver& d) override {
        if (s_.nvars <= 0)
            throw Error("number of variables (-n) is " + std::to_string(s_.nvars) + ", must be positive", "e.g. -n 100");
        const CommonOptions& c = d.options();
        s_.quiet = c.quiet;
        s_.independent = c.independent;
        s_.verify = c.verify || s_.verify_existing;
        // The seed's own MPI-IO calls measure what only they can (MPI_Pack,
        // a derived buffer type); every other stack runs as a plan.
        native_ = c.backend == "mpiio" && c.strategy == "canonical";
    }
    void configure(Driver& d) override {
        // After the driver checked the keys (a typo is named as such first).
        d.expressible(!native_ || d.options().params.empty(),
                      "--param has no effect on the native path (-a mpiio -x canonical: the kernel's own MPI-IO calls)",
                      "pass MPI-IO hints with --hint, or use another -x/-a to run the tiles through the backend");
        if (native_) native_default_hints(d, s_.independent);
        d.outputs().require_readable(s_.input);
        dc_ = read_decomposition_collective(s_.input, s_.decomp, d.comm());
    }
    KernelPlan plan(Driver& d) override;
    void begin(Driver& d) override {
        if (native_ && d.rank() == 0 && !s_.quiet) {
            std::printf("input  file name = %s\noutput file name = %s\n", s_.input.c_str(), s_.output.c_str());
            std::fflush(stdout);
        }
    }
    void report(Driver& d, const std::vector<StepOutcome>&, const std::vector<GroupOutcome>&) override {
        if (native_) return report_native(d, s_, dc_, io_);
        report_stack(d, StackSetup{s_.input, s_.output, s_.decomp, s_.nvars, s_.gap, s_.verify, s_.verify_existing, s_.quiet},
                     dc_, tile_seconds_);
    }

private:
    NativeSetup s_;
    bool native_ = false;
    Decomposition dc_;
    IoResult io_;
    double tile_seconds_[2] = {0, 0};
    double t0_ = 0;
};

KernelPlan Noncontig::plan(Driver& d) {
    std::shared_ptr<const FilePlan> tiles;
    collective_step(d.comm(), [&] { tiles = share(tiles_plan(dc_, rank_runs(dc_, d.rank(), d.size()), s_.nvars)); });
    KernelPlan p;
    p.shrink_hint = "-n/--nvars";
    p.runner_progress = false;
    p.gap_bytes = static_cast<std::size_t>(s_.gap) * 4;
    const PathUse out = s_.verify_existing ? PathUse::Input : PathUse::Output;
    StepGroup g;
    if (native_) {
        // Both tiles and their read-back in the kernel's own calls; the plan
        // is what they write (for the resource check and the dry run).
        Step calls(StepKind::Own, tiles, s_.output, out, {{"role", "tiles"}});
        calls.own_calls = [this](Driver& drv) {
            io_ = run_native(drv.comm(), s_, dc_, drv.config().hints);
            drv.keep_hints(io_.hints_used);
            io_.hints_used = MPI_INFO_NULL;
            return std::vector<Step::Own>{};
        };
        g.steps.push_back(std::move(calls));
    } else {
        // Tile 0 from buffers packed back to back, tile 1 from one buffer
        // with gaps, each timed from a barrier; then the read-back.
        if (!s_.verify_existing) {
            StepGroup tiles_group;
            Step w(StepKind::Write, tiles, s_.output, out, {{"role", "tiles"}});
            w.gapped_records = {1};
            tiles_group.steps.push_back(std::move(w));
            tiles_group.ticks = 2;
            tiles_group.before_tick = [this, &d](int) {
                MPI_Barrier(d.comm());
                t0_ = MPI_Wtime();
            };
            tiles_group.after_tick = [this](int t) { tile_seconds_[t] = MPI_Wtime() - t0_; };
            p.groups.push_back(std::move(tiles_group));
        }
        if (s_.verify)
            g.steps.emplace_back(StepKind::Read, tiles, s_.output, s_.verify_existing ? PathUse::Input : PathUse::Written,
                                 nlohmann::json{{"role", "verify"}});
    }
    p.groups.push_back(std::move(g));
    return p;
}

}  // namespace
}  // namespace iok::noncontig

IOK_REGISTER_KERNEL(noncontig, "noncontig",
                    "MPI-IO collective write of an E3SM noncontiguous view, contiguous vs noncontiguous buffer",
                    iok::noncontig::Noncontig)
