#pragma once
// Where the real E3SM maps live for unit tests ($IOK_SHARED, else
// IOK_SOURCE_DIR/../shared); tests skip when they are absent.
#include <cstdlib>
#include <filesystem>
#include <string>

inline std::string iok_e3sm_dataset(const std::string& name) {
    const char* env = std::getenv("IOK_SHARED");
    std::string root = env ? env : std::string(IOK_SOURCE_DIR) + "/../shared";
    std::string p = root + "/datasets/e3sm/" + name;
    return std::filesystem::exists(p) ? p : std::string();
}

#define IOK_REQUIRE_DATASET(var, name)              \
    const std::string var = iok_e3sm_dataset(name); \
    if (var.empty()) GTEST_SKIP() << "dataset " << name << " not found (../shared)"
