#pragma once
// What the capture library remembers about one rank's MPI-IO, between the
// wrappers (mpi_wrappers.cpp) that fill it and MPI_Finalize that writes it
// out.  Designed so that a call costs O(1) beyond the MPI call itself: a
// view's filetype is flattened once, at set_view, into a "shape" (its byte
// runs, deduplicated per rank); an access only records (shape, view
// displacement, offset into the view's data, bytes) and is merged into the
// previous entry when it continues a strided series.  Offsets are mapped to
// file bytes only when the trace is replayed or summarised.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "type_flatten.hpp"

namespace iokcap {

// The trace format version this library writes (docs/capture_trace.md).
constexpr int kTraceVersion = 2;

// Op flags: the trace format's bit field (docs/capture_trace.md).
enum : std::uint32_t {
    kWrite = 1,           // else read
    kCollective = 2,      // _all, _at_all, ordered, split collectives
    kExplicit = 4,        // _at: explicit offset
    kShared = 8,          // shared file pointer (_shared)
    kOrdered = 16,        // _ordered (shared pointer, collective, rank order)
    kNonblocking = 32,    // MPI_File_i*: times are the post's
    kSplit = 64,          // _begin/_end: recorded at _begin
    kMemNoncontig = 128,  // the user buffer's datatype is not one contiguous block
};

struct Shape {
    std::vector<ByteRun> runs;  // one filetype instance, first run at 0
    std::int64_t size = 0;      // data bytes per instance
    std::int64_t extent = 0;    // instances tile the file at this stride
    std::uint64_t hash = 0;
};

struct Op {
    std::uint32_t flags = 0;
    int shape = 0;
    std::int64_t disp = 0;  // file byte of the view's first data byte (instance 0, run 0)
    std::int64_t voff = 0;  // offset into the view's data stream, bytes
    std::int64_t bytes = 0;
    std::int64_t count = 1;                   // repeats of this access ...
    std::int64_t dstep = 0;                   // ... each with disp += dstep
    std::int64_t vstep = 0;                   // ... and voff += vstep
    std::int64_t views = 0;                   // set_view calls on the session since its previous access
    std::int64_t view_step = 0;               // ... and between consecutive accesses of the series
    double t_first = 0, t_end = 0, busy = 0;  // start of the first, end of the last, sum of durations
};

struct Session {  // one MPI_File_open .. MPI_File_close on this rank
    std::string file;
    int amode = 0, comm_size = 1, comm_rank = 0;
    std::vector<std::pair<std::string, std::string>> hints;
    double t_open = 0, t_close = -1;
    MPI_Comm comm = MPI_COMM_NULL;  // a duplicate, for ordered-access offsets
    std::int64_t etype_size = 1;
    int shape = 0;          // of the current view
    std::int64_t disp = 0;  // of the current view, shape-normalised
    std::int64_t set_views = 0, unknown_views = 0;
    std::int64_t views_pending = 0;  // set_view calls since the last access (where replay re-issues them)
    std::vector<Op> ops;
};

class CaptureState {
public:
    CaptureState();
    // Session bookkeeping.
    void open(MPI_File fh, MPI_Comm comm, const char* name, int amode, MPI_Info info, double t);
    Session* find(MPI_File fh);
    void close(MPI_File fh, double t);
    void set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype);
    // One access: `voff` in bytes of the view's data stream.
    // `moved`: bytes the call reported moving (MPI_Get_count), or MPI_UNDEFINED.
    void access(Session& s, std::uint32_t flags, std::int64_t voff, int count, MPI_Datatype type, double t0, double t1,
                int moved = MPI_UNDEFINED);
    // This rank's part of the trace as a JSON object (times relative to t_base).
    std::string rank_json(int rank, double t_base) const;
    double first_time() const;  // earliest open, or a large value when none
    std::size_t sessions() const { return sessions_.size(); }

private:
    int intern(Shape s);
    std::vector<Shape> shapes_;
    std::unordered_multimap<std::uint64_t, int> by_hash_;
    std::vector<Session> sessions_;
    std::unordered_map<MPI_File, std::size_t> open_;
};

}  // namespace iokcap
