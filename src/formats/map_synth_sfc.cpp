// The space-filling curve over the cubed sphere that orders HOMME's elements
// for partitioning, built as HOMME builds it: one curve over an ne x ne
// square from Hilbert (factor 2), Peano (3) and "Cinco" (5) patterns
// (spacecurve_mod.F90; for other ne, the curve of the next power of two,
// cell by nearest cell), laid on the six faces in HOMME's order and
// orientations (cube_mod.F90, CubeTopology).  With E3SM's column numbering
// (map_synth_f.cpp) the ne4 / 16-process F map is E3SM's own, array for array.
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/error.hpp"
#include "formats/map_synth.hpp"

namespace iok::e3sm {

std::array<std::int64_t, 3> cube_face_point(int face, std::int64_t a, std::int64_t b, std::int64_t s) {
    switch (face) {
        case 0: return {a, 0, b};
        case 1: return {s, a, b};
        case 2: return {s - a, s, b};
        case 3: return {0, s - a, b};
        case 4: return {b, a, 0};
        default: return {a, b, s};
    }
}

namespace {

// HOMME's square curve (spacecurve_mod.F90): the side factors into 2s, 3s
// and 5s, and each level of the recursion splits a block into 2 x 2
// (Hilbert), 3 x 3 (Peano meander) or 5 x 5 ("Cinco") sub-blocks, the
// coarsest level using the last factor (5s, then 3s, then 2s).  A block is
// entered with a main axis and direction (ma, md) and leaves along a joiner
// axis and direction (ja, jd); each sub-block's own four follow from the
// parent's by the pattern's table below.
struct Step {
    int ma_turn;  // sub-block main axis: ma (0) or the other axis (1)
    int md_sign;  // sub-block main direction: md * md_sign
    int joiner;   // 0: leave along the sub-block's main axis and direction;
                  // 1: along the parent's joiner (the pattern's last step);
                  // 2: along axis ma + ja_turn, direction md * jd_sign
    int ja_turn, jd_sign;
};

constexpr Step kHilbert[4] = {{1, 1, 0, 0, 0}, {0, 1, 0, 0, 0}, {0, 1, 2, 1, -1}, {1, -1, 1, 0, 0}};
constexpr Step kPeano[9] = {{1, 1, 0, 0, 0},  {1, 1, 0, 0, 0},  {0, 1, 0, 0, 0},  {0, 1, 0, 0, 0}, {0, 1, 2, 1, -1},
                            {0, -1, 0, 0, 0}, {1, -1, 0, 0, 0}, {1, -1, 2, 0, 1}, {0, 1, 1, 0, 0}};
constexpr Step kCinco[25] = {{0, 1, 0, 0, 0},  {0, 1, 0, 0, 0},  {1, 1, 0, 0, 0},  {1, 1, 0, 0, 0},  {1, 1, 2, 0, -1},
                             {1, -1, 0, 0, 0}, {0, -1, 0, 0, 0}, {0, -1, 2, 1, 1}, {1, 1, 0, 0, 0},  {1, 1, 0, 0, 0},
                             {0, 1, 0, 0, 0},  {0, 1, 2, 1, -1}, {1, -1, 2, 0, 1}, {1, 1, 0, 0, 0},  {0, 1, 0, 0, 0},
                             {0, 1, 0, 0, 0},  {0, 1, 2, 1, -1}, {0, -1, 0, 0, 0}, {1, -1, 0, 0, 0}, {1, -1, 2, 0, 1},
                             {0, 1, 2, 1, -1}, {0, -1, 0, 0, 0}, {1, -1, 0, 0, 0}, {1, -1, 2, 0, 1}, {0, 1, 1, 0, 0}};

struct SquareWalk {
    int ne;
    std::vector<int> factors;  // 2s, then 3s, then 5s; level l uses factors[l - 1]
    std::vector<std::int64_t>& rank;
    std::int64_t visits = 0;
    int pos[2] = {0, 0};

