#pragma once
// iokernels e3sm --dry-run [--ranks N]: what N ranks would do with a map,
// computed on one process — the question E3SM's I/O people ask before they
// have the allocation (or the ranks) to run it.  Each rank's plan is built
// with the real run's code (redistribution of the map's processes over the
// ranks, sort/coalesce, -s stride, --fill) and counted (runner/plan_census);
// nothing is opened.
#include <string>
#include <vector>

#include "driver/driver.hpp"
#include "formats/decomp_map.hpp"
#include "kernels/e3sm/e3sm_options.hpp"
#include "kernels/e3sm/e3sm_plan.hpp"

namespace iok::e3sm {

// Collective over the driver's communicator (rank 0 counts, every rank
// finishes the result).  Prints the run header, each file's variable counts
// and per-rank requests and bytes; the JSON result gets one entry per file.
void dry_run(const Options& o, const DecompMap& map, const std::string& case_label, const std::vector<FileSpec>& specs,
             const PlanSettings& settings, Driver& d);

}  // namespace iok::e3sm
