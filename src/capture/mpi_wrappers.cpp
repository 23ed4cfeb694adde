// libiok_capture.so: the MPI profiling-interface wrappers.  Preloaded
// (LD_PRELOAD=libiok_capture.so) or linked before the MPI library, each
// MPI_File_* function below records what the call asks for and forwards to
// its PMPI_ twin; MPI_Finalize gathers every rank's record to rank 0, which
// writes one trace per job (format: docs/capture_trace.md).
//
// Environment:
//   IOK_CAPTURE_TRACE  path of the trace (default iokernels-trace-<pid of rank 0>.json in the
//                      working directory)
//   IOK_CAPTURE_QUIET  1: do not print the one line naming the trace
#include <mpi.h>

#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "capture_state.hpp"

using namespace iokcap;

namespace {

std::mutex g_mutex;  // applications may do MPI-IO from several threads

CaptureState& state() {
    static CaptureState* s = new CaptureState();  // never destroyed: used until the process ends
    return *s;
}

// Offset (bytes of the view's data) where an individual-pointer access starts.
std::int64_t individual_voff(MPI_File fh, const Session& s) {
    MPI_Offset pos = 0;
    PMPI_File_get_position(fh, &pos);
    return static_cast<std::int64_t>(pos) * s.etype_size;
}

// Shared-pointer access: the pointer before the call.  Exact when one rank at
// a time uses the shared pointer; racing ranks may see each other's moves.
std::int64_t shared_voff(MPI_File fh, const Session& s) {
    MPI_Offset pos = 0;
    PMPI_File_get_position_shared(fh, &pos);
    return static_cast<std::int64_t>(pos) * s.etype_size;
}

// Ordered access: collective, ranks in rank order from the shared pointer.
// Agreed before the call (so no rank has moved the pointer yet): the first
// rank's pointer plus the bytes of the ranks before this one.
std::int64_t ordered_voff(MPI_File fh, const Session& s, int count, MPI_Datatype type) {
    int tsize = 0;
    PMPI_Type_size(type, &tsize);
    long long mine = static_cast<long long>(tsize) * count, before = 0;
    MPI_Offset pos = 0;
    if (s.comm_rank == 0) PMPI_File_get_position_shared(fh, &pos);
    long long start = static_cast<long long>(pos) * s.etype_size;
    PMPI_Bcast(&start, 1, MPI_LONG_LONG, 0, s.comm);
    PMPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, s.comm);
    if (s.comm_rank == 0) before = 0;  // Exscan leaves rank 0's result undefined
    return start + before;
}

enum class Pointer { Explicit, Individual, Shared, Ordered };

// Runs `call` and records it when it succeeded on a file we know.  With a
// status (blocking calls) the bytes recorded are those moved — a read past
// the end of file moves fewer than asked — else those asked for.
template <class Call>
int record(MPI_File fh, std::uint32_t flags, Pointer ptr, MPI_Offset offset, int count, MPI_Datatype type, Call&& call,
           MPI_Status* status = nullptr) {
    std::int64_t voff = 0;
    Session* s = nullptr;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        s = state().find(fh);
        if (s) {
            switch (ptr) {
                case Pointer::Explicit:
                    voff = static_cast<std::int64_t>(offset) * s->etype_size;
                    flags |= kExplicit;
                    break;
                case Pointer::Individual: voff = individual_voff(fh, *s); break;
                case Pointer::Shared:
                    voff = shared_voff(fh, *s);
                    flags |= kShared;
                    break;
                case Pointer::Ordered: break;
            }
        }
    }
    // Outside the lock: ordered offsets and the call itself may block on other ranks.
    if (s && ptr == Pointer::Ordered) {
        voff = ordered_voff(fh, *s, count, type);
        flags |= kShared | kOrdered | kCollective;
    }
    const double t0 = PMPI_Wtime();
    const int rc = call();
    const double t1 = PMPI_Wtime();
    if (rc == MPI_SUCCESS && s) {
        std::lock_guard<std::mutex> lock(g_mutex);
        if (Session* again = state().find(fh)) {
            int moved = MPI_UNDEFINED;
            if (status) PMPI_Get_count(status, MPI_BYTE, &moved);
            state().access(*again, flags, voff, count, type, t0, t1, moved);
        }
    }
    return rc;
}

constexpr std::uint32_t W = kWrite, R = 0, C = kCollective, NB = kNonblocking, SP = kSplit | kCollective;

std::string default_trace_path(int pid) { return "iokernels-trace-" + std::to_string(pid) + ".json"; }

