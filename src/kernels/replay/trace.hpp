#pragma once
// A capture trace (libiok_capture.so, format in docs/capture_trace.md) read
// back: per captured file every rank's sessions and accesses, and the
// accesses turned into file byte runs.  Nothing here does I/O on the
// captured files; the replay kernel and the summary build on it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/recorded_calls.hpp"
#include "model/selection.hpp"

namespace iok::replay {

// The flags, shapes, series and sessions of a trace are the model's
// recorded calls (model/recorded_calls.hpp): the backend that re-issues them
// reads the same structures.
using iok::TraceOp;
using iok::TraceSession;
using iok::TraceShape;

struct TraceFile {
    std::string name;
    std::vector<TraceSession> sessions;  // every rank's, in rank then open order
};

struct Trace {
    int version = 0, nranks = 0;  // version 2 records where set_view was called
    std::string program, mpi;
    std::vector<std::vector<TraceShape>> shapes;  // per captured rank
    std::vector<TraceFile> files;                 // in order of first open
};

// Parses a trace's text; `source` names it in messages.  Throws iok::Error
// with one message saying what is wrong (not JSON, truncated, another format,
// a newer version, a field missing or out of range) and what to do.
Trace parse_trace(const std::string& text, const std::string& source);

// Calls fn(offset, length) for every file byte run of each access of `op`
// (rank `rank`'s shapes), in access order.
template <class F>
void for_each_access_run(const Trace& t, int rank, const TraceOp& op, F&& fn);

// Sorted, disjoint, merged runs.
std::vector<Run> normalize_runs(std::vector<Run> runs);
std::vector<Run> intersect_runs(const std::vector<Run>& a, const std::vector<Run>& b);  // both normalized
std::vector<Run> subtract_runs(const std::vector<Run>& a, const std::vector<Run>& b);   // a minus b, normalized
std::int64_t run_bytes(const std::vector<Run>& r);

// --- implementation of the template --------------------------------------

template <class F>
void for_each_access_run(const Trace& t, int rank, const TraceOp& op, F&& fn) {
    const TraceShape& s = t.shapes[static_cast<std::size_t>(rank)][static_cast<std::size_t>(op.shape)];
    std::vector<Run> runs;
    for (std::int64_t i = 0; i < op.count; ++i) {
        runs.clear();
        map_view_bytes(s, op.disp + i * op.dstep, op.voff + i * op.vstep, op.bytes, runs);
        fn(runs);
    }
}

}  // namespace iok::replay
