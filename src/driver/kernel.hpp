#pragma once
// A kernel describes its I/O; the driver runs it.
//
// A kernel is an object with a lifecycle the driver walks once for every
// kernel (run_kernel below):
//
//   options    add_options(): the kernel's own command line, and what it
//              chooses for the common options (DriverDefaults)
//   validate   checked on every rank inside the driver's parse
//   configure  the library defaults it wants (hints, params), what it
//              requires of the library (Driver::require / expressible),
//              its inputs loaded
//   plan       plan(): this rank's steps — files written, read or updated,
//              with their paths and roles — grouped where records of
//              several files interleave (GCRM's dumps) or compute separates
//              records (VPIC's time steps)
//   report     step_done() as each file completes, report() at the end
//
// and the driver does the rest, the same way for all: --dry-run (a census of
// the plan over every rank), claiming outputs and checking inputs before any
// I/O, the memory and disk check, building the I/O stack, executing the
// steps through the runner, verification, recording each file in the JSON
// and CSV results, and the verdict.  A kernel never calls an I/O library.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "driver/driver.hpp"
#include "model/plan.hpp"
#include "model/recorded_calls.hpp"
#include "runner/runner.hpp"

namespace iok {

enum class StepKind {
    Write,   // create the file and write the plan
    Read,    // open the file, read the plan and verify every element
    Update,  // open an existing file and rewrite or append records
    // An application's recorded MPI-IO calls re-issued one by one through
    // the backend (Step::calls; Capabilities::recorded_calls): replay's
    // --calls recorded.  Outcomes with role "write" and "read"; a plain
    // Read step after it verifies the file.
    Calls,
};

inline std::shared_ptr<const FilePlan> share(FilePlan p) { return std::make_shared<const FilePlan>(std::move(p)); }

// How a step's path relates to this run.
enum class PathUse {
    Output,    // created by this run: claimed before any I/O (refused if it
               // exists, unless --overwrite), removed at exit unless --keep
    Replaced,  // this run's own earlier output, rewritten in place (S3D's
               // verified restart file): claimed with overwrite allowed
    Input,     // must exist and be readable before any I/O; never removed
    Written,   // a path an earlier step of this run writes (a verify read)
};

struct Step {
    Step() = default;
    Step(StepKind k, std::shared_ptr<const FilePlan> p, std::string file, PathUse u = PathUse::Output,
         nlohmann::json t = nlohmann::json::object())
        : kind(k),
          plan(std::move(p)),
          path(std::move(file)),
          use(u),
          tags(std::move(t)) {}

