#pragma once
// An application's MPI-IO calls on one file, as recorded (a capture trace,
// docs/capture_trace.md): what a backend that can re-issue calls one by one
// (Capabilities::recorded_calls, the MPI-IO backend) replays, and what the
// replay kernel reads from a trace.  Nothing here knows an application or
// a library; the caller supplies the data a write puts and checks what a
// read got (CallData).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/selection.hpp"

namespace iok {

// Flags of a recorded access, as the capture library writes them.
enum : std::uint32_t {
    kWrite = 1,
    kCollective = 2,
    kExplicit = 4,
    kShared = 8,
    kOrdered = 16,
    kNonblocking = 32,
    kSplit = 64,
    kMemNoncontig = 128,
};

struct TraceShape {         // one filetype instance, flattened
    std::vector<Run> runs;  // byte runs relative to the first
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

// File bytes [offset, offset+length) that `bytes` data bytes from view
// offset `voff` cover, the view being shape `s` at displacement `disp`;
// appended to `out` in data order, adjacent runs merged.
void map_view_bytes(const TraceShape& s, std::int64_t disp, std::int64_t voff, std::int64_t bytes,
                    std::vector<Run>& out);

// One rank's part of a recorded file: its sessions in the order it opened
// them, and the filetypes their views use (index 0: plain bytes).
struct RecordedCalls {
    std::vector<const TraceSession*> sessions;
    const std::vector<TraceShape>* shapes = nullptr;
    bool on_all_ranks(const TraceSession& s) const { return s.comm_size != 1; }
};

// Access k of series `op` of `session`: its view displacement and offset.
struct CallAccess {
    const TraceSession* session = nullptr;
    const TraceOp* op = nullptr;
    std::int64_t k = 0, disp = 0, voff = 0;
};

// What the data of the re-issued calls is.
class CallData {
public:
    virtual ~CallData() = default;
    // Whether reads are re-issued (else only their views are set).
    virtual bool reads() const { return true; }
    // A write's `a.op->bytes` bytes, in data order.
    virtual void fill(const CallAccess& a, std::vector<std::int8_t>& data) = 0;
    // What a read got, in data order; counts what is wrong in `mismatches`
    // and describes the first in `first_mismatch`.
    virtual void check(const CallAccess& a, const std::vector<std::int8_t>& data) = 0;

    std::uint64_t mismatches = 0;  // this rank's
    std::string first_mismatch;
};

// What one rank's re-issued calls took.
struct CallTally {
    std::int64_t calls = 0, wreq = 0, rreq = 0, wbytes = 0, rbytes = 0;
    double open = 0, views = 0, write = 0, read = 0, close = 0;
};

}  // namespace iok
