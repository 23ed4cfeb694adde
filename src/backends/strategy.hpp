#pragma once
// Strategies arrange requests before a library sees them.  Each is a Backend
// that wraps another Backend, so kernels and libraries stay unaware:
//   canonical  the library itself, each variable in its logical layout
//   rearrange  requests exchanged among ranks so that a few aggregator ranks
//              each write a few large contiguous pieces (like Scorpio's BOX
//              rearranger / E3SM-IO's hdf5_ra), then the library
//   blob, log  (see their files) data stored per process plus the metadata
//              to rebuild the canonical layout
// Each strategy file registers itself (IOK_REGISTER_STRATEGY), as backends
// and kernels do; the driver builds the stack through io_stack.hpp.
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"

namespace iok {

struct StrategyInfo {
    std::string name;
    std::string description;
    std::vector<OptionSpec> options;  // keys prefixed "<name>."
    // Builds the strategy around backend `library` (cfg: validated params).
    std::unique_ptr<Backend> (*make)(const std::string& library, const BackendConfig& cfg) = nullptr;
    // The MPI-IO hints (cfg.hints) and library parameters (cfg.params) the
    // strategy gives `library` by default, set after the kernel's and the
    // user's, which they never replace (so the manifest records them as
    // requested).
    void (*library_settings)(const std::string& library, BackendConfig& cfg) = nullptr;
    // Requests reach the library as given (canonical): the stack is the library alone.
    bool library_alone = false;
    // The output is the library's own file with each variable in its logical
    // layout (canonical, rearrange), not a layout of the strategy's (blob, log).
    bool keeps_canonical_layout = false;
    // The library's data calls are independent whatever --independent says
    // (rearrange's aggregators unless rearrange.collective=1; blob unless
    // blob.aggregate=1).
    bool library_io_independent = false;
    bool output_is_directory = false;    // the output path becomes a directory of subfiles
    bool read_needs_same_ranks = false;  // -i/read-back with the writer's rank count only
    // The library that actually writes, when it is not the one -a names ("mpiio"
    // for log, which writes its own layout with MPI-IO); empty: the -a backend.
    std::string writes_with;
    std::string read_back;  // how its output is read back (for `iokernels backends`)
};

void register_strategy(StrategyInfo info);
const std::vector<StrategyInfo>& registered_strategies();  // canonical first, then by name
// Throws iok::Error listing the strategies of this build when `name` is not one.
const StrategyInfo& strategy_info(const std::string& name);

#define IOK_REGISTER_STRATEGY(ident, describe)        \
    namespace {                                       \
    const bool iok_strategy_registered_##ident = [] { \
        ::iok::register_strategy(describe());         \
        return true;                                  \
    }();                                              \
    }

// The strategies on their own, for the replay tools and unit tests.
// rearrange: aggregators = number of aggregator ranks, 0 = one per node;
// batch_bytes = most bytes per rank one exchange carries, 0 = one per variable.
std::unique_ptr<Backend> make_rearrange_backend(std::unique_ptr<Backend> inner, int aggregators,
                                                std::int64_t batch_bytes);
// blob: subfiles = number of subfiles, 0 = one per node.  The output path
// becomes a directory; see strategy_blob_layout.hpp.
std::unique_ptr<Backend> make_blob_backend(std::unique_ptr<Backend> inner, int subfiles);
// log (subfiles: number of process groups, 0 = one per node).  Written
// natively with MPI-IO whatever library was named; the output path becomes a
// directory; see strategy_log_layout.hpp.
std::unique_ptr<Backend> make_log_backend(int subfiles, MPI_Info hints);

// Reads an integer option >= 0 and <= 2^30 of a strategy ("rearrange.aggregators"),
// its default from the strategy's option table; zero_means: what 0 asks for
// (said in the error message).
int strategy_count_param(const BackendConfig& cfg, const std::string& key,
                         const std::string& zero_means = "one per node");

}  // namespace iok
