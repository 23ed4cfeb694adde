#pragma once
// What this program is and where it runs from: version, the libraries the
// build found, and the install prefix.  The prefix is worked out at run time
// from the program's own path, so an installation can be moved (or installed
// with `cmake --install --prefix P` into a prefix other than the configured
// one) and still name itself correctly.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace iok {

// The absolute path of the running program (/proc/self/exe); "" if unknown.
std::string executable_path();

// P when the program runs as P/bin/<name> of an installation (P/share/iokernels
// exists); "" when it runs from a build directory.
std::string install_prefix();

// Libraries the build was configured with, as CMake found them:
// {"MPI", "<library version>"}, {"PnetCDF", "1.14.0"}, ... (generated at build
// time from the configure results: src/core/build_config.cpp.in).
const std::vector<std::pair<std::string, std::string>>& build_libraries();

// Build type and compiler, e.g. "Release, GNU 14.2.0".
std::string build_description();

// The project's version ("0.1.0"; a configure result) and the checkout's
// `git describe --always --dirty` when it was built ("unknown" outside git;
// written at build time: cmake/IokRevision.cmake).
const char* iokernels_version();
const char* git_revision();

// The manifest's "build" block: version, revision, install prefix (null when
// not installed), executable, build type/compiler, libraries found.
nlohmann::json build_info();

// `iokernels --version`: the same, as lines of text.
std::string version_text();

}  // namespace iok
