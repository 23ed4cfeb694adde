#pragma once
// E3SM decomposition maps: which elements of each global array every process
// of a real E3SM run owned, as runs (offset, length) in C order over the
// decomposition's dims.  Reads both map formats (the seed's, without
// `Dk.fill_starts`, and the current one with it), validates them, and turns
// them into the runs each benchmark rank writes when P ranks replay an
// N-process map.  Maps come in any container E3SM-IO reads (NetCDF classic,
// HDF5, NetCDF-4, ADIOS2 BP), recognised by content; the kernel reaches them
// only through formats/array_file.hpp.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model/selection.hpp"

namespace iok::e3sm {

// Block distribution of the map's N processes over P ranks: cnt = N/P, the
// first N%P ranks take one more.  Ranks >= N own nothing.
struct ProcRange {
    int first = 0;
    int count = 0;
};

// One decomposition "Dk" of a map.
struct Decomp {
    std::string name;                            // "D1", "D2", ...
    std::vector<std::int64_t> dims;              // C order, slowest first (global attribute Dk.dims)
    std::vector<std::int64_t> nreqs;             // runs per map process
    std::vector<std::int64_t> fill_starts;       // per process: index (within its runs) where fill runs start
    std::vector<std::int64_t> offsets, lengths;  // all processes' runs, concatenated in process order
    std::vector<std::int64_t> first;             // per process: index of its first run in offsets/lengths (prefix sum)
    // A share of the map (read_decomp_map_share) holds the runs of these map
    // processes only, and first[] is valid for them alone; by default every
    // process's runs are held.
    ProcRange held{0, -1};
    bool whole() const { return held.count < 0; }

    std::int64_t elements() const;  // product of dims
    std::int64_t row_length() const { return dims.empty() ? 1 : dims.back(); }
    std::int64_t covered_elements() const;  // Σ lengths of real runs
    std::int64_t real_runs() const;         // Σ fill_starts
    bool has_fill_runs() const;             // any fill run at all
    // Real runs / fill runs of map process p, in file order.
    std::vector<Run> process_runs(int p) const;
    std::vector<Run> process_fill_runs(int p) const;
};

struct DecompMap {
    std::string path;
    int nprocs = 0;                // decomp_nprocs: processes of the run that made the map
    bool has_fill_starts = false;  // current format (seed format: false, all runs real)
    std::vector<Decomp> decomps;   // D1..Dn
};

// Reads and validates a map on the calling process only (serial library
// calls).  Throws iok::Error naming the file, the decomposition and the
// process for every problem: content that is no map container at all (one
// message saying what it looks like and which formats are accepted),
// truncated/malformed file, missing dims/vars/attributes, nreqs not summing
// to total_nreqs, fill_starts outside [0, nreqs], offsets outside the array,
// lengths < 1, runs crossing a row of the fastest dimension.
DecompMap read_decomp_map(const std::string& path);

// Collective over `comm`: rank 0 reads and validates, broadcasts a status and
// then the arrays; every rank returns the same map, or every rank throws the
// same iok::Error (never rank 0 alone).
DecompMap read_decomp_map_collective(const std::string& path, MPI_Comm comm);

// Collective over `comm`, for a run in which share_size ranks write: every
// rank gets each decomposition's dims and per-process counts, but only the
// runs of the map processes it writes (map_procs_of_rank(N, share_rank,
// share_size); share_rank < 0: none).  A NetCDF classic map: rank 0 reads
// and validates all but the runs, then every rank reads and validates its own
// runs (one slice per array).  Other containers: rank 0 reads, validates and
// keeps the whole map and sends each rank its slice.  Either way an ne30 map
// of 512 processes on 16 ranks holds 1/16 of its runs per rank.  Failures as
// read_decomp_map_collective; a bad run of one rank's share fails that rank
// only, so call it inside collective_step (e3sm does).
DecompMap read_decomp_map_share(const std::string& path, MPI_Comm comm, int share_rank, int share_size);

// Checks an in-memory map (also used by the tools before writing one).
void validate_decomp_map(const DecompMap& m);

ProcRange map_procs_of_rank(int nmap_procs, int rank, int nranks);

// Sorts runs by offset (when `sort`) and merges adjacent runs that stay within
// one row of the fastest dimension (row_length elements).  Without sorting
// only runs already adjacent in the given order merge.
std::vector<Run> coalesce_runs(std::vector<Run> runs, std::int64_t row_length, bool sort);

// Which entries of a map's concatenated runs a rank takes.
//   Map     each of its map processes' real runs (the first fill_starts[p]
//           of process p's block of nreqs[p]), as the map defines them: the
//           same elements are written at every rank count.
//   E3smIo  E3SM-IO's reading today (read_decomp.cpp, fill mode off): it
//           counts runs by fill_starts also where it sums them into a start
//           index, so rank r takes entries [S, S + C) of the concatenated
//           runs, S = Σ fill_starts of the map processes before its own, C =
//           Σ of its own.  On a map with fill runs (the I case) that window
//           slides over other processes' blocks: some fill runs are written
//           with data, the last real runs never, and the set depends on the
//           rank count.  The same as Map when no process has fill runs.
enum class MapReading { Map, E3smIo };

// The runs rank `rank` of `nranks` writes for decomposition d: its map
// processes' runs concatenated, then coalesced.  `fill` selects the fill runs
// instead of the real ones (always by process: E3SM-IO in fill mode reads
// whole blocks).
std::vector<Run> rank_runs(const Decomp& d, int rank, int nranks, bool sort, bool fill = false,
                           MapReading reading = MapReading::Map);

// Run (request) counts of every rank at once, per decomposition:
// result[k][r] = rank_runs(decomps[k], r, nranks, sort, fill).size().  Cheap
// enough for rank 0 to compute for the report without any communication.
std::vector<std::vector<std::uint64_t>> runs_per_rank(const DecompMap& m, int nranks, bool sort, bool fill = false);

}  // namespace iok::e3sm
