#pragma once
// Strategies arrange requests before a library sees them.  Each is a Backend
// that wraps another Backend, so kernels and libraries stay unaware:
//   canonical  the library itself, each variable in its logical layout
//   rearrange  requests exchanged among ranks so that a few aggregator ranks
//              each write a few large contiguous pieces (like Scorpio's BOX
//              rearranger / E3SM-IO's hdf5_ra), then the library
//   blob, log  (see their files) data stored per process plus the metadata
//              to rebuild the canonical layout
#include <mpi.h>

#include <memory>
#include <string>

#include "backends/backend.hpp"

namespace iok {

// Builds `library`'s backend wrapped in `strategy`.  Throws iok::Error for an
// unknown strategy, or one the library cannot be combined with.
std::unique_ptr<Backend> make_strategy_backend(const std::string& strategy, const std::string& library,
                                               const BackendConfig& cfg, MPI_Comm comm);

// The rearranger on its own (aggregators: number of aggregator ranks, 0 =
// one per node).
std::unique_ptr<Backend> make_rearrange_backend(std::unique_ptr<Backend> inner, int aggregators);

// The blob strategy on its own (subfiles: number of subfiles, 0 = one per
// node).  The output path becomes a directory; see strategy_blob_layout.hpp.
std::unique_ptr<Backend> make_blob_backend(std::unique_ptr<Backend> inner, int subfiles);

// The log strategy (subfiles: number of process groups, 0 = one per node).
// Written natively with MPI-IO whatever library was named; the output path
// becomes a directory; see strategy_log_layout.hpp.
std::unique_ptr<Backend> make_log_backend(int subfiles, MPI_Info hints);

}  // namespace iok
