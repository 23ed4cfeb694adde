// iokernels noncontig: MPI collective write through a file view of many
// small noncontiguous runs (a real E3SM decomposition), once from a
// contiguous user buffer and once from a noncontiguous one (gaps between
// variables), as the mpi_io_test/noncontig_buf reference; both tiles are
// read back and verified.  Reference command line: [-q] [-n nvars] [-o file] input_file.
// Every stack runs the same plan of two records through the driver; with
// -a mpiio -x canonical (the default) it is the reference's own calls (one
// write_all per tile, noncontig_native.hpp) and its report.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <string>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/mpi_layer.hpp"
#include "driver/kernel.hpp"
#include "kernels/noncontig/noncontig_decomp.hpp"
#include "kernels/noncontig/noncontig_native.hpp"
#include "kernels/noncontig/noncontig_pack.hpp"
#include "kernels/noncontig/noncontig_stack.hpp"

namespace iok::noncontig {
namespace {

class Noncontig final : public Kernel {
public:
    const char* name() const override { return "noncontig"; }
    std::string description() const override {
        return "MPI-IO collective write of a noncontiguous file view (E3SM decomposition over nvars variables) from a "
               "contiguous and from a noncontiguous user buffer; the reference's [-q] [-n nvars] [-o file] "
               "input_file works as is. With -a mpiio -x canonical (the default) each tile is one "
               "MPI_File_write_all over all variables (mpiio.aggregate=1) and the hints default to "
               "romio_ds_write=disable, romio_cb_write=enable, romio_no_indep_rw=true (collective only); "
               "--independent uses MPI_File_write instead of MPI_File_write_all.";
    }
    void add_options(CLI::App& app, DriverDefaults& defaults) override {
        app.add_option("input_file", s_.input, "decomposition: mpi_io_test format (off_NNNNN/len_NNNNN) or an E3SM map")
            ->required();
        app.add_option("-n,--nvars", s_.nvars, "number of variables")->capture_default_str();
        app.add_option("-o,--output", s_.output, "output file")->capture_default_str();
        app.add_option("--decomp", s_.decomp, "decomposition of an E3SM map to use (D1, D2, ...)")
            ->capture_default_str();
        app.add_option("--gap", s_.gap, "floats between variables in the noncontiguous buffer")
            ->capture_default_str()
            ->check(CLI::NonNegativeNumber);
        app.add_option("--map-processes", s_.map_processes,
                       "map processes a rank writes: blocks (all of them, in consecutive blocks over the ranks: the "
                       "whole array at any rank count) or own (rank r writes map process r, as the reference does: "
                       "on fewer ranks than the map has processes the rest of the array stays unwritten)")
            ->capture_default_str()
            ->check(CLI::IsMember({"blocks", "own"}));
        app.add_flag("--verify-existing", s_.verify_existing,
                     "write nothing: read the existing output file (-o) back and verify both tiles")
            ->capture_default_str();
        defaults.backend = "mpiio";
        defaults.verify = true;
    }
    void validate(Driver& d) override {
        if (s_.nvars <= 0)
            throw Error("number of variables (-n) is " + std::to_string(s_.nvars) + ", must be positive",
                        "e.g. -n 100");
        const CommonOptions& c = d.options();
        s_.quiet = c.quiet;
        s_.independent = c.independent;
        s_.verify = c.verify || s_.verify_existing;
        // The seed's own MPI-IO calls measure what only they can (MPI_Pack,
        // a derived buffer type); every other stack runs as a plan.
        native_ = c.backend == "mpiio" && c.strategy == "canonical";
    }
    void configure(Driver& d) override {
        if (native_) native_defaults(d, s_.independent);
        d.outputs().require_readable(s_.input);
        dc_ = read_decomposition_collective(s_.input, s_.decomp, d.comm());
        if (s_.map_processes == "own") dc_ = first_processes(std::move(dc_), d.size());
    }
    KernelPlan plan(Driver& d) override;
    void begin(Driver& d) override {
        if (native_ && d.rank() == 0 && !s_.quiet) {
            std::printf("input  file name = %s\noutput file name = %s\n", s_.input.c_str(), s_.output.c_str());
            std::fflush(stdout);
        }
        // Memory only, timed as the reference times it before its writes.
        if (native_ && !s_.verify_existing) {
            const PackProbe p = pack_probe(d.comm(), rank_runs(dc_, d.rank(), d.size()), s_.nvars, s_.gap);
            m_.pack_s = p.seconds;
            m_.pack_ok = p.ok;
        }
    }
    void step_done(Driver&, const StepOutcome& o) override {
        const FileOutcome& out = o.out;
        m_.file_size = out.metrics.bytes_on_disk;
        if (o.step->kind == StepKind::Write && out.step_seconds.size() == 2) {
            m_.contig_s = out.step_seconds[0];
            m_.noncontig_s = out.step_seconds[1];
        }
        if (o.step->kind == StepKind::Read) {
            m_.mismatches = out.mismatches;
            m_.first = out.first_mismatch;
        }
        if (out.hints != MPI_INFO_NULL && m_.hints_used == MPI_INFO_NULL) {
            MPI_Info_dup(out.hints, &m_.hints_used);
            m_.layer = mpiio_layer_from_info(m_.hints_used);
        }
    }
    void report(Driver& d, const std::vector<StepOutcome>&, const std::vector<GroupOutcome>&) override {
        if (native_) return report_native(d, s_, dc_, m_);
        const double tiles[2] = {m_.contig_s, m_.noncontig_s};
        report_stack(
            d, StackSetup{s_.input, s_.output, s_.decomp, s_.nvars, s_.gap, s_.verify, s_.verify_existing, s_.quiet},
            dc_, tiles);
    }
    ~Noncontig() override {
        if (m_.hints_used != MPI_INFO_NULL) MPI_Info_free(&m_.hints_used);
    }

private:
    NativeSetup s_;
    bool native_ = false;
    Decomposition dc_;
    Measured m_;
};

KernelPlan Noncontig::plan(Driver& d) {
    std::shared_ptr<const FilePlan> tiles;
    collective_step(d.comm(), [&] { tiles = share(tiles_plan(dc_, rank_runs(dc_, d.rank(), d.size()), s_.nvars)); });
    KernelPlan p;
    p.shrink_hint = "-n/--nvars";
    p.runner_progress = false;
    p.gap_bytes = static_cast<std::size_t>(s_.gap) * 4;
    // Tile 0 from buffers packed back to back, tile 1 from one buffer with
    // gaps, each its own flush (its time: FileOutcome::step_seconds); then
    // the read-back.
    if (!s_.verify_existing) {
        StepGroup tiles_group;
        Step w(StepKind::Write, tiles, s_.output, PathUse::Output, {{"role", "tiles"}});
        w.gapped_records = {1};
        tiles_group.steps.push_back(std::move(w));
        tiles_group.ticks = 2;
        tiles_group.before_tick = [&d](int) { MPI_Barrier(d.comm()); };
        p.groups.push_back(std::move(tiles_group));
    }
    if (s_.verify) {
        StepGroup g;
        Step r(StepKind::Read, tiles, s_.output, s_.verify_existing ? PathUse::Input : PathUse::Written,
               nlohmann::json{{"role", "verify"}});
        if (native_)  // the reference's words for a wrong value: tile, variable, file byte
            r.check = [this](const FileOutcome& o) {
                if (o.mismatches)
                    throw Error(
                        s_.output + " failed verification: " + std::to_string(o.mismatches) +
                            " element(s) differ; first: " + describe_mismatch(o.first_at, s_.nvars, dc_.array_size),
                        "the file does not hold what was written: check the file system, or whether another "
                        "program changed it");
            };
        g.steps.push_back(std::move(r));
        p.groups.push_back(std::move(g));
    }
    return p;
}

}  // namespace
}  // namespace iok::noncontig

IOK_REGISTER_KERNEL(noncontig, "noncontig",
                    "MPI-IO collective write of an E3SM noncontiguous view, contiguous vs noncontiguous buffer",
                    iok::noncontig::Noncontig)
