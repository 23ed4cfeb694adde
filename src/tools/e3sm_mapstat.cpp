// e3sm_mapstat: statistics of E3SM decomposition maps, to check a generated
// map against a real one (or any two maps against each other):
//   e3sm_mapstat MAP [MAP2] [--ranks 1,4,16] [--json] [--check]
// Per decomposition: dims, coverage (distinct elements, overlaps), real and
// fill runs, the run-length histogram, and the requests R benchmark ranks
// would issue after distribution, sorting and coalescing (total, max, min
// per rank).  With MAP2 the two maps side by side and MAP's relative
// difference to MAP2 (MAP / MAP2 - 1).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "formats/map_stat.hpp"

namespace {

using namespace iok::e3sm;

std::string dims_text(const std::vector<std::int64_t>& dims) {
    std::string s;
    for (auto x : dims) s += (s.empty() ? "" : " x ") + std::to_string(x);
    return s;
}

// One row of figures per statistic, in the order printed.
struct Row {
    std::string label;
    double value;
};

std::vector<Row> rows(const DecompStats& d, std::size_t nbuckets) {
    std::vector<Row> r = {{"elements", static_cast<double>(d.elements)},
                          {"covered", static_cast<double>(d.covered)},
                          {"covered twice or more", static_cast<double>(d.overlap)},
                          {"real runs", static_cast<double>(d.real_runs)},
                          {"fill runs", static_cast<double>(d.fill_runs)}};
    for (std::size_t b = 0; b < nbuckets; ++b)
        r.push_back({"  runs of length " + length_bucket_label(b),
                     static_cast<double>(b < d.length_histogram.size() ? d.length_histogram[b] : 0)});
    for (const auto& [R, q] : d.requests) {
        const std::string at = "requests @" + std::to_string(R) + " ranks ";
        r.push_back({at + "total", static_cast<double>(q.total)});
        r.push_back({at + "max", static_cast<double>(q.max)});
        r.push_back({at + "min", static_cast<double>(q.min)});
    }
    return r;
}

void print_text(const std::vector<MapStats>& maps) {
    const MapStats& a = maps[0];
    const MapStats* b = maps.size() > 1 ? &maps[1] : nullptr;
    std::printf("map A: %s (%d processes, %zu decompositions)\n", a.path.c_str(), a.nprocs, a.decomps.size());
    if (b) std::printf("map B: %s (%d processes, %zu decompositions)\n", b->path.c_str(), b->nprocs, b->decomps.size());
    const std::size_t nd = std::max(a.decomps.size(), b ? b->decomps.size() : 0);
    for (std::size_t k = 0; k < nd; ++k) {
        const DecompStats* da = k < a.decomps.size() ? &a.decomps[k] : nullptr;
        const DecompStats* db = b && k < b->decomps.size() ? &b->decomps[k] : nullptr;
        const DecompStats& any = da ? *da : *db;
        std::printf("\n%s", any.name.c_str());
        if (da) std::printf("  A: %s%s", dims_text(da->dims).c_str(), da->covered_once() ? ", covered once" : "");
        if (db) std::printf("  B: %s%s", dims_text(db->dims).c_str(), db->covered_once() ? ", covered once" : "");
        std::printf("\n");
        const std::size_t nb = std::max(da ? da->length_histogram.size() : 0, db ? db->length_histogram.size() : 0);
        const auto ra = da ? rows(*da, nb) : std::vector<Row>{}, rb = db ? rows(*db, nb) : std::vector<Row>{};
        const auto& labels = da ? ra : rb;
        std::printf("  %-36s %14s", "", "A");
        if (b) std::printf(" %14s %9s", "B", "A/B-1");
        std::printf("\n");
        for (std::size_t i = 0; i < labels.size(); ++i) {
            std::printf("  %-36s", labels[i].label.c_str());
            if (da)
                std::printf(" %14.0f", ra[i].value);
            else
                std::printf(" %14s", "-");
            if (b) {
                if (db && i < rb.size())
                    std::printf(" %14.0f", rb[i].value);
                else
                    std::printf(" %14s", "-");
                if (da && db && i < rb.size() && rb[i].value != 0)
                    std::printf(" %+8.1f%%", 100.0 * (ra[i].value / rb[i].value - 1));
                else if (da && db && i < rb.size() && ra[i].value == 0)
                    std::printf(" %+8.1f%%", 0.0);
            }
            std::printf("\n");
        }
    }
}

nlohmann::json to_json(const MapStats& m) {
    nlohmann::json j = {{"path", m.path}, {"nprocs", m.nprocs}, {"decomps", nlohmann::json::array()}};
    for (const auto& d : m.decomps) {
        nlohmann::json hist = nlohmann::json::object(), req = nlohmann::json::object();
        for (std::size_t b = 0; b < d.length_histogram.size(); ++b)
            hist[length_bucket_label(b)] = d.length_histogram[b];
        for (const auto& [R, q] : d.requests)
            req[std::to_string(R)] = {{"total", q.total}, {"max", q.max}, {"min", q.min}, {"per_rank", q.per_rank}};
        j["decomps"].push_back({{"name", d.name},
                                {"dims", d.dims},
                                {"elements", d.elements},
                                {"covered", d.covered},
                                {"overlap", d.overlap},
                                {"covered_once", d.covered_once()},
                                {"real_runs", d.real_runs},
                                {"fill_runs", d.fill_runs},
                                {"fill_elements", d.fill_elements},
                                {"partition", d.partition()},
                                {"run_lengths", hist},
                                {"requests", req}});
    }
    return j;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> paths;
    std::vector<int> ranks = {1, 4, 16};
    bool json = false, check = false;
    CLI::App app{
        "e3sm_mapstat: statistics of E3SM decomposition maps (coverage, runs, run lengths, requests\n"
        "per rank after sort/coalesce); with a second map, side by side with relative differences"};
    app.add_option("maps", paths, "MAP [MAP2]: one map, or a map and the one to compare it with")
        ->required()
        ->expected(1, 2)
        ->check(CLI::ExistingPath);
    app.add_option("--ranks", ranks, "rank counts to count requests at (comma-separated)")
        ->delimiter(',')
        ->allow_extra_args(false)
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_flag("--json", json, "print JSON instead of the table");
    app.add_flag("--check", check,
                 "fail (exit 1) unless every decomposition's runs, real and fill together, cover each element "
                 "exactly once");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    try {
        std::vector<MapStats> stats;
        for (const auto& p : paths) stats.push_back(map_stats(read_decomp_map(p), ranks));
        if (json) {
            nlohmann::json j = {{"ranks", ranks}, {"maps", nlohmann::json::array()}};
            for (const auto& s : stats) j["maps"].push_back(to_json(s));
            std::printf("%s\n", j.dump(2).c_str());
        } else {
            print_text(stats);
        }
        if (check)
            for (const auto& s : stats)
                for (const auto& d : s.decomps)
                    if (!d.partition())
                        throw iok::Error(
                            s.path + ": " + d.name + " does not cover each of its " + std::to_string(d.elements) +
                                " elements exactly once: " + std::to_string(d.elements - d.covered_with_fill) +
                                " uncovered, " + std::to_string(d.overlap_with_fill) + " covered more than once",
                            "the map is corrupt or incomplete; regenerate it");
        return 0;
    } catch (const iok::Error& e) {
        std::fprintf(stderr, "e3sm_mapstat: error: %s\n", e.what());
        if (!e.hint().empty()) std::fprintf(stderr, "  hint: %s\n", e.hint().c_str());
        return 1;
    }
}
