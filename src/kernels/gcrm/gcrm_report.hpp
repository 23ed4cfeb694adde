#pragma once
// GCRM's own report, as the GCRM-IO reference prints it: the MPI hints in
// effect, the run parameters, then timing, amounts, memory and the GIO-style
// per-API time table; and the same figures as the result's params/summary.
// Everything here runs on rank 0 unless it says otherwise.
#include <mpi.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/report.hpp"
#include "core/result.hpp"
#include "core/stats.hpp"
#include "driver/driver.hpp"
#include "kernels/gcrm/gcrm_options.hpp"
#include "kernels/gcrm/gcrm_plan.hpp"
#include "kernels/gcrm/gcrm_setup.hpp"
#include "runner/runner.hpp"

namespace iok::gcrm {

// One warning on stderr per field of the file configuration that has no data.
void warn_no_data(const RunPlan& plan, bool physics);

// "GCRM run parameters": grid, files, I/O method.  `nfiles`: distinct paths.
TextReport run_parameters(const Inputs& in, const RunPlan& plan, const Options& o, Driver& d, std::size_t nfiles);

// --dry-run: the parameters, one line per planned file and the byte total.
void print_plan(const TextReport& params, const RunPlan& plan);

// "MPI File Info: [ i] key = ..., value = ..." as the reference lists them.
void print_hints(MPI_Info info);

// What the run measured, over every file written and read back.
struct Measured {
    int nprocs = 1;
    // Per-API time, "write flush" -> (sum over files of the max over ranks,
    // sum over files of the sum over ranks: the reference's "cumulative
    // across all MPI processes").
    std::map<std::string, std::pair<double, double>> api;
    std::uint64_t write_bytes = 0, read_bytes = 0;
    std::vector<TextReport> file_reports;
    // reduce_over_ranks of {init, compute, write I/O, read-back, peak RSS},
    // and of the finalize time (which includes that reduction).
    std::vector<Stat> times;
    Stat finalize;
    std::uint64_t model_bytes = 0;  // --model-memory arrays per rank
    std::uint64_t mismatches = 0;
    std::string first_bad;

    // Adds a file's write or read-back, from its typed metrics (every rank
    // has them; the per-file text report is rank 0's).
    void add(const FileOutcome& out);
};

// The timing, amount, memory and per-API tables and the verdict.
void print_results(const Measured& m, const Options& o);

// The result's params and summary (the JSON keys the tests read).
void fill_result(Result& result, const Measured& m, const Options& o, const Inputs& in, const RunPlan& plan,
                 std::size_t nfiles);

}  // namespace iok::gcrm
