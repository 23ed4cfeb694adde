#include "kernels/replay/replay_recorded.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>

#include "runner/pattern.hpp"

namespace iok::replay {
namespace {

// The bytes a read may be checked on: those the preparation wrote and those
// of every write (any rank) that ended, in the captured times, before the
// read started, in the read's own session (a session on all ranks counts as
// one) or in one closed before the read's session opened.  Sessions are
// replayed one after the other, so a write of a session that was still
// open elsewhere may come later in the replay than in the capture.
class WrittenBefore {
public:
    WrittenBefore(const Trace& t, const TraceFile& f, std::vector<Run> prepared)
        : t_(t),
          prepared_(std::move(prepared)) {
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
            for_each_access_run(t_, w.s->rank, *w.op,
                                [&](const std::vector<Run>& r) { union_.insert(union_.end(), r.begin(), r.end()); });
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

// Writes put the pattern of the file bytes they cover (the variable "bytes"
// of replay_plan, so the plan's read-back verifies them); reads are checked
// on the bytes that hold it by then.
class ReplayData final : public CallData {
public:
    ReplayData(const Trace& t, const TraceFile& f, int index, std::vector<Run> prepared, bool reads)
        : t_(t),
          before_(t, f, std::move(prepared)),
          key_(pattern_key("bytes") ^ replay_pattern_seed(index)),
          reads_(reads) {}
    bool reads() const override { return reads_; }

    void fill(const CallAccess& a, std::vector<std::int8_t>& data) override { pattern_of(a, data); }

    void check(const CallAccess& a, const std::vector<std::int8_t>& got) override {
        std::vector<std::int8_t> want(got.size());
        const std::vector<Run>& runs = pattern_of(a, want);
        const std::vector<Run>& expect = before_.at(*a.session, a.op->t_first);
        std::int64_t pos = 0;
        for (const Run& r : runs) {
            auto it = std::upper_bound(expect.begin(), expect.end(), r.offset,
                                       [](std::int64_t v, const Run& x) { return v < x.offset + x.length; });
            for (; it != expect.end() && it->offset < r.offset + r.length; ++it) {
                const std::int64_t lo = std::max(r.offset, it->offset),
                                   hi = std::min(r.offset + r.length, it->offset + it->length);
                for (std::int64_t x = lo; x < hi; ++x) {
                    const std::size_t i = static_cast<std::size_t>(pos + (x - r.offset));
                    if (got[i] == want[i]) continue;
                    if (mismatches++ == 0) {
                        char m[160];
                        std::snprintf(m, sizeof m, "file byte %lld: expected %d, read %d (recorded read, rank %d)",
                                      static_cast<long long>(x), want[i], got[i], a.session->rank);
                        first_mismatch = m;
                    }
                }
            }
            pos += r.length;
        }
    }

private:
    // The pattern of the file bytes access `a` touches, in data order; returns those bytes' runs.
    const std::vector<Run>& pattern_of(const CallAccess& a, std::vector<std::int8_t>& data) {
        const TraceShape& shape =
            t_.shapes[static_cast<std::size_t>(a.session->rank)][static_cast<std::size_t>(a.op->shape)];
        runs_.clear();
        map_view_bytes(shape, a.disp, a.voff, a.op->bytes, runs_);
        if (a.op->bytes > 0)
            pattern_fill(DType::Byte, data.data(),
                         Selection::from_runs({static_cast<std::uint64_t>(end_of(runs_))}, runs_), key_, 0);
        return runs_;
    }

    const Trace& t_;
    WrittenBefore before_;
    std::uint64_t key_;
    bool reads_;
    std::vector<Run> runs_;
};

}  // namespace

std::string recorded_refusal(const Trace& t, int nranks, const std::vector<std::size_t>& selected,
                             const std::string& source) {
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
                       " of the " + std::to_string(t.nranks) +
                       " ranks, which --calls recorded does not rebuild (it "
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
                    return "captured file " + f.name +
                           ": an access series steps to a negative offset: the trace is damaged";
        }
    }
    for (const auto& shapes : t.shapes)
        for (const TraceShape& sh : shapes) {
            if (sh.runs.size() > static_cast<std::size_t>(INT_MAX))
                return "a filetype of " + std::to_string(sh.runs.size()) +
                       " runs is too large to rebuild: use --calls plan";
            for (const Run& r : sh.runs)
                if (r.length > INT_MAX)
                    return "a filetype run of " + std::to_string(r.length) +
                           " bytes is too large to rebuild: use --calls plan";
        }
    return "";
}

bool recorded_needs_prepare(const TraceFile& f) {
    const TraceSession* first = nullptr;
    for (const TraceSession& s : f.sessions)
        if (!first || s.open < first->open) first = &s;
    return first && !(first->amode & MPI_MODE_CREATE);
}

std::shared_ptr<CallData> recorded_data(const Trace& t, const TraceFile& f, int index, std::vector<Run> prepared,
                                        bool reads) {
    return std::make_shared<ReplayData>(t, f, index, std::move(prepared), reads);
}

std::shared_ptr<const RecordedCalls> recorded_calls(const Trace& t, const TraceFile& f, int rank) {
    auto c = std::make_shared<RecordedCalls>();
    c->shapes = &t.shapes[static_cast<std::size_t>(rank)];
    for (const TraceSession& s : f.sessions)
        if (s.rank == rank) c->sessions.push_back(&s);
    return c;
}

}  // namespace iok::replay
