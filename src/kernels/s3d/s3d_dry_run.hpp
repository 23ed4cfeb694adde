#pragma once
// iokernels s3d --dry-run [--ranks N]: the checkpoints N ranks would write
// (--procs or MPI_Dims_create over N), counted on one process with the real
// run's plans (runner/plan_census); no file is opened.
#include "driver/driver.hpp"
#include "kernels/s3d/s3d_decomp.hpp"
#include "kernels/s3d/s3d_options.hpp"

namespace iok::s3d {

// Collective over the driver's communicator: rank 0 counts and prints, every
// rank finishes the result (one JSON entry per checkpoint).
void dry_run(Driver& d, const Options& opt, const Grid& grid);

}  // namespace iok::s3d
