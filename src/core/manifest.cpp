#include "core/manifest.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <vector>

#include <zlib.h>

#include "core/build_info.hpp"
#include "core/hints_in_effect.hpp"
#include "core/mpi_layer.hpp"

extern char** environ;

namespace iok {

static std::map<std::string, std::string (*)()>& library_versions() {
    static std::map<std::string, std::string (*)()> m;
    return m;
}

void register_library_version(const std::string& name, std::string (*version)()) { library_versions()[name] = version; }

std::string info_value(MPI_Info info, const std::string& key, const std::string& dflt) {
    if (info == MPI_INFO_NULL) return dflt;
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get(info, key.c_str(), MPI_MAX_INFO_VAL, value, &flag);
    return flag ? std::string(value) : dflt;
}

nlohmann::json info_to_json(MPI_Info info) {
    nlohmann::json j = nlohmann::json::object();
    if (info == MPI_INFO_NULL) return j;
    int nkeys = 0;
    MPI_Info_get_nkeys(info, &nkeys);
    for (int i = 0; i < nkeys; ++i) {
        char key[MPI_MAX_INFO_KEY + 1];
        MPI_Info_get_nthkey(info, i, key);
        int len = 0, flag = 0;
        MPI_Info_get_valuelen(info, key, &len, &flag);
        std::string val(static_cast<std::size_t>(len) + 1, '\0');
        MPI_Info_get(info, key, len + 1, val.data(), &flag);
        val.resize(static_cast<std::size_t>(len));
        j[key] = val;
    }
    return j;
}

std::string file_checksum_crc32(const std::string& path, MPI_Comm comm) {
    // zlib's CRC-32 (what `python3 -c "import zlib"` and `crc32` compute).
    // Every rank checksums one slice of the file and rank 0 joins the slices
    // with crc32_combine: the 42 MB ne30 map cost rank 0 165 million
    // instructions alone (a quarter of a 1-rank run under callgrind) while
    // every other rank waited (issue 19).
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    long long total = -1;
    if (rank == 0) {
        std::ifstream probe(path, std::ios::binary | std::ios::ate);
        if (probe) total = static_cast<long long>(probe.tellg());
    }
    MPI_Bcast(&total, 1, MPI_LONG_LONG, 0, comm);
    if (total < 0) return "";
    const long long begin = total * rank / size, end = total * (rank + 1) / size;
    uLong crc = crc32(0L, Z_NULL, 0);
    long long ok = 1;
    if (end > begin) {
        std::ifstream in(path, std::ios::binary);
        in.seekg(begin);
        std::vector<char> buf(static_cast<std::size_t>(std::min<long long>(end - begin, 1 << 20)));
        for (long long at = begin; at < end && ok;) {
            const auto n =
                static_cast<std::streamsize>(std::min<long long>(end - at, static_cast<long long>(buf.size())));
            in.read(buf.data(), n);
            if (in.gcount() != n)
                ok = 0;
            else
                crc = crc32(crc, reinterpret_cast<const Bytef*>(buf.data()), static_cast<uInt>(n));
            at += n;
        }
    }
    long long mine[2] = {static_cast<long long>(crc), ok};
    std::vector<long long> crcs(rank == 0 ? 2 * static_cast<std::size_t>(size) : 0);
    MPI_Gather(mine, 2, MPI_LONG_LONG, crcs.data(), 2, MPI_LONG_LONG, 0, comm);
    if (rank != 0) return "";
    uLong whole = crc32(0L, Z_NULL, 0);
    for (int r = 0; r < size; ++r) {
        if (!crcs[2 * static_cast<std::size_t>(r) + 1]) return "";  // a rank could not read its slice
        const long long len = total * (r + 1) / size - total * r / size;
        whole =
            crc32_combine(whole, static_cast<uLong>(crcs[2 * static_cast<std::size_t>(r)]), static_cast<z_off_t>(len));
    }
    char out[9];
    std::snprintf(out, sizeof out, "%08lx", static_cast<unsigned long>(whole));
    return out;
}

int count_nodes(MPI_Comm comm) {
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int node_rank = 0;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_free(&node);
    int leader = node_rank == 0 ? 1 : 0, nodes = 0;
    MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, comm);
    return nodes;
}

static bool relevant_env(const char* kv) {
    static const char* prefixes[] = {"OMPI_MCA_", "PRTE_MCA_", "ROMIO_",  "MPICH_", "HDF5_",
                                     "H5_",       "PNETCDF_",  "ADIOS2_", "IOK_",   "OMP_"};
    for (const char* p : prefixes)
        if (std::strncmp(kv, p, std::strlen(p)) == 0) return true;
    return false;
}

nlohmann::json build_manifest(MPI_Comm comm, const std::vector<std::string>& argv, const std::vector<InputFile>& inputs,
                              MPI_Info hints, MPI_Info requested) {
    int size = 1, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    const int nodes = count_nodes(comm);  // collective: every rank
    // Collective too: every rank reads a slice of each input.  Rank 0's list
    // is the one (a kernel may record its inputs on rank 0 alone: GCRM).
    std::string names;
    if (rank == 0)
        for (const auto& f : inputs) names += f.path + '\0';  // no path holds a NUL
    long long len = static_cast<long long>(names.size());
    MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, comm);
    names.resize(static_cast<std::size_t>(len));
    MPI_Bcast(names.data(), static_cast<int>(len), MPI_CHAR, 0, comm);
    std::vector<std::string> checksums;
    for (std::size_t at = 0; at < names.size();) {
        const std::size_t end = names.find('\0', at);
        checksums.push_back(file_checksum_crc32(names.substr(at, end - at), comm));
        at = end + 1;
    }
    nlohmann::json m;
    // Only rank 0 writes the result: the other ranks skip the rest (library
    // versions, environment, and above all the inputs' checksums, which every
    // rank used to compute whole: 16 ranks reading a 42 MB map again, issue 19).
    if (rank != 0) return m;
    m["iokernels_version"] = iokernels_version();
    m["git_revision"] = git_revision();
    m["build"] = build_info();  // install prefix, executable, libraries the build found
    m["command_line"] = argv;
    m["processes"] = size;
    m["nodes"] = nodes;
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    m["host"] = host;
    std::time_t now = std::time(nullptr);
    char when[64];
    std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    m["started_utc"] = when;
    m["mpi"] = mpi_library_version();
    nlohmann::json libs = nlohmann::json::object();
    for (const auto& [name, version] : library_versions()) libs[name] = version();
    m["libraries"] = libs;
    m["mpiio_layer"] = mpiio_layer_from_info(hints);
    m["mpiio_hints"] = info_to_json(hints);
    m["mpiio_hints_requested"] = info_to_json(requested);
    m["mpiio_hints_not_in_effect"] = hints_not_in_effect(m["mpiio_hints_requested"], m["mpiio_hints"]);
    m["mpiio_open_hints"] = open_hints_state();  // src/open_hints: dropped hints given again after open
    nlohmann::json env = nlohmann::json::object();
    for (char** e = environ; *e; ++e) {
        if (!relevant_env(*e)) continue;
        const char* eq = std::strchr(*e, '=');
        if (eq) env[std::string(*e, static_cast<std::size_t>(eq - *e))] = std::string(eq + 1);
    }
    m["environment"] = env;
    nlohmann::json in = nlohmann::json::array();
    for (std::size_t i = 0; i < inputs.size(); ++i)
        in.push_back({{"role", inputs[i].role}, {"path", inputs[i].path}, {"crc32", checksums[i]}});
    m["inputs"] = in;
    return m;
}

}  // namespace iok
