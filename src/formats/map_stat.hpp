#pragma once
// Statistics of a decomposition map, for comparing maps (e3sm_mapstat):
// per decomposition its coverage, runs, run-length histogram and the
// requests each of R benchmark ranks would issue after distribution,
// sorting and coalescing (the kernel's own counting, runs_per_rank).
// Library-free and computed on one process.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "formats/decomp_map.hpp"

namespace iok::e3sm {

struct RankRequests {
    std::uint64_t total = 0, max = 0, min = 0;
    std::vector<std::uint64_t> per_rank;
};

struct DecompStats {
    std::string name;
    std::vector<std::int64_t> dims;
    std::int64_t elements = 0;  // product of dims
    std::int64_t covered = 0;   // distinct elements the real runs cover
    std::int64_t overlap = 0;   // elements covered more than once (extra coverings)
    std::int64_t real_runs = 0, fill_runs = 0;
    std::int64_t fill_elements = 0;
    // Real and fill runs together: distinct elements and extra coverings.
    std::int64_t covered_with_fill = 0, overlap_with_fill = 0;
    // Real runs by length: bucket b counts lengths in [2^b, 2^(b+1)).
    std::vector<std::int64_t> length_histogram;
    std::map<int, RankRequests> requests;  // by rank count
    bool covered_once() const { return covered == elements && overlap == 0; }
    // Every element in exactly one run, real or fill (a complete partition).
    bool partition() const { return covered_with_fill == elements && overlap_with_fill == 0; }
};

struct MapStats {
    std::string path;
    int nprocs = 0;
    std::vector<DecompStats> decomps;
};

MapStats map_stats(const DecompMap& m, const std::vector<int>& ranks);

// "1", "2-3", "4-7", ... for histogram bucket b.
std::string length_bucket_label(std::size_t b);

}  // namespace iok::e3sm
