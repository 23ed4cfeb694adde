#pragma once
// `iokernels replay --calls recorded`: the application's own MPI-IO call
// sequence re-issued on one captured file.  Each rank replays its captured
// rank's sessions in order: MPI_File_open on the communicator of the
// captured size (the job's size: MPI_COMM_WORLD; 1: MPI_COMM_SELF) with the
// recorded access mode and hints, MPI_File_set_view as many times and where
// the application called it (trace format 2), and every access with its
// flavour (explicit offset, individual pointer, nonblocking, split
// collective; shared and ordered pointers as explicit offsets at the
// recorded offsets), collective where it was, from a contiguous or
// noncontiguous memory datatype as recorded.  Data written is the suite's
// pattern of the file byte (the variable "bytes" of replay_plan), so the
// plan's read-back verifies it; reads are checked on the bytes a write that
// ended before them (captured times) or the preparation wrote.
#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

#include "kernels/replay/replay_plan.hpp"
#include "kernels/replay/trace.hpp"
#include "runner/runner.hpp"

namespace iok::replay {

// Why `t` cannot be replayed call by call on `nranks` ranks for the files
// `selected` (indices into t.files), or "" when it can.  The same on every
// rank (a function of the trace alone).
std::string recorded_refusal(const Trace& t, int nranks, const std::vector<std::size_t>& selected,
                             const std::string& source);

// Whether the application's first open of the file did not create it (the
// replay then writes the bytes read first, as for a file only read).
bool recorded_needs_prepare(const TraceFile& f);

struct RecordedOutcome {
    FileOutcome write, read;  // read: only when the sessions read anything
    bool any_write = false, any_read = false;
};

struct RecordedSetup {
    const Trace* trace = nullptr;
    const TraceFile* file = nullptr;
    const CapturedFile* captured = nullptr;
    int index = 0;                     // replay_plan's file index (pattern)
    std::string path;
    std::vector<Run> prepared;         // all bytes written before the sequence (every rank's)
    MPI_Info extra_hints = MPI_INFO_NULL;  // --hint: on top of the recorded ones
    std::string library;               // "Open MPI v5.0.7" for the report
    bool reads = true;                 // re-issue reads (else skipped)
};

// Collective over `comm` (the job).  Throws iok::CollectiveFailure on every
// rank when a call fails.
RecordedOutcome replay_recorded(MPI_Comm comm, const RecordedSetup& s);

}  // namespace iok::replay
