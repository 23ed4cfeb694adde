#pragma once
// Backends and map containers that need HDF5, NetCDF-4 or ADIOS2 are built
// as loadable modules (libiok_<name>.so, src/CMakeLists.txt) and loaded the
// first time a run asks for one.  Linking them all into every program made
// each process load ~60 more shared libraries (ADIOS2 alone brings ZeroMQ,
// libcurl, GnuTLS, Kerberos, ...) whether it used them or not: on the E3SM
// F case at 16 ranks that was the largest part of the CPU iokernels spent
// beyond E3SM-IO (issue 19; measured by preloading those libraries into
// E3SM-IO: +25-50% CPU).  A PnetCDF or MPI-IO run now loads none of them.
//
// Test programs link the module sources directly; their registrations are
// then present from the start and nothing is loaded.
#include <string>

namespace iok {

// Loads libiok_<module>.so unless it is loaded or linked in (idempotent,
// thread-compatible: called from the main thread).  Looks next to the
// running program, then in the installed library directory beside it.
// Throws iok::Error naming the paths tried when it cannot be loaded.
void load_library_module(const std::string& module);

// Marks a module as present (its registrations ran): modules call it from a
// static initialiser, so a module linked into a test program is never loaded
// a second time.
void library_module_present(const std::string& module);

}  // namespace iok

// In one source file of each module: IOK_LIBRARY_MODULE(hdf5, "hdf5").
#define IOK_LIBRARY_MODULE(ident, name)          \
    namespace {                                  \
    const bool iok_library_module_##ident = [] { \
        ::iok::library_module_present(name);     \
        return true;                             \
    }();                                         \
    }
