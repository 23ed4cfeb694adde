#include "core/result.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/collective.hpp"

namespace iok {

std::vector<std::string> argv_vector(int argc, char** argv) { return {argv, argv + argc}; }

namespace {

std::uint64_t mismatches_in(const nlohmann::json& j, const char* key) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return 0;
    return j[key].get<std::uint64_t>();
}

}  // namespace

// A run whose data read back differs is no measurement: its bandwidths must
// not be taken for good ones by whoever reads the JSON (a suite's report, a
// comparison, a plot).  "valid" says so at the top and on every file, with
// the reason; the figures stay for diagnosis.
void mark_validity(nlohmann::json& doc) {
    std::uint64_t bad = mismatches_in(doc["summary"], "verification_mismatches");
    std::uint64_t in_files = 0;
    for (const auto& f : doc["files"])
        if (f.is_object() && f.contains("verify")) in_files += mismatches_in(f["verify"], "mismatches");
    bad = std::max(bad, in_files);
    doc["valid"] = bad == 0;
    if (bad) {
        doc["invalid_reason"] = std::to_string(bad) + " element(s) read back differ from what was written";
        for (auto& f : doc["files"])
            if (f.is_object()) f["valid"] = false;
    }
}

void Result::write(MPI_Comm comm, const std::string& path, MPI_Info hints, MPI_Info requested) {
    if (path.empty()) return;  // the same on every rank: no manifest (nor input checksums) nobody asked for
    nlohmann::json manifest = build_manifest(comm, argv_, inputs_, hints, requested);
    collective_step(comm, [&] {
        int rank = 0;
        MPI_Comm_rank(comm, &rank);
        if (rank != 0) return;
        nlohmann::json doc;
        doc["schema"] = kResultSchema;
        doc["kernel"] = kernel_;
        doc["params"] = params_;
        doc["summary"] = summary_;
        doc["files"] = files_;
        mark_validity(doc);
        doc["manifest"] = manifest;
        std::ofstream out(path);
        if (!out)
            throw Error("cannot write the JSON result " + path + ": " + std::strerror(errno),
                        "choose a writable path with --json");
        out << doc.dump(2) << '\n';
        if (!out) throw Error("writing the JSON result " + path + " failed (disk full?)");
    });
}

}  // namespace iok