void write_trace(int rank, int size) {
    CaptureState& st = state();
    double first = st.first_time(), t_base = 0;
    PMPI_Allreduce(&first, &t_base, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    if (t_base > 1e300) t_base = 0;  // nobody opened a file
    std::string mine = st.rank_json(rank, t_base);
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(rank == 0 ? static_cast<std::size_t>(size) : 0), displs;
    PMPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<char> all;
    if (rank == 0) {
        displs.resize(static_cast<std::size_t>(size));
        long long total = 0;
        for (int r = 0; r < size; ++r) {
            displs[static_cast<std::size_t>(r)] = static_cast<int>(total);
            total += lens[static_cast<std::size_t>(r)];
        }
        all.resize(static_cast<std::size_t>(total));
    }
    PMPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank != 0) return;

    const char* env = std::getenv("IOK_CAPTURE_TRACE");
    const std::string path = env && *env ? env : default_trace_path(static_cast<int>(getpid()));
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
    int liblen = 0;
    PMPI_Get_library_version(lib, &liblen);
    std::string program;
    if (FILE* f = std::fopen("/proc/self/cmdline", "rb")) {
        char buf[4096];
        const std::size_t n = std::fread(buf, 1, sizeof buf, f);
        std::fclose(f);
        for (std::size_t i = 0; i < n; ++i) program += buf[i] ? buf[i] : ' ';
        while (!program.empty() && program.back() == ' ') program.pop_back();
    }
    const auto quoted = [](const std::string& s) {
        std::string o = "\"";
        for (unsigned char c : s) {
            if (c == '"' || c == '\\') {
                o += '\\';
                o += static_cast<char>(c);
            } else if (c >= 0x20)
                o += static_cast<char>(c);
        }
        return o + "\"";
    };
    std::string firstline = std::string(lib).substr(0, std::string(lib).find('\n'));
    const std::string head = "{\"format\":\"iokernels-trace\",\"version\":" + std::to_string(kTraceVersion) +
                             ",\"nranks\":" + std::to_string(size) + ",\"program\":" + quoted(program) +
                             ",\"mpi\":" + quoted(firstline) + ",\"ranks\":[\n";
    FILE* f = std::fopen(path.c_str(), "wb");
    bool ok = f != nullptr;
    int err = errno;
    if (ok) {
        ok = std::fwrite(head.data(), 1, head.size(), f) == head.size();
        std::size_t pos = 0;
        for (int r = 0; ok && r < size; ++r) {
            if (r) ok = std::fputs(",\n", f) >= 0;
            const std::size_t n = static_cast<std::size_t>(lens[static_cast<std::size_t>(r)]);
            ok = ok && std::fwrite(all.data() + pos, 1, n, f) == n;
            pos += n;
        }
        ok = ok && std::fputs("\n]}\n", f) >= 0;
        err = errno;
        ok = (std::fclose(f) == 0) && ok;
    }
    if (!ok)
        std::fprintf(stderr,
                     "iok_capture: error: cannot write the trace %s: %s (set IOK_CAPTURE_TRACE to a writable path)\n",
                     path.c_str(), std::strerror(err));
    else if (!std::getenv("IOK_CAPTURE_QUIET") || std::strcmp(std::getenv("IOK_CAPTURE_QUIET"), "1") != 0)
        std::fprintf(stderr, "iok_capture: MPI-IO trace of %d rank(s) written to %s\n", size, path.c_str());
}

}  // namespace

extern "C" {

int MPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
    const double t = PMPI_Wtime();
    const int rc = PMPI_File_open(comm, filename, amode, info, fh);
    if (rc == MPI_SUCCESS) {
        std::lock_guard<std::mutex> lock(g_mutex);
        state().open(*fh, comm, filename, amode, info, t);
    }
    return rc;
}

int MPI_File_close(MPI_File* fh) {
    const MPI_File h = *fh;
    const int rc = PMPI_File_close(fh);
    std::lock_guard<std::mutex> lock(g_mutex);
    state().close(h, PMPI_Wtime());
    return rc;
}

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char* datarep,
                      MPI_Info info) {
    const int rc = PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
    if (rc == MPI_SUCCESS) {
        std::lock_guard<std::mutex> lock(g_mutex);
        state().set_view(fh, disp, etype, filetype);
    }
    return rc;
}

