#pragma once
// Where VPIC's particles live in the file and which of them each rank writes
// or reads.  Pure arithmetic (no MPI, no library): unit-tested element by
// element.
//
// Write (P writer ranks, n_r particles on rank r):
//   1-D CONTIG/INTERLEAVED  shape [sum n_r]; rank r: one block at the prefix sum
//   1-D STRIDED             shape [P * DIM_1]; rank r owns [r DIM_1, (r+1) DIM_1)
//                           and writes BLOCK_CNT blocks of BLOCK_SIZE, STRIDE
//                           apart, from its start (h5bench's geometry; gaps stay
//                           unwritten)
//   2-D                     shape [DIM_1 * P, DIM_2]; rank r: rows [r DIM_1, (r+1) DIM_1)
//   3-D                     shape [DIM_1 * P, DIM_2, DIM_3]; slab along dim 0
// Read (Q reader ranks): FULL/PARTIAL/STRIDED work on each reader's partition
// (the writer's part when Q == P, else dim 0 split evenly); the 2-D patterns
// LDC/RDC/PRL/CS are sets of rectangles of the whole array whose rows are
// split evenly over the readers, so every rank reads a share.
#include <cstdint>
#include <vector>

#include "kernels/vpic/vpic_config.hpp"
#include "model/selection.hpp"

namespace iok::vpic {

// Per-rank particle counts drawn from N(mean, stdev), rounded, at least 0.
// Each rank's count depends on (seed, rank) only: any process can compute
// every count, and the same seed gives the same counts everywhere.
std::vector<std::uint64_t> normal_counts(std::uint64_t mean, double stdev, std::uint64_t seed, int ranks);

struct Geometry {
    int num_dims = 1;
    int writers = 1;
    std::vector<std::uint64_t> shape;    // the dataset's shape (no time step axis)
    std::vector<std::uint64_t> counts;   // particles written by each writer rank
    std::vector<std::uint64_t> offsets;  // first dim-0 index of each writer's part
    std::uint64_t part_rows = 0;         // 2-D/3-D: rows per writer (DIM_1)
    bool strided = false;                // FILE_PATTERN=STRIDED
    std::uint64_t total_particles() const;
};

// File geometry of a run of `cfg` with `writers` ranks (throws iok::Error).
Geometry make_geometry(const Config& cfg, int writers);

// What writer rank `rank` writes (its part of every one of the 8 variables).
Selection write_selection(const Geometry& g, const Config& cfg, int rank);

// A rectangle of the 2-D array: rows [r0, r0 + nr), columns [c0, c0 + nc).
struct Box {
    std::uint64_t r0, c0, nr, nc;
};
// The rectangles of a 2-D read pattern over an R x C array, exactly as
// defined (disjoint); throws iok::Error when the sizes do not fit.
std::vector<Box> pattern_boxes(const Config& cfg, std::uint64_t rows, std::uint64_t cols);

// What reader rank `rank` of `readers` reads under cfg.read (throws
// iok::Error when the pattern does not fit the file).
Selection read_selection(const Geometry& g, const Config& cfg, int rank, int readers);

}  // namespace iok::vpic

namespace iok::vpic {
// FILE_PER_PROC: the geometry of writer `rank`'s own file, which holds only
// its particles (written by it alone).
Geometry own_file_geometry(const Config& cfg, int writers, int rank);
}  // namespace iok::vpic
