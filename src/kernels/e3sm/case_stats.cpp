#include "kernels/e3sm/case_stats.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace iok::e3sm {

VarCounts count_vars(const FileSpec& f, int ndecomps) {
    VarCounts c;
    c.per_decomp.assign(ndecomps, 0);
    for (const auto& v : f.vars) {
        if (v.decomp < 0)
            ++c.not_partitioned;
        else if (v.decomp < ndecomps)
            ++c.per_decomp[v.decomp];
        ++c.total;
    }
    return c;
}

RequestCounts request_counts(const FileSpec& f, const std::vector<std::vector<std::uint64_t>>& runs, int nrecords) {
    if (runs.empty() || runs[0].empty()) throw Error("request_counts: no run counts given");
    const std::size_t nranks = runs[0].size();
    RequestCounts c;
    c.per_rank.assign(nranks, 0);
    for (const auto& v : f.vars) {
        const std::uint64_t times = v.is_record(f) ? static_cast<std::uint64_t>(nrecords) : 1;
        if (v.decomp < 0) {
            c.per_rank[0] += times;
            continue;
        }
        if (v.decomp >= static_cast<int>(runs.size()))
            throw Error("request_counts: variable " + v.name + " uses a decomposition the run counts lack");
        for (std::size_t r = 0; r < nranks; ++r) c.per_rank[r] += runs[v.decomp][r] * times;
    }
    for (auto n : c.per_rank) c.total += n;
    c.max = *std::max_element(c.per_rank.begin(), c.per_rank.end());
    c.min = *std::min_element(c.per_rank.begin(), c.per_rank.end());
    return c;
}

ByteCounts byte_counts(const FileSpec& f, const DecompMap& m, bool fill_mode) {
    ByteCounts b;
    for (const auto& v : f.vars) {
        std::uint64_t elems;
        if (v.decomp < 0) {
            elems = f.fixed_elements(v);
        } else {
            const Decomp& d = m.decomps.at(v.decomp);
            elems = static_cast<std::uint64_t>(fill_mode ? [&] {
                std::int64_t n = 0;
                for (auto l : d.lengths) n += l;
                return n;
            }()
                                                         : d.covered_elements());
        }
        const std::uint64_t bytes = elems * dtype_size(v.type);
        (v.is_record(f) ? b.per_record : b.fixed) += bytes;
    }
    return b;
}

}  // namespace iok::e3sm
