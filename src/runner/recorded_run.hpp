#pragma once
// Recorded calls run like a plan: the backend re-issues this rank's
// recorded MPI-IO calls on one file (Backend::replay_calls), and the
// per-rank tallies become the same FileOutcome a plan's write or read gives
// (requests, bytes, calls, open/view/data/close seconds, verification).
#include <mpi.h>

#include <string>

#include "backends/backend.hpp"
#include "model/recorded_calls.hpp"
#include "runner/runner.hpp"

namespace iok {

struct RecordedRun {
    FileOutcome write, read;  // each only when some rank's sessions write / read
    bool any_write = false, any_read = false;
};

// Collective over `comm`; a failed call throws iok::CollectiveFailure on
// every rank.  `label` names the file in the report ("file3").
RecordedRun run_recorded(MPI_Comm comm, Backend& backend, const std::string& path, const std::string& label,
                         const std::string& library, const RecordedCalls& calls, CallData& data);

}  // namespace iok
