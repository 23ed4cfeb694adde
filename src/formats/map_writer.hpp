#pragma once
// Making decomposition maps: from PIO .dat offsets (dat2nc) or generated
// patterns (e3sm_mapgen), written in the current map format (with
// Dk.fill_starts, Dk.fully_covered and the raw offsets), in any container
// E3SM-IO reads: NetCDF classic, HDF5, NetCDF-4 or ADIOS2 BP, each with
// E3SM-IO's layout (formats/array_file.hpp does the container).
#include <cstdint>
#include <string>
#include <vector>

#include "formats/array_file.hpp"
#include "formats/decomp_map.hpp"
#include "formats/pio_dat.hpp"

namespace iok::e3sm {

// The offsets each process accessed before merging (1-based, file order);
// written as Dk.raw_nreqs / Dk.raw_offsets for the ADIOS blob path.
struct RawOffsets {
    std::vector<std::int64_t> nreqs;
    std::vector<std::int64_t> offsets;
};

// Turns one .dat decomposition into runs: drops the 0 ("skip") entries, makes
// the offsets 0-based, sorts each process's offsets when `sort` (the seed's
// dat2nc did; the current converter keeps the file order), then merges
// consecutive offsets into runs, breaking at every row start of the fastest
// dimension (offset % dims[last] == 0).  All runs are real (fill_starts = nreqs).
Decomp decomp_from_pio(const PioDecompDat& dat, bool sort, RawOffsets* raw = nullptr);

struct MapWriteOptions {
    formats::FileFormat format = formats::FileFormat::Cdf5;
    std::string command_line;  // stored as the global attribute command_line
};

// Writes `m` (validated first) in the current format.  `raw`, when given,
// holds one RawOffsets per decomposition.
void write_decomp_map(const std::string& path, const DecompMap& m, const MapWriteOptions& opt,
                      const std::vector<RawOffsets>* raw = nullptr);

// True when the real runs of d cover every element exactly once.
bool fully_covered(const Decomp& d);

}  // namespace iok::e3sm
