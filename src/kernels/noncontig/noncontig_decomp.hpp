#pragma once
// The decomposition the noncontig test writes: for every process of the run
// that produced it, sorted non-overlapping runs (offset, length) in elements
// of one variable of `array_size` elements.  Read from either
//   - the mpi_io_test format (dims num_procs, array_size, nreq_NNNNN; int
//     vars off_NNNNN, len_NNNNN), or
//   - an E3SM decomposition map (one of its decompositions, --decomp Dk; the
//     array is the product of its dims, only the real runs are used).
// The map's processes are distributed over the ranks of this run in blocks
// (as the E3SM kernel does), so any rank count works.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model/selection.hpp"

namespace iok::noncontig {

struct Decomposition {
    std::string path;
    std::string format;                          // "mpi_io_test" or "e3sm map (D1)"
    int nprocs = 0;                              // processes of the run that made it (those used)
    int map_nprocs = 0;                          // the map's, when only the first nprocs are used
    std::int64_t array_size = 0;                 // elements of one variable
    std::vector<std::int64_t> nreqs;             // runs per map process
    std::vector<std::int64_t> offsets, lengths;  // all runs, process after process

    std::uint64_t total_runs() const { return offsets.size(); }
    std::uint64_t covered_elements() const;
    std::int64_t covered_end() const;  // the end of the last run of any process (0 without runs)
    // "512 processes", or "processes 0-15 of 512 (--map-processes own)"
    std::string processes_text() const;
    // Runs of map processes [first, first + count), sorted by offset.
    std::vector<Run> runs_of(int first, int count) const;
};

// Reads and validates on the calling process; throws iok::Error naming the
// file, the process and the problem.  `decomp` picks the decomposition of an
// E3SM map ("D1", ...); ignored for the mpi_io_test format.
Decomposition read_decomposition(const std::string& path, const std::string& decomp);

// Rank 0 reads, every rank gets the same result or the same error.
Decomposition read_decomposition_collective(const std::string& path, const std::string& decomp, MPI_Comm comm);

// Checks runs: offsets in [0, array_size), lengths >= 1, sorted and
// non-overlapping within each process.
void validate(const Decomposition& d);

// Only map processes [0, n) (all of them if the map has no more): the
// reference's runs on n ranks, where rank r writes map process r and the
// rest of the array stays unwritten.
Decomposition first_processes(Decomposition d, int n);

// The runs this rank writes: its block of map processes (E3SM's block
// distribution), sorted by offset.
std::vector<Run> rank_runs(const Decomposition& d, int rank, int nranks);

// Per-map-process statistics, as the reference prints them when it runs
// with one rank per map process.
struct RunStats {
    std::uint64_t min_runs = 0, max_runs = 0;    // runs per process (per variable)
    std::uint64_t min_len = 0, max_len = 0;      // run length in elements
    std::uint64_t min_elems = 0, max_elems = 0;  // elements per process (per variable)
};
RunStats map_process_stats(const Decomposition& d);

}  // namespace iok::noncontig
