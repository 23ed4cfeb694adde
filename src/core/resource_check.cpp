#include "core/resource_check.hpp"

#include <sys/statvfs.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/report.hpp"

namespace iok {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

// "key:   123 kB" from /proc/meminfo, in bytes; 0 when absent.
std::uint64_t meminfo_bytes(const std::string& key) {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, key.size() + 1, key + ":") != 0) continue;
        std::istringstream s(line.substr(key.size() + 1));
        std::uint64_t kb = 0;
        s >> kb;
        return kb * 1024;
    }
    return 0;
}

// A cgroup v2 memory limit on this process (a batch system's allocation),
// minus what the group already uses; kMax when unlimited or unknown.
std::uint64_t cgroup_memory_left() {
    std::ifstream cg("/proc/self/cgroup");
    std::string line, path;
    while (std::getline(cg, line))
        if (line.compare(0, 3, "0::") == 0) path = line.substr(3);
    if (path.empty()) return kMax;
    const std::string dir = "/sys/fs/cgroup" + path;
    std::ifstream max_in(dir + "/memory.max"), cur_in(dir + "/memory.current");
    std::string max_s;
    std::uint64_t cur = 0;
    if (!(max_in >> max_s) || max_s == "max") return kMax;
    cur_in >> cur;
    const std::uint64_t max = std::strtoull(max_s.c_str(), nullptr, 10);
    return max > cur ? max - cur : 0;
}

bool skip_by_environment() {
    const char* v = std::getenv("IOK_NO_SIZE_CHECK");
    return v && *v && std::string(v) != "0";
}

std::string gib(std::uint64_t b) {
    if (b == kMax) return "more than 16 EiB (the estimate overflows)";
    return format_bytes(static_cast<double>(b));
}

}  // namespace

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
    if (a != 0 && b > kMax / a) return kMax;
    return a * b;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) { return b > kMax - a ? kMax : a + b; }

std::uint64_t available_memory_bytes() {
    std::uint64_t avail = meminfo_bytes("MemAvailable");
    if (avail == 0) avail = meminfo_bytes("MemFree");
    if (avail == 0) return kMax;  // unknown: do not refuse
    return std::min(avail, cgroup_memory_left());
}

std::uint64_t free_bytes_for(const std::string& path) {
    std::error_code ec;
    fs::path dir = fs::is_directory(path, ec) ? fs::path(path) : fs::path(path).parent_path();
    if (dir.empty()) dir = ".";
    struct statvfs st{};
    if (statvfs(dir.c_str(), &st) != 0) return kMax;  // unknown: the output checks say why
    if (st.f_blocks == 0) return kMax;                // a pseudo file system (/proc): no figure to compare
    return static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
}

void add_size_check_option(CLI::Option_group& group, bool& skip) {
    group
        .add_flag("--no-size-check", skip,
                  "run even when the estimated memory per node or bytes on disk exceed what is available "
                  "(also IOK_NO_SIZE_CHECK=1)")
        ->capture_default_str();
}

void check_resources(MPI_Comm comm, const ResourceNeeds& mine, bool skip, const std::string& what_to_shrink) {
    if (skip || skip_by_environment()) return;  // the same on every rank: flags and environment are
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    // Memory: the ranks of one node share it.
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int node_rank = 0, node_size = 1;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    // Sums saturate: MPI_SUM on absurd estimates would wrap around to small.
    std::uint64_t node_need = mine.memory_bytes, rank_max = mine.memory_bytes;
    {
        std::vector<std::uint64_t> all(static_cast<std::size_t>(node_size));
        MPI_Allgather(&mine.memory_bytes, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, node);
        node_need = 0;
        for (auto b : all) node_need = saturating_add(node_need, b);
    }
    MPI_Comm_free(&node);
    MPI_Allreduce(MPI_IN_PLACE, &rank_max, 1, MPI_UINT64_T, MPI_MAX, comm);

    // Disk: all ranks' bytes land on the output file system.
    std::uint64_t total_file = mine.file_bytes;
    {
        std::vector<std::uint64_t> all(static_cast<std::size_t>(rank == 0 ? size : 0));
        MPI_Gather(&mine.file_bytes, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, 0, comm);
        if (rank == 0) {
            total_file = 0;
            for (auto b : all) total_file = saturating_add(total_file, b);
        }
    }

    const std::string shrink = what_to_shrink.empty() ? "the problem size" : what_to_shrink;
    collective_step(comm, [&] {
        if (node_rank == 0) {
            const std::uint64_t avail = available_memory_bytes();
            if (node_need > avail)
                throw Error(
                    "the run needs at least " + gib(node_need) + " of memory on this node (" +
                        std::to_string(node_size) + " rank(s), up to " + gib(rank_max) +
                        " per rank for its I/O buffers) but only " + gib(avail) + " is available",
                    "reduce " + shrink + ", or spread the ranks over more nodes; --no-size-check runs it anyway");
        }
        if (rank == 0 && !mine.output_path.empty()) {
            const std::uint64_t free_b = saturating_add(free_bytes_for(mine.output_path), mine.replaced_bytes);
            if (total_file > free_b)
                throw Error("the run would write " + gib(total_file) + " but the file system holding " +
                                mine.output_path + " has only " + gib(free_b) + " free",
                            "reduce " + shrink + ", or write to a larger file system; --no-size-check runs it anyway");
        }
    });
}

}  // namespace iok
