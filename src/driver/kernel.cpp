// The one lifecycle of every kernel (driver/kernel.hpp).
#include "driver/kernel.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "core/collective.hpp"
#include "core/command_line.hpp"
#include "core/error.hpp"
#include "core/resource_check.hpp"
#include "model/plan_size.hpp"
#include "runner/plan_census.hpp"
#include "runner/recorded_run.hpp"

namespace iok {

namespace {

std::vector<KernelInfo>& table() {
    static std::vector<KernelInfo> t;
    return t;
}

// Every path of every rank's steps, each once, in rank order: a file per
// process is listed by its rank alone, yet claimed by all (OutputFiles is
// collective over the driver's communicator).
std::vector<std::pair<PathUse, std::string>> all_paths(MPI_Comm comm, const KernelPlan& plan) {
    std::string mine;
    for (const auto& g : plan.groups)
        for (const auto& s : g.steps) mine += std::to_string(static_cast<int>(s.use)) + s.path + '\n';
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
    MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm);
    std::string all;
    if (rank == 0) {
        long long total = 0;
        for (int r = 0; r < size; ++r) {
            displs[static_cast<std::size_t>(r)] = static_cast<int>(total);
            total += lens[static_cast<std::size_t>(r)];
        }
        all.resize(static_cast<std::size_t>(total));
    }
    MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, comm);
    std::vector<std::pair<PathUse, std::string>> out;
    std::string unique;
    if (rank == 0) {
        std::set<std::string> seen;
        std::size_t at = 0;
        while (at < all.size()) {
            const std::size_t nl = all.find('\n', at);
            std::string line = all.substr(at, nl - at);
            at = nl + 1;
            if (seen.insert(line.substr(1)).second) unique += line + '\n';
        }
    }
    int ulen = static_cast<int>(unique.size());
    MPI_Bcast(&ulen, 1, MPI_INT, 0, comm);
    unique.resize(static_cast<std::size_t>(ulen));
    MPI_Bcast(unique.data(), ulen, MPI_CHAR, 0, comm);
    std::size_t at = 0;
    while (at < unique.size()) {
        const std::size_t nl = unique.find('\n', at);
        out.emplace_back(static_cast<PathUse>(unique[at] - '0'), unique.substr(at + 1, nl - at - 1));
        at = nl + 1;
    }
    return out;
}

// Outputs claimed and inputs checked before any I/O.
void claim_paths(Driver& d, const KernelPlan& plan, OutputFiles& replaced) {
    for (const auto& [use, path] : all_paths(d.comm(), plan)) switch (use) {
            case PathUse::Output: d.outputs().claim(path); break;
            case PathUse::Replaced: replaced.claim(path); break;
            case PathUse::Input: d.outputs().require_readable(path); break;
            case PathUse::Written: break;
        }
}

// Before any buffer exists: the largest call's buffers in memory (twice for
// struct memory: the structs and the fields packed from them), the last
// version of every written path on disk.
ResourceNeeds resource_needs(const KernelPlan& plan) {
    ResourceNeeds need;
    std::map<std::string, std::uint64_t> on_disk;
    for (const auto& g : plan.groups)
        for (const auto& s : g.steps) {
            if (!s.plan) continue;  // recorded calls: one access's buffer at a time
            const std::uint64_t buffers = plan_buffer_bytes(*s.plan, g.ticks > 0 ? 1 : 0);
            need.memory_bytes =
                std::max(need.memory_bytes, saturating_mul(buffers, s.plan->memory_struct.empty() ? 1 : 2));
            if (s.kind == StepKind::Read || (s.kind == StepKind::Update && !s.grows_file)) continue;
            on_disk[s.path] = plan_file_bytes(*s.plan);
            if (need.output_path.empty()) need.output_path = plan.output_dir.empty() ? s.path : plan.output_dir;
        }
    for (const auto& [path, bytes] : on_disk) need.file_bytes = saturating_add(need.file_bytes, bytes);
    return need;
}

RunOptions run_options(const Driver& d, const KernelPlan& plan) {
    RunOptions ro = d.run_options();
    ro.progress = ro.progress && plan.runner_progress;
    ro.noncontig_buffer = plan.noncontig_buffer;
    ro.check_reads = plan.check_reads;
    ro.gap_bytes = plan.gap_bytes;
    return ro;
}

