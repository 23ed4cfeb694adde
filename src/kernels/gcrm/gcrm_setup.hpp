#pragma once
// The GCRM run's three inputs, found and loaded: the parameter file names
// the variable description and the file configuration (relative to its own
// directory) unless --desc/--fcfg do; rank 0 reads each file and every rank
// parses the same text, so a bad input fails on every rank with one message.
#include <mpi.h>

#include <string>
#include <vector>

#include "driver/driver.hpp"
#include "kernels/gcrm/gcrm_grid.hpp"
#include "kernels/gcrm/gcrm_inputs.hpp"
#include "kernels/gcrm/gcrm_options.hpp"

namespace iok::gcrm {

struct Inputs {
    RunParams params;  // with --iotype and --level applied
    Description desc;
    std::vector<FileGroup> groups;
    GridParams grid;
    std::string desc_path, fcfg_path;
    std::string out_dir;  // -o, else $GCRM_OUTPUT_PATH, else cdf_output_path; ends with '/'
};

// Collective.
Inputs load_inputs(MPI_Comm comm, const Options& o);

// The I/O method of the parameter file as the driver's settings: collective
// or independent (AND-ed with --independent), PnetCDF's nonblocking (varn +
// wait) or blocking puts, GCRM-IO's file format (CDF-2, or CDF-5 when its
// size check passes 2 GiB) and the reference's hints; --param/--hint win.
// Builds the configuration.
void configure_stack(Driver& d, const Inputs& in);

}  // namespace iok::gcrm
