// F case: the physics columns of a cubed-sphere np4 grid, partitioned as
// E3SM's atmosphere partitions them (see map_synth.hpp for the rules).
#include <algorithm>
#include <array>
#include <limits>
#include <unordered_map>

#include "core/error.hpp"
#include "formats/map_synth.hpp"

namespace iok::e3sm {

namespace {

constexpr int kNp = 4;  // GLL points per element edge (np4)

}  // namespace

std::int64_t cubed_sphere_ncol(int ne) { return 6LL * ne * ne * (kNp - 1) * (kNp - 1) + 2; }

std::vector<std::vector<std::int64_t>> cube_element_columns(int ne) {
    if (ne < 1) throw Error("cubed sphere: ne must be >= 1");
    const std::int64_t s = static_cast<std::int64_t>(ne) * (kNp - 1), side = s + 1;
    std::vector<std::vector<std::int64_t>> cols(6 * static_cast<std::size_t>(ne) * ne);
    // Points inside a face belong to that face alone (dense index); points on
    // a face's border are shared with other faces (keyed by position).
    std::vector<std::int64_t> inner(static_cast<std::size_t>(side * side));
    std::unordered_map<std::int64_t, std::int64_t> border;
    border.reserve(static_cast<std::size_t>(6 * 4 * side));
    std::int64_t next = 0;
    for (int f = 0; f < 6; ++f) {
        std::fill(inner.begin(), inner.end(), -1);
        for (int j = 0; j < ne; ++j)
            for (int i = 0; i < ne; ++i) {
                auto& mine = cols[(static_cast<std::size_t>(f) * ne + j) * ne + i];
                for (int gj = 0; gj < kNp; ++gj)
                    for (int gi = 0; gi < kNp; ++gi) {
                        const std::int64_t a = static_cast<std::int64_t>(i) * (kNp - 1) + gi;
                        const std::int64_t b = static_cast<std::int64_t>(j) * (kNp - 1) + gj;
                        std::int64_t* id;
                        if (a > 0 && a < s && b > 0 && b < s) {
                            id = &inner[static_cast<std::size_t>(b * side + a)];
                        } else {
                            const auto p = cube_face_point(f, a, b, s);
                            auto it = border.try_emplace((p[0] * side + p[1]) * side + p[2], -1).first;
                            id = &it->second;
                        }
                        // The first element (in GlobalID order) touching a point owns it.
                        if (*id < 0) {
                            *id = next++;
                            mine.push_back(*id);
                        }
                    }
            }
    }
    return cols;
}

DecompMap synth_f_map(const FMapOptions& opt, std::vector<RawOffsets>* raw) {
    if (opt.ne < 1) throw Error("F map: --ne must be >= 1 (got " + std::to_string(opt.ne) + ")");
    const std::int64_t nelem = 6LL * opt.ne * opt.ne;
    if (opt.nprocs < 1 || opt.nprocs > nelem)
        throw Error("F map: " + std::to_string(opt.nprocs) + " processes for " + std::to_string(nelem) +
                        " elements (ne " + std::to_string(opt.ne) + ")",
                    "HOMME needs 1 <= nprocs <= 6 ne^2; choose fewer processes or a larger --ne");
    if (opt.nlev < 1) throw Error("F map: --nlev must be >= 1");
    if (opt.pcols < 1) throw Error("F map: pcols must be >= 1");
    const std::int64_t ncol = cubed_sphere_ncol(opt.ne);
    if (ncol * opt.nlev > std::numeric_limits<std::int32_t>::max())
        throw Error("F map: lev x ncol = " + std::to_string(opt.nlev) + " x " + std::to_string(ncol) +
                        " exceeds the NC_INT offsets of a map",
                    "use fewer levels or a smaller --ne");
    const int np = opt.nprocs;

    // Dynamics: equal contiguous pieces of the curve.
    const std::vector<std::int64_t> curve = cube_curve(opt.ne);
    const auto elem_cols = cube_element_columns(opt.ne);
    std::vector<std::vector<std::int64_t>> dyn(np);
    std::vector<int> owner(static_cast<std::size_t>(ncol), -1);
    {
        const std::int64_t cnt = nelem / np, extra = nelem % np;
        std::size_t e = 0;
        for (int p = 0; p < np; ++p) {
            const std::int64_t mine = cnt + (p < extra ? 1 : 0);
            for (std::int64_t k = 0; k < mine; ++k, ++e)
                for (auto c : elem_cols[static_cast<std::size_t>(curve[e])]) {
                    dyn[p].push_back(c);
                    owner[static_cast<std::size_t>(c)] = p;
                }
            std::sort(dyn[p].begin(), dyn[p].end());
        }
    }

    // Physics: chunks of at most pcols columns, at least one per process and a
    // multiple of the process count; columns wrap-mapped to chunks.
    std::int64_t nchunks = (ncol + opt.pcols - 1) / opt.pcols;
    nchunks = std::max<std::int64_t>(nchunks, np);
    nchunks = (nchunks + np - 1) / np * np;
    nchunks = std::min(nchunks, ncol);
    // Each chunk goes to the process owning most of its columns in the
    // dynamics decomposition, among those with room; of tied processes, the
    // one owning the chunk's first column.  With E3SM's dynamics
    // decomposition as input this reproduces its physics decomposition
    // exactly (checked on the ne4 16-process and ne30 512-process maps).
    const std::int64_t cap_lo = nchunks / np, cap_extra = nchunks % np;
    std::vector<std::int64_t> room(np);
    for (int p = 0; p < np; ++p) room[p] = cap_lo + (p < cap_extra ? 1 : 0);
    std::vector<std::vector<std::int64_t>> chunks_of(np);
    int lowest_with_room = 0;
    std::vector<std::int64_t> count(np, 0);
    std::vector<int> touched;
    for (std::int64_t cid = 0; cid < nchunks; ++cid) {
        touched.clear();
        for (std::int64_t c = cid; c < ncol; c += nchunks) {
            const int p = owner[static_cast<std::size_t>(c)];
            if (count[p]++ == 0) touched.push_back(p);
        }
        std::int64_t most = 0;
        for (int p : touched)
            if (room[p] > 0) most = std::max(most, count[p]);
        int best = -1;  // ties: the owner of the chunk's first column among them
        for (std::int64_t c = cid; most > 0 && c < ncol && best < 0; c += nchunks) {
            const int p = owner[static_cast<std::size_t>(c)];
            if (room[p] > 0 && count[p] == most) best = p;
        }
        for (int p : touched) count[p] = 0;
        if (best < 0) {
            while (room[lowest_with_room] == 0) ++lowest_with_room;
            best = lowest_with_room;
        }
        --room[best];
        chunks_of[best].push_back(cid);
    }
    std::vector<std::vector<std::int64_t>> phys(np), phys3(np);
    for (int p = 0; p < np; ++p)
        for (auto cid : chunks_of[p]) {
            for (std::int64_t c = cid; c < ncol; c += nchunks) phys[p].push_back(c);
            // E3SM lists a chunk's columns level after level.
            for (std::int64_t k = 0; k < opt.nlev; ++k)
                for (std::int64_t c = cid; c < ncol; c += nchunks) phys3[p].push_back(k * ncol + c);
        }

    DecompMap m;
    m.path = "generated F map";
    m.nprocs = np;
    m.has_fill_starts = true;
    if (raw) raw->assign(3, RawOffsets{});
    m.decomps.push_back(decomp_from_elements("D1", {ncol}, dyn, nullptr, raw ? &(*raw)[0] : nullptr));
    m.decomps.push_back(decomp_from_elements("D2", {ncol}, phys, nullptr, raw ? &(*raw)[1] : nullptr));
    phys.clear();
    m.decomps.push_back(decomp_from_elements("D3", {opt.nlev, ncol}, phys3, nullptr, raw ? &(*raw)[2] : nullptr));
    validate_decomp_map(m);
    return m;
}

}  // namespace iok::e3sm
