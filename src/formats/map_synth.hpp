#pragma once
// Generated E3SM decomposition maps at any scale, decomposed the way E3SM
// decomposes its components, for benchmarks and tests without the real maps.
//
// F (atmosphere, map_synth_f.cpp): the physics columns of a cubed-sphere
//   spectral-element grid ne x np4.  Elements are numbered face by face, row
//   by row (HOMME's GlobalID); each unique GLL point belongs to the first
//   element (in that order) that touches it, and columns are numbered element
//   after element, so ncol = 6 ne^2 9 + 2.  Elements are partitioned over the
//   processes in equal contiguous pieces of HOMME's space-filling curve over
//   the six faces (map_synth_sfc.cpp).  At ne4 / 16 processes this is
//   E3SM's own map_f_case_16p.nc, array for array.
//     D1 (ncol):       the dynamics decomposition: each process's elements' columns
//     D2 (ncol):       the physics decomposition: columns wrap-mapped to chunks
//                      of at most pcols columns (chunk = column mod nchunks,
//                      nchunks a multiple of nprocs), each chunk given to the
//                      process owning most of its columns in D1 among those
//                      with room, ties to the owner of its first column
//                      (phys_loadbalance=2); listed chunk by chunk
//     D3 (lev, ncol):  D2's columns at every level
// G (ocean, map_synth_g.cpp): an MPAS-like spherical Voronoi mesh (the dual
//   of a subdivided icosahedron) with land culled to the requested number of
//   ocean cells; cells partitioned into compact blocks (recursive coordinate
//   bisection, as METIS would make them), edges and vertices owned by the
//   block of their first cell.  D1 cells, D2 edges, D3 cells x levels, D4
//   edges x levels, D5 vertices x levels, D6 cells x (levels + 1).
// I (land, map_synth_i.cpp): a lat x lon grid of which only land cells are
//   computed: land cells (row-major) are dealt to the processes round-robin
//   in segments of `segment` cells, as ELM's decomposition does; the ocean
//   cells are fill runs split evenly over the processes.  D1 (lat, lon), D2
//   (levgrnd = 15, lat, lon), D3 (levlak = 10, ...), D4 (ltype = 9, ...), D5
//   (natpft = 17, ...).
//
// Everything is deterministic: the same options give the same map on every
// platform.  Library-free (no I/O): write the result with write_decomp_map.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/decomp_map.hpp"
#include "formats/map_writer.hpp"

namespace iok::e3sm {

// ---- F: cubed sphere --------------------------------------------------------
struct FMapOptions {
    int ne = 4;       // elements along a cube-face edge
    int nprocs = 16;  // processes of the imagined run (decomp_nprocs)
    std::int64_t nlev = 72;
    int pcols = 16;  // physics chunk size (E3SM's default pcols)
};
DecompMap synth_f_map(const FMapOptions& opt, std::vector<RawOffsets>* raw = nullptr);

// 6 ne^2 (np-1)^2 + 2 unique GLL points of np = 4.
std::int64_t cubed_sphere_ncol(int ne);

// Element GlobalIDs (0-based: face * ne^2 + row * ne + column) in the order
// of HOMME's space-filling curve over the cube; when ne factors into 2, 3
// and 5, consecutive entries share an edge, except where HOMME's face order
// jumps (into its 5th and 6th faces).
std::vector<std::int64_t> cube_curve(int ne);

// Point (a, b), 0 <= a, b <= s, of cube face `face` on the surface of the
// cube [0, s]^3: the one parametrization of the faces that the curve (which
// faces touch) and the column numbering (which GLL points are shared) use.
std::array<std::int64_t, 3> cube_face_point(int face, std::int64_t a, std::int64_t b, std::int64_t s);

// The columns (0-based) each element owns, by GlobalID.
std::vector<std::vector<std::int64_t>> cube_element_columns(int ne);

// ---- G: MPAS-like ocean mesh ------------------------------------------------
struct GMapOptions {
    std::int64_t ncells = 285;  // ocean cells
    int nprocs = 16;
    std::int64_t nlev = 100;  // nVertLevels (D6 has nlev + 1)
    std::uint64_t seed = 1;   // placement of the continents
};
DecompMap synth_g_map(const GMapOptions& opt, std::vector<RawOffsets>* raw = nullptr);

// ---- I: land grid -----------------------------------------------------------
struct IMapOptions {
    std::int64_t nlat = 96, nlon = 144;
    int nprocs = 16;
    int segment = 9;         // consecutive land cells per round-robin deal
    std::uint64_t seed = 1;  // irregularity of the coasts
};
DecompMap synth_i_map(const IMapOptions& opt, std::vector<RawOffsets>* raw = nullptr);

// The land mask used by synth_i_map (row-major, nlat x nlon, south first):
// continents of an Earth-like layout with irregular coasts, about 40% land.
std::vector<bool> land_mask(std::int64_t nlat, std::int64_t nlon, std::uint64_t seed = 1);

// ---- building blocks shared by the generators ---------------------------------
// A decomposition from per-process element lists (0-based, in the process's
// file order): consecutive elements merge into runs that never cross a row
// of the fastest dimension; `fill` (optional, per process) are elements no
// process owns, appended as fill runs.  With `raw`, the real offsets are kept
// (1-based) for Dk.raw_offsets.
Decomp decomp_from_elements(const std::string& name, const std::vector<std::int64_t>& dims_c,
                            const std::vector<std::vector<std::int64_t>>& real,
                            const std::vector<std::vector<std::int64_t>>* fill = nullptr, RawOffsets* raw = nullptr);

// Elements of a 1-D per-process list repeated over `nlev` slower levels:
// level-major within each process when `level_major`, else element-major
// (each element's levels together), as E3SM lists them.
std::vector<std::vector<std::int64_t>> over_levels(const std::vector<std::vector<std::int64_t>>& per_proc,
                                                   std::int64_t nelem, std::int64_t nlev, bool level_major);

// A deterministic 64-bit mixer (splitmix64), identical on every platform.
std::uint64_t mix64(std::uint64_t x);

// ---- the earlier crude pattern (tiny maps of any ncol) --------------------------
// Columns in small "elements" of consecutive indices scattered over the
// processes by a seeded permutation; each process lists its columns
// element-interleaved.  Kept for tiny test maps (any ncol, e.g. 64 columns on
// 4 processes) that no cubed sphere has.
struct SynthFMapOptions {
    std::int64_t ncol = 866;
    std::int64_t nlev = 72;
    int nprocs = 16;
    int element_size = 4;    // consecutive columns per element
    std::uint64_t seed = 1;  // permutation of the elements
};
DecompMap synthetic_f_map(const SynthFMapOptions& opt, std::vector<RawOffsets>* raw = nullptr);

}  // namespace iok::e3sm
