#include "formats/map_stat.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace iok::e3sm {

std::string length_bucket_label(std::size_t b) {
    const std::int64_t lo = std::int64_t{1} << b, hi = (std::int64_t{1} << (b + 1)) - 1;
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
}

namespace {

// Distinct elements covered by `runs` and extra coverings (overlaps).
void coverage(std::vector<Run> runs, std::int64_t& covered, std::int64_t& overlap) {
    std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.offset < b.offset; });
    covered = overlap = 0;
    std::int64_t end = 0;  // one past the furthest element covered so far
    for (const Run& r : runs) {
        const std::int64_t e = r.offset + r.length;
        if (r.offset < end) {
            overlap += std::min(e, end) - r.offset;
            covered += std::max<std::int64_t>(0, e - end);
        } else {
            covered += r.length;
        }
        end = std::max(end, e);
    }
}

DecompStats decomp_stats(const Decomp& d) {
    DecompStats s;
    s.name = d.name;
    s.dims = d.dims;
    s.elements = d.elements();
    std::vector<Run> runs;
    for (std::size_t p = 0; p < d.nreqs.size(); ++p) {
        for (const Run& r : d.process_runs(static_cast<int>(p))) {
            runs.push_back(r);
            std::size_t b = 0;
            while ((std::int64_t{2} << b) <= r.length) ++b;
            if (s.length_histogram.size() <= b) s.length_histogram.resize(b + 1, 0);
            ++s.length_histogram[b];
        }
        for (const Run& r : d.process_fill_runs(static_cast<int>(p))) s.fill_elements += r.length;
    }
    s.real_runs = static_cast<std::int64_t>(runs.size());
    s.fill_runs = static_cast<std::int64_t>(d.offsets.size()) - s.real_runs;
    coverage(runs, s.covered, s.overlap);
    for (std::size_t p = 0; p < d.nreqs.size(); ++p)
        for (const Run& r : d.process_fill_runs(static_cast<int>(p))) runs.push_back(r);
    coverage(std::move(runs), s.covered_with_fill, s.overlap_with_fill);
    return s;
}

}  // namespace

MapStats map_stats(const DecompMap& m, const std::vector<int>& ranks) {
    MapStats out;
    out.path = m.path;
    out.nprocs = m.nprocs;
    for (const auto& d : m.decomps) out.decomps.push_back(decomp_stats(d));
    for (int R : ranks) {
        if (R < 1) throw Error("map statistics: rank counts must be >= 1 (got " + std::to_string(R) + ")");
        const auto counts = runs_per_rank(m, R, /*sort=*/true);
        for (std::size_t k = 0; k < counts.size(); ++k) {
            RankRequests q;
            q.max = *std::max_element(counts[k].begin(), counts[k].end());
            q.min = *std::min_element(counts[k].begin(), counts[k].end());
            for (auto c : counts[k]) q.total += c;
            q.per_rank = counts[k];
            out.decomps[k].requests[R] = q;
        }
    }
    return out;
}

}  // namespace iok::e3sm
