#pragma once
// The S3D-IO reference's figures, gathered from the runner's per-file
// results: times are the slowest rank's per phase, summed over files (each
// phase starts after a barrier, so that sum is the wall time the phases
// took); amounts are summed over ranks and files.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/report.hpp"
#include "kernels/s3d/s3d_decomp.hpp"
#include "runner/file_metrics.hpp"

namespace iok::s3d {

struct Totals {
    double open_s = 0, write_s = 0, read_s = 0, close_s = 0;
    double write_bytes = 0, read_bytes = 0;
    double write_calls = 0, read_calls = 0;  // per process (max over ranks)
    std::uint64_t files_written = 0, bytes_on_disk = 0;

    // Adds the metrics of a checkpoint write or of the restart read.
    void add(const FileMetrics& file);
    double total_s() const { return open_s + write_s + read_s + close_s; }
    double total_bytes() const { return write_bytes + read_bytes; }
    nlohmann::json to_json() const;
};

// What the S3D-IO report prints besides the totals.
struct ReportContext {
    std::string stack;        // "pnetcdf", "hdf5 + rearrange"
    std::string library;      // "PnetCDF 1.14.0"
    std::string method;       // blocking | nonblocking
    std::string pnetcdf_api;  // "" when the library is not PnetCDF
    std::string restart_note, verify_note;
    int nprocs = 1;
    std::string striping_factor = "0", striping_unit = "0";
};

// The S3D-IO reference's report layout, from the totals (rank 0).
void print_s3d_report(const ReportContext& ctx, const Grid& grid, const Block& blk, int checkpoints,
                      const std::string& dir, const Totals& totals);

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
std::string gib_text(double bytes);  // "0.60 GiB (640,000,000 bytes)"

}  // namespace iok::s3d
