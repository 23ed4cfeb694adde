// iokernels replay TRACE: re-issues the MPI-IO pattern an application showed
// under libiok_capture.so (docs/capture_trace.md) as a kernel.  Each captured
// file becomes a 1-D byte variable whose selections are the bytes each rank
// wrote (then read); the plan goes through the driver and runner like every
// kernel's, so any backend and strategy, timings, verification and JSON work
// as usual.  With -a mpiio (the default) the replayed file has the captured
// file's size and written offsets.  --calls recorded re-issues the
// application's own MPI-IO calls instead (replay_recorded.hpp).  --dry-run
// prints the trace summary.
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
#include "driver/kernel.hpp"
#include "core/output_files.hpp"
#include "driver/driver.hpp"
#include "kernels/replay/replay_plan.hpp"
#include "kernels/replay/replay_recorded.hpp"
#include "kernels/replay/replay_summary.hpp"
#include "kernels/replay/trace.hpp"

namespace iok::replay {
namespace {

struct Options {
    std::string trace;
    std::string dir = ".";
    bool dry_run = false;
    bool reads = true;
    std::string calls = "plan";      // plan | recorded
    std::vector<std::string> only;  // substrings of captured file names

    bool selected(const std::string& name) const {
        if (only.empty()) return true;
        for (const auto& s : only)
            if (name.find(s) != std::string::npos) return true;
        return false;
    }
};

// --calls recorded on one captured file: the bytes a file the application
// did not create held are written first (role prepare, through the
// backend), then the recorded sequence (roles write and read), then the
// plan's read-back of every byte written (role verify).  Returns the bytes
// written and read (rank 0).
std::pair<std::uint64_t, std::uint64_t> replay_recorded_file(Driver& d, const Trace& trace,
                                                             const std::vector<CapturedFile>& files, int index,
                                                             const std::string& path, bool reads, Runner& runner,
                                                             std::vector<TextReport>& reports) {
    MPI_Comm comm = d.comm();
    const int rank = d.rank(), size = d.size();
    const CommonOptions& c = d.options();
    CapturedFile f = files[static_cast<std::size_t>(index)];
    const TraceFile& tf = trace.files[static_cast<std::size_t>(index)];
    const nlohmann::json about = {{"captured_file", f.name}, {"captured_ranks", trace.nranks}};
    std::uint64_t written = 0, read = 0;
    std::vector<std::vector<Run>> prepared(f.reads.size());
    std::vector<Run> prepared_all;
    for (const auto& r : f.reads)
        if (!r.empty()) f.extent = std::max(f.extent, r.back().offset + r.back().length);
    if (recorded_needs_prepare(tf) || !f.written()) {
        prepared = lowest_rank_owns(f.reads);
        for (const auto& r : prepared) prepared_all.insert(prepared_all.end(), r.begin(), r.end());
        prepared_all = normalize_runs(std::move(prepared_all));
        FilePlan pplan;
        collective_step(comm, [&] { pplan = replay_plan(f, redistribute(prepared, size, rank), index); });
        FileOutcome p = runner.write(pplan, path);
        if (rank == 0) reports.push_back(p.text);
        nlohmann::json pj = about;
        pj["role"] = "prepare";
        d.record(p, pj);
    }
    RecordedSetup s;
    s.trace = &trace;
    s.file = &tf;
    s.captured = &f;
    s.index = index;
    s.path = path;
    s.prepared = prepared_all;
    s.extra_hints = d.config().hints;
    s.library = d.library_label();
    s.reads = reads;
    RecordedOutcome out = replay_recorded(comm, s);
    for (auto* o : {out.any_write ? &out.write : nullptr, out.any_read ? &out.read : nullptr}) {
        if (!o) continue;
        if (rank == 0) {
            (o == &out.write ? written : read) += static_cast<std::uint64_t>(o->metrics.bytes.sum);
            reports.push_back(o->text);
        }
        nlohmann::json j = about;
        j["role"] = o == &out.write ? "write" : "read";
        d.record(*o, j);
    }
    if (c.verify) {
        // Every byte written (the preparation's and the sequence's), each by
        // the lowest rank that wrote it.
        std::vector<std::vector<Run>> all(f.writes.size());
        for (std::size_t r = 0; r < all.size(); ++r) {
            all[r] = f.writes[r];
            all[r].insert(all[r].end(), prepared[r].begin(), prepared[r].end());
            all[r] = normalize_runs(std::move(all[r]));
        }
        all = lowest_rank_owns(std::move(all));
        FilePlan vplan;
        collective_step(comm, [&] { vplan = replay_plan(f, redistribute(all, size, rank), index); });
        FileOutcome v = runner.read(vplan, path);
        if (rank == 0 && c.verbose) reports.push_back(v.text);
        nlohmann::json vj = about;
        vj["role"] = "verify";
        d.record(v, vj);
    }
    return {written, read};
}

void run(int argc, char** argv, MPI_Comm comm) {
    CLI::App app{"Replays an MPI-IO trace captured with libiok_capture.so (LD_PRELOAD) from any MPI program: "
                 "every captured file becomes one 1-D byte variable, each rank writes the bytes its captured "
                 "rank wrote and reads what it read, on any backend and strategy, verified.  With another rank "
                 "count the captured ranks' byte sets are laid end to end in rank order and split evenly "
                 "(docs/capture_trace.md).  --calls recorded re-issues instead the application's own MPI-IO calls "
                 "one by one (-a mpiio, same rank count).  --dry-run prints what the trace asks of the file system.",
                 "iokernels replay"};
    Options opt;
    app.add_option("trace", opt.trace, "trace file written by libiok_capture.so")->required();
    app.add_option("-o,--dir", opt.dir, "directory of the replayed files (must exist)")->capture_default_str();
    app.add_flag("--dry-run", opt.dry_run,
                 "do no I/O: print per captured file the request count, size histogram, contiguity, "
                 "collective share and per-rank balance (--json: as JSON)")
        ->capture_default_str();
    app.add_flag("--reads,!--no-reads", opt.reads,
                 "also replay the captured reads (of bytes some rank wrote; a file only read is written first)")
        ->capture_default_str();
    app.add_option("--calls", opt.calls,
                   "which calls write and read the bytes: 'plan' = the library's own calls through the chosen "
                   "backend and strategy (one collective call per file and phase; any rank count); 'recorded' = "
                   "the application's MPI-IO calls re-issued one by one as captured (same opens, set_views, "
                   "offsets, flavours, collective or independent; -a mpiio only, the captured rank count, a "
                   "version 2 trace)")
        ->check(CLI::IsMember({"plan", "recorded"}))
        ->capture_default_str();
    app.add_option("--file", opt.only, "replay only captured files whose name contains this text (repeatable; default: every file)");
    DriverDefaults defaults;
    defaults.backend = "mpiio";
    defaults.verify = true;
    Driver d("replay", comm, app, argc, argv, defaults);
    if (!d.parse()) return;
    const int rank = d.rank(), size = d.size();
    const CommonOptions& c = d.options();
    const bool recorded = opt.calls == "recorded";
    if (recorded && !opt.dry_run) {
        d.check(c.backend == "mpiio" && c.strategy == "canonical",
                "--calls recorded re-issues the application's MPI-IO calls: it runs with -a mpiio -x canonical, not -a " +
                    c.backend + " -x " + c.strategy,
                "use -a mpiio, or --calls plan to replay the bytes on another library or strategy");
        d.check(!c.independent, "--independent changes the calls, which --calls recorded takes from the trace",
                "drop --independent, or use --calls plan");
    }

    const std::string text = read_text_collective(opt.trace, comm, "give the trace libiok_capture.so wrote "
                                                                   "(IOK_CAPTURE_TRACE names it)");
    Trace trace;
    collective_step(comm, [&] { trace = parse_trace(text, opt.trace); });

    if (opt.dry_run) {
        collective_step(comm, [&] {
            if (rank != 0) return;
            nlohmann::json s = summarize_trace(trace);
            if (!c.quiet) print_summary(s, opt.trace);
            for (auto& f : s["files"]) d.result().add_file(f);
            d.result().params().update({{"trace", opt.trace}, {"dry_run", true}, {"captured_ranks", trace.nranks},
                                        {"captured_program", trace.program}});
            if (!c.quiet) std::printf("Dry run: no file was opened.\n");
        });
        d.finish();
        return;
    }

    std::vector<CapturedFile> files;
    collective_step(comm, [&] { files = captured_files(trace); });
    if (recorded) {
        std::vector<std::size_t> chosen;
        for (std::size_t i = 0; i < files.size(); ++i)
            if (opt.selected(files[i].name)) chosen.push_back(i);
        const std::string why = recorded_refusal(trace, size, chosen, opt.trace);
        d.check(why.empty(), why, "see iokernels replay --help (--calls)");
    }
    check_output_directory(comm, opt.dir);
    bool collective = false;
    for (const auto& f : files) collective = collective || (f.collective && opt.selected(f.name));
    d.set_collective(collective);
    std::unique_ptr<Backend> backend = d.make_stack();
    RunOptions ropt = d.run_options();
    ropt.progress = false;
    Runner runner(comm, *backend, ropt);

    struct Job {
        const CapturedFile* f;
        int index;
        std::string path;
        bool prepare;  // a file the application only read: written first
    };
    std::vector<Job> jobs;
    for (std::size_t i = 0; i < files.size(); ++i) {
        const CapturedFile& f = files[i];
        if (!opt.selected(f.name) || f.extent == 0) continue;
        if (!f.written() && !(opt.reads && f.read())) continue;
        jobs.push_back({&f, static_cast<int>(i), replay_file_name(opt.dir, f.name, static_cast<int>(i), d.extension()),
                        !f.written()});
    }
    for (const Job& j : jobs) d.outputs().claim(j.path);
    {
        // The replayed files as captured: their extents on disk (rank 0
        // counts them all; the check sums over ranks).
        ResourceNeeds need;
        need.output_path = opt.dir;
        if (rank == 0)
            for (const Job& j : jobs) need.file_bytes += j.f->extent;
        d.check_resources(need, "the captured files (select some with --file)");
    }

    std::vector<TextReport> reports;
    std::uint64_t written = 0, read = 0;
    for (const Job& j : jobs) {
        if (recorded) {
            const auto [w, r] = replay_recorded_file(d, trace, files, j.index, j.path, opt.reads, runner, reports);
            written += w;
            read += r;
            continue;
        }
        const CapturedFile& f = *j.f;
        const auto source = j.prepare ? lowest_rank_owns(f.reads) : f.writes;
        const std::vector<Run> mine = redistribute(source, size, rank);
        FilePlan wplan;
        collective_step(comm, [&] { wplan = replay_plan(f, mine, j.index); });
        FileOutcome w = runner.write(wplan, j.path);
        if (rank == 0) {
            written += static_cast<std::uint64_t>(w.metrics.bytes.sum);
            reports.push_back(w.text);
        }
        const nlohmann::json about = {{"captured_file", f.name}, {"captured_ranks", trace.nranks}};
        nlohmann::json wj = about;
        wj["role"] = j.prepare ? "prepare" : "write";
        d.record(w, wj);
        if (opt.reads && f.read()) {
            // Only bytes some rank wrote hold the pattern; the others are not ours to check.
            std::vector<Run> all_written;
            for (const auto& r : source) all_written.insert(all_written.end(), r.begin(), r.end());
            all_written = normalize_runs(std::move(all_written));
            std::vector<std::vector<Run>> reads(f.reads.size());
            for (std::size_t r = 0; r < reads.size(); ++r) reads[r] = intersect_runs(f.reads[r], all_written);
            // Ranks may read the same bytes (every rank reading a header);
            // strategies that move data between ranks need them disjoint.
            if (c.strategy != "canonical") reads = lowest_rank_owns(std::move(reads));
            FilePlan rplan;
            collective_step(comm, [&] { rplan = replay_plan(f, redistribute(reads, size, rank), j.index); });
            FileOutcome r = runner.read(rplan, j.path);
            if (rank == 0) {
                read += static_cast<std::uint64_t>(r.metrics.bytes.sum);
                reports.push_back(r.text);
            }
            nlohmann::json rj = about;
            rj["role"] = "read";
            d.record(r, rj);
        }
        if (c.verify) {
            FileOutcome v = runner.read(wplan, j.path);
            if (rank == 0 && c.verbose) reports.push_back(v.text);
            nlohmann::json vj = about;
            vj["role"] = "verify";
            d.record(v, vj);
        }
    }

    if (rank == 0) {
        if (!c.quiet)
            for (const auto& t : reports) t.print();
        TextReport t;
        t.section("iokernels replay");
        t.line("Trace", opt.trace + " (" + std::to_string(trace.nranks) + " captured rank(s), " +
                            std::to_string(trace.files.size()) + " file(s))");
        t.line("Captured program", trace.program);
        t.count("Replay ranks", static_cast<std::uint64_t>(size));
        t.line("I/O stack", d.stack_label() + " / " + d.library_label());
        t.line("Calls", recorded ? "recorded: the application's MPI-IO calls, one by one"
                                 : "plan: the library's own (one call per file and phase)");
        t.line("Collective", recorded ? "as recorded" : collective && !c.independent ? "yes" : "no");
        for (const Job& j : jobs) t.line("Replayed " + j.f->name, j.path + (j.prepare ? " (only read: written first)" : ""));
        t.count("Files replayed", jobs.size());
        t.line("Bytes written", format_bytes(static_cast<double>(written)));
        t.line("Bytes read", format_bytes(static_cast<double>(read)));
        t.line("Verification", c.verify ? (d.mismatches() ? "FAILED" : "passed") : "off");
        t.print();
    }
    d.result().params().update({{"trace", opt.trace}, {"captured_ranks", trace.nranks},
                                {"captured_program", trace.program}, {"replay_reads", opt.reads},
                                {"calls", opt.calls}});
    d.finish("the replayed file does not hold what this run wrote: was it modified during the run?");
}

}  // namespace

int replay_main(int argc, char** argv) {
    return run_kernel_main("replay", MPI_COMM_WORLD, [&] { run(argc, argv, MPI_COMM_WORLD); });
}

}  // namespace iok::replay

IOK_REGISTER_KERNEL_MAIN(replay, "replay",
                    "replays an MPI-IO trace captured with libiok_capture.so (any MPI program) on any backend",
                    iok::replay::replay_main)
