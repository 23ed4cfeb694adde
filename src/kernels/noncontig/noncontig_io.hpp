#pragma once
// The MPI-IO part of the noncontig test (this kernel IS the MPI-IO
// benchmark, so it calls MPI-IO itself, here and only here):
//   filetype  hindexed over nvars x runs blocks of floats, block (v, j) at
//             byte (off_j + v*A)*4, resized to extent nvars*A*4 -- what
//             PnetCDF builds when it flattens a varn request across variables;
//   buftype   hindexed of nvars blocks of nelems floats with a gap of
//             `gap` floats between them;
//   timed     MPI_Pack of the noncontiguous buffer, then write_all with a
//             contiguous buffer (tile 0), then write_all with the
//             noncontiguous buffer (the file pointer moved one filetype: tile 1).
// Both tiles are then read back and compared with the pattern.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model/selection.hpp"

namespace iok::noncontig {

struct IoSetup {
    std::string path;
    int nvars = 1;
    std::int64_t array_size = 0;  // elements of one variable
    int gap = 10;                 // floats between variables in the noncontiguous buffer
    bool collective = true;
    MPI_Info hints = MPI_INFO_NULL;
    bool write = true;            // false: only read an existing file back and verify it
};

struct IoResult {
    // this rank's seconds
    double pack_s = 0, contig_s = 0, noncontig_s = 0;
    std::string layer;             // "ROMIO" / "OMPIO"
    MPI_Info hints_used = MPI_INFO_NULL;  // caller frees
    std::uint64_t file_size = 0;   // after the writes
    std::uint64_t mismatches = 0;  // this rank, both tiles
    std::string first_mismatch;    // "tile 1, variable 3, element 120: expected ..., read ..."
    bool pack_ok = true;           // MPI_Pack produced the expected bytes
};

// Value of element `element` of variable v in tile t (exact in float).
float tile_value(int var, std::int64_t element, int tile);

// Writes both tiles (timed), then reads them back and verifies when `verify`.
// Collective; throws iok::Error (every rank alike, through collective_step).
IoResult run_noncontig_io(MPI_Comm comm, const IoSetup& s, const std::vector<Run>& runs, bool verify);

}  // namespace iok::noncontig
