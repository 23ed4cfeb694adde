#pragma once
// The GCRM geodesic grid as the I/O kernel sees it: how many blocks, cells,
// corners and edges there are for a refinement level and process count, and
// which runs of cells/corners/edges each rank writes.  Pure arithmetic (no
// MPI, no I/O) so that unit tests can check it against the reference.
//
// The icosahedral grid has 10 panels; each panel is split into 4^iota blocks
// of bs x bs cells (bs = 2^(L - iota)), and the 2 poles are extra cells.
// Cells in the file: 0 = north pole, 1 = south pole, then block after block
// in "file position" order, B = bs^2 cells each.  Every cell other than the
// poles owns 2 corners and 3 edges (2(c-2)+k, 3(c-2)+k).
#include <cstdint>
#include <vector>

namespace iok::gcrm {

struct GridParams {
    int level = 0;             // level_max L
    int nprocs = 0;            // P
    int iota = 0;              // sbdmn_iota
    int nsdm_glbl = 0;         // 10 * 4^iota blocks
    int nsdm = 0;              // blocks per rank
    int bs = 0;                // cells along a block side, 2^(L - iota)
    int im = 0, jm = 0;        // bs + 2 (ghost cells on each side)
    int km = 256;              // layers (interfaces = km + 1)
    std::int64_t cells = 0;    // N = 10 * 4^L + 2
    std::int64_t corners = 0;  // 2 (N - 2)
    std::int64_t edges = 0;    // 3 (N - 2)
    std::int64_t block_cells() const { return static_cast<std::int64_t>(bs) * bs; }
    int level_glbl() const { return iota + 1; }  // grid level of the block decomposition
};

// Computes the parameters; throws iok::Error (with a hint listing valid
// process counts / levels) when P is not 2^a * 5^b with b <= 1 dividing
// 10 * 4^9, or when L is outside 3..13 or L < iota + 2.
GridParams grid_params(int level, int nprocs);

// Model time step (seconds) of the reference for a level (3..13).
double model_step_seconds(int level);

// File position of global block g: panel p = g / 4^iota keeps its place,
// the in-panel index q = g % 4^iota has its base-4 digits 2 and 3 swapped
// (the model numbers blocks in a different Z order from the file).
std::int64_t block_file_position(const GridParams& g, std::int64_t global_block);
// First cell (file index) of global block g: 2 + position * B.
std::int64_t block_first_cell(const GridParams& g, std::int64_t global_block);

// Global blocks whose owners write the poles.
std::int64_t north_pole_block(const GridParams& g);  // 4^iota - 1
std::int64_t south_pole_block(const GridParams& g);  // (28 * 4^iota - 1) / 3
int owner_of_block(const GridParams& g, std::int64_t global_block);

struct CellRun {
    std::int64_t first;  // first cell (or corner, edge)
    std::int64_t count;
};

// Runs of cells rank r writes, in request order: the north pole (if owned),
// the south pole (if owned), then one run of B cells per owned block in the
// rank's block order.
std::vector<CellRun> cell_runs(const GridParams& g, int rank);
// Runs of corners (2B per block) and edges (3B per block) rank r writes.
std::vector<CellRun> corner_runs(const GridParams& g, int rank);
std::vector<CellRun> edge_runs(const GridParams& g, int rank);

}  // namespace iok::gcrm
