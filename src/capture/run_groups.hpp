#pragma once
// A filetype's byte runs written compactly, and read back (trace format,
// docs/capture_trace.md).  Header-only and free of MPI: the capture library
// (which must link nothing of the project) writes with it, the replay
// reader and the unit tests read with it.
//
// Encoding: a flat list of groups of four numbers.
//   offset, length, stride, count   (count >= 1): `count` runs of `length`
//                                   bytes at offset + i*stride (version 1)
//   k, n, shift, 0                  (a repeat, version 2): the k groups just
//                                   before it (plain groups, after any earlier
//                                   repeat) occur n times in all, each time
//                                   shifted `shift` bytes further
// E3SM's decompositions repeat an irregular list of runs once per vertical
// level, a level's size apart: one level's groups and one repeat group.
#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace iok_runs {

struct Group {
    std::int64_t off, len, stride, count;
};

// Equal-length runs at a constant stride become one group.
inline std::vector<Group> group_runs(const std::vector<std::pair<std::int64_t, std::int64_t>>& r) {
    std::vector<Group> g;
    std::size_t i = 0;
    while (i < r.size()) {
        std::size_t j = i + 1;
        std::int64_t stride = 0;
        if (j < r.size() && r[j].second == r[i].second) {
            stride = r[j].first - r[i].first;
            while (j < r.size() && r[j].second == r[i].second && r[j].first - r[j - 1].first == stride) ++j;
        }
        g.push_back({r[i].first, r[i].second, j - i > 1 ? stride : 0, static_cast<std::int64_t>(j - i)});
        i = j;
    }
    return g;
}

