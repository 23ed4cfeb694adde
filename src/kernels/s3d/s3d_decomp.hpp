#pragma once
// S3D's block-block-block decomposition: the global X x Y x Z grid is cut
// into npx x npy x npz equal blocks (no ghost cells), one per rank, with X
// varying fastest over the rank number, exactly as the S3D-IO reference does.
#include <cstdint>

namespace iok::s3d {

struct Grid {
    std::int64_t nx_g = 0, ny_g = 0, nz_g = 0;  // global grid points
    int npx = 0, npy = 0, npz = 0;              // process grid

    std::uint64_t points() const {
        return static_cast<std::uint64_t>(nx_g) * static_cast<std::uint64_t>(ny_g) * static_cast<std::uint64_t>(nz_g);
    }
    int processes() const { return npx * npy * npz; }
};

// One rank's block: its coordinates in the process grid, the local sizes and
// the global index of its first point along each axis.
struct Block {
    int px = 0, py = 0, pz = 0;
    std::int64_t nx = 0, ny = 0, nz = 0;
    std::int64_t x0 = 0, y0 = 0, z0 = 0;
};

// Throws iok::Error with the reference's checks: positive sizes, every
// n?_g divisible by np?, npx*npy*npz equal to the number of processes.
void validate(const Grid& g, int nprocs);

// Block of `rank` (0 <= rank < g.processes()); call after validate().
Block block_of(const Grid& g, int rank);

}  // namespace iok::s3d
