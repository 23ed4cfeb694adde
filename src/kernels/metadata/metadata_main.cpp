// iokernels metadata: h5bench's metadata stress test (hdf5_iotest).  Steps x
// arrays of 2-D tiles over a process grid, as datasets of rank 2, 3 or 4
// (metadata_plan.hpp), written then read back by every rank (its own
// tiles) and verified.  Configured by the original's .ini file as it is, or
// by its keys as named options (--steps 20 ...), which win over the file.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/report.hpp"
#include "driver/kernel.hpp"
#include "kernels/metadata/metadata_config.hpp"
#include "kernels/metadata/metadata_plan.hpp"
#include "kernels/metadata/metadata_report.hpp"

namespace iok::metadata {
namespace {

const char* const kMismatchHint =
    "the file does not hold what hdf5_iotest writes with this configuration: was it modified?";

class Metadata final : public Kernel {
public:
    const char* name() const override { return "metadata"; }
    std::string description() const override {
        return "h5bench's metadata stress test (hdf5_iotest): steps x arrays of 2-D double tiles over a "
               "process-rows x process-columns grid, as datasets of rank 4 (one), 3 (one per step or per array) "
               "or 2 (a group per step or array), contiguous or chunked; written, then read back and verified. "
               "Configure with the original's .ini file (iokernels metadata hdf5_iotest.ini) and/or its keys "
               "as options (they win over the file).";
    }
    void add_options(CLI::App& app, DriverDefaults& defaults) override {
        app_ = &app;
        app.add_option("ini", ini_, "hdf5_iotest's .ini configuration file (keys it lacks: the values below)");
        const Config dflt;
        const auto text = [](std::uint64_t v) { return std::to_string(v); };
        const std::vector<std::pair<std::string, std::string>> help = {
            {"version", "configuration version (0) [default: 0]"},
            {"steps", "number of steps [default: " + text(dflt.steps) + "]"},
            {"arrays", "number of arrays [default: " + text(dflt.arrays) + "]"},
            {"rows", "array rows per rank (weak scaling) or in total (strong) [default: " + text(dflt.rows) + "]"},
            {"columns", "array columns per rank (weak) or in total (strong) [default: " + text(dflt.cols) + "]"},
            {"process-rows", "process grid rows [default: 1]"},
            {"process-columns", "process grid columns [default: 1]"},
            {"scaling", "weak or strong [default: weak]"},
            {"dataset-rank", "rank of the datasets: 2, 3 or 4 [default: 4]"},
            {"slowest-dimension", "step or array [default: step]"},
            {"layout", "contiguous or chunked [default: contiguous]"},
            {"mpi-io", "independent or collective [default: independent]"},
            {"hdf5-file", "output file [default: hdf5_iotest.h5; other libraries: their extension]"},
            {"csv-file",
             "results CSV written by rank 0, as the original's (empty: none) [default: "
             "hdf5_iotest.csv]"}};
        app.add_flag("--read-only", read_only_,
                     "only the read phase: read hdf5-file (written by this kernel or by hdf5_iotest with the same "
                     "configuration and rank count) and verify every tile");
        values_.resize(help.size());
        for (std::size_t i = 0; i < help.size(); ++i) app.add_option("--" + help[i].first, values_[i], help[i].second);
        defaults.backend = "hdf5";
        defaults.verify = true;
        defaults.verify_option = false;  // the read phase is the original's; it always verifies here
    }
    void validate(Driver& d) override {
        if (!ini_.empty()) read_ini(cfg_, ini_);
        const auto& keys = config_keys();
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (app_->count("--" + keys[i])) {
                set_key(cfg_, keys[i], values_[i], "--" + keys[i]);
                if (keys[i] == "hdf5-file") file_given_ = true;
            }
        if (!ini_.empty()) file_given_ = file_given_ || ini_sets_file();
        check(cfg_, d.size());
        // The original keeps its file and truncates an existing one.
        d.options().keep = d.options().overwrite = true;
        if (read_only_ && !file_given_)
            throw Error("--read-only reads an existing file: name it", "give hdf5-file in the .ini or --hdf5-file");
    }
    void configure(Driver& d) override {
        d.set_collective(cfg_.collective());
        // hdf5_iotest opens its files with a plain MPI-IO fapl: metadata is
        // read by every rank, not by one and broadcast (collective metadata
        // reads cost 2,530 broadcasts at dataset-rank 2, 2.7x the time).
        d.default_param("hdf5.collective_metadata", "0");
        if (!file_given_ && d.extension() != ".h5") cfg_.hdf5_file = "hdf5_iotest" + d.extension();
        d.require(cfg_.rank != 2 || d.library().caps.slash_names,
                  "dataset-rank = 2 (a group per " + cfg_.slowest_dimension + ": " +
                      (cfg_.step_first() ? "step=<s>/array=<a>" : "array=<a>/step=<s>") + ")",
                  "names with '/' (groups)");
    }
    KernelPlan plan(Driver& d) override;
    void report(Driver& d, const std::vector<StepOutcome>& done, const std::vector<GroupOutcome>&) override;
    void print_report(Driver& d, const Figures& f, std::uint64_t bad, const std::string& first) const;

private:
    bool ini_sets_file() const {
        Config probe;
        probe.hdf5_file.clear();
        read_ini(probe, ini_);
        return !probe.hdf5_file.empty();
    }

