#pragma once
// Two runs started at once on one output name would both pass
// OutputFiles::claim's "does it exist yet?" check before either had created
// the file, and then write into the same file.  While claiming, rank 0
// takes a lock beside the output, PATH.iok-lock, created with O_EXCL (atomic
// on local and NFSv3+ file systems), holding "HOST PID"; it goes when the run
// ends (or is interrupted).  A lock left by a run that was killed (SIGKILL,
// a node crash) names a process that no longer exists: on the same host it
// is recognised and replaced; from another host the message says how to
// remove it.
#include <string>

namespace iok {

std::string output_lock_path(const std::string& output);  // "out.nc" -> "out.nc.iok-lock"

// Takes the lock of `output`.  Returns "" on success, else why not (the
// other run's host and pid, or the system error) in a sentence.
std::string take_output_lock(const std::string& output);

// Removes the lock this process took (nothing if it is not ours any more).
void release_output_lock(const std::string& output);

}  // namespace iok