// After a file: the kernel's check, its report lines, the result entry.
void finish_step(Driver& d, Kernel& k, MPI_Comm comm, const Step& s, StepOutcome o, std::vector<StepOutcome>& done) {
    if (s.check) collective_step(comm, [&] { s.check(o.out); });
    k.step_done(d, o);
    d.record(o.out, o.tags);
    done.push_back(std::move(o));
}

// A group without ticks: each file whole, one after the other.
void run_whole_files(Driver& d, Kernel& k, Backend& stack, MPI_Comm comm, const KernelPlan& plan, const StepGroup& g,
                     std::vector<StepOutcome>& done) {
    Runner runner(comm, stack, run_options(d, plan));
    for (const Step& s : g.steps) {
        k.step_start(d, s);
        if (s.kind == StepKind::Update) throw Error("internal: an Update step needs a group with ticks");
        std::vector<StepOutcome> outs;
        if (s.kind == StepKind::Calls) {
            const std::string label = !s.tags.contains("label") ? s.path : s.tags["label"].get<std::string>();
            RecordedRun r = run_recorded(comm, stack, s.path, label, d.library_label(), *s.calls, *s.call_data);
            for (auto [o, role] : {std::pair{&r.write, "write"}, std::pair{&r.read, "read"}}) {
                if (!(o == &r.write ? r.any_write : r.any_read)) continue;
                nlohmann::json tags = s.tags;
                tags["role"] = role;
                outs.push_back({&s, std::move(*o), std::move(tags)});
            }
        } else {
            outs.push_back(
                {&s, s.kind == StepKind::Read ? runner.read(*s.plan, s.path) : runner.write(*s.plan, s.path), s.tags});
        }
        for (auto& o : outs) finish_step(d, k, comm, s, std::move(o), done);
    }
}

// A group with ticks: every file open from its first record to its last.
void run_by_ticks(Driver& d, Kernel& k, Backend& stack, MPI_Comm comm, const KernelPlan& plan, const StepGroup& g,
                  std::vector<StepOutcome>& done) {
    const RunOptions ro = run_options(d, plan);
    struct Open {
        std::unique_ptr<RecordWriter> writer;
        std::unique_ptr<RecordReader> reader;
        int next = 0;  // index into the step's schedule
        int first = 0;
    };
    std::vector<Open> open(g.steps.size());
    auto tick_of = [&](const Step& s, int k_rec) {
        return s.ticks.empty() ? k_rec : s.ticks[static_cast<std::size_t>(k_rec)];
    };
    auto records = [&](const Step& s) { return s.ticks.empty() ? g.ticks : static_cast<int>(s.ticks.size()); };
    for (int t = 0; t < g.ticks; ++t) {
        if (g.before_tick) g.before_tick(t);
        for (std::size_t i = 0; i < g.steps.size(); ++i) {
            const Step& s = g.steps[i];
            Open& f = open[i];
            if (f.next >= records(s) || tick_of(s, f.next) != t) continue;
            if (f.next == 0) {
                k.step_start(d, s);
                if (s.kind == StepKind::Read) {
                    f.reader = std::make_unique<RecordReader>(comm, stack, ro, *s.plan, s.path);
                } else {
                    f.writer = std::make_unique<RecordWriter>(
                        comm, stack, ro, *s.plan, s.path, s.kind == StepKind::Update ? Access::Update : Access::Read);
                    if (s.first_record)
                        collective_step(comm, [&] { f.first = s.first_record(f.writer->records_in_file()); });
                }
            }
            // A step without records still opens and closes its file (GCRM's grid file).
            const int r = f.first + f.next;
            if (s.plan->nrecords > 0) {
                if (f.reader) {
                    f.reader->read(r, r + 1);
                } else {
                    if (!s.gapped_records.empty())
                        f.writer->set_noncontig_buffer(std::count(s.gapped_records.begin(), s.gapped_records.end(), r) >
                                                       0);
                    f.writer->write(r, r + 1);
                }
            }
            if (++f.next == records(s)) {
                StepOutcome o{&s, f.reader ? f.reader->close() : f.writer->close(), s.tags};
                f.reader.reset();
                f.writer.reset();
                finish_step(d, k, comm, s, std::move(o), done);
            }
        }
        if (g.after_tick) g.after_tick(t);
    }
}

}  // namespace

void register_kernel(KernelInfo info) {
    table().push_back(std::move(info));
    std::sort(table().begin(), table().end(), [](const KernelInfo& a, const KernelInfo& b) { return a.name < b.name; });
}

