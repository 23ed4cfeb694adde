#include "kernels/replay/replay_recorded.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/mpi_layer.hpp"
#include "core/stats.hpp"
#include "runner/pattern.hpp"

namespace iok::replay {
namespace {

void check(int rc, const std::string& what, const std::string& path) {
    if (rc != MPI_SUCCESS) throw Error(what + " on " + path + " failed: " + mpi_error_text(rc), "check the output directory");
}

// The user buffer of one access: `bytes` bytes in one block (MPI_BYTE) or,
// for a noncontiguous memory datatype, blocks of 1 KiB with 64-byte gaps
// (at least two; the trace records that the layout was noncontiguous, not
// which it was).
class MemType {
public:
    MemType(std::int64_t bytes, bool noncontig) {
        if (!noncontig && bytes <= INT_MAX) {
            count = static_cast<int>(bytes);
            blocks.push_back({0, bytes});
            span = bytes;
            return;
        }
        // noncontiguous: at least two blocks (one block with no gap would be contiguous)
        const std::int64_t block = noncontig ? std::max<std::int64_t>(1, std::min<std::int64_t>(1024, (bytes + 1) / 2))
                                             : (std::int64_t{1} << 30),
                           gap = noncontig ? 64 : 0;
        std::vector<int> len;
        std::vector<MPI_Aint> disp;
        for (std::int64_t done = 0; done < bytes; done += block) {
            const std::int64_t n = std::min(block, bytes - done);
            disp.push_back(static_cast<MPI_Aint>(span));
            len.push_back(static_cast<int>(n));
            blocks.push_back({span, n});
            span += n + gap;
        }
        if (len.size() > static_cast<std::size_t>(INT_MAX))
            throw Error("an access of " + std::to_string(bytes) + " bytes is too large to replay");
        MPI_Type_create_hindexed(static_cast<int>(len.size()), len.data(), disp.data(), MPI_BYTE, &type);
        MPI_Type_commit(&type);
        owned = true;
        count = 1;
    }
    ~MemType() {
        if (owned) MPI_Type_free(&type);
    }
    MemType(const MemType&) = delete;
    MemType& operator=(const MemType&) = delete;