namespace detail {

inline bool same_shifted(const Group& a, const Group& b, std::int64_t shift) {
    return b.len == a.len && b.stride == a.stride && b.count == a.count && b.off - a.off == shift;
}

inline std::uint64_t mix(std::uint64_t h, std::uint64_t x) {
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

}  // namespace detail

// Groups with repeated blocks folded.  Work is bounded (a budget of
// comparisons linear in the input): past it, the rest is written unfolded,
// so an adversarial list costs time linear in its length and still
// round-trips exactly.
inline std::vector<std::int64_t> fold_groups(const std::vector<Group>& g) {
    constexpr std::size_t W = 3;  // groups per signature window
    constexpr std::size_t kCandidates =
        64;  // look-alike windows tried per position (E3SM F case: with 8 the repeat of a level was out of reach)
    const std::size_t n = g.size();
    std::vector<std::int64_t> out;
    out.reserve(n * 4);
    const auto literal = [&](const Group& x) { out.insert(out.end(), {x.off, x.len, x.stride, x.count}); };
    if (n < 4) {
        for (const Group& x : g) literal(x);
        return out;
    }
    // Signature of the window at p: shapes of W groups and the gaps between them
    // (shift-invariant), so a window and its shifted repeat share it.
    const auto sig = [&](std::size_t p) {
        std::uint64_t h = 0;
        for (std::size_t t = 0; t < W; ++t) {
            h = detail::mix(h, static_cast<std::uint64_t>(g[p + t].len));
            h = detail::mix(h, static_cast<std::uint64_t>(g[p + t].stride));
            h = detail::mix(h, static_cast<std::uint64_t>(g[p + t].count));
            if (t + 1 < W) h = detail::mix(h, static_cast<std::uint64_t>(g[p + t + 1].off - g[p + t].off));
        }
        return h;
    };
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> at;
    for (std::size_t p = 0; p + W <= n; ++p) at[sig(p)].push_back(static_cast<std::uint32_t>(p));
    std::int64_t budget = 64 * static_cast<std::int64_t>(n) + 100000;
    std::size_t i = 0;
    while (i < n) {
        std::size_t best_k = 0, best_n = 0;
        std::int64_t best_save = 0;
        if (budget > 0 && i + W <= n) {
            const auto& cand = at[sig(i)];
            auto it = std::upper_bound(cand.begin(), cand.end(), static_cast<std::uint32_t>(i));
            for (std::size_t c = 0; c < kCandidates && it != cand.end() && budget > 0; ++c, ++it) {
                const std::size_t k = *it - i;
                if (i + 2 * k > n) break;
                const std::int64_t shift = g[i + k].off - g[i].off;
                std::size_t reps = 1;
                for (;;) {  // does block `reps` repeat block 0 shifted reps*shift?
                    const std::size_t b = i + reps * k;
                    if (b + k > n) break;
                    std::size_t t = 0;
                    std::int64_t s = 0;  // reps*shift (a damaged trace's offsets may not allow it)
                    if (__builtin_mul_overflow(shift, static_cast<std::int64_t>(reps), &s)) break;
                    while (t < k && detail::same_shifted(g[i + t], g[b + t], s)) ++t;
                    budget -= static_cast<std::int64_t>(t + 1);
                    if (t < k) break;
                    ++reps;
                }
                const std::int64_t save = static_cast<std::int64_t>((reps - 1) * k) - 1;
                if (reps >= 2 && save > best_save) {
                    best_save = save;
                    best_k = k;
                    best_n = reps;
                }
            }
        }
        if (best_k == 0) {
            literal(g[i++]);
            continue;
        }
        for (std::size_t t = 0; t < best_k; ++t) literal(g[i + t]);
        out.insert(out.end(), {static_cast<std::int64_t>(best_k), static_cast<std::int64_t>(best_n),
                               g[i + best_k].off - g[i].off, 0});
        i += best_k * best_n;
    }
    return out;
}

// Calls run(offset, length) for every run of an encoded list, in order.
// Returns "" or what is wrong with the list (not groups of four, a bad
// length or count, a repeat naming groups it does not follow, more than
// `max_runs` runs in all).
template <class F>
std::string unfold_runs(const std::vector<std::int64_t>& flat, std::int64_t max_runs, F&& run) {
    if (flat.size() % 4) return "the runs are not groups of 4 numbers";
    std::int64_t runs = 0;
    std::size_t block_start = 0;  // first group after the last repeat
    bool overflow = false;
    const auto emit_group = [&](const std::int64_t* q, std::int64_t shift) -> bool {
        if (q[3] > max_runs - runs) return false;
        std::int64_t base = 0, span = 0, last = 0;
        if (__builtin_add_overflow(q[0], shift, &base) || __builtin_mul_overflow(q[3] - 1, q[2], &span) ||
            __builtin_add_overflow(base, span, &last) || __builtin_add_overflow(last, q[1], &last) ||
            __builtin_add_overflow(base, q[1], &last)) {
            overflow = true;
            return false;
        }
        runs += q[3];
        for (std::int64_t k = 0; k < q[3]; ++k) run(base + k * q[2], q[1]);
        return true;
    };
    const std::string too_many = "the runs expand to more than " + std::to_string(max_runs) + " runs";
    for (std::size_t i = 0; i < flat.size(); i += 4) {
        const std::int64_t* q = flat.data() + i;
        if (q[3] > 0) {
            if (q[1] <= 0 || q[0] < 0)
                return "a run has length " + std::to_string(q[1]) + " at offset " + std::to_string(q[0]);
            if (!emit_group(q, 0)) return overflow ? "a run's offset overflows" : too_many;
            continue;
        }
        if (q[3] < 0) return "a group has count " + std::to_string(q[3]);
        const std::int64_t k = q[0], n = q[1], shift = q[2];
        if (k < 1 || static_cast<std::size_t>(k) > (i - block_start) / 4 || n < 2)
            return "a repeat of " + std::to_string(k) + " groups x " + std::to_string(n) + " does not follow " +
                   std::to_string(k) + " plain groups";
        const std::size_t first = i - static_cast<std::size_t>(k) * 4;
        for (std::int64_t rep = 1; rep < n; ++rep) {
            std::int64_t sh = 0;  // checked: a damaged trace must not overflow
            if (__builtin_mul_overflow(shift, rep, &sh)) return "a repeat's shift overflows";
            for (std::size_t j = first; j < i; j += 4) {
                if (!emit_group(flat.data() + j, sh)) return overflow ? "a run's offset overflows" : too_many;
            }
        }
        block_start = i + 4;
    }
    return "";
}

}  // namespace iok_runs
