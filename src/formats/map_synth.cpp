// Shared building blocks of the map generators, and the earlier crude
// F-like pattern kept for tiny test maps.
#include "formats/map_synth.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace iok::e3sm {

std::uint64_t mix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

Decomp decomp_from_elements(const std::string& name, const std::vector<std::int64_t>& dims_c,
                            const std::vector<std::vector<std::int64_t>>& real,
                            const std::vector<std::vector<std::int64_t>>* fill, RawOffsets* raw) {
    Decomp d;
    d.name = name;
    d.dims = dims_c;
    const std::int64_t row = d.row_length();
    if (raw) *raw = RawOffsets{};
    // Appends one process's elements as runs; returns how many runs it made.
    auto add = [&](const std::vector<std::int64_t>& elems) {
        std::int64_t n = 0;
        for (auto e : elems) {
            if (n > 0 && e == d.offsets.back() + d.lengths.back() && e % row != 0) {
                ++d.lengths.back();
            } else {
                d.offsets.push_back(e);
                d.lengths.push_back(1);
                ++n;
            }
        }
        return n;
    };
    for (std::size_t p = 0; p < real.size(); ++p) {
        const std::int64_t nreal = add(real[p]);
        const std::int64_t nfill = fill ? add((*fill)[p]) : 0;
        d.first.push_back(static_cast<std::int64_t>(d.offsets.size()) - nreal - nfill);
        d.nreqs.push_back(nreal + nfill);
        d.fill_starts.push_back(nreal);
        if (raw) {
            raw->nreqs.push_back(static_cast<std::int64_t>(real[p].size()));
            for (auto e : real[p]) raw->offsets.push_back(e + 1);
        }
    }
    return d;
}

std::vector<std::vector<std::int64_t>> over_levels(const std::vector<std::vector<std::int64_t>>& per_proc,
                                                   std::int64_t nelem, std::int64_t nlev, bool level_major) {
    std::vector<std::vector<std::int64_t>> out(per_proc.size());
    for (std::size_t p = 0; p < per_proc.size(); ++p) {
        auto& o = out[p];
        o.reserve(per_proc[p].size() * static_cast<std::size_t>(nlev));
        if (level_major) {
            for (std::int64_t k = 0; k < nlev; ++k)
                for (auto e : per_proc[p]) o.push_back(k * nelem + e);
        } else {
            for (auto e : per_proc[p])
                for (std::int64_t k = 0; k < nlev; ++k) o.push_back(e * nlev + k);
        }
    }
    return out;
}

DecompMap synthetic_f_map(const SynthFMapOptions& opt, std::vector<RawOffsets>* raw) {
    if (opt.ncol < 1 || opt.nlev < 1 || opt.nprocs < 1 || opt.element_size < 1)
        throw Error("synthetic map: ncol, nlev, nprocs and element size must all be >= 1");
    if (opt.ncol * opt.nlev > 2147483647LL) throw Error("synthetic map: ncol x nlev exceeds NC_INT offsets");
    const std::int64_t es = opt.element_size;
    const std::int64_t nelem = (opt.ncol + es - 1) / es;

    // Deterministic permutation (Fisher-Yates with a 64-bit LCG: identical on
    // every platform, unlike <random> distributions).
    std::vector<std::int64_t> elems(nelem);
    for (std::int64_t e = 0; e < nelem; ++e) elems[e] = e;
    std::uint64_t state = opt.seed * 0x9E3779B97F4A7C15ull + 1;
    for (std::int64_t i = nelem - 1; i > 0; --i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        std::swap(elems[i], elems[(state >> 33) % static_cast<std::uint64_t>(i + 1)]);
    }

    std::vector<std::vector<std::int64_t>> cols(opt.nprocs);  // 0-based, element-interleaved
    const std::int64_t cnt = nelem / opt.nprocs, extra = nelem % opt.nprocs;
    std::int64_t next = 0;
    for (int p = 0; p < opt.nprocs; ++p) {
        const std::int64_t mine = cnt + (p < extra ? 1 : 0);
        for (std::int64_t j = 0; j < es; ++j)
            for (std::int64_t e = next; e < next + mine; ++e) {
                const std::int64_t c = elems[e] * es + j;
                if (c < opt.ncol) cols[p].push_back(c);
            }
        next += mine;
    }
    // D1 sorted (as dat2nc's seed form), D2/D3 in file order.
    auto sorted = cols;
    for (auto& c : sorted) std::sort(c.begin(), c.end());

    DecompMap m;
    m.path = "synthetic F map";
    m.nprocs = opt.nprocs;
    m.has_fill_starts = true;
    if (raw) raw->assign(3, RawOffsets{});
    m.decomps.push_back(decomp_from_elements("D1", {opt.ncol}, sorted, nullptr, raw ? &(*raw)[0] : nullptr));
    m.decomps.push_back(decomp_from_elements("D2", {opt.ncol}, cols, nullptr, raw ? &(*raw)[1] : nullptr));
    m.decomps.push_back(decomp_from_elements("D3", {opt.nlev, opt.ncol}, over_levels(cols, opt.ncol, opt.nlev, true),
                                             nullptr, raw ? &(*raw)[2] : nullptr));
    validate_decomp_map(m);
    return m;
}

}  // namespace iok::e3sm
