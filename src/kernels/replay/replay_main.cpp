// iokernels replay TRACE: re-issues the MPI-IO pattern an application showed
// under libiok_capture.so (docs/capture_trace.md) as a kernel.  Each captured
// file becomes a 1-D byte variable whose selections are the bytes each rank
// wrote (then read); the plan goes through the driver and runner like every
// kernel's, so any backend and strategy, timings, verification and JSON work
// as usual.  With -a mpiio (the default) the replayed file has the captured
// file's size and written offsets.  --calls recorded re-issues the
// application's own MPI-IO calls instead, re-issued one by one by the MPI-IO
// backend (replay_recorded.hpp), between the plan's preparation and read-back.
// --dry-run prints the trace summary.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/broadcast_file.hpp"
#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/output_files.hpp"
#include "driver/kernel.hpp"
#include "kernels/replay/darshan_input.hpp"
#include "kernels/replay/replay_plan.hpp"
#include "kernels/replay/replay_recorded.hpp"
#include "kernels/replay/replay_summary.hpp"
#include "kernels/replay/trace.hpp"

namespace iok::replay {
namespace {

struct Options {
    std::string trace;
    std::string dir = ".";
    bool reads = true;
    std::string calls = "plan";     // plan | recorded
    std::vector<std::string> only;  // substrings of captured file names
    int log_ranks = 0;              // a Darshan log: its processes folded onto this many (0: its own)
    double log_scale = 1;           // a Darshan log: its accesses divided by this

    bool selected(const std::string& name) const {
        if (only.empty()) return true;
        for (const auto& s : only)
            if (name.find(s) != std::string::npos) return true;
        return false;
    }
};

class Replay final : public Kernel {
public:
    const char* name() const override { return "replay"; }
    std::string description() const override {
        return "Replays an MPI-IO trace captured with libiok_capture.so (LD_PRELOAD) from any MPI program: every "
               "captured file becomes one 1-D byte variable, each rank writes the bytes its captured rank wrote and "
               "reads what it read, on any backend and strategy, verified.  With another rank count the captured "
               "ranks' byte sets are laid end to end in rank order and split evenly (docs/capture_trace.md).  "
               "--calls recorded re-issues instead the application's own MPI-IO calls one by one (-a mpiio, same "
               "rank count).  --dry-run prints what the trace asks of the file system.";
    }
    void add_options(CLI::App& app, DriverDefaults& defaults) override;
    void configure(Driver& d) override;
    void dry_run(Driver& d) override;
    KernelPlan plan(Driver& d) override;
    void step_done(Driver& d, const StepOutcome& o) override {
        if (d.rank() != 0) return;
        const std::string role = o.tags.value("role", "");
        if (role == "verify" && !d.options().verbose) return;
        reports_.push_back(o.out.text);
        // The bytes the replay wrote and read (a recorded file's preparation is not the application's).
        const auto bytes = static_cast<std::uint64_t>(o.out.metrics.bytes.sum);
        if (role == "write" || (role == "prepare" && !recorded())) written_ += bytes;
        if (role == "read") read_ += bytes;
    }
    void report(Driver& d, const std::vector<StepOutcome>&, const std::vector<GroupOutcome>&) override;

private:
    bool recorded() const { return opt_.calls == "recorded"; }
    void print_darshan(bool table) const;
    void plan_file(Driver& d, const CapturedFile& f, int index, const std::string& path, bool prepare, StepGroup& g);
    void recorded_file(Driver& d, int index, const std::string& path, StepGroup& g);

