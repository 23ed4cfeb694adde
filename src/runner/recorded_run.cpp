#include "runner/recorded_run.hpp"

#include <climits>
#include <filesystem>

#include "core/collective.hpp"
#include "core/memory.hpp"
#include "core/stats.hpp"

namespace iok {
namespace {

FileOutcome outcome(MPI_Comm comm, const Backend& be, const std::string& path, const std::string& label,
                    const std::string& library, const CallTally& t, const CallData& data, double end_to_end,
                    bool writing, bool with_session_phases) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    FileOutcome out;
    FileMetrics& m = out.metrics;
    m.writing = writing;
    m.label = label;
    m.path = path;
    m.backend = be.name() + " (recorded calls)";
    m.library = library;
    m.variables = 1;
    m.records = 1;
    const std::vector<double> local = {static_cast<double>(writing ? t.wreq : t.rreq),
                                       static_cast<double>(writing ? t.wbytes : t.rbytes),
                                       static_cast<double>(t.calls),
                                       t.open,
                                       t.views,
                                       writing ? t.write : t.read,
                                       t.close,
                                       end_to_end,
                                       static_cast<double>(peak_rss_bytes())};
    const std::vector<Stat> st = reduce_over_ranks(comm, local);
    std::uint64_t mism = 0, mine = writing ? 0 : data.mismatches;
    MPI_Allreduce(&mine, &mism, 1, MPI_UINT64_T, MPI_SUM, comm);
    // The first mismatch of the lowest rank that has one.
    int who = mine ? rank : INT_MAX, first = INT_MAX;
    MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, comm);
    std::string text = mine ? data.first_mismatch : "";
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
        const auto size = std::filesystem::file_size(path, ec);
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

RecordedRun run_recorded(MPI_Comm comm, Backend& be, const std::string& path, const std::string& label,
                         const std::string& library, const RecordedCalls& calls, CallData& data) {
    RecordedRun res;
    int mine[2] = {0, 0}, any[2] = {0, 0};
    for (const TraceSession* ses : calls.sessions)
        for (const TraceOp& op : ses->ops) mine[op.flags & kWrite ? 0 : 1] = 1;
    if (!data.reads()) mine[1] = 0;
    MPI_Allreduce(mine, any, 2, MPI_INT, MPI_MAX, comm);
    res.any_write = any[0] != 0;
    res.any_read = any[1] != 0;
    CallTally tally;
    MPI_Barrier(comm);
    const double start = MPI_Wtime();
    collective_step(comm, [&] { tally = be.replay_calls(path, comm, calls, data); });
    const double end_to_end = MPI_Wtime() - start;
    if (res.any_write) res.write = outcome(comm, be, path, label, library, tally, data, end_to_end, true, true);
    if (res.any_read)
        res.read = outcome(comm, be, path, label, library, tally, data, end_to_end, false, !res.any_write);
    return res;
}

}  // namespace iok
