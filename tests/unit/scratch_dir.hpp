#pragma once
// Where a unit test puts the files it makes: a fresh directory for the
// running test, made on first use and removed with everything in it when the
// test ends (a listener in main.cpp), so no test sees another's files and
// none is left behind, whether the test passes, fails or throws.
//
// With $IOK_TEST_OUTDIR set, files go to that directory instead and stay:
// the integration tests (test_backends_*.py) inspect them with the
// libraries' own tools.
#include <mpi.h>

#include <string>

namespace iok_test {

// The running test's directory.  Collective over `comm` the first time a
// test calls it: rank 0 makes the directory and tells the others its name.
std::string scratch_dir(MPI_Comm comm = MPI_COMM_SELF);

// `name` inside scratch_dir(comm).
std::string scratch_path(const std::string& name, MPI_Comm comm = MPI_COMM_SELF);

// Removes the running test's directory, if it made one (called by main.cpp
// at the end of every test; collective over the communicator that made it).
void remove_scratch_dir();

}  // namespace iok_test
