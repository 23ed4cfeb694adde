// G case: an MPAS-like ocean mesh and its block decomposition (see
// map_synth.hpp).  The base mesh is the spherical Voronoi tessellation dual
// to a subdivided icosahedron, as MPAS's quasi-uniform meshes are: its cells
// are the triangulation's points (10 n^2 + 2, twelve pentagons), its edges
// the triangle sides, its vertices the triangles.  Land is culled as MPAS's
// cell culler does: cells of the continents go, edges and vertices touching
// any ocean cell stay.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

#include "core/error.hpp"
#include "formats/map_synth.hpp"

namespace iok::e3sm {

namespace {

using Vec = std::array<double, 3>;

Vec normalized(Vec v) {
    const double r = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    return {v[0] / r, v[1] / r, v[2] / r};
}

double angle(const Vec& a, const Vec& b) {
    const double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    return std::acos(std::max(-1.0, std::min(1.0, d)));
}

struct Mesh {
    std::vector<Vec> cells;                          // positions, in generation order
    std::vector<std::array<std::int64_t, 3>> tris;   // MPAS vertices: 3 cells each
    std::vector<std::array<std::int64_t, 2>> edges;  // MPAS edges: 2 cells each, in generation order
};

// Icosahedron: 12 corners, 20 faces.
const double kPhi = (1.0 + std::sqrt(5.0)) / 2.0;
const Vec kCorners[12] = {{-1, kPhi, 0},  {1, kPhi, 0},  {-1, -kPhi, 0}, {1, -kPhi, 0}, {0, -1, kPhi},  {0, 1, kPhi},
                          {0, -1, -kPhi}, {0, 1, -kPhi}, {kPhi, 0, -1},  {kPhi, 0, 1},  {-kPhi, 0, -1}, {-kPhi, 0, 1}};
const int kFaces[20][3] = {{0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                           {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                           {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};

// Frequency-n subdivision.  A point is identified exactly by its weights on
// the icosahedron corners (shared edge points get the same key from both faces).
Mesh icosahedral_mesh(int n) {
    Mesh m;
    std::map<std::array<std::int64_t, 6>, std::int64_t> ids;
    std::map<std::pair<std::int64_t, std::int64_t>, bool> seen_edge;
    auto point = [&](const int* f, int i, int j) {
        std::array<std::pair<int, int>, 3> w = {{{f[0], n - i - j}, {f[1], i}, {f[2], j}}};
        std::sort(w.begin(), w.end());
        std::array<std::int64_t, 6> key{};
        for (int k = 0; k < 3; ++k) {
            key[2 * k] = w[k].second ? w[k].first : -1;
            key[2 * k + 1] = w[k].second;
        }
        auto [it, fresh] = ids.try_emplace(key, static_cast<std::int64_t>(m.cells.size()));
        if (fresh) {
            Vec v{};
            for (int k = 0; k < 3; ++k)
                for (int c = 0; c < 3; ++c) v[c] += kCorners[w[k].first][c] * w[k].second;
            m.cells.push_back(normalized(v));
        }
        return it->second;
    };
    auto tri = [&](std::int64_t a, std::int64_t b, std::int64_t c) {
        m.tris.push_back({a, b, c});
        const std::int64_t s[3][2] = {{a, b}, {b, c}, {c, a}};
        for (const auto& e : s) {
            auto key = std::make_pair(std::min(e[0], e[1]), std::max(e[0], e[1]));
            if (seen_edge.emplace(key, true).second) m.edges.push_back({key.first, key.second});
        }
    };
    for (const auto& f : kFaces)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i + j < n; ++i) {
                tri(point(f, i, j), point(f, i + 1, j), point(f, i, j + 1));
                if (i + j < n - 1) tri(point(f, i + 1, j), point(f, i + 1, j + 1), point(f, i, j + 1));
            }
    return m;
}

// Recursive coordinate bisection of `items` (indices into pos) into `parts`
// blocks of equal size (+-1), appended to `blocks` in order.
void bisect(std::vector<std::int64_t> items, int parts, const std::vector<Vec>& pos,
            std::vector<std::vector<std::int64_t>>& blocks) {
    if (parts == 1) {
        std::sort(items.begin(), items.end());
        blocks.push_back(std::move(items));
        return;
    }
    int axis = 0;
    double best = -1;
    for (int a = 0; a < 3; ++a) {
        double lo = 2, hi = -2;
        for (auto i : items) lo = std::min(lo, pos[i][a]), hi = std::max(hi, pos[i][a]);
        if (hi - lo > best) best = hi - lo, axis = a;
    }
    std::stable_sort(items.begin(), items.end(),
                     [&](std::int64_t x, std::int64_t y) { return pos[x][axis] < pos[y][axis]; });
    const int left = parts / 2;
    const auto cut =
        static_cast<std::ptrdiff_t>(items.size() * static_cast<std::size_t>(left) / static_cast<std::size_t>(parts));
    bisect(std::vector<std::int64_t>(items.begin(), items.begin() + cut), left, pos, blocks);
    bisect(std::vector<std::int64_t>(items.begin() + cut, items.end()), parts - left, pos, blocks);
}

}  // namespace

DecompMap synth_g_map(const GMapOptions& opt, std::vector<RawOffsets>* raw) {
    if (opt.ncells < 1) throw Error("G map: --ncells must be >= 1");
    if (opt.nprocs < 1 || opt.nprocs > opt.ncells)
        throw Error(
            "G map: " + std::to_string(opt.nprocs) + " processes for " + std::to_string(opt.ncells) + " ocean cells",
            "every process needs at least one cell; choose fewer processes or more --ncells");
    if (opt.nlev < 1) throw Error("G map: --nlev must be >= 1");
    // Base mesh about 1/0.7 times the ocean, as the Earth is 70% ocean.
    int n = 1;
    while (10.0 * n * n + 2 < static_cast<double>(opt.ncells) / 0.7) ++n;
    const Mesh mesh = icosahedral_mesh(n);
    const auto ncell_all = static_cast<std::int64_t>(mesh.cells.size());
    if (static_cast<double>(3 * ncell_all) * static_cast<double>(opt.nlev + 1) >
        std::numeric_limits<std::int32_t>::max())
        throw Error("G map: " + std::to_string(opt.ncells) + " cells x " + std::to_string(opt.nlev) +
                        " levels exceed the NC_INT offsets of a map",
                    "use fewer cells or levels");

    // Three continents at seeded places; the highest "elevation" is land.
    std::vector<Vec> centres;
    std::vector<double> radius;
    for (int k = 0; k < 3; ++k) {
        const std::uint64_t h = mix64(opt.seed * 97 + static_cast<std::uint64_t>(k));
        const double u = static_cast<double>(h & 0xFFFFFFFF) / 4294967296.0;
        const double v = static_cast<double>(h >> 32) / 4294967296.0;
        const double z = 2 * u - 1, phi = 2 * M_PI * v, r = std::sqrt(1 - z * z);
        centres.push_back({r * std::cos(phi), r * std::sin(phi), z});
        radius.push_back(0.6 + 0.4 * static_cast<double>(mix64(h) % 1000) / 1000.0);
    }
    std::vector<std::pair<double, std::int64_t>> elev;
    for (std::int64_t c = 0; c < ncell_all; ++c) {
        double e = -1e9;
        for (int k = 0; k < 3; ++k) e = std::max(e, 1 - angle(mesh.cells[c], centres[k]) / radius[k]);
        elev.push_back({e, c});
    }
    std::sort(elev.begin(), elev.end(), [](const auto& a, const auto& b) {
        return a.first > b.first || (a.first == b.first && a.second < b.second);
    });
    std::vector<bool> ocean(static_cast<std::size_t>(ncell_all), true);
    for (std::int64_t k = 0; k < ncell_all - opt.ncells; ++k) ocean[elev[k].second] = false;

    // Culled numbering: ocean cells, then edges and vertices touching one.
    std::vector<std::int64_t> cell_id(static_cast<std::size_t>(ncell_all), -1);
    std::vector<Vec> pos;
    for (std::int64_t c = 0; c < ncell_all; ++c)
        if (ocean[c]) cell_id[c] = static_cast<std::int64_t>(pos.size()), pos.push_back(mesh.cells[c]);
    const auto ncells = static_cast<std::int64_t>(pos.size());

    // Compact blocks, one per process.
    std::vector<std::int64_t> all(static_cast<std::size_t>(ncells));
    for (std::int64_t c = 0; c < ncells; ++c) all[c] = c;
    std::vector<std::vector<std::int64_t>> cells_of;
    bisect(all, opt.nprocs, pos, cells_of);
    std::vector<int> block(static_cast<std::size_t>(ncells));
    for (int p = 0; p < opt.nprocs; ++p)
        for (auto c : cells_of[p]) block[c] = p;

    // An edge or vertex belongs to the block of its first ocean cell.
    auto first_ocean_owner = [&](const std::int64_t* cs, int k) {
        std::int64_t best = -1;
        for (int i = 0; i < k; ++i) {
            const std::int64_t id = cell_id[cs[i]];
            if (id >= 0 && (best < 0 || id < best)) best = id;
        }
        return best < 0 ? -1 : block[best];
    };
    std::vector<std::vector<std::int64_t>> edges_of(opt.nprocs), verts_of(opt.nprocs);
    std::int64_t nedges = 0, nverts = 0;
    for (const auto& e : mesh.edges) {
        const int p = first_ocean_owner(e.data(), 2);
        if (p >= 0) edges_of[p].push_back(nedges++);
    }
    for (const auto& t : mesh.tris) {
        const int p = first_ocean_owner(t.data(), 3);
        if (p >= 0) verts_of[p].push_back(nverts++);
    }

    DecompMap m;
    m.path = "generated G map";
    m.nprocs = opt.nprocs;
    m.has_fill_starts = true;
    if (raw) raw->assign(6, RawOffsets{});
    auto rk = [&](int k) { return raw ? &(*raw)[static_cast<std::size_t>(k)] : nullptr; };
    const std::int64_t L = opt.nlev;
    m.decomps.push_back(decomp_from_elements("D1", {ncells}, cells_of, nullptr, rk(0)));
    m.decomps.push_back(decomp_from_elements("D2", {nedges}, edges_of, nullptr, rk(1)));
    m.decomps.push_back(
        decomp_from_elements("D3", {ncells, L}, over_levels(cells_of, ncells, L, false), nullptr, rk(2)));
    m.decomps.push_back(
        decomp_from_elements("D4", {nedges, L}, over_levels(edges_of, nedges, L, false), nullptr, rk(3)));
    m.decomps.push_back(
        decomp_from_elements("D5", {nverts, L}, over_levels(verts_of, nverts, L, false), nullptr, rk(4)));
    m.decomps.push_back(
        decomp_from_elements("D6", {ncells, L + 1}, over_levels(cells_of, ncells, L + 1, false), nullptr, rk(5)));
    validate_decomp_map(m);
    return m;
}

}  // namespace iok::e3sm
