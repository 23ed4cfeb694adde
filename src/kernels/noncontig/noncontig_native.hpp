#pragma once
// The noncontig test as the mpi_io_test/noncontig_buf reference runs it: with
// -a mpiio -x canonical (the default) the kernel calls MPI-IO itself
// (noncontig_io.hpp), so the derived buffer type and the MPI_Pack timing are
// what is measured; every other stack goes through the runner
// (noncontig_stack.hpp).  This path owns its options' meaning end to end:
// outputs, hints, the reduction and report (noncontig_report.hpp), the
// result and the verdict.
#include <mpi.h>

#include <string>
#include <vector>

namespace iok::noncontig {

// The kernel's command line (the reference's [-q] [-n nvars] [-o file] input_file and more).
struct NativeSetup {
    std::string input, output = "testfile", decomp = "D1", json;
    int nvars = 1, gap = 10;
    bool quiet = false, keep = false, overwrite = false, independent = false, verify = true;
    bool verify_existing = false;  // write nothing: read -o back and verify both tiles
    std::vector<std::string> hints;  // --hint KEY=VALUE
    bool no_size_check = false;      // --no-size-check
};

// Collective; failures become iok::Error on every rank.  `argv` goes to the manifest.
void run_native(MPI_Comm comm, NativeSetup s, const std::vector<std::string>& argv);

}  // namespace iok::noncontig
