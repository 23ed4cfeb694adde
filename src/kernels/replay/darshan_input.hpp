#pragma once
// A Darshan log given to `iokernels replay` where a trace is expected: the
// log is recognised by its header (Darshan's magic number, not the file
// name), and rank 0 runs the converter (iokernels-darshan trace, the
// project's Python with PyDarshan: docs/darshan.md) whose output, an
// iokernels-trace with a "darshan" report inside, every rank receives.
#include <mpi.h>

#include <string>

namespace iok::replay {

// Collective: true on every rank when rank 0 finds a Darshan log header at `path`.
bool is_darshan_log(const std::string& path, MPI_Comm comm);

// Collective: the trace text of the log (its processes folded onto `ranks`
// when > 0, its accesses divided by `scale`), or the converter's one-line
// refusal thrown as iok::Error on every rank.
std::string darshan_trace(const std::string& path, int ranks, double scale, MPI_Comm comm);

// The converter's command: $IOK_DARSHAN, else iokernels-darshan beside this program.
std::string darshan_converter();

}  // namespace iok::replay
