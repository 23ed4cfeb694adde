#include "core/broadcast_file.hpp"

#include <fstream>
#include <sstream>

#include "core/collective.hpp"

namespace iok {

std::string read_text_collective(const std::string& path, MPI_Comm comm, const std::string& hint) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::string text;
    collective_step(comm, [&] {
        if (rank != 0) return;
        std::ifstream in(path);
        if (!in) throw Error("cannot read " + path, hint);
        std::stringstream ss;
        ss << in.rdbuf();
        text = ss.str();
    });
    long long n = static_cast<long long>(text.size());
    MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm);
    text.resize(static_cast<std::size_t>(n));
    MPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, 0, comm);
    return text;
}

}  // namespace iok
