#pragma once
// What blob_replay and log_replay share: both rebuild the canonical file of a
// per-process output (`-x blob`, `-x log`) with any number of processes and
// any I/O stack.  This class owns the command line (input directory, -o and
// the driver's options), the split of the writer processes over the replay
// processes, the output (claimed, created through the driver's stack, kept),
// the passes (fixed-size variables, then each record: one put per variable,
// one flush per pass) and the report.  A tool only reads its own index and
// says, per variable and record, where this rank's bytes are.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "driver/driver.hpp"
#include "model/file_spec.hpp"
#include "model/selection.hpp"

namespace iok {

class CanonicalRebuild {
public:
    // `kind`: "blob" or "log" (used in help and report texts).
    CanonicalRebuild(const std::string& kind, const std::string& input_help, MPI_Comm comm, int argc, char** argv);

    CLI::App& app() { return app_; }  // for a tool's own options, before parse()
    bool parse();                     // false: --help was printed
    const std::string& input() const { return input_; }
    const std::string& output() const { return output_; }
    const CommonOptions& options() { return driver_->options(); }
    int rank() const { return driver_->rank(); }
    int size() const { return driver_->size(); }
    // This rank's writers [first, last) of `writers`, split evenly in order.
    std::pair<std::size_t, std::size_t> share(std::size_t writers) const;

    // Per variable of a pass: sizes `buf` and fills it (or posts reads into
    // it) with this rank's elements of (var, record), returns their
    // canonical selection (it must live until the pass's flush, like every
    // selection handed to put()).
    using Fill = std::function<const Selection&(int var, std::int64_t record, std::vector<unsigned char>& buf)>;
    // Claims and creates the output, runs every pass (after_fill, e.g. the
    // flush of posted reads, runs between the fills and the puts of a pass),
    // then close_inputs and the output's close.  Collective.
    void write(const FileSpec& spec, std::int64_t nrecords, const Fill& fill, const std::function<void()>& after_fill,
               const std::function<void()>& close_inputs);

    // The report (rank 0, unless -q): the tool's lines, then the common ones.
    void report(const std::vector<std::pair<std::string, std::string>>& lines);

private:
    std::string kind_;
    MPI_Comm comm_;
    CLI::App app_;
    std::string input_, output_;
    std::unique_ptr<Driver> driver_;
    double t0_ = 0;
    std::uint64_t bytes_ = 0;
    std::int64_t records_ = 0;
};

}  // namespace iok
