#pragma once
// The S3D-IO reference's figures, gathered from the runner's per-file
// results: times are the slowest rank's per phase, summed over files (each
// phase starts after a barrier, so that sum is the wall time the phases
// took); amounts are summed over ranks and files.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/report.hpp"

namespace iok::s3d {

struct Totals {
    double open_s = 0, write_s = 0, read_s = 0, close_s = 0;
    double write_bytes = 0, read_bytes = 0;
    double write_calls = 0, read_calls = 0;  // per process (max over ranks)
    std::uint64_t files_written = 0, bytes_on_disk = 0;

    // Adds one runner result (json of FileOutcome) of a checkpoint write
    // or of the restart read.
    void add(const nlohmann::json& file);
    double total_s() const { return open_s + write_s + read_s + close_s; }
    double total_bytes() const { return write_bytes + read_bytes; }
    nlohmann::json to_json() const;
};

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
std::string gib_text(double bytes);  // "0.60 GiB (640,000,000 bytes)"

}  // namespace iok::s3d
