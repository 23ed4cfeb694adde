#pragma once
// The driver runs every kernel's experiment.  It owns what all kernels share
// — the common options (-a -x -g --param --hint --independent -k --overwrite
// --json --csv --verify -q -v), building the I/O stack (a strategy wrapped
// around a backend, both from their registries, --param keys checked
// centrally), output ownership, the result with its manifest, and the
// verification verdict — so a kernel main only adds its own options, builds
// its plans, runs them through the runner and prints its own report lines.
//
// Every method is collective over the driver's communicator unless it says
// otherwise; failures become one message and exit 1 on every rank.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/strategy.hpp"
#include "core/output_files.hpp"
#include "core/resource_check.hpp"
#include "core/result.hpp"
#include "runner/runner.hpp"

namespace iok {

struct CommonOptions {
    std::string backend;                 // -a/--api
    std::string strategy = "canonical";  // -x/--strategy
    int subfiles = 0;                    // -g/--subfiles (blob, log)
    std::vector<std::string> params;     // --param KEY=VALUE
    std::vector<std::string> hints;      // --hint KEY=VALUE (MPI-IO hints)
    bool independent = false;            // --independent
    bool keep = false;                   // -k/--keep
    bool overwrite = false;              // --overwrite
    bool verify = false;                 // --verify/--no-verify (default: the kernel's)
    std::string json;                    // --json FILE
    std::string csv;                     // --csv FILE
    bool quiet = false;                  // -q/--quiet
    bool verbose = false;                // -v/--verbose
    bool no_size_check = false;          // --no-size-check (or IOK_NO_SIZE_CHECK=1)
    bool dry_run = false;                // --dry-run: plan and count, open nothing
};

// What a kernel chooses for the common options.
struct DriverDefaults {
    std::string backend = "pnetcdf";
    bool verify = false;
    bool verify_option = true;  // offer --verify/--no-verify
    // What --verify means for this kernel (a reading kernel: compare what it
    // reads; --no-verify reads and times only).
    std::string verify_help = "read every written file back and verify every element";
};

class Driver {
public:
    // Adds the common options to `app`.  Call after the kernel added its own:
    // a name the kernel already defines (vpic's h5bench --csv, e3sm's -v) is
    // left to the kernel.
    Driver(const char* kernel, MPI_Comm comm, CLI::App& app, int argc, char** argv, DriverDefaults d = {});
    ~Driver();
    Driver(const Driver&) = delete;
    Driver& operator=(const Driver&) = delete;

    // Parses argv on every rank and checks, in one collective step, the
    // kernel's own options (`validate`) and the common ones (backend,
    // strategy, --param keys, --hint syntax).  Returns false when --help was
    // printed and the kernel should return.
    bool parse(const std::function<void()>& validate = {});

    CommonOptions& options() { return opt_; }
    MPI_Comm comm() const { return comm_; }
    int rank() const { return rank_; }
    int size() const { return size_; }

    // A kernel's defaults for the library, applied when the stack is built;
    // the user's --param / --hint win.  A parameter key the chosen backend or
    // strategy does not have is ignored (s3d asks pnetcdf.api=blocking for
    // its blocking method whatever the library).
    // Collective: refuses (on every rank) a run that needs more memory or
    // disk than the machine has, unless --no-size-check (resource_check.hpp).
    void check_resources(const ResourceNeeds& need, const std::string& what_to_shrink) const;

    void default_param(const std::string& key, const std::string& value);
    void default_hint(const std::string& key, const std::string& value);
    void set_collective(bool collective) { collective_ = collective; }  // AND-ed with !--independent
    void set_fill(bool fill) { fill_ = fill; }

    const BackendInfo& library() const;    // what -a names
    const StrategyInfo& strategy() const;  // what -x names
    // The library that writes: the strategy's own (log: mpiio) or -a's.
    std::string writing_library() const;
    // "hdf5", "hdf5 + rearrange", "mpiio (log layout; -a hdf5 for log_replay)".
    std::string stack_label() const;
    std::string library_label() const;                             // version of the writing library: "PnetCDF 1.14.0"
    std::string extension() const;                                 // file extension of -a's backend
    MPI_Info hints_in_effect() const { return hints_in_effect_; }  // of the first file recorded
    // The configuration the stack is built with (validated, defaults filled).
    const BackendConfig& config();
    // Refuses the run on every rank when the library lacks what the kernel
    // needs: "FILE_PATTERN=INTERLEAVED needs compound files, which backend
    // pnetcdf does not have".  Call inside or outside a collective step.
    void require(bool have, const std::string& what, const std::string& capability);
    // Fails on every rank with `what` and `hint` when `ok` is false.
    void check(bool ok, const std::string& what, const std::string& hint);
    // Likewise, as a combination this stack cannot express (exit status 2).
    void expressible(bool ok, const std::string& what, const std::string& hint);

    // Whether the chosen backend or strategy has this --param key.
    bool has_param(const std::string& key) const;

    // The I/O stack (strategy around backend) of this run: it opens any number
    // of files, each an independent File; keep it alive while they are open.
    std::unique_ptr<Backend> make_stack();

    OutputFiles& outputs();  // created by parse()
    Result& result() { return result_; }
    RunOptions run_options() const;

    // Adds a file's outcome to the result (rank 0), keeps the first hints in
    // effect for the manifest and counts verification mismatches.
    void record(FileOutcome& out, const nlohmann::json& extra = nlohmann::json::object());
    std::uint64_t mismatches() const { return mismatches_; }

    // Writes the JSON result (--json) and CSV rows (--csv) with the stack in
    // params, then fails on every rank if any read-back found wrong data.
    void finish(const std::string& mismatch_hint = "the file does not hold what this run wrote: was it modified?");

private:
    void build_config();

    std::string kernel_;
    MPI_Comm comm_;
    int rank_ = 0, size_ = 1;
    CLI::App& app_;
    int argc_;
    char** argv_;
    CommonOptions opt_;
    Result result_;
    std::unique_ptr<OutputFiles> outputs_;
    std::vector<std::pair<std::string, std::string>> default_params_, default_hints_;
    bool collective_ = true, fill_ = false, config_built_ = false;
    BackendConfig cfg_;
    MPI_Info hints_in_effect_ = MPI_INFO_NULL;
    void warn_hints_not_in_effect() const;
    std::uint64_t mismatches_ = 0;
    std::string first_mismatch_;
};

}  // namespace iok