const std::vector<KernelInfo>& registered_kernels() { return table(); }

// The run's own plan, counted on every rank and gathered to rank 0: each
// planned file's requests and bytes per rank.  Nothing is opened.
void Kernel::dry_run(Driver& d) {
    const KernelPlan plan = this->plan(d);
    std::vector<std::pair<const Step*, bool>> steps;  // and whether this rank does its I/O
    for (const auto& g : plan.groups)
        for (const auto& s : g.steps) steps.emplace_back(&s, g.this_rank);
    // Every rank plans the same steps (the paths are claimed on all).
    int n = static_cast<int>(steps.size()), nmax = 0;
    MPI_Allreduce(&n, &nmax, 1, MPI_INT, MPI_MAX, d.comm());
    const bool talk = d.rank() == 0 && !d.options().quiet;
    if (talk) std::printf("iokernels %s: dry run of %s on %d ranks\n", name(), d.stack_label().c_str(), d.size());
    for (int i = 0; i < nmax; ++i) {
        const Step* s = i < n ? steps[static_cast<std::size_t>(i)].first : nullptr;
        const bool active = s && s->plan && steps[static_cast<std::size_t>(i)].second;
        std::uint64_t mine[2] = {active ? s->plan->requests : 0, active ? s->plan->bytes() : 0};
        std::vector<std::uint64_t> all(2 * static_cast<std::size_t>(d.size()));
        MPI_Gather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, 0, d.comm());
        if (d.rank() != 0 || !s) continue;
        PlannedFile f;
        f.label = !s->plan || s->plan->spec.label.empty() ? s->path : s->plan->spec.label;
        f.variables = s->plan ? s->plan->spec.vars.size() : 0;
        f.records = s->plan ? s->plan->nrecords : 0;
        for (int r = 0; r < d.size(); ++r) {
            f.requests.push_back(all[2 * static_cast<std::size_t>(r)]);
            f.bytes.push_back(all[2 * static_cast<std::size_t>(r) + 1]);
        }
        if (talk) std::fputs(census_text(f, d.size()).c_str(), stdout);
        nlohmann::json j = census_json(f, d.size());
        j["path"] = s->path;
        j["kind"] = s->kind == StepKind::Write   ? "write"
                    : s->kind == StepKind::Read  ? "read"
                    : s->kind == StepKind::Calls ? "recorded calls"
                                                 : "update";
        for (auto it = s->tags.begin(); it != s->tags.end(); ++it) j[it.key()] = it.value();
        d.result().add_file(j);
    }
    if (talk) std::printf("Dry run: no file was opened.\n");
    if (d.rank() == 0) d.result().params().update({{"dry_run", true}, {"ranks", d.size()}});
}

int run_kernel(Kernel& kernel, MPI_Comm comm, int argc, char** argv) {
    return run_kernel_main(kernel.name(), comm, [&] {
        kernel.adapt_command_line(argc, argv);
        CLI::App app{kernel.description(), std::string("iokernels ") + kernel.name()};
        DriverDefaults defaults;
        kernel.add_options(app, defaults);
        Driver d(kernel.name(), comm, app, argc, argv, defaults);
        if (!d.parse([&] { kernel.validate(d); })) return;
        kernel.configure(d);
        if (d.options().dry_run) {
            kernel.dry_run(d);
            d.finish();
            return;
        }
        const KernelPlan plan = kernel.plan(d);
        OutputFiles replaced(comm, d.options().keep, true);
        claim_paths(d, plan, replaced);
        d.check_resources(resource_needs(plan), plan.shrink_hint);
        const std::unique_ptr<Backend> stack = d.make_stack();
        kernel.begin(d);
        std::vector<StepOutcome> done;
        std::vector<GroupOutcome> groups;
        for (const StepGroup& g : plan.groups) {
            MPI_Comm io = g.comm == MPI_COMM_NULL ? comm : g.comm;
            MPI_Barrier(comm);
            const double t0 = MPI_Wtime();
            if (!g.this_rank) {
            } else if (g.ticks > 0) {
                run_by_ticks(d, kernel, *stack, io, plan, g, done);
            } else {
                run_whole_files(d, kernel, *stack, io, plan, g, done);
            }
            MPI_Barrier(comm);
            groups.push_back({MPI_Wtime() - t0});
        }
        kernel.report(d, done, groups);
        d.finish(plan.mismatch_hint);
    });
}

}  // namespace iok
