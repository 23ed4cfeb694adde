#pragma once
// E3SM-IO's command line as its users type it.  The seed names some
// library-and-strategy pairs with one -a value; iokernels keeps library (-a)
// and strategy (-x) apart, so those values are rewritten before parsing:
//
//   -a hdf5_ra   HDF5 with the request rearranger  -> -a hdf5 -x rearrange
//   -a hdf5_log  HDF5 with the log-based VOL       -> -a hdf5 -x log
//
// (-a pnetcdf, hdf5, hdf5_md, netcdf4 and adios are iokernels' own names.)
// E3SM-IO's environment variables are read here too and turned into notes.
#include <string>
#include <vector>

namespace iok::e3sm {

class SeedCommandLine {
public:
    SeedCommandLine(int argc, char** argv);
    // Non-empty when a seed -a value contradicts the -x given with it: the
    // caller reports it collectively (Driver::check) once the driver exists.
    const std::string& error() const { return error_; }
    const std::string& hint() const { return hint_; }
    int argc() const { return static_cast<int>(ptrs_.size()) - 1; }
    char** argv() { return ptrs_.data(); }
    // What was rewritten or is without effect, one sentence each.
    const std::vector<std::string>& notes() const { return notes_; }

private:
    std::vector<std::string> args_;
    std::vector<char*> ptrs_;  // into args_, null-terminated
    std::vector<std::string> notes_;
    std::string error_, hint_;
};

// The value of -a/--api or -x/--strategy in `args` (any spelling: "-a v",
// "-av", "--api v", "--api=v"); "" when absent.  Exposed for the unit test.
std::string option_value(const std::vector<std::string>& args, const std::string& short_name,
                         const std::string& long_name);

// Notes on E3SM-IO's environment variables (E3SM_IO_HDF5_MERGE_VARN,
// E3SM_IO_HDF5_USE_LOGVOL_WRITEN, H5VL_LOG_PASSTHRU) that are set in the
// environment: what iokernels does instead.  Empty when none is set.
std::vector<std::string> seed_environment_notes();

}  // namespace iok::e3sm
