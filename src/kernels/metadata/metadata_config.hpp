#pragma once
// h5bench's metadata stress test (hdf5_iotest) configuration: its .ini file
// read as the original reads it (inih rules: [sections], `key = value` or
// `key: value`, ';'/'#' comment lines, inline '; comment' after a blank,
// an indented line continues the previous key), every key in any section,
// the last value winning; a key it does not know is an error, as in the
// original.  Keys absent from the file take the values of h5bench's sample
// hdf5_iotest.ini.  The checks are the original's sanity_check() and
// validate(), as one-line errors instead of assertions.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace iok::metadata {

struct Config {
    int version = 0;
    std::uint64_t steps = 20, arrays = 500;
    std::uint64_t rows = 100, cols = 200;  // per rank (weak) or total (strong)
    std::uint64_t proc_rows = 1, proc_cols = 1;
    std::string scaling = "weak";            // weak | strong
    int rank = 4;                            // dataset-rank: 2, 3 or 4
    std::string slowest_dimension = "step";  // step | array
    std::string layout = "contiguous";       // contiguous | chunked
    std::string mpi_io = "independent";      // independent | collective
    std::string hdf5_file = "hdf5_iotest.h5";
    std::string csv_file = "hdf5_iotest.csv";

    bool strong() const { return scaling == "strong"; }
    bool step_first() const { return slowest_dimension == "step"; }
    bool chunked() const { return layout == "chunked"; }
    bool collective() const { return mpi_io == "collective"; }
    // One rank's tile and the whole array (create_dataset's my_/total_).
    std::uint64_t my_rows() const { return strong() ? rows / proc_rows : rows; }
    std::uint64_t my_cols() const { return strong() ? cols / proc_cols : cols; }
    std::uint64_t total_rows() const { return strong() ? rows : proc_rows * rows; }
    std::uint64_t total_cols() const { return strong() ? cols : proc_cols * cols; }
};

// The .ini keys, in the order of h5bench's sample file.
const std::vector<std::string>& config_keys();

// Sets one key from its text; `where` names the place for the message
// ("hdf5_iotest.ini:7", "--steps").  Throws iok::Error.
void set_key(Config& c, const std::string& key, const std::string& value, const std::string& where);

// Reads an .ini file into `c` (keys it does not set keep their value).
// Throws iok::Error: unreadable file, syntax error, unknown key, bad value.
void read_ini(Config& c, const std::string& path);

// The original's sanity_check() and validate() for `nprocs` ranks.
void check(const Config& c, int nprocs);

}  // namespace iok::metadata
