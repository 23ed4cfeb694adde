#include "core/library_modules.hpp"

#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <set>
#include <vector>

#include "core/error.hpp"

#ifndef IOK_MODULE_RELDIR
#define IOK_MODULE_RELDIR "../lib"
#endif

namespace iok {

namespace {

std::set<std::string>& present() {
    static std::set<std::string> s;  // function-local: safe from other files' static initialisers
    return s;
}

std::string program_directory() {
    char buf[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return ".";
    std::string p(buf, static_cast<std::size_t>(n));
    const auto slash = p.rfind('/');
    return slash == std::string::npos ? "." : p.substr(0, slash);
}

}  // namespace

void library_module_present(const std::string& module) { present().insert(module); }

void load_library_module(const std::string& module) {
    if (present().count(module)) return;
    const std::string file = "libiok_" + module + ".so";
    const std::string dir = program_directory();
    // The build tree keeps modules beside the programs; an installation
    // keeps programs in bin/ and modules in the library directory.
    const std::vector<std::string> candidates = {dir + "/" + file, dir + "/" IOK_MODULE_RELDIR "/" + file};
    std::string tried;
    for (const auto& path : candidates) {
        if (access(path.c_str(), R_OK) != 0) {
            tried += "\n    " + path + ": not found";
            continue;
        }
        // RTLD_GLOBAL: a module's symbols (HDF5's, through hdf5_common) are
        // seen by modules loaded after it (NetCDF-4 maps ask HDF5 first).
        // RTLD_LAZY: a function is bound when first called, as the libraries
        // of a program linked with them are.  RTLD_NOW bound every function
        // of ADIOS2's C++ libraries at load, in every rank: +90 ms of CPU
        // (the dynamic linker's symbol lookups) per 16-rank E3SM run that
        // E3SM-IO, linked with ADIOS2, does not spend (perf, issue 19).
        if (dlopen(path.c_str(), RTLD_LAZY | RTLD_GLOBAL)) {
            present().insert(module);
            return;
        }
        tried += "\n    " + path + ": " + dlerror();
    }
    throw Error("cannot load the " + module + " module (" + file + "):" + tried,
                "reinstall iokernels (cmake --install) or rebuild it (scripts/iok build); the module must sit beside "
                "the program or in " IOK_MODULE_RELDIR " from it");
}

}  // namespace iok
