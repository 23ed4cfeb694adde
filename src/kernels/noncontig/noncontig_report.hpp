#pragma once
// The native MPI-IO path's figures and report: per-rank times, request counts
// and verification reduced over ranks, then the reference's report lines
// (request statistics per map process, write times contiguous vs
// noncontiguous, MPI_Pack time) and the result's summary.
#include <mpi.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/noncontig/noncontig_decomp.hpp"
#include "kernels/noncontig/noncontig_native.hpp"

namespace iok::noncontig {

// Every rank receives the same figures.
struct Figures {
    double contig_s = 0, noncontig_s = 0, pack_s = 0;  // slowest rank
    std::uint64_t max_runs = 0, min_runs = 0;          // requests per variable per rank of this run
    std::uint64_t max_elems = 0, min_elems = 0;        // elements per variable per rank of this run
    std::uint64_t mismatches = 0;                      // all ranks, both tiles
    bool pack_ok = true;                               // MPI_Pack matched on every rank
    std::string first;                                 // first failing rank's mismatch, "... on rank N"
    double amount = 0;                                 // bytes of one tile, all ranks
    std::uint64_t expect_size = 0;                     // 2 x nvars x array_size x 4 when the map covers the end
    bool whole_array = true;                           // the last element of the array is written
    RunStats map_stats;                                // per map process of the decomposition
    double ratio() const { return contig_s > 0 ? noncontig_s / contig_s : 0.0; }
};

// Collective.
Figures reduce_figures(MPI_Comm comm, const NativeSetup& s, const Decomposition& d, const std::vector<Run>& runs,
                       const Measured& m);

// Rank 0: the result's summary, and the report (`requested`: the hints asked for).
nlohmann::json summary_json(const NativeSetup& s, const Measured& r, const Figures& f, int nranks);
void print_report(const NativeSetup& s, const Decomposition& d, const Measured& r, const Figures& f, MPI_Info requested,
                  int nranks);

}  // namespace iok::noncontig
