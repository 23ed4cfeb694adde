#pragma once
// The noncontig test on any I/O stack other than plain MPI-IO: the same
// decomposition over nvars float variables, as a plan the runner executes.
// Tile 0 (record 0) is written from buffers packed back to back, tile 1
// (record 1) from one buffer with `gap` floats between the variables; both
// are timed apart, then read back and verified.  What the library receives
// is its own put per variable from that memory (the MPI-IO derived buffer
// type and MPI_Pack timing exist on the native path only: noncontig_io.hpp).
#include <string>
#include <vector>

#include "driver/driver.hpp"
#include "kernels/noncontig/noncontig_decomp.hpp"
#include "model/plan.hpp"

namespace iok::noncontig {

struct StackSetup {
    std::string input, output, decomp;
    int nvars = 1, gap = 10;
    bool verify = true, verify_existing = false, quiet = false;
};

// nvars float variables over the decomposition's array, one record per tile.
FilePlan tiles_plan(const Decomposition& dc, const std::vector<Run>& runs, int nvars);

// Collective: the result's params and summary, and (rank 0) the report;
// `tile_seconds`: this rank's write time of each tile.
void report_stack(Driver& d, const StackSetup& s, const Decomposition& dc, const double tile_seconds[2]);

}  // namespace iok::noncontig
