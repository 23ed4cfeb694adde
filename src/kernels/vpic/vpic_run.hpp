#pragma once
// What the vpic (write) and bdcats (read) entry points share: the command
// line (h5bench's "CONFIG_FILE FILE" form and named options), the checks of
// what the chosen backend can do, and the h5bench metrics reduced over ranks.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/report.hpp"
#include "driver/driver.hpp"
#include "driver/kernel.hpp"
#include "kernels/vpic/vpic_config.hpp"

namespace iok::vpic {

struct Cli {
    Config cfg;
    std::vector<std::string> positional;                      // h5bench form: CONFIG_FILE FILE
    std::string path;                                         // -o (vpic) / -i (bdcats)
    std::string csv;                                          // --csv (same as CSV_FILE)
    int writers = 0;                                          // bdcats --writers (0 = as many as read)
    std::vector<std::pair<std::string, CLI::Option*>> named;  // KEY -> --key option
    std::vector<std::string> named_values;

    void add_to(CLI::App& app, bool reading);
    // Loads the configuration file, applies named options, validates.
    // Throws iok::Error.  `default_path` is used when no file was named.
    void resolve(bool reading, const std::string& default_path);
    bool reference_form() const { return !positional.empty(); }
};

// What vpic and bdcats tell the driver: h5bench's library (HDF5) first.
// vpic offers --verify (off by default, as h5bench_write never reads back:
// with it the file is read back after the last step); bdcats verifies what
// it reads by default, and --no-verify reads and times only, as
// h5bench_read does (a side-by-side comparison without our check).
inline DriverDefaults particle_defaults(bool writing) {
    DriverDefaults d;
    d.backend = "hdf5";
    d.verify = !writing;
    if (!writing)
        d.verify_help =
            "compare every particle read with what `iokernels vpic` wrote (--no-verify: read and time "
            "only, as h5bench_read)";
    return d;
}

// Hands this configuration's library settings to the driver and refuses
// what the chosen backend cannot do (compound file layout, compression,
// alignment, async, subfiling) with a clear message on every rank.
void configure_stack(Driver& d, const Config& c);

// h5bench's figures, reduced over ranks (time: slowest rank; bytes: sum).
struct Metrics {
    bool writing = true;
    int ranks = 1;
    double bytes = 0;
    double compute = 0;   // emulated compute, total
    double prepare = 0;   // pattern generation ("data preparation")
    double raw = 0;       // inside the data calls (post + flush)
    double metadata = 0;  // define (write) / open incl. dataset opens (read)
    double create = 0, flush = 0, close = 0;
    double verify = 0;    // checking what was read against the pattern (read)
    double observed = 0;  // create/open -> close, compute, preparation, verification included
    std::uint64_t particles = 0;
    double raw_rate() const;       // MiB/s
    double observed_rate() const;  // MiB/s, compute, preparation and verification excluded
};

// Collective: combines this rank's file metrics (every rank holds its
// file's; `file_owner`: this rank counts the file's bytes, i.e. rank 0 of a
// shared file or every rank of file-per-process) and observed time into
// Metrics on every rank.
Metrics reduce_metrics(MPI_Comm comm, bool writing, const FileMetrics& f, bool file_owner, double observed,
                       double compute, std::uint64_t local_particles);

void add_metrics(TextReport& t, const Metrics& m);
nlohmann::json metrics_json(const Metrics& m);
// "metric, value, unit" rows (h5bench's CSV_FILE).  Throws iok::Error.
void write_csv(const std::string& path, const Metrics& m, const Config& cfg,
               const std::vector<std::pair<std::string, std::string>>& extra);
// ENV_METADATA_FILE: the environment variables that shape I/O (HDF5_*, MPI, ...).
void write_env_metadata(const std::string& path);

// Sleeps for the emulated compute time.
void emulate_compute(double seconds);

// The time step loop both kernels share, as the driver's tick hooks
// (driver/kernel.hpp): after each step a progress line on stderr ("time
// step 2/5 <verb> (1.23 s)", time since the first step) when `progress` and
// there is more than one step, then the emulated compute between steps.
struct TimeSteps {
    const Config& cfg;
    bool progress;
    const char* verb;
    double t0 = 0;
    double compute = 0;  // the compute time slept
    void before(int t);
    void after(int t);
    // The group the driver runs: the particle file a record per time step,
    // with these hooks between the steps (a file per process: each rank's
    // own, on MPI_COMM_SELF).  The group calls back into this object.
    StepGroup group(Step file, bool file_per_proc);
};

}  // namespace iok::vpic
