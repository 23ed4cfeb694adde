#include "core/output_files.hpp"

#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/collective.hpp"
#include "core/interrupt_cleanup.hpp"
#include "core/output_lock.hpp"

namespace fs = std::filesystem;

namespace iok {

namespace {

// Rank 0 evaluates `check`, which returns an error message (empty = fine)
// and a hint; collective_step's agreement carries rank 0's verdict to every
// rank (no broadcast of its own: three collectives fewer per output, which
// under oversubscription cost as much as the checks).
template <class Check>
void rank0_verdict(MPI_Comm comm, Check&& check) {
    collective_step(comm, [&] {
        int rank = 0;
        MPI_Comm_rank(comm, &rank);
        if (rank != 0) return;
        std::string what, hint;
        check(what, hint);
        if (!what.empty()) throw Error(what, hint);
    });
}

// " does not exist", or what is there instead of a directory.
std::string not_a_directory(const std::string& dir) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(dir, ec))) return " does not exist";
    return " is not a directory (it is a " +
           std::string(fs::is_regular_file(dir, ec) ? "regular file" : "file of another kind") + ")";
}

}  // namespace

void OutputFiles::claim(const std::string& path) {
    rank0_verdict(comm_, [&](std::string& what, std::string& hint) {
        fs::path p(path);
        fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) {
            what = "output directory " + dir.string() + not_a_directory(dir.string());
            hint = fs::exists(fs::symlink_status(dir, ec))
                       ? "choose another path with -o"
                       : "create it first (mkdir -p " + dir.string() + ") or choose another path with -o";
        } else if (access(dir.c_str(), W_OK | X_OK) != 0) {
            what = "output directory " + dir.string() + " is not writable (" + std::strerror(errno) + ")";
            hint = "choose a writable directory with -o";
        } else if (std::string busy = take_output_lock(path); !busy.empty()) {
            // first the lock, then the existence check: a run that finished
            // between the two would otherwise be overwritten
            what = busy;
            hint = "wait for it to finish or choose another path with -o; if no run is writing it, remove " +
                   output_lock_path(path);
        } else if (fs::exists(fs::symlink_status(p, ec)) && !overwrite_) {
            release_output_lock(path);
            what = "output " + path + " already exists and was not created by this run";
            hint = "remove it, choose another path with -o, or pass --overwrite";
        }
    });
    created_.push_back(path);
    // every rank: whichever handles the signal first removes them
    remove_on_interrupt(path);
    remove_on_interrupt(output_lock_path(path));
}

void OutputFiles::require_readable(const std::string& path) const {
    rank0_verdict(comm_, [&](std::string& what, std::string& hint) {
        std::error_code ec;
        if (!fs::exists(path, ec)) {
            what = "input " + path + " does not exist";
            hint = "check the path";
        } else if (access(path.c_str(), R_OK) != 0) {
            what = "input " + path + " is not readable (" + std::strerror(errno) + ")";
            hint = "check its permissions";
        }
    });
}

void OutputFiles::remove_all() {
    int rank = 0;
    MPI_Comm_rank(comm_, &rank);
    if (rank == 0 && !keep_) {
        for (const auto& p : created_) {
            std::error_code ec;
            fs::remove_all(p, ec);
        }
    }
    for (const auto& p : created_) {
        if (rank == 0) release_output_lock(p);
        forget_on_interrupt(p);  // removed, or kept (--keep)
        forget_on_interrupt(output_lock_path(p));
    }
    created_.clear();
}

OutputFiles::OutputFiles(MPI_Comm comm, bool keep, bool overwrite)
    : comm_(comm),
      keep_(keep),
      overwrite_(overwrite),
      abandon_id_(at_abandon([this] { remove_all(); })) {}

OutputFiles::~OutputFiles() {
    cancel_abandon(abandon_id_);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) remove_all();
}

std::string full_file_system(const std::string& path, unsigned long long min_free) {
    std::error_code ec;
    fs::path dir = fs::is_directory(path, ec) ? fs::path(path) : fs::path(path).parent_path();
    if (dir.empty()) dir = ".";
    struct statvfs st{};
    if (statvfs(dir.c_str(), &st) != 0) return "";
    const unsigned long long avail = static_cast<unsigned long long>(st.f_bavail) * st.f_frsize;
    if (avail >= min_free) return "";
    return "the file system holding " + dir.string() + " is full (" + std::to_string(avail) + " bytes free)";
}

std::string insert_suffix(const std::string& path, const std::string& suffix) {
    static const char* exts[] = {".nc4", ".nc", ".h5", ".bp", ".dat", ".bin"};
    const std::string slash = path.substr(0, path.find_last_of('/') + 1);
    const std::string base = path.substr(slash.size());
    for (const char* e : exts) {
        const std::string ext(e);
        if (base.size() > ext.size() && base.compare(base.size() - ext.size(), ext.size(), ext) == 0)
            return slash + base.substr(0, base.size() - ext.size()) + "_" + suffix + ext;
    }
    return path + "_" + suffix;
}

void check_output_directory(MPI_Comm comm, const std::string& dir) {
    collective_step(comm, [&] {
        int rank = 0;
        MPI_Comm_rank(comm, &rank);
        if (rank != 0) return;
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec))
            throw Error("output directory " + dir + not_a_directory(dir),
                        std::filesystem::exists(std::filesystem::symlink_status(dir, ec))
                            ? "choose another directory with -o/--dir"
                            : "create it first (mkdir -p " + dir + ") or choose another with -o/--dir");
        if (access(dir.c_str(), W_OK | X_OK) != 0)
            throw Error("output directory " + dir + " is not writable", "choose a writable directory with -o/--dir");
    });
}

bool exists_on_rank0(MPI_Comm comm, const std::string& path) {
    int rank = 0, found = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        std::error_code ec;
        found = std::filesystem::exists(path, ec) ? 1 : 0;
    }
    MPI_Bcast(&found, 1, MPI_INT, 0, comm);
    return found != 0;
}

}  // namespace iok
