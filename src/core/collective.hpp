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
// alike, so wrapping them keeps ranks in step.
#include <mpi.h>

#include <functional>
#include <string>

#include "core/error.hpp"

namespace iok {

class CollectiveFailure : public Error {
public:
    CollectiveFailure(const std::string& what, const std::string& hint, int rank)
        : Error(what, hint), rank_(rank) {}
    int failing_rank() const { return rank_; }

private:
    int rank_;
};

void collective_step(MPI_Comm comm, const std::function<void()>& fn);

// Runs a kernel body with the error policy: returns 0 on success; on error
// rank 0 prints "iokernels <kernel>: error: ..." plus the hint to stderr and
// every rank returns 1.  An exception escaping outside a collective_step on
// some ranks only cannot be agreed on without risking a hang, so it aborts
// the job (MPI_Abort) after printing the message.
int run_kernel_main(const char* kernel, MPI_Comm comm, const std::function<void()>& body);

}  // namespace iok