    void curve(int level, int ma, int md, int ja, int jd) {
        const int f = factors[static_cast<std::size_t>(level - 1)];
        const Step* steps = f == 2 ? kHilbert : f == 3 ? kPeano : kCinco;
        for (int k = 0; k < f * f; ++k) {
            const Step& s = steps[k];
            const int lma = (ma + s.ma_turn) % 2, lmd = md * s.md_sign;
            int lja = lma, ljd = lmd;
            if (s.joiner == 1) lja = ja, ljd = jd;
            if (s.joiner == 2) lja = (ma + s.ja_turn) % 2, ljd = md * s.jd_sign;
            if (level > 1) {
                curve(level - 1, lma, lmd, lja, ljd);
            } else {
                rank[static_cast<std::size_t>(pos[1]) * ne + pos[0]] = visits++;
                pos[lja] += ljd;
            }
        }
    }
};

// The factors of n into 2, 3 and 5 (in that order); empty when n has others.
std::vector<int> factor235(int n) {
    std::vector<int> f;
    for (int p : {2, 3, 5})
        while (n % p == 0) f.push_back(p), n /= p;
    if (n != 1) f.clear();
    return f;
}

// rank[j * ne + i]: position of square cell (i, j) along HOMME's curve over
// an ne x ne square (its Mesh(i + 1, j + 1)), from (0, 0) to (ne - 1, 0).
// When ne has factors other than 2, 3, 5, HOMME takes the curve of the
// next power of two and numbers each cell as its nearest cell there.
std::vector<std::int64_t> square_curve(int ne) {
    std::vector<std::int64_t> rank(static_cast<std::size_t>(ne) * ne, 0);
    if (ne == 1) return rank;
    std::vector<int> f = factor235(ne);
    if (!f.empty()) {
        SquareWalk w{ne, f, rank};
        w.curve(static_cast<int>(f.size()), 0, 1, 0, 1);
        return rank;
    }
    int ne2 = 1;
    while (ne2 < ne) ne2 *= 2;
    const std::vector<std::int64_t> fine = square_curve(ne2);
    std::vector<std::int64_t> cell_at(fine.size(), -1);  // curve position -> coarse cell
    auto nearest = [&](int i) {                          // HOMME: nint(((i - .5) / ne) * ne2 + .5), 1-based
        const double x = ((i + 0.5) / ne) * ne2 + 0.5;
        const int i2 = static_cast<int>(std::floor(x + 0.5));
        return std::min(std::max(i2, 1), ne2) - 1;
    };
    for (int j = 0; j < ne; ++j)
        for (int i = 0; i < ne; ++i)
            cell_at[static_cast<std::size_t>(fine[static_cast<std::size_t>(nearest(j)) * ne2 + nearest(i)])] =
                static_cast<std::int64_t>(j) * ne + i;
    std::int64_t next = 0;
    for (const std::int64_t c : cell_at)
        if (c >= 0) rank[static_cast<std::size_t>(c)] = next++;
    return rank;
}

}  // namespace

std::vector<std::int64_t> cube_curve(int ne) {
    if (ne < 1) throw Error("cubed sphere: ne must be >= 1");
    const std::int64_t n2 = static_cast<std::int64_t>(ne) * ne;
    const std::vector<std::int64_t> rank = square_curve(ne);
    auto mesh = [&](int i, int j) { return rank[static_cast<std::size_t>(j) * ne + i]; };
    // HOMME (cube_mod's CubeTopology) lays that square curve on the faces in
    // the order 1, 2, 6, 4, 5, 3 of its numbering (here 0, 1, 5, 3, 4, 2:
    // equator, east, north, west of the first, south, opposite), each face
    // turned so that element (i, j) takes the square's cell below.
    constexpr int kOrder[6] = {0, 1, 5, 3, 4, 2};
    std::vector<std::int64_t> out(static_cast<std::size_t>(6 * n2));
    for (int k = 0; k < 6; ++k) {
        const int f = kOrder[k];
        for (int j = 0; j < ne; ++j)
            for (int i = 0; i < ne; ++i) {
                std::int64_t pos;
                switch (f) {
                    case 0:
                    case 1: pos = mesh(i, ne - 1 - j); break;
                    case 5: pos = mesh(ne - 1 - i, ne - 1 - j); break;
                    case 3: pos = mesh(ne - 1 - j, i); break;
                    default: pos = mesh(i, j); break;  // faces 4 (south) and 2 (opposite)
                }
                out[static_cast<std::size_t>(k * n2 + pos)] = f * n2 + static_cast<std::int64_t>(j) * ne + i;
            }
    }
    return out;
}

}  // namespace iok::e3sm
