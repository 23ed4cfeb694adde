#include "kernels/e3sm/map_synth.hpp"

#include "core/error.hpp"

namespace iok::e3sm {

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

    PioDecompDat d1, d2, d3;
    d1.dims_fortran = d2.dims_fortran = {opt.ncol};
    d3.dims_fortran = {opt.ncol, opt.nlev};
    const std::int64_t cnt = nelem / opt.nprocs, extra = nelem % opt.nprocs;
    std::int64_t next = 0;
    for (int p = 0; p < opt.nprocs; ++p) {
        const std::int64_t mine = cnt + (p < extra ? 1 : 0);
        std::vector<std::int64_t> cols;  // 1-based, element-interleaved
        for (std::int64_t j = 0; j < es; ++j)
            for (std::int64_t e = next; e < next + mine; ++e) {
                const std::int64_t c = elems[e] * es + j;
                if (c < opt.ncol) cols.push_back(c + 1);
            }
        next += mine;
        d1.offsets.push_back(cols);
        d2.offsets.push_back(cols);
        std::vector<std::int64_t> c3;
        c3.reserve(cols.size() * opt.nlev);
        for (std::int64_t k = 0; k < opt.nlev; ++k)
            for (auto c : cols) c3.push_back(k * opt.ncol + c);
        d3.offsets.push_back(std::move(c3));
    }

    DecompMap m;
    m.path = "synthetic F map";
    m.nprocs = opt.nprocs;
    m.has_fill_starts = true;
    if (raw) raw->assign(3, RawOffsets{});
    const PioDecompDat* dats[3] = {&d1, &d2, &d3};
    for (int k = 0; k < 3; ++k) {
        Decomp d = decomp_from_pio(*dats[k], /*sort=*/k == 0, raw ? &(*raw)[k] : nullptr);
        d.name = "D" + std::to_string(k + 1);
        m.decomps.push_back(std::move(d));
    }
    validate_decomp_map(m);
    return m;
}

}  // namespace iok::e3sm