    CLI::App* app_ = nullptr;
    std::string ini_;
    std::vector<std::string> values_;
    bool file_given_ = false;
    bool read_only_ = false;
    Config cfg_;
};

KernelPlan Metadata::plan(Driver& d) {
    auto written = share(iotest_plan(cfg_, d.rank()));
    KernelPlan p;
    p.shrink_hint = "steps, arrays, rows or columns";
    p.mismatch_hint = kMismatchHint;
    p.runner_progress = false;
    StepGroup g;
    if (!read_only_)
        g.steps.push_back({StepKind::Write, written, cfg_.hdf5_file, PathUse::Output, {{"role", "write"}}});
    // The original's read phase: every rank reads its own tiles back.
    g.steps.push_back(
        {StepKind::Read, written, cfg_.hdf5_file, read_only_ ? PathUse::Input : PathUse::Written, {{"role", "read"}}});
    p.groups.push_back(std::move(g));
    return p;
}

void Metadata::report(Driver& d, const std::vector<StepOutcome>& done, const std::vector<GroupOutcome>& groups) {
    const FileMetrics none;
    const FileOutcome& read_out = done.back().out;
    const FileMetrics& w = read_only_ ? none : done.at(0).out.metrics;
    const FileMetrics& r = read_out.metrics;
    Figures f;
    f.wall = groups.empty() ? 0 : groups[0].seconds;
    f.file_size = static_cast<double>(read_only_ ? r.bytes_on_disk : w.bytes_on_disk);
    f.bytes_per_rank = static_cast<double>(cfg_.steps * cfg_.arrays * cfg_.my_rows() * cfg_.my_cols() * 8);
    f.write_phase = span(w, {Phase::EndToEnd});
    f.create = span(w, {Phase::Open, Phase::Define});
    f.write = span(w, {Phase::Post, Phase::Flush});
    f.read_phase = span(r, {Phase::EndToEnd});
    f.read = span(r, {Phase::PostRead, Phase::Flush});
    const std::uint64_t bad = read_out.mismatches;
    d.result().params().update({{"ini", ini_},
                                {"steps", cfg_.steps},
                                {"arrays", cfg_.arrays},
                                {"rows", cfg_.rows},
                                {"columns", cfg_.cols},
                                {"process_rows", cfg_.proc_rows},
                                {"process_columns", cfg_.proc_cols},
                                {"scaling", cfg_.scaling},
                                {"dataset_rank", cfg_.rank},
                                {"slowest_dimension", cfg_.slowest_dimension},
                                {"layout", cfg_.layout},
                                {"mpi_io", cfg_.mpi_io},
                                {"hdf5_file", cfg_.hdf5_file}});
    d.result().summary() = {{"datasets", dataset_count(cfg_)},
                            {"tiles_per_rank", cfg_.steps * cfg_.arrays},
                            {"bytes_per_rank", f.bytes_per_rank},
                            {"file_size", f.file_size},
                            {"wall_seconds", f.wall},
                            {"write_phase_seconds", {f.write_phase.min, f.write_phase.max}},
                            {"create_seconds", {f.create.min, f.create.max}},
                            {"write_seconds", {f.write.min, f.write.max}},
                            {"read_phase_seconds", {f.read_phase.min, f.read_phase.max}},
                            {"read_seconds", {f.read.min, f.read.max}},
                            {"mismatches", bad}};
    if (!cfg_.csv_file.empty() && !read_only_)
        collective_step(d.comm(), [&] {
            if (d.rank() == 0) write_csv(cfg_.csv_file, cfg_, f);
        });
    if (d.rank() == 0) print_report(d, f, bad, read_out.first_mismatch);
}

void Metadata::print_report(Driver& d, const Figures& f, std::uint64_t bad, const std::string& first) const {
    if (!d.options().quiet) {
        std::printf("Config loaded from '%s':\n\tsteps=%llu, arrays=%llu, rows=%llu, columns=%llu, scaling=%s\n",
                    ini_.empty() ? "(options)" : ini_.c_str(), static_cast<unsigned long long>(cfg_.steps),
                    static_cast<unsigned long long>(cfg_.arrays), static_cast<unsigned long long>(cfg_.rows),
                    static_cast<unsigned long long>(cfg_.cols), cfg_.scaling.c_str());
        std::printf("\tproc-grid=%llux%llu, slowest-dimension=%s, rank=%d\n\tlayout=%s, mpi-io=%s\n",
                    static_cast<unsigned long long>(cfg_.proc_rows), static_cast<unsigned long long>(cfg_.proc_cols),
                    cfg_.slowest_dimension.c_str(), cfg_.rank, cfg_.layout.c_str(), cfg_.mpi_io.c_str());
    }
    TextReport t;
    t.section("h5bench metadata stress (hdf5_iotest)");
    t.line("I/O library", d.stack_label() + " / " + d.library_label());
    t.line("Output file", cfg_.hdf5_file);
    t.count("Datasets", dataset_count(cfg_));
    t.line("Tile per rank", std::to_string(cfg_.my_rows()) + " x " + std::to_string(cfg_.my_cols()) + " doubles");
    t.line("Wall clock", f.wall, "s", 2);
    t.count("File size", static_cast<std::uint64_t>(f.file_size));
    const auto minmax = [&](const std::string& label, Span s, const char* unit = "s") {
        char buf[96];
        std::snprintf(buf, sizeof buf, "min %.2f, max %.2f %s", s.min, s.max, unit);
        t.line(label, buf);
    };
    minmax("Write phase", f.write_phase);
    minmax("Create time", f.create);
    minmax("Write time", f.write);
    minmax("Write rate", {f.rate(f.write.max), f.rate(f.write.min)}, "MiB/s");
    minmax("Read phase", f.read_phase);
    minmax("Read time", f.read);
    minmax("Read rate", {f.rate(f.read.max), f.rate(f.read.min)}, "MiB/s");
    t.line("Verification", bad ? "FAILED: " + std::to_string(bad) + " element(s); first: " + first
                               : std::string("passed (every tile read back holds process-row + process-column)"));
    t.print();
}

}  // namespace
}  // namespace iok::metadata

IOK_REGISTER_KERNEL(metadata, "metadata",
                    "h5bench metadata stress (hdf5_iotest): steps x arrays of 2-D tiles as rank 2/3/4 datasets",
                    iok::metadata::Metadata)
