#pragma once
// Ctrl-C or a batch system's time limit: the launcher (mpiexec, srun) sends
// SIGINT/SIGTERM to every rank.  Without a handler the ranks die at once and
// the half-written outputs stay behind, indistinguishable by name from a
// finished run's.  With it, the rank that owns the output list (rank 0, see
// OutputFiles) removes the paths this run created — only those: inputs and
// files that existed before are never in the list — and every rank exits
// with status 128 + signal.  Outputs kept with --keep are removed too: an
// interrupted run's files are incomplete.
#include <string>

namespace iok {

// Registers a path this run created (a file or a directory), installing the
// SIGINT/SIGTERM handlers on first use.
void remove_on_interrupt(const std::string& path);
// The path is no longer this run's to remove (removed, or kept at a normal exit).
void forget_on_interrupt(const std::string& path);

}  // namespace iok
