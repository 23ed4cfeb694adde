#pragma once
// The runner executes one file of a kernel's plan with one backend: it
// brackets every phase with barriers and timers, fills buffers with the
// deterministic pattern, verifies what it reads back, and reduces the
// per-rank figures into a report (text on rank 0) and a JSON object.
#include <mpi.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "core/report.hpp"
#include "model/plan.hpp"
#include "runner/file_metrics.hpp"

namespace iok {

struct RunOptions {
    bool fill_mode = false;         // also write/check the plan's fill selections
    bool noncontig_buffer = false;  // gaps between variables in the user buffer
    std::size_t gap_bytes = 64;     // size of each gap when noncontig_buffer
    bool progress = true;           // progress lines on stderr (rank 0)
    // Compare every element read with the pattern.  Off (bdcats --no-verify,
    // as h5bench_read, which reads and times only): read buffers are neither
    // poisoned nor checked, and mismatches stay 0 unexamined.
    bool check_reads = true;
};

// Where the first failing rank's first mismatch is, for a kernel that words
// it in its own terms (noncontig: tile, variable, file byte).
struct MismatchAt {
    int var = -1;  // index in the plan's spec; -1: no mismatch
    std::int64_t record = 0;
    std::uint64_t element = 0;  // flattened index in the variable's fixed shape
    double expected = 0, actual = 0;
    int rank = -1;
};

struct FileOutcome {
    FileMetrics metrics;           // all ranks: what was measured (typed)
    nlohmann::json json;           // rank 0: to_json(metrics), the result's `files` entry
    TextReport text;               // rank 0: to_text(metrics), aligned report lines
    std::uint64_t mismatches = 0;  // all ranks: elements that failed verification
    std::string first_mismatch;    // all ranks: description of the first one
    MismatchAt first_at;           // all ranks: the same, as numbers
    // This rank's seconds in post + flush of each call that moved records
    // (Runner: each flush group; RecordWriter/Reader: each write()/read()),
    // barrier waits excluded: noncontig times its two tiles apart with it.
    std::vector<double> step_seconds;
    MPI_Info hints = MPI_INFO_NULL;  // hints in effect (caller frees), from the write/read
};

class Runner {
public:
    Runner(MPI_Comm comm, Backend& backend, RunOptions opts) : comm_(comm), be_(backend), opt_(opts) {}

    // Creates `path` and writes every record of the plan.
    FileOutcome write(const FilePlan& plan, const std::string& path);
    // Opens `path`, reads every record with the plan's selections and
    // verifies each element against the pattern (and fill values in fill mode).
    FileOutcome read(const FilePlan& plan, const std::string& path);

private:
    MPI_Comm comm_;
    Backend& be_;
    RunOptions opt_;
};

// Writes one file of a plan over several calls, so a kernel can keep several
// files open and interleave them by time step (GCRM writes a record of each
// history file at every dump).  The constructor creates and defines the
// file, write() puts and flushes records [first, last) (fixed-size variables
// with the first call), close() closes it and reduces the report like
// Runner::write.  All calls are collective.  `plan` must outlive the writer.
// With Access::Update the file must exist: it is opened for update (nothing
// is defined) and write() rewrites or, past records_in_file(), appends.
class RecordWriter {
public:
    RecordWriter(MPI_Comm comm, Backend& backend, RunOptions opts, const FilePlan& plan, const std::string& path,
                 Access access = Access::Read);
    // Records the file held when opened (Backend File::records(); -1: unknown).
    std::int64_t records_in_file() const;
    ~RecordWriter();
    RecordWriter(const RecordWriter&) = delete;
    RecordWriter& operator=(const RecordWriter&) = delete;
    void write(int first_record, int last_record);
    // The user-buffer layout of the following write() calls: one arena with
    // gaps between the variables (noncontiguous) or packed back to back.
    void set_noncontig_buffer(bool on);
    FileOutcome close();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The read-side twin of RecordWriter: opens the file, read() gets and
// verifies records [first, last) (fixed-size variables with the first call),
// close() closes it and reduces the report like Runner::read (mismatches
// included).  Lets a kernel work between records: BDCATS emulates compute
// between time steps.  All calls are collective.
class RecordReader {
public:
    RecordReader(MPI_Comm comm, Backend& backend, RunOptions opts, const FilePlan& plan, const std::string& path);
    ~RecordReader();
    RecordReader(const RecordReader&) = delete;
    RecordReader& operator=(const RecordReader&) = delete;
    void read(int first_record, int last_record);
    FileOutcome close();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace iok
