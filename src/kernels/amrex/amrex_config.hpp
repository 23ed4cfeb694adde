#pragma once
// h5bench's AMReX benchmark (amrex/Tests/HDF5Benchmark, h5bench_amrex)
// configuration: its ParmParse input file ("key = value ...", '#' comments,
// values separated by blanks) and the same keys as options.  Required keys
// are the original's pp.get() ones (ncells, max_grid_size, nlevs, ncomp,
// nppc); the others default as its pp.query() ones do.  A key it does not
// know is an error here (ParmParse would ignore it), except h5bench's `mode`,
// which its driver writes into the file.
#include <set>
#include <string>
#include <vector>

namespace iok::amrex {

struct Config {
    int ncells = 0, max_grid_size = 0, nlevs = 0, ncomp = 0, nppc = 0;  // required
    int nplotfile = 1, nparticlefile = 1, sleeptime = 0, restart_check = 0;
    int grids_from_file = 0;
    std::vector<int> ref_ratio_file;
    std::string hdf5compression = "None@0";
    std::string directory;      // "" = the working directory; else ends with '/'
    std::string mode = "SYNC";  // h5bench's: SYNC, ASYNC or LOG (runs synchronously)
    std::set<std::string> given;
};

// The keys, in the order of the original's input file.
const std::vector<std::string>& config_keys();

// Sets one key; `where` names the place for the message ("amrex.ini:3",
// "--ncells").  Throws iok::Error.
void set_key(Config& c, const std::string& key, const std::string& value, const std::string& where);

// Reads a ParmParse input file into `c`.  Throws iok::Error.
void read_input(Config& c, const std::string& path);

// The required keys present, every value possible (the original's asserts as
// one-line errors).
void check(const Config& c);

}  // namespace iok::amrex
