#pragma once
// What one file's write or read measured, typed: the runner fills it, every
// rank receives it, and this module is the one place that turns it into the
// aligned text report and the JSON `files` entry (CSV rows are flattened from
// that entry by core/result_csv).  Kernels read these fields, never JSON.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/report.hpp"
#include "core/stats.hpp"

namespace iok {

// Phases of a file's run, in the order they first happen.  Each starts after
// a barrier; EndToEnd is create/open to close, I/O phases only.
enum class Phase : int { Open, Define, Fill, Post, PostRead, Flush, Verify, Close, EndToEnd };
inline constexpr int kPhases = 9;
const char* phase_name(Phase p);  // "open", ..., "post_read", "end_to_end" (JSON keys)

struct FileMetrics {
    bool writing = true;
    std::string label, path, backend, library;
    std::uint64_t variables = 0, attributes = 0, flushes = 0;
    int records = 0;
    // Over ranks: min, max, mean, sum.
    Stat requests, bytes, calls, rss_peak, library_hwm;
    std::array<Stat, kPhases> seconds{};
    std::array<bool, kPhases> ran{};  // phases that happened (EndToEnd always)
    double data_seconds = 0;          // slowest rank inside post + flush
    std::uint64_t bytes_on_disk = 0;  // file or directory after close
    // Arrays of structs in memory (h5bench MEM_PATTERN=INTERLEAVED); fields 0: none.
    std::uint64_t struct_fields = 0, struct_bytes = 0, struct_native = 0, struct_packed = 0;
    bool checked = true;           // read: elements compared with the pattern (--no-verify: not)
    std::uint64_t mismatches = 0;  // read: elements that failed verification, all ranks
    std::string first_mismatch;

    double max_seconds(Phase p) const { return ran[static_cast<int>(p)] ? seconds[static_cast<int>(p)].max : 0.0; }
    double bandwidth_data_only() const;      // MiB/s: total bytes / slowest rank's post+flush
    double bandwidth_open_to_close() const;  // MiB/s: total bytes / slowest rank's end-to-end
    std::uint64_t overhead_bytes() const;    // write: on disk beyond the data
    std::string memory_layout() const;       // for the report

    // Collective: every rank receives root's figures.
    void broadcast(MPI_Comm comm, int root = 0);
};

nlohmann::json to_json(const FileMetrics& m);
TextReport to_text(const FileMetrics& m);

}  // namespace iok
