#pragma once
// PIO decomposition text files (".dat"), as E3SM's PIO library writes them:
//   line 1: version V npes N ndims D
//   line 2: the D dimension lengths in Fortran order (fastest first)
//   then per process: "rank count" and `count` 1-based element offsets in
//   Fortran order over the dims, where 0 means "skip"
// Anything after the last process (e.g. "Obtained 10 stack frames." and a
// stack trace) is ignored.
#include <cstdint>
#include <string>
#include <vector>

namespace iok {

struct PioDecompDat {
    std::string path;
    int version = 0;
    std::vector<std::int64_t> dims_fortran;          // fastest first, as in the file
    std::vector<std::vector<std::int64_t>> offsets;  // per process, 1-based, 0 = skip

    std::vector<std::int64_t> dims_c() const;  // slowest first
};

// Throws iok::Error naming the file and line for malformed or truncated input
// and for offsets outside the array.
PioDecompDat read_pio_decomp_dat(const std::string& path);

}  // namespace iok
