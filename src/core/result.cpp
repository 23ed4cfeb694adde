#include "core/result.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/collective.hpp"

namespace iok {

std::vector<std::string> argv_vector(int argc, char** argv) { return {argv, argv + argc}; }

void Result::write(MPI_Comm comm, const std::string& path, MPI_Info hints) {
    nlohmann::json manifest = build_manifest(comm, argv_, inputs_, hints);
    if (path.empty()) return;
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
        doc["manifest"] = manifest;
        std::ofstream out(path);
        if (!out) throw Error("cannot write the JSON result " + path + ": " + std::strerror(errno),
                              "choose a writable path with --json");
        out << doc.dump(2) << '\n';
        if (!out) throw Error("writing the JSON result " + path + " failed (disk full?)");
    });
}

}  // namespace iok
