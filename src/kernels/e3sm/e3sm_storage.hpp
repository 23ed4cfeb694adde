#pragma once
// E3SM-IO's -c (chunk size) and -z (compression filter) as storage hints on
// the history files' variables.  The chunk shape is E3SM-IO's: walking the
// dimensions from the fastest, a dimension is taken whole while the chunk is
// still smaller than -c bytes, later ones get 1; the record dimension is
// always 1 (one record per chunk).  Without -c, record variables keep their
// one-record chunks and fixed-size variables stay contiguous (HDF5 filters
// need chunks), so -z alone compresses the record variables, as in E3SM-IO.
#include <cstdint>
#include <string>
#include <vector>

#include "model/file_spec.hpp"

namespace iok::e3sm {

// E3SM-IO's -z names: "deflate" and "zlib" (both zlib deflate).  Returns the
// deflate level E3SM-IO uses (6), 0 for "" / "none"; throws iok::Error otherwise.
int filter_level(const std::string& filter);

// The chunk shape (fixed dimensions only, slowest first) E3SM-IO gives a
// variable of `shape` elements of `element_bytes` under -c `chunk_bytes`.
std::vector<std::uint64_t> chunk_shape(const std::vector<std::uint64_t>& shape, std::size_t element_bytes,
                                       std::uint64_t chunk_bytes);

// Sets VarSpec::storage of every variable of `files` with dimensions.
void apply_storage(std::vector<FileSpec>& files, std::uint64_t chunk_bytes, const std::string& filter);

}  // namespace iok::e3sm

namespace iok {
class Driver;
}

namespace iok::e3sm {

// -c/-z of this run (chunk_bytes 0 and filter "" = neither): checked against
// the I/O stack -- the library must store chunked variables, and the
// strategy must write variables through it (canonical, rearrange; the blob
// and log layouts have no per-variable objects to chunk) -- then applied to
// `files`.  Collective; throws on every rank.
void configure_storage(Driver& d, std::uint64_t chunk_bytes, const std::string& filter, std::vector<FileSpec>& files);

}  // namespace iok::e3sm