    MPI_Datatype type = MPI_BYTE;
    int count = 0;
    std::vector<std::pair<std::int64_t, std::int64_t>> blocks;  // (buffer offset, bytes), in data order
    std::int64_t span = 0;                                      // buffer bytes

private:
    bool owned = false;
};

// Filetypes of the rank's shapes, built once: the runs as an hindexed type
// of bytes resized to the shape's extent (shape 0: MPI_BYTE).
class ViewTypes {
public:
    explicit ViewTypes(const std::vector<TraceShape>& shapes) : shapes_(shapes), types_(shapes.size(), MPI_DATATYPE_NULL) {}
    ~ViewTypes() {
        for (MPI_Datatype& t : types_)
            if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
    }
    ViewTypes(const ViewTypes&) = delete;
    ViewTypes& operator=(const ViewTypes&) = delete;
    MPI_Datatype get(int shape) {
        const TraceShape& s = shapes_[static_cast<std::size_t>(shape)];
        if (shape == 0 || s.contiguous()) return MPI_BYTE;
        MPI_Datatype& t = types_[static_cast<std::size_t>(shape)];
        if (t != MPI_DATATYPE_NULL) return t;
        std::vector<int> len;
        std::vector<MPI_Aint> disp;
        for (const Run& r : s.runs) {
            len.push_back(static_cast<int>(r.length));
            disp.push_back(static_cast<MPI_Aint>(r.offset));
        }
        MPI_Datatype h;
        MPI_Type_create_hindexed(static_cast<int>(len.size()), len.data(), disp.data(), MPI_BYTE, &h);
        MPI_Type_create_resized(h, 0, static_cast<MPI_Aint>(s.extent), &t);
        MPI_Type_free(&h);
        MPI_Type_commit(&t);
        return t;
    }

private:
    const std::vector<TraceShape>& shapes_;
    std::vector<MPI_Datatype> types_;
};

// Issues one access with its recorded flavour.  Shared and ordered pointers
// become explicit offsets (the recorded ones); the individual pointer is
// moved there with MPI_File_seek first.  Nonblocking calls are waited for at
// once, split collectives ended at once.  Returns the MPI error code.
int issue(MPI_File fh, std::uint32_t flags, MPI_Offset off, void* buf, int count, MPI_Datatype type, std::int64_t& calls) {
    const bool w = flags & kWrite, coll = flags & kCollective, expl = flags & (kExplicit | kShared);
    MPI_Status st;
    int rc = MPI_SUCCESS;
    if (!expl) {
        ++calls;
        if ((rc = MPI_File_seek(fh, off, MPI_SEEK_SET)) != MPI_SUCCESS) return rc;
    }
    ++calls;
    if (flags & kSplit) {
        if (expl) rc = w ? MPI_File_write_at_all_begin(fh, off, buf, count, type) : MPI_File_read_at_all_begin(fh, off, buf, count, type);
        else rc = w ? MPI_File_write_all_begin(fh, buf, count, type) : MPI_File_read_all_begin(fh, buf, count, type);
        if (rc != MPI_SUCCESS) return rc;
        ++calls;
        if (expl) return w ? MPI_File_write_at_all_end(fh, buf, &st) : MPI_File_read_at_all_end(fh, buf, &st);
        return w ? MPI_File_write_all_end(fh, buf, &st) : MPI_File_read_all_end(fh, buf, &st);
    }
    if (flags & kNonblocking) {
        MPI_Request rq = MPI_REQUEST_NULL;
        if (expl) {
            if (coll) rc = w ? MPI_File_iwrite_at_all(fh, off, buf, count, type, &rq) : MPI_File_iread_at_all(fh, off, buf, count, type, &rq);
            else rc = w ? MPI_File_iwrite_at(fh, off, buf, count, type, &rq) : MPI_File_iread_at(fh, off, buf, count, type, &rq);
        } else {
            if (coll) rc = w ? MPI_File_iwrite_all(fh, buf, count, type, &rq) : MPI_File_iread_all(fh, buf, count, type, &rq);
            else rc = w ? MPI_File_iwrite(fh, buf, count, type, &rq) : MPI_File_iread(fh, buf, count, type, &rq);
        }
        if (rc != MPI_SUCCESS) return rc;
        ++calls;
        return MPI_Wait(&rq, &st);
    }
    if (expl) {
        if (coll) return w ? MPI_File_write_at_all(fh, off, buf, count, type, &st) : MPI_File_read_at_all(fh, off, buf, count, type, &st);
        return w ? MPI_File_write_at(fh, off, buf, count, type, &st) : MPI_File_read_at(fh, off, buf, count, type, &st);
    }
    if (coll) return w ? MPI_File_write_all(fh, buf, count, type, &st) : MPI_File_read_all(fh, buf, count, type, &st);
    return w ? MPI_File_write(fh, buf, count, type, &st) : MPI_File_read(fh, buf, count, type, &st);
}

// The bytes a read may be checked on: those the preparation wrote and those
// of every write (any rank) that ended, in the captured times, before the
// read started, in the read's own session (a session on all ranks counts as
// one) or in one closed before the read's session opened.  Sessions are
// replayed one after the other, so a write of a session that was still
// open elsewhere may come later in the replay than in the capture.
class WrittenBefore {
public:
    WrittenBefore(const Trace& t, const TraceFile& f, std::vector<Run> prepared) : t_(t), prepared_(std::move(prepared)) {
        std::map<int, int> world_seen;  // per rank: sessions on all ranks so far
        for (const TraceSession& s : f.sessions) {
            const std::string g = s.comm_size == t.nranks && t.nranks > 1
                                      ? "w" + std::to_string(world_seen[s.rank]++)
                                      : "s" + std::to_string(s.rank) + "." + std::to_string(group_.size());
            group_[&s] = g;
            for (const TraceOp& op : s.ops)
                if (op.flags & kWrite) writes_.push_back({op.t_end, &s, &op});
        }
    }
    const std::vector<Run>& at(const TraceSession& reader, double t_start) {
        const std::string& g = group_[&reader];
        if (g == key_group_ && t_start == key_time_) return union_;
        key_group_ = g;
        key_time_ = t_start;
        union_ = prepared_;
        for (const W& w : writes_) {
            if (w.t_end > t_start) continue;
            if (group_[w.s] != g && !(w.s->close >= 0 && w.s->close <= reader.open)) continue;
            for_each_access_run(t_, w.s->rank, *w.op, [&](const std::vector<Run>& r) {
                union_.insert(union_.end(), r.begin(), r.end());
            });
        }
        union_ = normalize_runs(std::move(union_));
        return union_;
    }

private:
    struct W {
        double t_end;
        const TraceSession* s;
        const TraceOp* op;
    };
    const Trace& t_;
    std::vector<Run> prepared_, union_;
    std::vector<W> writes_;
    std::map<const TraceSession*, std::string> group_;
    std::string key_group_;
    double key_time_ = -1;
};

std::int64_t end_of(const std::vector<Run>& runs) {
    std::int64_t e = 0;
    for (const Run& r : runs) e = std::max(e, r.offset + r.length);
    return e;
}

// What one rank measured.
struct Tally {
    std::int64_t calls = 0, wreq = 0, rreq = 0, wbytes = 0, rbytes = 0;
    double open = 0, views = 0, write = 0, read = 0, close = 0, end_to_end = 0;
    std::uint64_t mismatches = 0;
    std::string first_mismatch;
};

struct SessionRun {
    MPI_Comm comm;
    const RecordedSetup& s;
    const TraceSession& ses;
    ViewTypes& views;
    WrittenBefore& before;
    std::uint64_t key;
    Tally& tally;

