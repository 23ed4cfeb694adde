#include "core/mpi_layer.hpp"

#include <cstdlib>
#include <cstring>
#include <sstream>

#include "core/error.hpp"

namespace iok {

std::string select_mpiio_layer(const std::string& layer) {
    if (layer == "romio") {
        // OpenMPI 5 names its ROMIO component romio341, OpenMPI 4 romio321.
        // Only the one this MPI has may be named: OpenMPI aborts MPI-IO at
        // the first component of the list it cannot find.
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION >= 5
        setenv("OMPI_MCA_io", "romio341", 1);
#else
        setenv("OMPI_MCA_io", "romio321", 1);
#endif
    } else if (layer == "ompio") {
        setenv("OMPI_MCA_io", "ompio", 1);
    } else {
        return "unknown MPI-IO layer '" + layer + "' (use romio or ompio)";
    }
    return {};
}

std::string btl_without_sm(const std::string& btl) {
    const bool exclude = btl.empty() || btl[0] == '^';
    std::istringstream names(btl.substr(btl.empty() || btl[0] != '^' ? 0 : 1));
    std::string out;
    bool sm_listed = false;
    for (std::string name; std::getline(names, name, ',');) {
        const bool sm = name == "sm" || name == "vader";
        sm_listed = sm_listed || sm;
        if (!name.empty() && (exclude || !sm)) out += (out.empty() ? "" : ",") + name;
    }
    if (!exclude) return out.empty() ? "self" : out;
    return "^" + out + (sm_listed ? "" : (out.empty() ? "" : ",") + std::string("sm"));
}

void init_mpi(int* argc, char*** argv) {
#ifdef OPEN_MPI
    // Launchers (mpiexec's PRRTE, srun with PMIx or PMI-2) name the rank.
    const bool launched = std::getenv("PMIX_RANK") || std::getenv("OMPI_COMM_WORLD_RANK") || std::getenv("PMI_RANK");
    if (!launched) {
        const char* btl = std::getenv("OMPI_MCA_btl");
        setenv("OMPI_MCA_btl", btl_without_sm(btl ? btl : "").c_str(), 1);
    }
#endif
    MPI_Init(argc, argv);
}

std::string mpiio_layer_from_info(MPI_Info info) {
    if (info == MPI_INFO_NULL) return "unknown";
    int nkeys = 0;
    MPI_Info_get_nkeys(info, &nkeys);
    bool romio = false;
    for (int i = 0; i < nkeys; ++i) {
        char key[MPI_MAX_INFO_KEY + 1];
        MPI_Info_get_nthkey(info, i, key);
        if (std::strncmp(key, "romio_", 6) == 0) romio = true;
    }
    if (romio) return "ROMIO";
#ifdef OPEN_MPI
    return "OMPIO";
#else
    return "unknown";
#endif
}

std::string mpi_library_version() {
    char buf[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(buf, &len);
    std::string s(buf, static_cast<std::size_t>(len));
    auto nl = s.find_first_of("\n,");
    return nl == std::string::npos ? s : s.substr(0, nl);
}

std::string mpi_error_text(int code) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
    return std::string(msg, static_cast<std::size_t>(len));
}

void check_mpi(int rc, const char* call, const std::string& action, const std::string& hint) {
    if (rc == MPI_SUCCESS) return;
    int cls = MPI_ERR_UNKNOWN;
    if (MPI_Error_class(rc, &cls) != MPI_SUCCESS) cls = MPI_ERR_UNKNOWN;
    std::string what = "cannot " + action + ": " + mpi_error_text(rc) + " (" + call + ")";
    // The class is more precise than a caller's general hint, except for a
    // missing file, where only the caller knows which directory to look at.
    if (cls == MPI_ERR_NO_SPACE || cls == MPI_ERR_QUOTA)
        throw Error(what, "free space or write to another file system");
    if (cls == MPI_ERR_ACCESS || cls == MPI_ERR_READ_ONLY)
        throw Error(what, "check the permissions of the file and its directory");
    if (cls == MPI_ERR_FILE_EXISTS) throw Error(what, "remove the file or allow overwriting");
    if (cls == MPI_ERR_NO_SUCH_FILE && hint.empty()) throw Error(what, "check the path and that its directory exists");
    throw Error(what, hint);
}

}  // namespace iok
