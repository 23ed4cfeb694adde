#pragma once
// The MPI-IO backend's recorded-calls capability (Capabilities::
// recorded_calls): an application's MPI-IO call sequence on one file
// re-issued call by call.  Each rank replays its sessions in order:
// MPI_File_open on `comm` (a session on all ranks) or MPI_COMM_SELF with the
// recorded access mode and hints (under `hints`, the run's --hint),
// MPI_File_set_view as many times and where the application called it, and
// every access with its flavour (explicit offset, individual pointer,
// nonblocking, split collective; shared and ordered pointers as explicit
// offsets at the recorded offsets), collective where it was, from a
// contiguous or noncontiguous memory datatype as recorded.
#include <mpi.h>

#include <string>

#include "model/recorded_calls.hpp"

namespace iok {

// Throws iok::Error when a call fails (the caller makes it collective).
CallTally replay_mpiio_calls(MPI_Info hints, const std::string& path, MPI_Comm comm, const RecordedCalls& calls,
                             CallData& data);

}  // namespace iok
