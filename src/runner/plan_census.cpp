#include "runner/plan_census.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "core/error.hpp"
#include "core/report.hpp"

namespace iok {

std::uint64_t PlannedFile::total_requests() const {
    return std::accumulate(requests.begin(), requests.end(), std::uint64_t{0});
}

std::uint64_t PlannedFile::total_bytes() const { return std::accumulate(bytes.begin(), bytes.end(), std::uint64_t{0}); }

std::vector<PlannedFile> plan_census(int nranks, const std::function<std::vector<FilePlan>(int rank)>& plans_of,
                                     const std::function<void(int done, int total)>& progress) {
    if (nranks < 1) throw Error("--ranks must be at least 1 (got " + std::to_string(nranks) + ")");
    std::vector<PlannedFile> files;
    const int step = std::max(1, nranks / 20);
    for (int r = 0; r < nranks; ++r) {
        const std::vector<FilePlan> plans = plans_of(r);
        if (r == 0) {
            for (const auto& p : plans) {
                PlannedFile f;
                f.label = p.spec.label;
                f.variables = p.spec.vars.size();
                f.records = p.nrecords;
                f.requests.assign(static_cast<std::size_t>(nranks), 0);
                f.bytes.assign(static_cast<std::size_t>(nranks), 0);
                files.push_back(std::move(f));
            }
        } else if (plans.size() != files.size()) {
            throw Error("plan_census: rank " + std::to_string(r) + " plans " + std::to_string(plans.size()) +
                        " files, rank 0 plans " + std::to_string(files.size()));
        }
        for (std::size_t i = 0; i < plans.size(); ++i) {
            files[i].requests[static_cast<std::size_t>(r)] = plans[i].requests;
            files[i].bytes[static_cast<std::size_t>(r)] = plans[i].bytes();
        }
        if (progress && (r + 1) % step == 0) progress(r + 1, nranks);
    }
    return files;
}

namespace {

struct Spread {
    std::uint64_t min = 0, max = 0;
    double mean = 0;
};

Spread spread(const std::vector<std::uint64_t>& v) {
    Spread s;
    if (v.empty()) return s;
    const auto mm = std::minmax_element(v.begin(), v.end());
    s.min = *mm.first;
    s.max = *mm.second;
    s.mean = static_cast<double>(std::accumulate(v.begin(), v.end(), std::uint64_t{0})) / static_cast<double>(v.size());
    return s;
}

}  // namespace

std::string census_text(const PlannedFile& f, int nranks) {
    const Spread rq = spread(f.requests), by = spread(f.bytes);
    TextReport t;
    t.section("file " + f.label + " as " + with_commas(static_cast<std::uint64_t>(nranks)) +
              " ranks would write it (dry run)");
    t.count("Variables", f.variables);
    t.count("Records", static_cast<std::uint64_t>(f.records));
    t.count("Requests, all ranks", f.total_requests());
    t.count("Requests per rank, max", rq.max);
    t.count("Requests per rank, min", rq.min);
    char mean[32];
    std::snprintf(mean, sizeof mean, "%.1f", rq.mean);
    t.line("Requests per rank, mean", mean);
    t.line("Bytes, all ranks", format_bytes(static_cast<double>(f.total_bytes())));
    t.line("Bytes per rank, max", format_bytes(static_cast<double>(by.max)));
    t.line("Bytes per rank, min", format_bytes(static_cast<double>(by.min)));
    const auto idle = std::count(f.bytes.begin(), f.bytes.end(), std::uint64_t{0});
    t.count("Ranks with nothing to write", static_cast<std::uint64_t>(idle));
    return t.str();
}

nlohmann::json census_json(const PlannedFile& f, int nranks) {
    const Spread rq = spread(f.requests), by = spread(f.bytes);
    return {{"label", f.label},
            {"operation", "dry_run"},
            {"ranks", nranks},
            {"variables", f.variables},
            {"records", f.records},
            {"requests", {{"total", f.total_requests()}, {"max", rq.max}, {"min", rq.min}, {"mean", rq.mean}}},
            {"bytes", {{"total", f.total_bytes()}, {"max", by.max}, {"min", by.min}, {"mean", by.mean}}},
            {"idle_ranks", std::count(f.bytes.begin(), f.bytes.end(), std::uint64_t{0})}};
}

}  // namespace iok
