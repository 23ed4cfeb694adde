#pragma once
// The smallest file that has both kinds of variable: "a", n doubles written
// once, and "r", n ints per record along an unlimited "time".  The open-files
// and open-for-update tests use it on every backend and strategy.
#include <cstdint>
#include <string>

#include "model/file_spec.hpp"

namespace iok_test {

inline iok::FileSpec fixed_and_record_spec(const std::string& path, const std::string& label, std::uint64_t n) {
    iok::FileSpec f;
    f.path = path;
    f.label = label;
    f.dims = {{"time", 0, true}, {"n", n, false}};
    iok::VarSpec fixed;
    fixed.name = "a";
    fixed.type = iok::DType::Double;
    fixed.dims = {1};
    iok::VarSpec rec;
    rec.name = "r";
    rec.type = iok::DType::Int;
    rec.dims = {0, 1};
    f.vars = {fixed, rec};
    return f;
}

}  // namespace iok_test
