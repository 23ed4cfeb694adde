#pragma once
// h5bench_exerciser's command line, flag for flag (--numdims N first, then
// N values for --minels/--bufmult/--dimranks/--fileblocks/--filestrides),
// and the geometry each buffer size gives: the original's rules, including
// its fall-backs (a --dimranks whose product is not the rank count divides
// dimension 0 only, with its WARNING line; file blocks that do not divide
// the elements fall back to one block).
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace iok::exerciser {

constexpr int kMaxDims = 4;
constexpr int kIterations = 10;       // NUM_ITERATIONS: file create/write/close/open/read per buffer size
constexpr int kAttributes = 64;       // NUM_ATTRIBUTES on /Data with --addattr
constexpr int kAttributeSize = 1024;  // ATTRIBUTE_SIZE: chars each

struct Options {
    int numdims = 0;
    std::vector<int> minels, bufmult, dimranks;
    std::vector<std::int64_t> fileblocks, filestrides;
    int nsizes = 1;
    int rshift = 0;
    std::int64_t memblock = 0, memstride = 1;
    long long maxcheck = 17179869184LL;
    bool metacoll = false, derivedtype = false, addattr = false, indepio = false, keepfile = false, usechunked = false;
    bool read_only = false;  // --read-only: verify the kept file's last iteration (iokernels)
    std::string path;        // -o: the file (default: hdf5TestFile-<random>, as the original)

    void add_to(CLI::App& app);
    // Fills the per-dimension defaults and checks the values (iok::Error).
    // Returns the WARNING line of the dimranks fall-back, or "".
    std::string resolve(int nprocs);
};

// One buffer size (curNEls = minels * bufmult^size) for one rank.
struct Geometry {
    int ndims = 0;
    std::vector<std::uint64_t> nels;                  // curNEls
    std::vector<std::uint64_t> block, stride, count;  // the double dataset's file hyperslab per dimension
    std::vector<std::uint64_t> dims;                  // its shape: stride * count * dimranks
    std::vector<std::uint64_t> derived_dims;          // the derived-type dataset's: nels * dimranks
    std::uint64_t elements = 0;                       // NumDoubleElements (with --memblock/--memstride)
    std::uint64_t buf_bytes = 0;                      // BufSizeTotalDouble
    std::uint64_t derived_elements = 0;               // NumSimParamElements
};

Geometry geometry(const Options& o, int size_index);

// The rank's place in the rank grid (row-major, last dimension fastest).
std::vector<std::uint64_t> location(const Options& o, int rank);

}  // namespace iok::exerciser
