#pragma once
// Small input files (indexes, parameter files) are read by rank 0 only and
// broadcast, so a parallel job does not open the same file from every rank.
#include <mpi.h>

#include <string>

namespace iok {

// Collective: rank 0 reads `path` whole; every rank returns its text, or
// every rank throws the same iok::Error (with `hint`) when it cannot be read.
std::string read_text_collective(const std::string& path, MPI_Comm comm, const std::string& hint);

}  // namespace iok
