#pragma once
// Collective error handling.  Any rank's failure must become one clear
// message and a non-zero exit on every rank, never a hang.
//
// Work that can fail on some ranks only (parsing, validation, file checks,
// library calls) runs inside collective_step(): each rank catches its own
// iok::Error, then all ranks agree (one MPI_Allreduce) whether anyone failed.
// If so, every rank throws iok::CollectiveFailure carrying the first failing
// rank's message, and the kernel's main returns non-zero after rank 0 printed
// it once.  Library calls that are themselves collective fail on all ranks
// alike, so wrapping them keeps ranks in step.  A rank whose library call
// failed while the others stayed blocked inside it (a collective close that
// errs on one rank only) would wait forever: a failing rank waits at most
// IOK_FAILURE_WAIT_SECONDS (default 20) for the agreement, then prints its
// message and aborts the job (MPI_Abort).
#include <mpi.h>

#include <functional>
#include <string>

#include "core/error.hpp"

namespace iok {

class CollectiveFailure : public Error {
public:
    CollectiveFailure(const std::string& what, const std::string& hint, int rank, int exit_code = 1)
        : Error(what, hint, exit_code),
          rank_(rank) {}
    int failing_rank() const { return rank_; }

private:
    int rank_;
};

void collective_step(MPI_Comm comm, const std::function<void()>& fn);

// While a library holds a file open, a failed step may leave the ranks'
// library states different (one rank's write hit ENOSPC, another's did not),
// and the collective close that unwinding would run can then hang (H5Fclose
// flushes metadata behind barriers).  So a failure agreed in collective_step
// while any file is open ends the job there: rank 0 prints the message, the
// at_abandon() cleanups run (rank 0 removes the run's own outputs), and every
// rank exits with status 1 without closing the files.
// Whether this process is the first of this run on its node to report a
// failure the ranks could not agree on (a rank giving up on a collective
// call, the full-disk watchdog): the one that prints it, so that a node says
// it once.  The first caller wins; the claim lasts until the process exits.
bool first_to_speak_on_this_node();

void note_files_open(int delta);                // +1 once a file is created/opened, -1 once closed
int at_abandon(std::function<void()> cleanup);  // returns an id for cancel_abandon
void cancel_abandon(int id);
void run_abandon_cleanups();  // the registered cleanups (rank 0 removes outputs)
// "iokernels <kernel>: error: WHAT" and "  hint: HINT" on stderr, in one write.
void print_error(const std::string& what, const std::string& hint);

// Runs a kernel body with the error policy: returns 0 on success; on error
// rank 0 prints "iokernels <kernel>: error: ..." plus the hint to stderr and
// every rank returns 1.  An exception escaping outside a collective_step on
// some ranks only cannot be agreed on without risking a hang, so it aborts
// the job (MPI_Abort) after printing the message.
int run_kernel_main(const char* kernel, MPI_Comm comm, const std::function<void()>& body);

}  // namespace iok