    StepKind kind = StepKind::Write;
    // This rank's plan of the file, shared by the steps of one file (a
    // write and its read-back): an E3SM h0 spec holds 1,563 attributes.
    // Null for StepKind::Calls.
    std::shared_ptr<const FilePlan> plan;
    std::string path;
    PathUse use = PathUse::Output;
    nlohmann::json tags = nlohmann::json::object();  // merged into the file's result entry
    // Only in a group with ticks: record k of the file moves at tick
    // ticks[k] (GCRM: the dumps at which a history file gets a record).
    // Empty: one record per tick, from the first.
    std::vector<int> ticks;
    // Update: given the records the file holds when opened (-1 when the
    // backend cannot tell), the first record to write; throws iok::Error to
    // refuse (h5bench's APPEND starts after the last step, OVERWRITE needs
    // the steps it rewrites).  Unset: record 0.
    std::function<int(std::int64_t records_held)> first_record;
    // Records written from one user buffer with gaps between the variables
    // (KernelPlan::gap_bytes each); the others from buffers packed back to
    // back (noncontig's tile 1 and tile 0).
    std::vector<int> gapped_records;
    // Update steps that only rewrite records put no new bytes on disk.
    bool grows_file = true;
    // StepKind::Calls: this rank's recorded calls and what their data is.
    std::shared_ptr<const RecordedCalls> calls;
    std::shared_ptr<CallData> call_data;
    // Runs on every rank right after the step, inside a collective step:
    // throw iok::Error to stop the run there (S3D's restart must verify
    // before anything is written).
    std::function<void(const FileOutcome&)> check;
};

// Steps that run together.  Without ticks, one after the other, each file
// whole.  With ticks, record by record: at each tick every step whose
// schedule has that tick moves one record, the files staying open between
// ticks; before_tick/after_tick are where the kernel computes (GCRM's model,
// h5bench's emulated compute) and reports progress.
struct StepGroup {
    std::vector<Step> steps;
    int ticks = 0;
    std::function<void(int tick)> before_tick, after_tick;
    // The ranks doing this group's I/O: MPI_COMM_NULL = the driver's
    // communicator; MPI_COMM_SELF for a file per process.
    MPI_Comm comm = MPI_COMM_NULL;
    // False on a rank that sits out of the group's I/O (E3SM's -s stride):
    // it still claims the paths, which is collective over every rank.
    bool this_rank = true;
};

struct KernelPlan {
    std::vector<StepGroup> groups;
    // For the resource check: what to shrink when the run does not fit.
    std::string shrink_hint = "the problem size";
    // For the verdict when a read finds wrong data.
    std::string mismatch_hint = "the file does not hold what this run wrote: was it modified?";
    // The runner's progress lines (off where the kernel reports its own).
    bool runner_progress = true;
    // Compare what the read steps read with the pattern (a reading kernel's
    // --no-verify turns it off).
    bool check_reads = true;
    // User buffers with gaps between the variables (E3SM-IO's -m), of gap_bytes.
    bool noncontig_buffer = false;
    std::size_t gap_bytes = 64;
    // Directory the outputs go to, for the disk check (default: the first
    // output's).
    std::string output_dir;
};

// What one executed step gave, in step order.
struct StepOutcome {
    const Step* step = nullptr;
    FileOutcome out;
    nlohmann::json tags;  // as recorded in the result (the step's, or its own calls')
};

struct GroupOutcome {
    double seconds = 0;  // barrier to barrier over the driver's communicator: every tick, compute included
};

class Kernel {
public:
    virtual ~Kernel() = default;
    virtual const char* name() const = 0;
    // The description `iokernels <kernel> --help` opens with.
    virtual std::string description() const = 0;
    // A seed tool's spellings rewritten before parsing (E3SM-IO's -a
    // hdf5_ra); the kernel owns the new strings.
    virtual void adapt_command_line(int& /*argc*/, char**& /*argv*/) {}
    // The kernel's own options (added before the common ones: a name the
    // kernel defines stays the kernel's) and its choices for the common ones.
    virtual void add_options(CLI::App& app, DriverDefaults& defaults) = 0;
    // Inside the driver's collective parse, on every rank: throw iok::Error.
    virtual void validate(Driver&) {}
    // Collective: library defaults, requirements, inputs.  Runs in dry runs
    // too (a refusal is worth knowing before the allocation).
    virtual void configure(Driver&) {}
    // Collective: this rank's steps.  Work that can fail on some ranks only
    // runs in a collective_step (core/collective.hpp).
    virtual KernelPlan plan(Driver& d) = 0;
    // A dry run: by default a census of plan() over the run's ranks, nothing
    // opened.  Kernels that can plan for any rank count on one process
    // (--ranks N) do their own.
    virtual void dry_run(Driver& d);
    // After the stack is built, before the first step (rank 0 prints the run's header).
    virtual void begin(Driver&) {}
    // Before each step, on the ranks that run it.
    virtual void step_start(Driver&, const Step&) {}
    // After each step, on the ranks that ran it (rank 0 prints the file's lines).
    virtual void step_done(Driver&, const StepOutcome&) {}
    // After every step, on every rank: the kernel's summary.
    virtual void report(Driver&, const std::vector<StepOutcome>&, const std::vector<GroupOutcome>&) {}
};

// The lifecycle: parse, configure, plan, (dry run | claims, resource check,
// stack, execution, recording), report, finish.  Returns the process exit
// status (errors become one message and a non-zero status on every rank).
int run_kernel(Kernel& kernel, MPI_Comm comm, int argc, char** argv);

// Kernels register a factory (one folder each); main.cpp only dispatches.
struct KernelInfo {
    std::string name;         // "e3sm"
    std::string description;  // one line for `iokernels --help`
    std::unique_ptr<Kernel> (*make)() = nullptr;
};

void register_kernel(KernelInfo info);
const std::vector<KernelInfo>& registered_kernels();

#define IOK_REGISTER_KERNEL(ident, name, description, type)                                                    \
    namespace {                                                                                                \
    const bool iok_kernel_registered_##ident = [] {                                                            \
        ::iok::register_kernel(                                                                                \
            {name, description, []() -> std::unique_ptr<::iok::Kernel> { return std::make_unique<type>(); }}); \
        return true;                                                                                           \
    }();                                                                                                       \
    }

}  // namespace iok
