#pragma once
// The JSON result of one run: versioned schema, the kernel's parameters, one
// entry per file written or read, and the manifest.  Written by rank 0 to the
// --json file; never mixed with log text on stdout.
#include <mpi.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/manifest.hpp"

namespace iok {

inline constexpr const char* kResultSchema = "iokernels-result/1";

class Result {
public:
    Result(std::string kernel, std::vector<std::string> argv) : kernel_(std::move(kernel)), argv_(std::move(argv)) {}

    nlohmann::json& params() { return params_; }    // kernel options that shaped the run
    nlohmann::json& summary() { return summary_; }  // kernel-level totals (optional)
    void add_file(nlohmann::json file) { files_.push_back(std::move(file)); }
    const nlohmann::json& files() const { return files_; }
    void add_input(const std::string& role, const std::string& path) { inputs_.push_back({role, path}); }

    // Collective (the manifest counts nodes).  Writes `path` on rank 0 when
    // non-empty; throws iok::Error on every rank if it cannot be written.
    void write(MPI_Comm comm, const std::string& path, MPI_Info hints, MPI_Info requested);

private:
    std::string kernel_;
    std::vector<std::string> argv_;
    nlohmann::json params_ = nlohmann::json::object();
    nlohmann::json summary_ = nlohmann::json::object();
    nlohmann::json files_ = nlohmann::json::array();
    std::vector<InputFile> inputs_;
};

std::vector<std::string> argv_vector(int argc, char** argv);

// Sets doc["valid"] (false when any verification mismatch is recorded in the
// summary or a file's "verify") and, when false, "invalid_reason" and every
// file's "valid": false.  Result::write calls it.
void mark_validity(nlohmann::json& doc);

}  // namespace iok
