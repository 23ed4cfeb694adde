#include "core/stats.hpp"

#include <algorithm>

namespace iok {

std::vector<Stat> reduce_over_ranks(MPI_Comm comm, const std::vector<double>& local) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = static_cast<int>(local.size());
    std::vector<double> all(rank == 0 ? static_cast<std::size_t>(n) * size : 0);
    MPI_Gather(local.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, 0, comm);
    std::vector<Stat> out;
    if (rank != 0) return out;
    out.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        Stat& s = out[i];
        s.min = s.max = all[i];
        for (int r = 0; r < size; ++r) {
            const double v = all[static_cast<std::size_t>(r) * n + i];
            s.min = std::min(s.min, v);
            s.max = std::max(s.max, v);
            s.sum += v;
        }
        s.mean = s.sum / size;
    }
    return out;
}

}  // namespace iok
