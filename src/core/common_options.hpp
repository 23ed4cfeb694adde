#pragma once
// Options every kernel shares (output handling, backend choice, hints,
// results).  Each kernel adds these to its CLI11 app, then its own.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "backends/backend.hpp"

namespace iok {

struct CommonOptions {
    std::string backend = "pnetcdf";     // -a/--api
    std::vector<std::string> params;     // --param KEY=VALUE (backend specific)
    std::vector<std::string> hints;      // --hint KEY=VALUE (MPI-IO hints)
    bool independent = false;            // --independent
    bool keep = false;                   // -k/--keep
    bool overwrite = false;              // --overwrite
    std::string json;                    // --json FILE
    bool quiet = false;                  // -q/--quiet
    bool verbose = false;                // -v/--verbose

    // Adds the options to `app`.  `default_backend` is shown in --help.
    void add_to(CLI::App& app, const std::string& default_backend);

    // Builds the backend configuration (caller owns cfg.hints; free with
    // free_config).  Throws iok::Error on malformed KEY=VALUE.
    BackendConfig backend_config() const;
};

void free_config(BackendConfig& cfg);

// Parses argv with CLI11 on every rank; --help prints on rank 0 only.
// Returns true when the program should exit now (help shown) with *exit_code.
// Parse errors become iok::Error (so every rank fails alike).
bool parse_command_line(CLI::App& app, int argc, char** argv, MPI_Comm comm, int* exit_code);

// "KEY=VALUE" -> pair; throws iok::Error naming `what` on malformed input.
std::pair<std::string, std::string> split_key_value(const std::string& kv, const std::string& what);

// Which backends this build has, for --help text: "pnetcdf, hdf5, ...".
std::string backend_list();

}  // namespace iok
