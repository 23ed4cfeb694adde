#pragma once
// What every harness shares.  A parser of outside input may refuse anything
// with iok::Error (one message for the user); any other exception, a crash
// or a sanitizer report is a finding.  Readers that take a path get the
// input through a file in the current directory (bench/fuzz.sh runs each
// harness in its own scratch directory).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "core/error.hpp"

namespace iok_fuzz {

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
    return std::string(reinterpret_cast<const char*>(data), size);
}

// The input as a file; the name is per process, so parallel jobs do not
// share it.
inline std::string as_file(const std::uint8_t* data, std::size_t size, const char* ext) {
    static const std::string path = "fuzz_input_" + std::to_string(getpid()) + ext;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) std::abort();
    if (size && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
    return path;
}

template <class Fn>
int expect_error_or_success(Fn&& fn) {
    try {
        fn();
    } catch (const iok::Error&) {
        // a clear refusal: fine
    } catch (const std::exception& e) {
        std::fprintf(stderr, "finding: a parser threw %s instead of iok::Error\n", e.what());
        std::abort();
    }
    return 0;
}

}  // namespace iok_fuzz
