#pragma once
// A capture trace (libiok_capture.so, format in docs/capture_trace.md) read
// back: per captured file every rank's sessions and accesses, and the
// accesses turned into file byte runs.  Nothing here does I/O on the
// captured files; the replay kernel and the summary build on it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/selection.hpp"

namespace iok::replay {

// Access flags as the capture library writes them.
enum : std::uint32_t {
    kWrite = 1, kCollective = 2, kExplicit = 4, kShared = 8, kOrdered = 16,
    kNonblocking = 32, kSplit = 64, kMemNoncontig = 128,
};

struct TraceShape {           // one filetype instance, flattened
    std::vector<Run> runs;    // byte runs relative to the first
    std::int64_t size = 0, extent = 0;
    std::vector<std::int64_t> data_before;  // data bytes before run i
    bool contiguous() const { return runs.size() == 1 && runs[0].length == extent; }
};

struct TraceOp {  // `count` accesses of a strided series (count 1: one access)
    std::uint32_t flags = 0;
    int shape = 0;
    std::int64_t disp = 0, voff = 0, bytes = 0, count = 1, dstep = 0, vstep = 0;
    // Version 2: set_view calls on the session before the first access (since
    // the previous access) and between consecutive accesses.  Version 1: 0.
    std::int64_t views = 0, view_step = 0;
    double t_first = 0, t_end = 0, busy = 0;
};

struct TraceSession {  // one open..close of a file on one rank
    int rank = 0;
    int amode = 0, comm_size = 1, comm_rank = 0;
    std::map<std::string, std::string> hints;
    double open = 0, close = -1;
    std::int64_t set_views = 0, unknown_views = 0;
    std::vector<TraceOp> ops;
};

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
void map_view_bytes(const TraceShape& s, std::int64_t disp, std::int64_t voff, std::int64_t bytes,
                    std::vector<Run>& out);

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
