#pragma once
// Safe handling of output files.  A run deletes at exit only the files it
// created itself (unless --keep), and refuses to clobber a file it did not
// create unless --overwrite was given.  Collective: rank 0 touches the file
// system, every rank gets the same answer.
#include <mpi.h>

#include <string>
#include <vector>

namespace iok {

class OutputFiles {
public:
    // Also removes them (unless keep) when a failure abandons the job with
    // files open (see collective.hpp).
    OutputFiles(MPI_Comm comm, bool keep, bool overwrite);
    ~OutputFiles();  // removes created paths unless keep (collective-free: rank 0 only)
    OutputFiles(const OutputFiles&) = delete;
    OutputFiles& operator=(const OutputFiles&) = delete;

    // Checks that `path` may be created: its directory exists and is
    // writable, no other run is writing it (output_lock.hpp: rank 0 holds
    // PATH.iok-lock until remove_all), and the path does not exist (or
    // --overwrite).  Throws iok::Error on every rank otherwise.  Registers
    // the path as ours.
    void claim(const std::string& path);
    // Checks that an input exists and is readable (collective).
    void require_readable(const std::string& path) const;

    const std::vector<std::string>& created() const { return created_; }
    void remove_all();  // rank 0 deletes what this run created (dirs recursively) and its locks

private:
    MPI_Comm comm_;
    bool keep_, overwrite_;
    std::vector<std::string> created_;
    int abandon_id_ = -1;
};

// "the file system holding DIR is full (N bytes free)" when the file system
// where `path` is (or would be) has less than `min_free` bytes left for us,
// else "".  Libraries often report ENOSPC as a generic error (OMPIO:
// MPI_ERR_OTHER).
std::string full_file_system(const std::string& path, unsigned long long min_free = 64ull << 10);

// Fails on every rank unless `dir` is an existing writable directory (for
// kernels whose output is a directory of files).
void check_output_directory(MPI_Comm comm, const std::string& dir);

// Collective: whether `path` exists as rank 0 sees it, the same answer on
// every rank (a file system's view may differ between nodes for a while).
bool exists_on_rank0(MPI_Comm comm, const std::string& path);

// "out.nc" + "h0" -> "out_h0.nc" (inserted before a known extension, else appended).
std::string insert_suffix(const std::string& path, const std::string& suffix);

}  // namespace iok
