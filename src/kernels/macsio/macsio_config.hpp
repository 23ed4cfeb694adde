#pragma once
// MACSio's command line (macsio_main.c's and the HDF5 plugin's arguments,
// as h5bench's driver passes them: --parallel_file_mode MIF 8 --part_size 1M
// --interface hdf5 --filebase ... --log_file_name ... --timings_file_name ...)
// and the mesh it generates (macsio_data.c's MACSIO_DATA_GenerateTimeZeroDumpObject):
// ranks x avg_num_parts rectilinear parts of part_size bytes of doubles each,
// arranged by Best2D/3DFactors, each holding vars_per_part variables.
#include <array>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace iok::macsio {

struct Options {
    std::string interface = "hdf5";
    std::vector<std::string> file_mode = {"MIF", "4"};
    double avg_num_parts = 1;
    std::string part_size = "80000";
    std::vector<int> part_mesh_dims, mesh_decomp;
    int part_dim = 2;
    std::string part_type = "rectilinear";
    int vars_per_part = 20;
    int num_dumps = 10;
    double compute_time = 0;
    int compute_work_intensity = 1;
    double dataset_growth = 0;
    std::string filebase = "macsio", fileext;
    std::string log_file_name = "macsio-log.log", timings_file_name = "macsio-timings.log";
    std::string units_prefix_system = "binary";
    std::string meta_type = "tabular";
    std::vector<int> meta_size = {10000, 50000};
    bool no_collective = false;

    void add_to(CLI::App& app);
};

// What the options mean for a run on `nprocs` ranks.
struct Mesh {
    bool sif = false;
    int files = 0;           // MIF: files per dump (MACSio's groups)
    int parts_per_rank = 1;  // K
    int dim = 2;
    std::array<int, 3> part{1, 1, 1};    // nodes per part along x, y, z
    std::array<int, 3> layout{1, 1, 1};  // parts along x, y, z
    int vars = 20;
};

// Checks every value (one-line iok::Error) and derives the mesh.
Mesh resolve(const Options& o, int nprocs);

// A variable of a part: name, zone (true) or node centred, int (true) or double.
struct Var {
    std::string name;
    bool zone = false, integer = false;
};
std::vector<Var> variables(int count);

// MIF: the group (file) of `rank` and the ranks of each group (MACSIO_MIF_Init).
int group_of(int rank, int nprocs, int files);
std::vector<int> group_ranks(int group, int nprocs, int files);

}  // namespace iok::macsio
