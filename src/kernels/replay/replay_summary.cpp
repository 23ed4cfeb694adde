#include "kernels/replay/replay_summary.hpp"

#include <algorithm>
#include <cstdio>

#include "core/report.hpp"

namespace iok::replay {
namespace {

using nlohmann::json;

// Power-of-two bucket label of a request size: "4 KiB-8 KiB".
std::string bucket_label(int b) {
    const auto unit = [](std::int64_t v) {
        const char* u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
        int i = 0;
        while (v >= 1024 && i < 4) {
            v /= 1024;
            ++i;
        }
        return std::to_string(v) + " " + u[i];
    };
    if (b < 0) return "0 B";
    return unit(std::int64_t{1} << b) + "-" + unit(std::int64_t{1} << (b + 1));
}

int bucket_of(std::int64_t bytes) {
    if (bytes <= 0) return -1;
    int b = 0;
    while ((std::int64_t{2} << b) <= bytes) ++b;
    return b;
}

struct Side {  // one direction (write or read) of one file
    std::int64_t requests = 0, bytes = 0, collective = 0, mem_noncontig = 0, file_contig = 0, file_runs = 0;
    std::int64_t explicit_ = 0, individual = 0, shared = 0, ordered = 0, nonblocking = 0, split = 0;
    std::map<int, std::int64_t> hist;
    // Per rank, only the ranks that opened the file (the others count as 0):
    // a file-per-process job of P ranks has P files, each opened by one rank.
    struct Tally {
        std::int64_t requests = 0, bytes = 0;
        double busy = 0;
    };
    int nranks;
    std::map<int, Tally> ranks;

    explicit Side(int n) : nranks(n) {}

