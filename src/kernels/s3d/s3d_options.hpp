#pragma once
// Options of the S3D kernel.  Two forms:
//   named:      iokernels s3d --grid 100,100,100 --procs 2,2,2 --method blocking --restart -o DIR
//   reference:  iokernels s3d nx_g ny_g nz_g npx npy npz method restart dir_path
// (the S3D-IO benchmark's 9 positional arguments; method 1 = nonblocking,
// anything else blocking; restart T/F).  The reference form implies --keep,
// because the reference never deletes its checkpoints.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "kernels/s3d/s3d_decomp.hpp"

namespace iok::s3d {

struct Options {
    std::vector<std::string> reference_args;         // the 9 positional arguments, if given
    std::vector<std::int64_t> grid;                  // --grid NX,NY,NZ (global)
    std::vector<std::int64_t> local = {50, 50, 50};  // --local NX,NY,NZ (per process, weak scaling)
    std::vector<int> procs;                          // --procs NPX,NPY,NPZ (default: MPI_Dims_create)
    std::string method = "nonblocking";              // --method blocking|nonblocking
    bool restart = false;                            // --restart
    std::string dir = ".";                           // -o/--dir
    int checkpoints = 5;                             // -c/--checkpoints
    bool dry_run = false;                            // --dry-run: plan only, on one process
    int ranks = 0;                                   // --ranks: ranks of the dry run (0: the MPI size)

    void add_to(CLI::App& app);
    // Applies the reference form (if given) and fills in defaults; throws
    // iok::Error.  Returns the grid to run.
    Grid resolve(int nprocs);
    // The rank count the run is planned for: --ranks in a dry run, else the MPI size.
    int planned_ranks(int nprocs) const;
    bool nonblocking() const { return method == "nonblocking"; }
    bool reference_form() const { return !reference_args.empty(); }
};

// Fortran-style logical: T/F, true/false, .true./.false., 1/0, yes/no
// (case-insensitive).  Throws iok::Error naming `what` otherwise.
bool parse_logical(const std::string& text, const std::string& what);

}  // namespace iok::s3d
