#pragma once
// What a kernel writes: files, dimensions, variables, attributes.
// Nothing here knows about any I/O library.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/dtype.hpp"

namespace iok {

struct Dim {
    std::string name;
    std::uint64_t length = 0;  // for the unlimited (record) dimension: 0
    bool unlimited = false;
};

// An attribute holds either text (type Char) or numbers stored as double
// (exact for every integer and float value the kernels use) plus the type
// they are written with.
struct Attr {
    std::string name;
    DType type = DType::Char;
    std::string text;
    std::vector<double> values;

    static Attr Text(std::string name, std::string text);
    static Attr Number(std::string name, DType type, std::vector<double> values);
};

struct VarSpec {
    std::string name;
    DType type = DType::Double;
    std::vector<int> dims;      // indices into FileSpec::dims, slowest first
    std::vector<Attr> attrs;
    // Index of the decomposition this variable is partitioned by, or -1 when
    // it is written whole by rank 0 ("not partitioned").
    int decomp = -1;
    // Fill value written in fill mode / expected in uncovered elements.
    std::optional<double> fill_value;

    bool is_record(const struct FileSpec& f) const;
};

struct FileSpec {
    std::string path;            // full output path chosen by the runner
    std::string label;           // "h0", "h1", "hist", "ckpt0001", ...
    std::vector<Dim> dims;
    std::vector<VarSpec> vars;
    std::vector<Attr> global_attrs;

    int record_dim() const;      // index of the unlimited dim, or -1
    int find_dim(const std::string& name) const;   // -1 when absent
    int find_var(const std::string& name) const;   // -1 when absent
    // Shape of a variable without its record dimension (C order).
    std::vector<std::uint64_t> fixed_shape(const VarSpec& v) const;
    std::uint64_t fixed_elements(const VarSpec& v) const;
    std::size_t attribute_count() const;  // variable + global attributes
};

}  // namespace iok
