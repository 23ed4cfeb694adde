#pragma once
// Ctrl-C or a batch system's time limit: the launcher (mpiexec, srun) sends
// SIGINT/SIGTERM to every rank.  Without a handler the ranks die at once and
// the half-written outputs stay behind, indistinguishable by name from a
// finished run's.  With it, every rank knows the paths this run created (the
// claims are collective) and removes them — only those: inputs and files that
// existed before are never in the list — then exits with status 128 + signal.
// Every rank, not rank 0 alone: Open MPI's prterun sends SIGTERM to all ranks
// and SIGKILL to the rest as soon as the first one has gone (measured: 3 ms
// later), so on a loaded node rank 0 could be killed before its handler ran.
// Here the first rank to exit has already removed the outputs.  Removing
// twice is harmless (the second finds nothing).  Outputs kept with --keep
// are removed too: an interrupted run's files are incomplete.
#include <string>

namespace iok {

// Registers a path this run created (a file or a directory), installing the
// SIGINT/SIGTERM handlers on first use.
void remove_on_interrupt(const std::string& path);
// The path is no longer this run's to remove (removed, or kept at a normal exit).
void forget_on_interrupt(const std::string& path);

}  // namespace iok
