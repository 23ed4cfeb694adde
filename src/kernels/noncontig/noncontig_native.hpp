#pragma once
// The noncontig test as the mpi_io_test/noncontig_buf reference runs it
// (-a mpiio -x canonical, the default): the tiles go through the MPI-IO
// backend with one collective call per tile over all the variables
// (mpiio.aggregate=1) -- from one contiguous buffer (tile 0) and from one
// buffer with gaps between the variables, which the backend passes as a
// derived memory type (tile 1) -- under the reference's hints, and the
// report is the reference's (request statistics per map process, write
// times contiguous vs noncontiguous, MPI_Pack time).  Every other stack
// reports through noncontig_stack.hpp.
#include <mpi.h>

#include <cstdint>
#include <string>

#include "driver/driver.hpp"
#include "kernels/noncontig/noncontig_decomp.hpp"
#include "runner/runner.hpp"

namespace iok::noncontig {

// The kernel's command line (the reference's [-q] [-n nvars] [-o file] input_file and more).
struct NativeSetup {
    std::string input, output = "testfile", decomp = "D1";
    std::string map_processes = "blocks";  // or "own": rank r writes map process r, as the reference
    int nvars = 1, gap = 10;
    bool quiet = false, independent = false, verify = true;
    bool verify_existing = false;  // write nothing: read -o back and verify both tiles
};

// What the run measured (times: this rank's; the rest: every rank alike).
struct Measured {
    double pack_s = 0, contig_s = 0, noncontig_s = 0;
    bool pack_ok = true;
    std::string layer;                    // "ROMIO" / "OMPIO"
    MPI_Info hints_used = MPI_INFO_NULL;  // owned by the kernel
    std::uint64_t file_size = 0;          // after the writes
    std::uint64_t mismatches = 0;         // all ranks, both tiles
    std::string first;                    // the first failing rank's first, "... on rank N"
};

// The reference's hints, under the user's --hint, and the backend's one
// call per tile: no data sieving on writes, collective buffering always,
// and (collective runs) no independent I/O at all.
void native_defaults(Driver& d, bool independent);

// The first mismatch in the reference's words: "tile 1, variable 3,
// element 120 (file byte 4,800): expected ..., read ... on rank 2".
std::string describe_mismatch(const MismatchAt& at, int nvars, std::int64_t array_size);

// Collective: the result's params and summary, the report (rank 0), then
// the verdicts only this path has, as one error on every rank.
void report_native(Driver& d, const NativeSetup& s, const Decomposition& dc, const Measured& m);

}  // namespace iok::noncontig
