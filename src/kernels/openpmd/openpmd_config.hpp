#pragma once
// Configuration of the openPMD write and read kernels, as h5bench's
// h5bench_openpmd_write / _read (openPMD-api's examples 8a and 8b) take it:
// the KEY=VALUE file h5bench writes (openpmd.input: dim, balanced, ratio,
// steps, minBlock, grid, fileLocation) and the read pattern.  One setter is
// shared by the file and the named options (--min-block "16 32 32" is
// minBlock=16 32 32).  Unlike the reference, unknown keys, malformed numbers
// and a minBlock/grid with the wrong count of values are errors, not skipped.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace iok::openpmd {

// The read patterns of h5bench_openpmd_read, plus `full` (every element of
// every iteration, split over the readers): m = metadata only, sx/sy/sz = a
// slice of the scalar mesh rho across axis 0/1/2, fx/fy/fz = the same slice of
// the three components of B (3-D meshes).
enum class Pattern { Metadata, SliceX, SliceY, SliceZ, FieldX, FieldY, FieldZ, Full };
const char* name(Pattern p);

struct Config {
    int dim = 3;                                // dimensions of the meshes (1, 2 or 3)
    bool balanced = true;                       // false: every third step (1, 4, ...) some ranks write none
    std::uint64_t ratio = 1;                    // particles per mesh cell
    int steps = 1;                              // iterations /data/1 .. /data/<steps>
    std::vector<std::uint64_t> min_block = {};  // cells of a mini block per axis (8a: 64 32 32)
    std::vector<std::uint64_t> grid = {};       // mini blocks per axis (8a: ranks 8 8)
    bool rank_blocks = true;                    // false: each mini block is its own request (8a rankBlocks=false)
    std::string file_location;                  // directory of the file (h5bench's fileLocation)
    Pattern pattern = Pattern::Full;            // reading only
    std::map<std::string, std::string> given;   // every key set, as written

    void set(const std::string& key, const std::string& value);
    void load_file(const std::string& path);  // KEY=VALUE lines, '#' comments
    // Defaults that depend on the rank count (8a: grid's first value = ranks),
    // then the checks; throw iok::Error.
    void resolve(int ranks);
    void validate_read() const;

    std::vector<std::uint64_t> global_mesh() const;  // min_block x grid per axis
    std::uint64_t particles() const;                 // ratio x cells
    // "8a_parallel_3Db": the reference's file name without extension.
    std::string file_stem() const;
};

const std::vector<std::string>& config_keys();

}  // namespace iok::openpmd
