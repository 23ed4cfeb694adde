#pragma once
// The "raw canonical" file layout used by the mpiio backend and by every tool
// that reads such a file without a library:
//
//   [fixed-size variables]  each one's full C-order array, in definition order
//   [record 0]              every record variable's one-record slab, in definition order
//   [record 1] ...
//
// exactly like NetCDF classic's data section but with no header, no padding
// and native byte order.  A variable's element (record r, flat index i) lives
// at offset(var, r) + i * dtype_size(type).
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "model/file_spec.hpp"

namespace iok {

struct RawLayout {
    // Fixed-size variable: absolute byte offset.  Record variable: offset
    // inside one record (relative to the start of that record).
    std::vector<std::uint64_t> var_offset;
    std::vector<std::uint64_t> var_bytes;  // whole variable, or one record of it
    std::vector<bool> is_record;
    std::uint64_t fixed_bytes = 0;   // size of the fixed section = where record 0 starts
    std::uint64_t record_bytes = 0;  // size of one record of all record variables

    // Byte offset of variable `var` (of record `record` for record variables;
    // ignored for fixed-size ones).
    std::uint64_t offset(int var, std::int64_t record) const {
        if (var < 0 || static_cast<std::size_t>(var) >= var_offset.size())
            throw Error("variable index " + std::to_string(var) + " is outside the file's " +
                        std::to_string(var_offset.size()) + " variables");
        if (!is_record[var]) return var_offset[var];
        if (record < 0)
            throw Error("record " + std::to_string(record) + " requested for a record variable",
                        "record indices start at 0");
        return fixed_bytes + static_cast<std::uint64_t>(record) * record_bytes + var_offset[var];
    }
    // Size of a complete file holding `nrecords` records.
    std::uint64_t file_bytes(std::int64_t nrecords) const {
        return fixed_bytes + static_cast<std::uint64_t>(nrecords < 0 ? 0 : nrecords) * record_bytes;
    }
};

inline RawLayout raw_layout(const FileSpec& spec) {
    RawLayout l;
    const std::size_t n = spec.vars.size();
    l.var_offset.resize(n);
    l.var_bytes.resize(n);
    l.is_record.resize(n);
    for (std::size_t v = 0; v < n; ++v) {
        const VarSpec& var = spec.vars[v];
        l.is_record[v] = var.is_record(spec);
        l.var_bytes[v] = spec.fixed_elements(var) * dtype_size(var.type);
    }
    for (std::size_t v = 0; v < n; ++v)
        if (!l.is_record[v]) {
            l.var_offset[v] = l.fixed_bytes;
            l.fixed_bytes += l.var_bytes[v];
        }
    for (std::size_t v = 0; v < n; ++v)
        if (l.is_record[v]) {
            l.var_offset[v] = l.record_bytes;
            l.record_bytes += l.var_bytes[v];
        }
    return l;
}

}  // namespace iok
