#pragma once
// The report blocks of vpic (h5bench_write) and bdcats (h5bench_read): what
// ran -- library, memory and file pattern, dataset shape, storage settings,
// verdict -- above h5bench's metrics (add_metrics), and the same settings as
// the result's params with the metrics as its summary.  Rank 0 only; kept
// apart so each main reads as the run itself.
#include <cstdint>

#include "driver/driver.hpp"
#include "kernels/vpic/vpic_geometry.hpp"
#include "kernels/vpic/vpic_run.hpp"
#include "runner/runner.hpp"

namespace iok::vpic {

// `w`: the particle file's outcome (rank 0's file with FILE_PER_PROC);
// `verified`: its read-back (--verify), or null.
void report_write(Driver& d, const Cli& cli, const Geometry& g, const FileOutcome& w, const Metrics& m,
                  const FileOutcome* verified);

// `writers`: ranks that wrote the file; `bad`: mismatches over every file read.
void report_read(Driver& d, const Cli& cli, const Geometry& g, const FileOutcome& r, const Metrics& m, int writers,
                 std::uint64_t bad);

}  // namespace iok::vpic