    void set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype ftype) {
        const double t0 = MPI_Wtime();
        check(MPI_File_set_view(fh, disp, MPI_BYTE, ftype, "native", MPI_INFO_NULL), "MPI_File_set_view", s.path);
        tally.views += MPI_Wtime() - t0;
        ++tally.calls;
    }

    void access(MPI_File fh, const TraceOp& op, std::int64_t k) {
        const TraceShape& shape = s.trace->shapes[static_cast<std::size_t>(ses.rank)][static_cast<std::size_t>(op.shape)];
        const std::int64_t disp = op.disp + k * op.dstep, voff = op.voff + k * op.vstep;
        std::vector<Run> runs;
        map_view_bytes(shape, disp, voff, op.bytes, runs);
        const bool w = op.flags & kWrite;
        MemType mem(op.bytes, op.flags & kMemNoncontig);
        std::vector<std::int8_t> packed(static_cast<std::size_t>(op.bytes)), buf(static_cast<std::size_t>(mem.span), -1);
        // The pattern of the file bytes this access touches, in data order.
        const std::int64_t hi = end_of(runs);
        if (op.bytes > 0) pattern_fill(DType::Byte, packed.data(), Selection::from_runs({static_cast<std::uint64_t>(hi)}, runs), key, 0);
        if (w) {
            std::int64_t pos = 0;
            for (const auto& [at, n] : mem.blocks) {
                std::memcpy(buf.data() + at, packed.data() + pos, static_cast<std::size_t>(n));
                pos += n;
            }
        }
        const double t0 = MPI_Wtime();
        const int rc = issue(fh, op.flags, static_cast<MPI_Offset>(voff), buf.data(), mem.count, mem.type, tally.calls);
        const double dt = MPI_Wtime() - t0;
        check(rc, std::string(w ? "write" : "read") + " (recorded access)", s.path);
        if (w) {
            tally.write += dt;
            ++tally.wreq;
            tally.wbytes += op.bytes;
            return;
        }
        tally.read += dt;
        ++tally.rreq;
        tally.rbytes += op.bytes;
        // Check the bytes that hold the pattern by then.
        const std::vector<Run>& expect = before.at(ses, op.t_first);
        std::int64_t pos = 0, bpos = 0;
        std::vector<std::int8_t> got(static_cast<std::size_t>(op.bytes));
        for (const auto& [at, n] : mem.blocks) {
            std::memcpy(got.data() + bpos, buf.data() + at, static_cast<std::size_t>(n));
            bpos += n;
        }
        for (const Run& r : runs) {
            auto it = std::upper_bound(expect.begin(), expect.end(), r.offset,
                                       [](std::int64_t v, const Run& x) { return v < x.offset + x.length; });
            for (; it != expect.end() && it->offset < r.offset + r.length; ++it) {
                const std::int64_t a = std::max(r.offset, it->offset), b = std::min(r.offset + r.length, it->offset + it->length);
                for (std::int64_t x = a; x < b; ++x) {
                    const std::size_t i = static_cast<std::size_t>(pos + (x - r.offset));
                    if (got[i] == packed[i]) continue;
                    if (tally.mismatches++ == 0) {
                        char m[160];
                        std::snprintf(m, sizeof m, "file byte %lld: expected %d, read %d (recorded read, rank %d)",
                                      static_cast<long long>(x), packed[i], got[i], ses.rank);
                        tally.first_mismatch = m;
                    }
                }
            }
            pos += r.length;
        }
    }

