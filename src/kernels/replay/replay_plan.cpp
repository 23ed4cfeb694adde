#include "kernels/replay/replay_plan.hpp"

#include <algorithm>
#include <memory>

namespace iok::replay {

bool CapturedFile::written() const {
    for (const auto& r : writes)
        if (!r.empty()) return true;
    return false;
}

bool CapturedFile::read() const {
    for (const auto& r : reads)
        if (!r.empty()) return true;
    return false;
}

std::vector<CapturedFile> captured_files(const Trace& t) {
    std::vector<CapturedFile> files;
    for (const TraceFile& tf : t.files) {
        CapturedFile f;
        f.name = tf.name;
        f.writes.resize(static_cast<std::size_t>(t.nranks));
        f.reads.resize(static_cast<std::size_t>(t.nranks));
        for (const TraceSession& s : tf.sessions) {
            f.unknown_views += s.unknown_views;
            for (const TraceOp& op : s.ops) {
                f.ops += op.count;
                if (op.flags & kCollective) f.collective = true;
                auto& dest = (op.flags & kWrite ? f.writes : f.reads)[static_cast<std::size_t>(s.rank)];
                for_each_access_run(t, s.rank, op, [&](const std::vector<Run>& runs) {
                    dest.insert(dest.end(), runs.begin(), runs.end());
                });
            }
        }
        // The variable spans what was written; a file only read, what was read.
        std::int64_t wend = 0, rend = 0;
        for (auto& r : f.writes) {
            r = normalize_runs(std::move(r));
            if (!r.empty()) wend = std::max(wend, r.back().offset + r.back().length);
        }
        for (auto& r : f.reads) {
            r = normalize_runs(std::move(r));
            if (!r.empty()) rend = std::max(rend, r.back().offset + r.back().length);
        }
        f.extent = wend > 0 ? wend : rend;
        // A byte several ranks wrote is replayed by the lowest of them: the
        // selections are disjoint, as strategies that move data between
        // ranks (rearrange) and collective writes require.
        f.writes = lowest_rank_owns(std::move(f.writes));
        files.push_back(std::move(f));
    }
    return files;
}

std::vector<std::vector<Run>> lowest_rank_owns(std::vector<std::vector<Run>> per_rank) {
    std::vector<Run> lower;
    for (auto& r : per_rank) {
        std::vector<Run> mine = subtract_runs(r, lower);
        lower.insert(lower.end(), r.begin(), r.end());
        lower = normalize_runs(std::move(lower));
        r = std::move(mine);
    }
    return per_rank;
}

std::vector<Run> redistribute(const std::vector<std::vector<Run>>& per_rank, int nranks, int rank) {
    if (static_cast<int>(per_rank.size()) == nranks) return per_rank[static_cast<std::size_t>(rank)];
    std::int64_t total = 0;
    for (const auto& r : per_rank) total += run_bytes(r);
    const std::int64_t lo = total * rank / nranks, hi = total * (rank + 1) / nranks;
    std::vector<Run> mine;
    std::int64_t pos = 0;  // position in the end-to-end sequence
    for (const auto& runs : per_rank)
        for (const Run& x : runs) {
            const std::int64_t a = std::max(pos, lo), b = std::min(pos + x.length, hi);
            if (a < b) mine.push_back({x.offset + (a - pos), b - a});
            pos += x.length;
            if (pos >= hi) return normalize_runs(std::move(mine));
        }
    return normalize_runs(std::move(mine));
}

FilePlan replay_plan(const CapturedFile& f, const std::vector<Run>& runs, int index) {
    FilePlan p;
    FileSpec& s = p.spec;
    s.label = "file" + std::to_string(index);
    s.dims = {{"offset", static_cast<std::uint64_t>(f.extent), false}};
    VarSpec v;
    v.name = "bytes";
    v.type = DType::Byte;
    v.dims = {0};
    v.decomp = 0;
    s.vars = {v};
    s.global_attrs = {Attr::Text("captured_file", f.name)};
    const std::vector<std::uint64_t> shape = {static_cast<std::uint64_t>(f.extent)};
    p.selection = {std::make_shared<const Selection>(Selection::from_runs(shape, runs))};
    p.nrecords = 1;
    p.flush_every = 1;
    p.requests = runs.size();
    // Distinct data per captured file: reading the wrong one cannot verify.
    p.pattern_seed = replay_pattern_seed(index);
    return p;
}

std::uint64_t replay_pattern_seed(int index) { return static_cast<std::uint64_t>(index + 1) * 0x9e3779b97f4a7c15ull; }

std::string replay_file_name(const std::string& dir, const std::string& captured, int index,
                             const std::string& extension) {
    std::string base =
        captured.substr(captured.find_last_of('/') == std::string::npos ? 0 : captured.find_last_of('/') + 1);
    const auto dot = base.find_last_of('.');
    if (dot != std::string::npos && dot > 0) base = base.substr(0, dot);
    if (base.empty()) base = "file";
    std::string d = dir.empty() ? "." : dir;
    if (d.back() != '/') d += '/';
    return d + "replay" + std::to_string(index) + "_" + base + extension;
}

}  // namespace iok::replay
