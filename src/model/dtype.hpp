#pragma once
// Element types a kernel can declare.  Deliberately the NetCDF classic set
// plus 64-bit integers: every backend can store all of them.
#include <cstddef>
#include <cstdint>
#include <string>

namespace iok {

enum class DType { Char, Byte, Short, Int, Int64, Float, Double };

std::size_t dtype_size(DType t);
const char* dtype_name(DType t);                 // "char", "int", "double", ...
DType dtype_from_name(const std::string& name);  // throws iok::Error on unknown

}  // namespace iok
