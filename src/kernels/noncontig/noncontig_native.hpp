#pragma once
// The noncontig test as the mpi_io_test/noncontig_buf reference runs it: with
// -a mpiio -x canonical (the default) the kernel's own step calls MPI-IO
// (noncontig_io.hpp), so the derived buffer type and the MPI_Pack timing are
// what is measured; every other stack goes through the runner
// (noncontig_stack.hpp).  The figures of this path are its own: the
// reduction and report (noncontig_report.hpp) and the checks only it has
// (MPI_Pack's bytes, the file's size).
#include <mpi.h>

#include <string>
#include <vector>

#include "driver/driver.hpp"
#include "kernels/noncontig/noncontig_decomp.hpp"
#include "kernels/noncontig/noncontig_io.hpp"

namespace iok::noncontig {

// The kernel's command line (the reference's [-q] [-n nvars] [-o file] input_file and more).
struct NativeSetup {
    std::string input, output = "testfile", decomp = "D1";
    int nvars = 1, gap = 10;
    bool quiet = false, independent = false, verify = true;
    bool verify_existing = false;  // write nothing: read -o back and verify both tiles
};

// The reference's hints, under the user's --hint: no data sieving on
// writes, collective buffering always, and (collective runs) no
// independent I/O at all.
void native_default_hints(Driver& d, bool independent);

// Collective: both tiles written (timed) and, with `s.verify`, read back.
IoResult run_native(MPI_Comm comm, const NativeSetup& s, const Decomposition& dc, MPI_Info hints);

// Collective: the result's params and summary, the report (rank 0), then
// the verdicts only this path has, as one error on every rank.
void report_native(Driver& d, const NativeSetup& s, const Decomposition& dc, const IoResult& r);

}  // namespace iok::noncontig