    void run() {
        MPI_Comm c = ses.comm_size == 1 ? MPI_COMM_SELF : comm;
        MPI_Info info;
        MPI_Info_create(&info);
        for (const auto& [k, v] : ses.hints) MPI_Info_set(info, k.c_str(), v.c_str());
        if (s.extra_hints != MPI_INFO_NULL) {
            int n = 0;
            MPI_Info_get_nkeys(s.extra_hints, &n);
            for (int i = 0; i < n; ++i) {
                char key_[MPI_MAX_INFO_KEY + 1] = {0}, val[1024] = {0};
                int flag = 0;
                MPI_Info_get_nthkey(s.extra_hints, i, key_);
                MPI_Info_get(s.extra_hints, key_, sizeof val - 1, val, &flag);
                if (flag) MPI_Info_set(info, key_, val);
            }
        }
        // Not EXCL (the replay may overwrite) nor DELETE_ON_CLOSE (the file is verified after).
        const int amode = ses.amode & ~(MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE);
        MPI_File fh = MPI_FILE_NULL;
        double t0 = MPI_Wtime();
        const int rc = MPI_File_open(c, s.path.c_str(), amode, info, &fh);
        MPI_Info_free(&info);
        check(rc, "MPI_File_open (amode " + std::to_string(ses.amode) + ")", s.path);
        tally.open += MPI_Wtime() - t0;
        ++tally.calls;
        note_files_open(1);
        std::int64_t views_used = 0;
        for (const TraceOp& op : ses.ops) {
            if ((op.flags & kWrite) == 0 && !s.reads) {  // --no-reads: the views still as recorded
                for (std::int64_t k = 0; k < op.count; ++k) {
                    const std::int64_t nv = k == 0 ? op.views : op.view_step;
                    for (std::int64_t v = 0; v < nv; ++v)
                        set_view(fh, v + 1 < nv ? 0 : op.disp + k * op.dstep, v + 1 < nv ? MPI_BYTE : views.get(op.shape));
                    views_used += nv;
                }
                continue;
            }
            for (std::int64_t k = 0; k < op.count; ++k) {
                // set_view calls before this access: the last sets its view; the
                // others (the trace keeps only their number) the default view.
                const std::int64_t nv = k == 0 ? op.views : op.view_step;
                for (std::int64_t v = 0; v < nv; ++v)
                    set_view(fh, v + 1 < nv ? 0 : op.disp + k * op.dstep, v + 1 < nv ? MPI_BYTE : views.get(op.shape));
                views_used += nv;
                access(fh, op, k);
            }
        }
        for (std::int64_t v = views_used; v < ses.set_views; ++v) set_view(fh, 0, MPI_BYTE);  // after the last access
        t0 = MPI_Wtime();
        check(MPI_File_close(&fh), "MPI_File_close", s.path);
        note_files_open(-1);
        tally.close += MPI_Wtime() - t0;
        ++tally.calls;
    }
};

FileOutcome outcome(MPI_Comm comm, const RecordedSetup& s, const Tally& t, bool writing, bool with_session_phases) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    FileOutcome out;
    FileMetrics& m = out.metrics;
    m.writing = writing;
    m.label = "file" + std::to_string(s.index);
    m.path = s.path;
    m.backend = "mpiio (recorded calls)";
    m.library = s.library;
    m.variables = 1;
    m.records = 1;
    const std::vector<double> local = {
        static_cast<double>(writing ? t.wreq : t.rreq), static_cast<double>(writing ? t.wbytes : t.rbytes),
        static_cast<double>(t.calls), t.open, t.views, writing ? t.write : t.read, t.close, t.end_to_end,
        static_cast<double>(peak_rss_bytes())};
    const std::vector<Stat> st = reduce_over_ranks(comm, local);
    std::uint64_t mism = 0, mine = writing ? 0 : t.mismatches;
    MPI_Allreduce(&mine, &mism, 1, MPI_UINT64_T, MPI_SUM, comm);
    // The first mismatch of the lowest rank that has one.
    int who = mine ? rank : INT_MAX, first = INT_MAX;
    MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, comm);
    std::string text = mine ? t.first_mismatch : "";
    if (first != INT_MAX) {
        int len = static_cast<int>(text.size());
        MPI_Bcast(&len, 1, MPI_INT, first, comm);
        text.resize(static_cast<std::size_t>(len));
        MPI_Bcast(text.data(), len, MPI_CHAR, first, comm);
    }
    if (rank == 0) {
        m.requests = st[0];
        m.bytes = st[1];
        m.calls = st[2];
        m.rss_peak = st[8];
        const auto phase = [&](Phase p, const Stat& x) {
            m.seconds[static_cast<std::size_t>(p)] = x;
            m.ran[static_cast<std::size_t>(p)] = true;
        };
        if (with_session_phases) {
            phase(Phase::Open, st[3]);
            phase(Phase::Define, st[4]);
            phase(Phase::Close, st[6]);
        }
        phase(writing ? Phase::Post : Phase::PostRead, st[5]);
        phase(Phase::EndToEnd, st[7]);
        m.data_seconds = st[5].max;
        std::error_code ec;
        const auto size = std::filesystem::file_size(s.path, ec);
        m.bytes_on_disk = ec ? 0 : static_cast<std::uint64_t>(size);
        m.mismatches = mism;
        m.first_mismatch = text;
    }
    m.broadcast(comm);
    out.mismatches = mism;
    out.first_mismatch = text;
    if (rank == 0) {
        out.json = to_json(m);
        out.json["calls"] = "recorded";
        out.text = to_text(m);
    }
    return out;
}

}  // namespace

