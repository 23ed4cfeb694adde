#include "kernels/gcrm/gcrm_grid.hpp"

#include <string>

#include "core/error.hpp"

namespace iok::gcrm {

namespace {
std::int64_t pow4(int e) { return std::int64_t{1} << (2 * e); }
}  // namespace

GridParams grid_params(int level, int nprocs) {
    if (nprocs < 1) throw Error("the process count must be positive");
    if (level < 3 || level > 13)
        throw Error("level_max " + std::to_string(level) + " is outside 3..13",
                    "set level_max in the parameter file to a level the GCRM grid supports (3..13)");
    GridParams g;
    g.level = level;
    g.nprocs = nprocs;
    g.iota = -1;
    for (int i = 0; i <= 9; ++i)
        if ((10 * pow4(i)) % nprocs == 0) {
            g.iota = i;
            break;
        }
    if (g.iota < 0)
        throw Error("GCRM cannot run on " + std::to_string(nprocs) +
                        " processes: the count must divide 10*4^i blocks for some i <= 9",
                    "use 2^a or 5*2^a processes (e.g. 1, 2, 4, 5, 8, 10, 16, 20, 32, 40, 64, 80)");
    if (level < g.iota + 2)
        throw Error("level_max " + std::to_string(level) + " is too coarse for " + std::to_string(nprocs) +
                        " processes (sbdmn_iota " + std::to_string(g.iota) +
                        " needs level_max >= " + std::to_string(g.iota + 2) + ")",
                    "raise level_max or run on fewer processes");
    g.nsdm_glbl = static_cast<int>(10 * pow4(g.iota));
    g.nsdm = g.nsdm_glbl / nprocs;
    g.bs = 1 << (level - g.iota);
    g.im = g.jm = g.bs + 2;
    g.cells = 10 * pow4(level) + 2;
    g.corners = 2 * (g.cells - 2);
    g.edges = 3 * (g.cells - 2);
    return g;
}

double model_step_seconds(int level) {
    static const double dt[] = {900, 120, 60, 30, 15, 8, 4, 2, 1, 0.5, 3};
    if (level < 3 || level > 13) throw Error("no model time step for level " + std::to_string(level));
    return dt[level - 3];
}

std::int64_t block_file_position(const GridParams& g, std::int64_t global_block) {
    const std::int64_t per_panel = pow4(g.iota);
    const std::int64_t panel = global_block / per_panel;
    std::int64_t q = global_block % per_panel, swapped = 0;
    for (int d = 0; d < g.iota; ++d) {
        std::int64_t digit = (q >> (2 * d)) & 3;
        if (digit == 2)
            digit = 3;
        else if (digit == 3)
            digit = 2;
        swapped |= digit << (2 * d);
    }
    return panel * per_panel + swapped;
}

std::int64_t block_first_cell(const GridParams& g, std::int64_t global_block) {
    return 2 + block_file_position(g, global_block) * g.block_cells();
}

std::int64_t north_pole_block(const GridParams& g) { return pow4(g.iota) - 1; }
std::int64_t south_pole_block(const GridParams& g) { return (28 * pow4(g.iota) - 1) / 3; }
int owner_of_block(const GridParams& g, std::int64_t global_block) { return static_cast<int>(global_block / g.nsdm); }

std::vector<CellRun> cell_runs(const GridParams& g, int rank) {
    std::vector<CellRun> runs;
    if (owner_of_block(g, north_pole_block(g)) == rank) runs.push_back({0, 1});
    if (owner_of_block(g, south_pole_block(g)) == rank) runs.push_back({1, 1});
    for (int n = 0; n < g.nsdm; ++n)
        runs.push_back({block_first_cell(g, static_cast<std::int64_t>(rank) * g.nsdm + n), g.block_cells()});
    return runs;
}

namespace {
// Corners/edges of the non-pole cells: k per cell, block after block.
std::vector<CellRun> per_cell_runs(const GridParams& g, int rank, int k) {
    std::vector<CellRun> runs;
    for (int n = 0; n < g.nsdm; ++n) {
        const std::int64_t c = block_first_cell(g, static_cast<std::int64_t>(rank) * g.nsdm + n);
        runs.push_back({k * (c - 2), k * g.block_cells()});
    }
    return runs;
}
}  // namespace

std::vector<CellRun> corner_runs(const GridParams& g, int rank) { return per_cell_runs(g, rank, 2); }
std::vector<CellRun> edge_runs(const GridParams& g, int rank) { return per_cell_runs(g, rank, 3); }

}  // namespace iok::gcrm
