#pragma once
// What the mpi_io_test/noncontig_buf reference times besides its two writes:
// MPI_Pack of the noncontiguous user buffer (nvars blocks of this rank's
// elements, `gap` floats apart) into a contiguous one.  Memory only: the
// tiles themselves go through the I/O stack like every kernel's data.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "model/selection.hpp"

namespace iok::noncontig {

// Value of element `element` of variable v in tile t (exact in float): the
// runner's pattern of the variable "noncontig_var<v>", record t.
float tile_value(int var, std::int64_t element, int tile);

struct PackProbe {
    double seconds = 0;  // this rank, from a barrier
    bool ok = true;      // the packed bytes are the tile-1 values in order
};

// Collective over `comm` (the barrier before the timed MPI_Pack).  Throws
// iok::Error when a count exceeds what MPI can express.
PackProbe pack_probe(MPI_Comm comm, const std::vector<Run>& runs, int nvars, int gap);

}  // namespace iok::noncontig
