#include "model/dtype.hpp"

#include "core/error.hpp"

namespace iok {

std::size_t dtype_size(DType t) {
    switch (t) {
        case DType::Char:
        case DType::Byte: return 1;
        case DType::Short: return 2;
        case DType::Int:
        case DType::Float: return 4;
        case DType::Int64:
        case DType::Double: return 8;
    }
    return 0;
}

const char* dtype_name(DType t) {
    switch (t) {
        case DType::Char: return "char";
        case DType::Byte: return "byte";
        case DType::Short: return "short";
        case DType::Int: return "int";
        case DType::Int64: return "int64";
        case DType::Float: return "float";
        case DType::Double: return "double";
    }
    return "?";
}

DType dtype_from_name(const std::string& n) {
    if (n == "char") return DType::Char;
    if (n == "byte") return DType::Byte;
    if (n == "short") return DType::Short;
    if (n == "int") return DType::Int;
    if (n == "int64") return DType::Int64;
    if (n == "float") return DType::Float;
    if (n == "double") return DType::Double;
    throw Error("unknown element type '" + n + "'");
}

}  // namespace iok