// clang-format off: macros that define the wrappers, and their table, laid out by hand.
// Blocking calls: the caller's status, or ours when it passed MPI_STATUS_IGNORE.
#define IOK_STATUS MPI_Status own_status; MPI_Status* st = status == MPI_STATUS_IGNORE ? &own_status : status;
#define IOK_AT(name, F, CONSTBUF)                                                                      \
    int MPI_File_##name(MPI_File fh, MPI_Offset offset, CONSTBUF void* buf, int count, MPI_Datatype type, \
                        MPI_Status* status) {                                                          \
        IOK_STATUS                                                                                     \
        return record(fh, F, Pointer::Explicit, offset, count, type,                                   \
                      [&] { return PMPI_File_##name(fh, offset, buf, count, type, st); }, st);         \
    }
#define IOK_IAT(name, F, CONSTBUF)                                                                     \
    int MPI_File_##name(MPI_File fh, MPI_Offset offset, CONSTBUF void* buf, int count, MPI_Datatype type, \
                        MPI_Request* request) {                                                        \
        return record(fh, F, Pointer::Explicit, offset, count, type,                                   \
                      [&] { return PMPI_File_##name(fh, offset, buf, count, type, request); });        \
    }
#define IOK_PTR(name, F, P, CONSTBUF)                                                                   \
    int MPI_File_##name(MPI_File fh, CONSTBUF void* buf, int count, MPI_Datatype type, MPI_Status* status) { \
        IOK_STATUS                                                                                     \
        return record(fh, F, P, 0, count, type, [&] { return PMPI_File_##name(fh, buf, count, type, st); }, st); \
    }
#define IOK_IPTR(name, F, P, CONSTBUF)                                                                  \
    int MPI_File_##name(MPI_File fh, CONSTBUF void* buf, int count, MPI_Datatype type, MPI_Request* request) { \
        return record(fh, F, P, 0, count, type, [&] { return PMPI_File_##name(fh, buf, count, type, request); }); \
    }

// explicit offsets
IOK_AT(write_at, W, const)
IOK_AT(write_at_all, W | C, const)
IOK_AT(read_at, R, )
IOK_AT(read_at_all, R | C, )
IOK_IAT(iwrite_at, W | NB, const)
IOK_IAT(iwrite_at_all, W | C | NB, const)
IOK_IAT(iread_at, R | NB, )
IOK_IAT(iread_at_all, R | C | NB, )
// individual file pointer
IOK_PTR(write, W, Pointer::Individual, const)
IOK_PTR(write_all, W | C, Pointer::Individual, const)
IOK_PTR(read, R, Pointer::Individual, )
IOK_PTR(read_all, R | C, Pointer::Individual, )
IOK_IPTR(iwrite, W | NB, Pointer::Individual, const)
IOK_IPTR(iwrite_all, W | C | NB, Pointer::Individual, const)
IOK_IPTR(iread, R | NB, Pointer::Individual, )
IOK_IPTR(iread_all, R | C | NB, Pointer::Individual, )
// shared file pointer
IOK_PTR(write_shared, W, Pointer::Shared, const)
IOK_PTR(read_shared, R, Pointer::Shared, )
IOK_IPTR(iwrite_shared, W | NB, Pointer::Shared, const)
IOK_IPTR(iread_shared, R | NB, Pointer::Shared, )
IOK_PTR(write_ordered, W, Pointer::Ordered, const)
IOK_PTR(read_ordered, R, Pointer::Ordered, )
// clang-format on

// split collectives: recorded at _begin, _end passes through
int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype type) {
    return record(fh, W | SP, Pointer::Explicit, offset, count, type,
                  [&] { return PMPI_File_write_at_all_begin(fh, offset, buf, count, type); });
}
int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype type) {
    return record(fh, R | SP, Pointer::Explicit, offset, count, type,
                  [&] { return PMPI_File_read_at_all_begin(fh, offset, buf, count, type); });
}
int MPI_File_write_all_begin(MPI_File fh, const void* buf, int count, MPI_Datatype type) {
    return record(fh, W | SP, Pointer::Individual, 0, count, type,
                  [&] { return PMPI_File_write_all_begin(fh, buf, count, type); });
}
int MPI_File_read_all_begin(MPI_File fh, void* buf, int count, MPI_Datatype type) {
    return record(fh, R | SP, Pointer::Individual, 0, count, type,
                  [&] { return PMPI_File_read_all_begin(fh, buf, count, type); });
}
int MPI_File_write_ordered_begin(MPI_File fh, const void* buf, int count, MPI_Datatype type) {
    return record(fh, W | kSplit, Pointer::Ordered, 0, count, type,
                  [&] { return PMPI_File_write_ordered_begin(fh, buf, count, type); });
}
int MPI_File_read_ordered_begin(MPI_File fh, void* buf, int count, MPI_Datatype type) {
    return record(fh, R | kSplit, Pointer::Ordered, 0, count, type,
                  [&] { return PMPI_File_read_ordered_begin(fh, buf, count, type); });
}

int MPI_Finalize(void) {
    int rank = 0, size = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    write_trace(rank, size);
    return PMPI_Finalize();
}

}  // extern "C"
