#pragma once
// Dry runs at any scale: what N ranks would do with a kernel's plans,
// computed on one process.  The kernel gives the plans of one rank at a time
// (its own make-plan code, so the figures are those a real run reports); the
// census keeps only per-rank counts, so memory is one rank's plan plus N
// numbers per file, whatever N is.
//
// Counting rules are the runner's: a rank's requests are FilePlan::requests
// (what the kernel counts for its report) and its bytes FilePlan::bytes()
// (every selected element of every record, fill selections included).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/plan.hpp"

namespace iok {

struct PlannedFile {
    std::string label;  // the FileSpec's label ("h0", "field", ...)
    std::size_t variables = 0;
    int records = 0;
    std::vector<std::uint64_t> requests;  // per rank
    std::vector<std::uint64_t> bytes;     // per rank
    std::uint64_t total_requests() const;
    std::uint64_t total_bytes() const;
};

// Calls plans_of(r) for r = 0..nranks-1 (every call must return the same
// files in the same order) and returns the files with their per-rank counts.
// `progress`, when set, is told every ~5% of the ranks (long censuses print
// where they are).
std::vector<PlannedFile> plan_census(int nranks, const std::function<std::vector<FilePlan>(int rank)>& plans_of,
                                     const std::function<void(int done, int total)>& progress = {});

// The aligned text block of one planned file ("planned for N ranks"), and its
// JSON entry for the result's "files" list.
std::string census_text(const PlannedFile& f, int nranks);
nlohmann::json census_json(const PlannedFile& f, int nranks);

}  // namespace iok
