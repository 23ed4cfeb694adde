#pragma once
// Reducing per-rank figures: every rank contributes a vector of numbers, one
// MPI_Gather brings them to rank 0, which computes min/max/mean/sum of each.
#include <mpi.h>

#include <string>
#include <vector>

namespace iok {

struct Stat {
    double min = 0, max = 0, mean = 0, sum = 0;
};

// Valid on rank 0 only (other ranks get an empty vector).
std::vector<Stat> reduce_over_ranks(MPI_Comm comm, const std::vector<double>& local);

}  // namespace iok
