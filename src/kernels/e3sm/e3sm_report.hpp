#pragma once
// The E3SM-IO reference's own report blocks, printed by rank 0 around the
// runner's per-file reports: the run header (processes, map, stack, record
// settings), each history file's variable counts per decomposition, and the
// summary (request preparation against write time, verdict).
#include <cstdint>
#include <string>

#include "driver/driver.hpp"
#include "formats/decomp_map.hpp"
#include "kernels/e3sm/e3sm_options.hpp"
#include "model/plan.hpp"

namespace iok::e3sm {

void print_header(const Options& o, const DecompMap& map, const std::string& case_name, int nprocs, int io_procs,
                  Driver& d);

// The kernel's options that shape a run, for the JSON result's params.
nlohmann::json result_params(const Options& o, const std::string& case_name, int io_procs);

void print_var_counts(const FileSpec& spec, int ndecomps);

// `write_seconds`: end-to-end time of the writes, summed over files (0: no
// write); `verified`: something was read and checked.
// Preparation in total and its parts (map reading and sharing; case and plans).
void print_summary(double prepare_seconds, double map_seconds, double plan_seconds, double write_seconds, bool verified,
                   std::uint64_t mismatches);

}  // namespace iok::e3sm
