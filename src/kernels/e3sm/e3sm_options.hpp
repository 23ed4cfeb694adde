#pragma once
// Options of the E3SM kernel: the seed's short flags (-r -f -s -m -t -i -o
// -d -n -j -c -z, map file last; -k -a -x -g -v come from the driver; the
// seed's -a hdf5_ra/hdf5_log are rewritten by e3sm_seed_cli) and long names
// for each.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace iok::e3sm {

struct Options {
    std::string map_path;
    std::string output;                 // -o: write test, path stem of the history files
    std::string input;                  // -i: read test from existing files
    std::string case_name = "auto";     // F, G, I or auto (from the map's num_decomp)
    int records = 1;                    // -r
    int hist = -1;                      // -f: 0 h0 only, 1 h1 only, -1 both
    int stride = 1;                     // -s: every stride-th rank does I/O
    int flush_every = 1;                // records per flush, 0 = once at the end
    bool noncontig_buf = false;         // -m
    bool two_d_first = false;           // -t: write 2-D variables before 3-D ones
    bool use_float = false;             // -j: record variables as float
    bool fill = false;                  // --fill: write uncovered elements with _FillValue
    std::string define_order = "seed";  // --define-order: seed or listing (seedbytes' option)
    std::string data = "pattern";       // --data: pattern or rank (seedbytes' option)
    std::string map_reading = "map";    // --map-reading: map or e3sm-io (which runs each rank takes)
    bool no_sort = false;               // --no-sort: keep each rank's runs in map order
    bool vard = false;                  // -d: PnetCDF vard API
    bool varn = false;                  // -n: PnetCDF varn API (default)
    bool blocking = false;              // --blocking: PnetCDF blocking varn
    bool dry_run = false;               // --dry-run: plan only, as --ranks ranks would
    int ranks = 0;                      // --ranks: ranks of the dry run (0: the MPI size)
    std::uint64_t chunk_bytes = 0;      // -c: chunk size in bytes (E3SM-IO's shape rule; 0 = none)
    std::string filter;                 // -z: compression filter, deflate or zlib ("" = none)

    void add_to(CLI::App& app);
    void validate() const;  // throws iok::Error
};

}  // namespace iok::e3sm
