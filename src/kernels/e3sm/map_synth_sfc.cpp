// The space-filling curve over the cubed sphere that orders HOMME's elements
// for partitioning.  HOMME builds it from Hilbert (factor 2), Peano (3) and
// "Cinco" (5) base patterns, so ne must factor into 2, 3 and 5 there.  Here
// each face is traversed by a generalized Hilbert curve (Cervený's "gilbert"
// recursion: halve the longer side, keep the curve continuous), which is the
// Hilbert curve for ne = 2^k and an equally local, continuous curve for any
// other ne; the six face curves are then oriented and chained so that the
// curve steps from the last element of one face to an edge neighbour on the
// next, as HOMME's cube curve does.
#include <array>
#include <cstdlib>

#include "core/error.hpp"
#include "kernels/e3sm/map_synth.hpp"

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

struct Cell {
    int i, j;
};

int sgn(int v) { return (v > 0) - (v < 0); }
int half(int v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }  // floor(v / 2)

// Appends the cells of the w x h rectangle spanned from (x, y) by the major
// direction (ax, ay) and the minor one (bx, by), in curve order.
void gilbert(int x, int y, int ax, int ay, int bx, int by, std::vector<Cell>& out) {
    const int w = std::abs(ax + ay), h = std::abs(bx + by);
    const int dax = sgn(ax), day = sgn(ay), dbx = sgn(bx), dby = sgn(by);
    if (h == 1) {
        for (int k = 0; k < w; ++k, x += dax, y += day) out.push_back({x, y});
        return;
    }
    if (w == 1) {
        for (int k = 0; k < h; ++k, x += dbx, y += dby) out.push_back({x, y});
        return;
    }
    int ax2 = half(ax), ay2 = half(ay), bx2 = half(bx), by2 = half(by);
    const int w2 = std::abs(ax2 + ay2), h2 = std::abs(bx2 + by2);
    if (2 * w > 3 * h) {
        // Long rectangle: two halves along the major direction.
        if ((w2 % 2) && w > 2) ax2 += dax, ay2 += day;  // even halves keep the ends on corners
        gilbert(x, y, ax2, ay2, bx, by, out);
        gilbert(x + ax2, y + ay2, ax - ax2, ay - ay2, bx, by, out);
    } else {
        // Up along the minor direction, across, and back down.
        if ((h2 % 2) && h > 2) bx2 += dbx, by2 += dby;
        gilbert(x, y, bx2, by2, ax2, ay2, out);
        gilbert(x + bx2, y + by2, ax, ay, bx - bx2, by - by2, out);
        gilbert(x + (ax - dax) + (bx2 - dbx), y + (ay - day) + (by2 - dby), -bx2, -by2, -(ax - ax2), -(ay - ay2), out);
    }
}

// Position of face-local element (i, j) on the cube surface, doubled so that
// element centres are integers: edge neighbours on one face are 2 apart in
// one coordinate, neighbours across a cube edge 1 apart in two.
std::array<std::int64_t, 3> centre(int face, int i, int j, int ne) {
    return cube_face_point(face, 2 * i + 1, 2 * j + 1, 2 * ne);
}

bool neighbours(const std::array<std::int64_t, 3>& p, const std::array<std::int64_t, 3>& q) {
    std::int64_t d2 = 0;
    for (int k = 0; k < 3; ++k) d2 += (p[k] - q[k]) * (p[k] - q[k]);
    return d2 == 2 || d2 == 4;
}

// The 8 symmetries of the square applied to a face-local cell.
Cell transform(Cell c, int sym, int ne) {
    int i = c.i, j = c.j;
    if (sym & 4) std::swap(i, j);
    if (sym & 1) i = ne - 1 - i;
    if (sym & 2) j = ne - 1 - j;
    return {i, j};
}

// Chains the six face curves: face k of the chain is path[k], traversed
// with symmetry sym[k].  As HOMME's curve, it starts on the first equatorial
// face in its upper-left element and leaves that face at its upper-right
// corner; the next faces are tried in the order east, north, west (of the
// opposite face), opposite, south (kPref), each oriented so that its first
// element neighbours the previous face's last.  With this order the ne4 /
// 16-process dynamics decomposition equals E3SM's for 10 of the 16 processes
// and has the same number of runs.

constexpr int kPref[6] = {0, 1, 5, 3, 2, 4};
bool chain(int k, const std::vector<Cell>& face_curve, int ne, std::array<int, 6>& path, std::array<int, 6>& sym,
           std::array<bool, 6>& used) {
    if (k == 6) return true;
    for (int fi = 0; fi < 6; ++fi) {
        const int f = kPref[fi];
        if (used[f] || (k == 0 && f != 0)) continue;
        for (int s = 0; s < 8; ++s) {
            if (k == 0 && s != 2) continue;  // (0, ne-1) -> (ne-1, ne-1)
            if (k > 0) {
                const Cell last = transform(face_curve.back(), sym[k - 1], ne);
                const Cell first = transform(face_curve.front(), s, ne);
                if (!neighbours(centre(path[k - 1], last.i, last.j, ne), centre(f, first.i, first.j, ne))) continue;
            }
            path[k] = f;
            sym[k] = s;
            used[f] = true;
            if (chain(k + 1, face_curve, ne, path, sym, used)) return true;
            used[f] = false;
        }
    }
    return false;
}

}  // namespace

std::vector<std::int64_t> cube_curve(int ne) {
    if (ne < 1) throw Error("cubed sphere: ne must be >= 1");
    std::vector<Cell> face;
    face.reserve(static_cast<std::size_t>(ne) * ne);
    gilbert(0, 0, ne, 0, 0, ne, face);
    std::array<int, 6> path{}, sym{};
    std::array<bool, 6> used{};
    if (!chain(0, face, ne, path, sym, used)) throw Error("cubed sphere: no continuous curve over the faces for ne " + std::to_string(ne));
    std::vector<std::int64_t> out;
    out.reserve(6 * face.size());
    const std::int64_t n2 = static_cast<std::int64_t>(ne) * ne;
    for (int k = 0; k < 6; ++k)
        for (const Cell& c : face) {
            const Cell t = transform(c, sym[k], ne);
            out.push_back(path[k] * n2 + static_cast<std::int64_t>(t.j) * ne + t.i);
        }
    return out;
}

}  // namespace iok::e3sm
