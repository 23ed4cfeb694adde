#pragma once
// Synthetic F-case-like decomposition maps, for demos and tests when the real
// maps (../shared) are absent.  The pattern imitates E3SM's cubed-sphere one:
// columns come in small "elements" of consecutive indices; elements are
// scattered over the processes (a fixed pseudo-random permutation, then a
// block distribution), and each process lists its columns element-interleaved
// so that in file order nearly every run has length 1, as in the real map.
//   D1 (ncol):       each process's columns, sorted and merged
//   D2 (ncol):       the same columns in interleaved (file) order
//   D3 (nlev, ncol): D2's columns repeated for every level
#include <cstdint>

#include "kernels/e3sm/decomp_map.hpp"
#include "kernels/e3sm/map_writer.hpp"

namespace iok::e3sm {

struct SynthFMapOptions {
    std::int64_t ncol = 866;
    std::int64_t nlev = 72;
    int nprocs = 16;
    int element_size = 4;      // consecutive columns per element
    std::uint64_t seed = 1;    // permutation of the elements
};

// The map and, per decomposition, the raw (1-based, unmerged) offsets.
DecompMap synthetic_f_map(const SynthFMapOptions& opt, std::vector<RawOffsets>* raw = nullptr);

}  // namespace iok::e3sm
