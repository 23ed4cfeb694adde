#pragma once
// hdf5_iotest's figures from the runner's metrics: each phase's min and max
// over the ranks, and its results CSV (the original's header and columns).
#include <initializer_list>
#include <string>

#include "kernels/metadata/metadata_config.hpp"
#include "runner/file_metrics.hpp"

namespace iok::metadata {

struct Span {
    double min = 0, max = 0;
};

// The phases' seconds summed, min and max over the ranks.
Span span(const FileMetrics& m, std::initializer_list<Phase> phases);

struct Figures {
    double wall = 0;
    double file_size = 0;
    double bytes_per_rank = 0;  // the original's byte_count
    Span write_phase, create, write, read_phase, read;
    // MiB/s over `s` seconds (0 when s is 0).
    double rate(double s) const { return s > 0 ? bytes_per_rank / (1024.0 * 1024.0) / s : 0.0; }
};

// Rank 0: the CSV file as the original writes it.  Throws iok::Error.
void write_csv(const std::string& path, const Config& c, const Figures& f);

}  // namespace iok::metadata
