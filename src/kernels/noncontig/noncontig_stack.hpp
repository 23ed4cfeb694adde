#pragma once
// The noncontig test's plan, and its report on any stack other than the
// reference's own (-a mpiio -x canonical: noncontig_native.hpp): the same
// decomposition over nvars float variables, one record per tile.  Tile 0
// (record 0) is written from buffers packed back to back, tile 1 (record 1)
// from one buffer with `gap` floats between the variables; both are timed
// apart, then read back and verified.  What a library receives is its own
// put per variable from that memory.
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

// nvars float variables "noncontig_var<v>" (their pattern is tile_value's)
// over the decomposition's array, one record per tile.
FilePlan tiles_plan(const Decomposition& dc, const std::vector<Run>& runs, int nvars);

// Collective: the result's params and summary, and (rank 0) the report;
// `tile_seconds`: this rank's write time of each tile.
void report_stack(Driver& d, const StackSetup& s, const Decomposition& dc, const double tile_seconds[2]);

}  // namespace iok::noncontig