    Options opt_;
    Trace trace_;
    std::vector<CapturedFile> files_;
    std::vector<std::pair<std::string, std::string>> replayed_;  // captured name, path (+ note)
    bool collective_ = false;
    std::vector<TextReport> reports_;
    std::uint64_t written_ = 0, read_ = 0;
    nlohmann::json darshan_;  // rank 0: the converter's report when the input is a Darshan log
};

void Replay::add_options(CLI::App& app, DriverDefaults& defaults) {
    app.add_option("trace", opt_.trace,
                   "trace file written by libiok_capture.so, or a Darshan log (format 3.x, recognised by its "
                   "header: converted by iokernels-darshan, docs/darshan.md)")
        ->required();
    app.add_option("--ranks", opt_.log_ranks, "Darshan log: fold its processes onto N ranks (0: the log's own count)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_option("--scale", opt_.log_scale,
                   "Darshan log: keep 1/F of each series of accesses (sizes kept, bytes divided by ~F)")
        ->check(CLI::Range(1.0, 1e12))
        ->capture_default_str();
    app.add_option("-o,--dir", opt_.dir, "directory of the replayed files (must exist)")->capture_default_str();
    app.add_flag("--reads,!--no-reads", opt_.reads,
                 "also replay the captured reads (of bytes some rank wrote; a file only read is written first)")
        ->capture_default_str();
    app.add_option("--calls", opt_.calls,
                   "which calls write and read the bytes: 'plan' = the library's own calls through the chosen "
                   "backend and strategy (one collective call per file and phase; any rank count); 'recorded' = "
                   "the application's MPI-IO calls re-issued one by one as captured (same opens, set_views, "
                   "offsets, flavours, collective or independent; -a mpiio only, the captured rank count, a "
                   "version 2 trace)")
        ->check(CLI::IsMember({"plan", "recorded"}))
        ->capture_default_str();
    app.add_option("--file", opt_.only,
                   "replay only captured files whose name contains this text (repeatable; default: every file)");
    defaults.backend = "mpiio";
    defaults.verify = true;
}

void Replay::configure(Driver& d) {
    const CommonOptions& c = d.options();
    if (recorded() && !c.dry_run) {
        d.check(
            c.backend == "mpiio" && c.strategy == "canonical",
            "--calls recorded re-issues the application's MPI-IO calls: it runs with -a mpiio -x canonical, not -a " +
                c.backend + " -x " + c.strategy,
            "use -a mpiio, or --calls plan to replay the bytes on another library or strategy");
        d.check(!c.independent, "--independent changes the calls, which --calls recorded takes from the trace",
                "drop --independent, or use --calls plan");
    }
    const bool darshan = is_darshan_log(opt_.trace, d.comm());
    d.check(darshan || (opt_.log_ranks == 0 && opt_.log_scale == 1), "--ranks and --scale apply to a Darshan log",
            "for a capture trace, launch the ranks you want (the bytes are redistributed)");
    const std::string text = darshan ? darshan_trace(opt_.trace, opt_.log_ranks, opt_.log_scale, d.comm())
                                     : read_text_collective(opt_.trace, d.comm(),
                                                            "give the trace libiok_capture.so wrote "
                                                            "(IOK_CAPTURE_TRACE names it)");
    collective_step(d.comm(), [&] {
        const auto first = text.find_first_not_of(" \t\r\n");
        try {
            trace_ = parse_trace(text, opt_.trace);
        } catch (const Error& e) {
            // not JSON at all: perhaps meant as a Darshan log
            if (darshan || first == std::string::npos || text[first] == '{') throw;
            throw Error(std::string(e.what()) + "; nor is it a Darshan log (no Darshan header)",
                        "give a Darshan log (format 3.x) or the trace libiok_capture.so wrote");
        }
        if (darshan && d.rank() == 0) darshan_ = nlohmann::json::parse(text).value("darshan", nlohmann::json::object());
    });
}

// The trace's own summary: what the application asked of the file system.
void Replay::dry_run(Driver& d) {
    collective_step(d.comm(), [&] {
        if (d.rank() != 0) return;
        nlohmann::json s = summarize_trace(trace_);
        if (!d.options().quiet) {
            print_darshan(true);
            print_summary(s, opt_.trace);
        }
        if (!darshan_.empty()) d.result().params()["darshan"] = darshan_;
        for (auto& f : s["files"]) d.result().add_file(f);
        d.result().params().update({{"trace", opt_.trace},
                                    {"dry_run", true},
                                    {"captured_ranks", trace_.nranks},
                                    {"captured_program", trace_.program}});
        if (!d.options().quiet) std::printf("Dry run: no file was opened.\n");
    });
}

KernelPlan Replay::plan(Driver& d) {
    collective_step(d.comm(), [&] { files_ = captured_files(trace_); });
    if (recorded()) {
        std::vector<std::size_t> chosen;
        for (std::size_t i = 0; i < files_.size(); ++i)
            if (opt_.selected(files_[i].name)) chosen.push_back(i);
        const std::string why = recorded_refusal(trace_, d.size(), chosen, opt_.trace);
        d.check(why.empty(), why, "see iokernels replay --help (--calls)");
    }
    check_output_directory(d.comm(), opt_.dir);
    for (const auto& f : files_) collective_ = collective_ || (f.collective && opt_.selected(f.name));
    d.set_collective(collective_);
    KernelPlan p;
    p.shrink_hint = "the captured files (select some with --file)";
    p.mismatch_hint = "the replayed file does not hold what this run wrote: was it modified during the run?";
    p.runner_progress = false;
    p.output_dir = opt_.dir;
    StepGroup g;
    for (std::size_t i = 0; i < files_.size(); ++i) {
        const CapturedFile& f = files_[i];
        if (!opt_.selected(f.name) || f.extent == 0) continue;
        if (!f.written() && !(opt_.reads && f.read())) continue;
        const int index = static_cast<int>(i);
        const std::string path = replay_file_name(opt_.dir, f.name, index, d.extension());
        replayed_.emplace_back(f.name, path + (!f.written() ? " (only read: written first)" : ""));
        if (recorded())
            recorded_file(d, index, path, g);
        else
            plan_file(d, f, index, path, !f.written(), g);
    }
    p.groups.push_back(std::move(g));
    return p;
}

// --calls plan: the bytes each rank wrote (a file only read: the bytes read,
// each by the lowest rank reading it, written first), the reads, the read-back.
void Replay::plan_file(Driver& d, const CapturedFile& f, int index, const std::string& path, bool prepare,
                       StepGroup& g) {
    const int rank = d.rank(), size = d.size();
    const nlohmann::json about = {{"captured_file", f.name}, {"captured_ranks", trace_.nranks}};
    auto tagged = [&](const char* role) {
        nlohmann::json j = about;
        j["role"] = role;
        return j;
    };
    const auto source = prepare ? lowest_rank_owns(f.reads) : f.writes;
    std::shared_ptr<const FilePlan> wplan;
    collective_step(d.comm(), [&] { wplan = share(replay_plan(f, redistribute(source, size, rank), index)); });
    g.steps.emplace_back(StepKind::Write, wplan, path, PathUse::Output, tagged(prepare ? "prepare" : "write"));
    if (opt_.reads && f.read()) {
        // Only bytes some rank wrote hold the pattern; the others are not ours to check.
        std::vector<Run> all_written;
        for (const auto& r : source) all_written.insert(all_written.end(), r.begin(), r.end());
        all_written = normalize_runs(std::move(all_written));
        std::vector<std::vector<Run>> reads(f.reads.size());
        for (std::size_t r = 0; r < reads.size(); ++r) reads[r] = intersect_runs(f.reads[r], all_written);
        // Ranks may read the same bytes (every rank reading a header);
        // strategies that move data between ranks need them disjoint.
        if (d.options().strategy != "canonical") reads = lowest_rank_owns(std::move(reads));
        std::shared_ptr<const FilePlan> rplan;
        collective_step(d.comm(), [&] { rplan = share(replay_plan(f, redistribute(reads, size, rank), index)); });
        g.steps.emplace_back(StepKind::Read, rplan, path, PathUse::Written, tagged("read"));
    }
    if (d.options().verify) g.steps.emplace_back(StepKind::Read, wplan, path, PathUse::Written, tagged("verify"));
}

// --calls recorded: the bytes a file the application did not create held
// are written first (role prepare, through the backend), then the recorded
// sequence (roles write and read), then the plan's read-back of every byte
// written (role verify).
void Replay::recorded_file(Driver& d, int index, const std::string& path, StepGroup& g) {
    const int rank = d.rank(), size = d.size();
    CapturedFile f = files_[static_cast<std::size_t>(index)];
    const TraceFile& tf = trace_.files[static_cast<std::size_t>(index)];
    const nlohmann::json about = {{"captured_file", f.name}, {"captured_ranks", trace_.nranks}};
    std::vector<std::vector<Run>> prepared(f.reads.size());
    std::vector<Run> prepared_all;
    for (const auto& r : f.reads)
        if (!r.empty()) f.extent = std::max(f.extent, r.back().offset + r.back().length);
    const bool prepare = recorded_needs_prepare(tf) || !f.written();
    if (prepare) {
        prepared = lowest_rank_owns(f.reads);
        for (const auto& r : prepared) prepared_all.insert(prepared_all.end(), r.begin(), r.end());
        prepared_all = normalize_runs(std::move(prepared_all));
        std::shared_ptr<const FilePlan> pplan;
        collective_step(d.comm(), [&] { pplan = share(replay_plan(f, redistribute(prepared, size, rank), index)); });
        nlohmann::json pj = about;
        pj["role"] = "prepare";
        g.steps.emplace_back(StepKind::Write, pplan, path, PathUse::Output, pj);
    }
    nlohmann::json cj = about;
    cj["label"] = "file" + std::to_string(index);
    Step calls(StepKind::Calls, nullptr, path, prepare ? PathUse::Written : PathUse::Output, cj);
    calls.calls = recorded_calls(trace_, tf, rank);
    calls.call_data = recorded_data(trace_, tf, index, prepared_all, opt_.reads);
    g.steps.push_back(std::move(calls));
    if (!d.options().verify) return;
    // Every byte written (the preparation's and the sequence's), each by
    // the lowest rank that wrote it.
    std::vector<std::vector<Run>> all(f.writes.size());
    for (std::size_t r = 0; r < all.size(); ++r) {
        all[r] = f.writes[r];
        all[r].insert(all[r].end(), prepared[r].begin(), prepared[r].end());
        all[r] = normalize_runs(std::move(all[r]));
    }
    all = lowest_rank_owns(std::move(all));
    std::shared_ptr<const FilePlan> vplan;
    collective_step(d.comm(), [&] { vplan = share(replay_plan(f, redistribute(all, size, rank), index)); });
    nlohmann::json vj = about;
    vj["role"] = "verify";
    g.steps.emplace_back(StepKind::Read, vplan, path, PathUse::Written, vj);
}

// The converter's summary (what was exact, synthesized, scaled), with
// `table` the per-file log-vs-plan counters and the diagnosis.
void Replay::print_darshan(bool table) const {
    if (darshan_.empty()) return;
    auto lines = [&](const char* key) {
        for (const auto& l : darshan_.value(key, nlohmann::json::array()))
            if (l.is_string()) std::printf("%s\n", l.get<std::string>().c_str());
    };
    lines("summary");
    if (table) {
        std::printf("Log counters beside the replay plan's (at the log's own size):\n");
        lines("table_text");
    }
    std::printf("Diagnosis (! = worth acting on):\n");
    lines("diagnosis_text");
    std::printf("\n");
}

void Replay::report(Driver& d, const std::vector<StepOutcome>&, const std::vector<GroupOutcome>&) {
    const CommonOptions& c = d.options();
    if (d.rank() == 0) {
        if (!c.quiet) {
            print_darshan(false);
            for (const auto& t : reports_) t.print();
        }
        TextReport t;
        t.section("iokernels replay");
        t.line("Trace", opt_.trace + " (" + std::to_string(trace_.nranks) + " captured rank(s), " +
                            std::to_string(trace_.files.size()) + " file(s))");
        t.line("Captured program", trace_.program);
        t.count("Replay ranks", static_cast<std::uint64_t>(d.size()));
        t.line("I/O stack", d.stack_label() + " / " + d.library_label());
        t.line("Calls", recorded() ? "recorded: the application's MPI-IO calls, one by one"
                                   : "plan: the library's own (one call per file and phase)");
        t.line("Collective", recorded() ? "as recorded" : collective_ && !c.independent ? "yes" : "no");
        for (const auto& [name, path] : replayed_) t.line("Replayed " + name, path);
        t.count("Files replayed", replayed_.size());
        t.line("Bytes written", format_bytes(static_cast<double>(written_)));
        t.line("Bytes read", format_bytes(static_cast<double>(read_)));
        t.line("Verification", c.verify ? (d.mismatches() ? "FAILED" : "passed") : "off");
        t.print();
    }
    d.result().params().update({{"trace", opt_.trace},
                                {"captured_ranks", trace_.nranks},
                                {"captured_program", trace_.program},
                                {"replay_reads", opt_.reads},
                                {"calls", opt_.calls}});
    if (!darshan_.empty()) {
        nlohmann::json dj = darshan_;
        dj.erase("table_text");
        dj.erase("diagnosis_text");
        d.result().params()["darshan"] = dj;
    }
}

}  // namespace
}  // namespace iok::replay

IOK_REGISTER_KERNEL(replay, "replay",
                    "replays an MPI-IO trace captured with libiok_capture.so (any MPI program) on any backend",
                    iok::replay::Replay)
