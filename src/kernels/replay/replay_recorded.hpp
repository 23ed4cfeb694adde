#pragma once
// `iokernels replay --calls recorded`: the application's own MPI-IO call
// sequence on one captured file, re-issued call by call by the MPI-IO
// backend (Backend::replay_calls, backends/mpiio_calls.hpp) as a step of
// the plan.  This module says whether a trace can be replayed so, gives
// each rank its sessions, and supplies the data: what is written is the
// suite's pattern of the file byte (the variable "bytes" of replay_plan, so
// the plan's read-back verifies it); reads are checked on the bytes a write
// that ended before them (captured times) or the preparation wrote.
#include <memory>
#include <string>
#include <vector>

#include "kernels/replay/replay_plan.hpp"
#include "kernels/replay/trace.hpp"
#include "model/recorded_calls.hpp"

namespace iok::replay {

// Why `t` cannot be replayed call by call on `nranks` ranks for the files
// `selected` (indices into t.files), or "" when it can.  The same on every
// rank (a function of the trace alone).
std::string recorded_refusal(const Trace& t, int nranks, const std::vector<std::size_t>& selected,
                             const std::string& source);

// Whether the application's first open of the file did not create it (the
// replay then writes the bytes read first, as for a file only read).
bool recorded_needs_prepare(const TraceFile& f);

// This rank's sessions of captured file `f` (rank r replays captured rank r).
std::shared_ptr<const RecordedCalls> recorded_calls(const Trace& t, const TraceFile& f, int rank);

// The data of replay file `index`: `prepared`, every byte written before
// the sequence (every rank's); `reads`: re-issue reads (else skipped).
std::shared_ptr<CallData> recorded_data(const Trace& t, const TraceFile& f, int index, std::vector<Run> prepared,
                                        bool reads);

}  // namespace iok::replay
