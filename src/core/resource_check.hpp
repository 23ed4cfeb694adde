#pragma once
// Sizes refused up front.  A run asked for more than the machine has (vpic
// with DIM_1=10^12 particles per rank) would otherwise allocate until the
// kernel kills it, or write until the file system fills and the library
// fails deep inside a collective call.  Before allocating anything a kernel
// states what this rank will need; check_resources() compares the sums with
// what the nodes and the output file system have and refuses with the
// figures.  --no-size-check (add_size_check_option) or IOK_NO_SIZE_CHECK=1
// skips it (a file system whose free space statvfs misreports, memory the
// kernel overestimates).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace iok {

struct ResourceNeeds {
    // Bytes this rank holds in memory at its peak (user buffers of the
    // largest write/read call); a lower bound, so a refusal is certain.
    std::uint64_t memory_bytes = 0;
    // Bytes this rank puts on the output file system (its share of the data).
    std::uint64_t file_bytes = 0;
    // Where the outputs go (a file or directory path); empty when the run
    // writes nothing (read tests).
    std::string output_path;
    // Bytes of existing files the run will replace (--overwrite): their space
    // comes back when they are truncated.  Rank 0's figure counts.
    std::uint64_t replaced_bytes = 0;
};

// What the machine has, as the check sees it (tests fake nothing: these are
// read from /proc/meminfo, the cgroup limit and statvfs).
std::uint64_t available_memory_bytes();                 // this node, for new allocations
std::uint64_t free_bytes_for(const std::string& path);  // the file system holding path (or its parent)

// Adds --no-size-check to an option group (the driver's common options).
void add_size_check_option(CLI::Option_group& group, bool& skip);

// Collective.  Fails on every rank (iok::Error, exit 1) when the ranks of any
// node together need more memory than the node has available, or all ranks
// together more bytes than the output file system has free.  The message
// gives the estimate, what is available and what to change.  `what_to_shrink`
// names the kernel's size options ("DIM_1/NUM_PARTICLES, TIMESTEPS").
void check_resources(MPI_Comm comm, const ResourceNeeds& mine, bool skip, const std::string& what_to_shrink);

// a*b, or UINT64_MAX when it overflows (estimates of absurd sizes stay absurd).
std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b);
std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b);

}  // namespace iok