std::string recorded_refusal(const Trace& t, int nranks, const std::vector<std::size_t>& selected, const std::string& source) {
    if (t.version < 2)
        return "trace " + source + " is format version " + std::to_string(t.version) +
               ", which does not record where the application called MPI_File_set_view: re-capture it with this "
               "build's libiok_capture.so to replay --calls recorded (or replay it with --calls plan)";
    if (nranks != t.nranks)
        return "--calls recorded re-issues each captured rank's calls: trace " + source + " was captured on " +
               std::to_string(t.nranks) + " rank(s), this run has " + std::to_string(nranks) + " (run mpiexec -n " +
               std::to_string(t.nranks) + ", or --calls plan for another rank count)";
    for (std::size_t i : selected) {
        const TraceFile& f = t.files[i];
        for (const TraceSession& s : f.sessions) {
            if (s.comm_size != 1 && s.comm_size != t.nranks)
                return "captured file " + f.name + " was opened on a communicator of " + std::to_string(s.comm_size) +
                       " of the " + std::to_string(t.nranks) + " ranks, which --calls recorded does not rebuild (it "
                       "opens on all ranks or on one): select other files with --file, or use --calls plan";
            if (s.comm_size == t.nranks && s.comm_rank != s.rank)
                return "captured file " + f.name + " was opened on a communicator that reorders the ranks (rank " +
                       std::to_string(s.rank) + " was " + std::to_string(s.comm_rank) +
                       " in it): use --calls plan, or select other files with --file";
            if (s.unknown_views)
                return "captured file " + f.name + " had " + std::to_string(s.unknown_views) +
                       " view(s) whose filetype the capture could not flatten: use --calls plan";
            for (const TraceOp& op : s.ops)
                if (op.disp + std::min<std::int64_t>(0, (op.count - 1) * op.dstep) < 0 ||
                    op.voff + std::min<std::int64_t>(0, (op.count - 1) * op.vstep) < 0)
                    return "captured file " + f.name + ": an access series steps to a negative offset: the trace is damaged";
        }
    }
    for (const auto& shapes : t.shapes)
        for (const TraceShape& sh : shapes) {
            if (sh.runs.size() > static_cast<std::size_t>(INT_MAX))
                return "a filetype of " + std::to_string(sh.runs.size()) + " runs is too large to rebuild: use --calls plan";
            for (const Run& r : sh.runs)
                if (r.length > INT_MAX)
                    return "a filetype run of " + std::to_string(r.length) + " bytes is too large to rebuild: use --calls plan";
        }
    return "";
}

bool recorded_needs_prepare(const TraceFile& f) {
    const TraceSession* first = nullptr;
    for (const TraceSession& s : f.sessions)
        if (!first || s.open < first->open) first = &s;
    return first && !(first->amode & MPI_MODE_CREATE);
}

RecordedOutcome replay_recorded(MPI_Comm comm, const RecordedSetup& s) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    RecordedOutcome res;
    Tally tally;
    const std::uint64_t key = pattern_key("bytes") ^ replay_pattern_seed(s.index);
    for (const TraceSession& ses : s.file->sessions)
        for (const TraceOp& op : ses.ops) {
            if (op.flags & kWrite) res.any_write = true;
            else if (s.reads) res.any_read = true;
        }
    MPI_Barrier(comm);
    const double start = MPI_Wtime();
    collective_step(comm, [&] {
        ViewTypes views(s.trace->shapes[static_cast<std::size_t>(rank)]);
        WrittenBefore before(*s.trace, *s.file, s.prepared);
        for (const TraceSession& ses : s.file->sessions)
            if (ses.rank == rank) SessionRun{comm, s, ses, views, before, key, tally}.run();
    });
    tally.end_to_end = MPI_Wtime() - start;
    if (res.any_write) res.write = outcome(comm, s, tally, true, true);
    if (res.any_read) res.read = outcome(comm, s, tally, false, !res.any_write);
    return res;
}

}  // namespace iok::replay
