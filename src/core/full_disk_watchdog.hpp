#pragma once
// Some libraries do not return a full file system's write error on every
// rank: the ranks that missed it stay blocked inside a collective call
// (PnetCDF's wait_all, ADIOS2's shared-memory aggregation) and the job would
// hang where no agreement (collective_step) can reach it.  While outputs are
// open, a background thread on every rank checks their file systems once a
// second; when one has stayed full for half of IOK_FAILURE_WAIT_SECONDS
// (default 20: 10 s, so it speaks before a rank that gives up on its call),
// rank 0 prints one message and removes the run's outputs, and every rank
// exits with status 1, which ends the job.  The thread makes no MPI calls.
#include <string>

namespace iok {

void watch_output(const std::string& path);  // start watching (collective-free)
void unwatch_output(const std::string& path);

}  // namespace iok