    json to_json() const {
        json j;
        j["requests"] = requests;
        j["bytes"] = bytes;
        j["file_runs"] = file_runs;
        const auto share = [&](std::int64_t n) { return requests ? static_cast<double>(n) / requests : 0.0; };
        j["collective_share"] = share(collective);
        j["memory_contiguous_share"] = share(requests - mem_noncontig);
        j["file_contiguous_share"] = share(file_contig);
        j["calls"] = {{"explicit_offset", explicit_}, {"individual_pointer", individual}, {"shared_pointer", shared},
                      {"ordered", ordered},           {"nonblocking", nonblocking},       {"split_collective", split}};
        json h = json::array();
        for (const auto& [b, n] : hist)
            h.push_back(
                {{"bucket", bucket_label(b)}, {"min_bytes", b < 0 ? 0 : std::int64_t{1} << b}, {"requests", n}});
        j["size_histogram"] = h;
        std::int64_t active = 0;
        for (const auto& [rk, t] : ranks) active += t.requests > 0;
        const bool absent = static_cast<int>(ranks.size()) < nranks;  // ranks that never opened it: zeros
        const auto mm = [&](auto get) {
            using V = decltype(get(Tally{}));
            V mx = absent ? V{} : get(ranks.begin()->second), mn = mx;
            double s = 0;
            for (const auto& [rk, t] : ranks) {
                mx = std::max(mx, get(t));
                mn = std::min(mn, get(t));
                s += static_cast<double>(get(t));
            }
            json o;
            o["max"] = mx;
            o["min"] = mn;
            o["mean"] = s / static_cast<double>(nranks);
            return o;
        };
        j["per_rank"] = {{"requests", mm([](const Tally& t) { return t.requests; })},
                         {"bytes", mm([](const Tally& t) { return t.bytes; })},
                         {"busy_seconds", mm([](const Tally& t) { return t.busy; })},
                         {"active_ranks", active}};
        return j;
    }
};

}  // namespace

json summarize_trace(const Trace& t) {
    json files = json::array();
    for (const TraceFile& f : t.files) {
        Side w(t.nranks), r(t.nranks);
        std::int64_t opens = 0, unknown = 0, set_views = 0;
        std::vector<int> comm_sizes;
        json hints = json::object();
        for (const TraceSession& s : f.sessions) {
            ++opens;
            unknown += s.unknown_views;
            set_views += s.set_views;
            if (std::find(comm_sizes.begin(), comm_sizes.end(), s.comm_size) == comm_sizes.end())
                comm_sizes.push_back(s.comm_size);
            if (hints.empty())
                for (const auto& [k, v] : s.hints) hints[k] = v;
            for (const TraceOp& op : s.ops) {
                Side& d = op.flags & kWrite ? w : r;
                d.requests += op.count;
                d.bytes += op.bytes * op.count;
                Side::Tally& tr = d.ranks[s.rank];
                tr.requests += op.count;
                tr.bytes += op.bytes * op.count;
                tr.busy += op.busy;
                d.hist[bucket_of(op.bytes)] += op.count;
                if (op.flags & kCollective) d.collective += op.count;
                if (op.flags & kMemNoncontig) d.mem_noncontig += op.count;
                if (op.flags & kOrdered)
                    d.ordered += op.count;
                else if (op.flags & kShared)
                    d.shared += op.count;
                else if (op.flags & kExplicit)
                    d.explicit_ += op.count;
                else
                    d.individual += op.count;
                if (op.flags & kNonblocking) d.nonblocking += op.count;
                if (op.flags & kSplit) d.split += op.count;
                for_each_access_run(t, s.rank, op, [&](const std::vector<Run>& runs) {
                    d.file_runs += static_cast<std::int64_t>(runs.size());
                    if (runs.size() <= 1) ++d.file_contig;
                });
            }
        }
        std::sort(comm_sizes.begin(), comm_sizes.end());
        json j;
        j["file"] = f.name;
        j["opens"] = opens;
        j["communicator_sizes"] = comm_sizes;
        j["set_views"] = set_views;
        j["unknown_views"] = unknown;
        j["hints"] = hints;
        j["write"] = w.to_json();
        j["read"] = r.to_json();
        files.push_back(j);
    }
    return {{"schema", "iokernels-trace-summary/1"},
            {"nranks", t.nranks},
            {"program", t.program},
            {"mpi", t.mpi},
            {"files", files}};
}

void print_summary(const json& s, const std::string& source) {
    TextReport rep;
    rep.section("MPI-IO trace " + source);
    rep.line("Captured program", s["program"].get<std::string>());
    rep.count("Ranks", s["nranks"].get<std::uint64_t>());
    rep.count("Files", s["files"].size());
    for (const json& f : s["files"]) {
        rep.section("File " + f["file"].get<std::string>());
        std::string sizes;
        for (const auto& n : f["communicator_sizes"])
            sizes += (sizes.empty() ? "" : ", ") + std::to_string(n.get<int>());
        rep.line("Opens (rank sessions)",
                 std::to_string(f["opens"].get<std::int64_t>()) + " on communicators of " + sizes + " rank(s)");
        rep.count("set_view calls", f["set_views"].get<std::uint64_t>());
        if (f["unknown_views"].get<std::int64_t>() > 0)
            rep.line("Views not flattened",
                     std::to_string(f["unknown_views"].get<std::int64_t>()) + " (treated as contiguous)");
        std::string hints;
        for (auto it = f["hints"].begin(); it != f["hints"].end(); ++it)
            hints += (hints.empty() ? "" : " ") + it.key() + "=" + it.value().get<std::string>();
        rep.line("Hints at open", hints.empty() ? "(none)" : hints);
        for (const char* side : {"write", "read"}) {
            const json& d = f[side];
            const std::string W = side[0] == 'w' ? "Write" : "Read";
            if (d["requests"].get<std::int64_t>() == 0) {
                rep.line(W + " requests", "0");
                continue;
            }
            const auto pct = [](double x) {
                char b[16];
                std::snprintf(b, sizeof b, "%.1f %%", 100.0 * x);
                return std::string(b);
            };
            rep.line(W + " requests", with_commas(d["requests"].get<std::uint64_t>()) + " (" +
                                          format_bytes(d["bytes"].get<double>()) + ")");
            rep.line(W + " collective share", pct(d["collective_share"].get<double>()));
            rep.line(W + " contiguous in file", pct(d["file_contiguous_share"].get<double>()) + " of requests; " +
                                                    with_commas(d["file_runs"].get<std::uint64_t>()) +
                                                    " file runs in all");
            rep.line(W + " contiguous in memory", pct(d["memory_contiguous_share"].get<double>()));
            std::string calls;
            for (auto it = d["calls"].begin(); it != d["calls"].end(); ++it)
                if (it.value().get<std::int64_t>() > 0)
                    calls +=
                        (calls.empty() ? "" : ", ") + it.key() + " " + with_commas(it.value().get<std::uint64_t>());
            rep.line(W + " call flavours", calls);
            for (const json& h : d["size_histogram"])
                rep.line(W + " sizes " + h["bucket"].get<std::string>(),
                         with_commas(h["requests"].get<std::uint64_t>()));
            const json& pr = d["per_rank"];
            const auto mmm = [&](const char* k, bool bytes) {
                const json& x = pr[k];
                const auto show = [&](const json& v) {
                    return bytes ? format_bytes(v.get<double>())
                                 : with_commas(static_cast<std::uint64_t>(v.get<double>() + 0.5));
                };
                return "max " + show(x["max"]) + ", min " + show(x["min"]) + ", mean " + show(x["mean"]);
            };
            rep.line(W + " requests per rank", mmm("requests", false));
            rep.line(W + " bytes per rank", mmm("bytes", true));
            char busy[96];
            std::snprintf(busy, sizeof busy, "max %.6f s, min %.6f s", pr["busy_seconds"]["max"].get<double>(),
                          pr["busy_seconds"]["min"].get<double>());
            rep.line(W + " time in calls per rank", busy);
            rep.line(W + " active ranks",
                     std::to_string(pr["active_ranks"].get<int>()) + " of " + std::to_string(s["nranks"].get<int>()));
        }
    }
    rep.print();
}

}  // namespace iok::replay
