#pragma once
// The case every library backend (HDF5, NetCDF-4, ADIOS2) must round-trip
// through the fixture of backend_roundtrip.hpp: fixed and record variables of
// every type, a scalar, a 3-D variable, text and numeric attributes, and
// selections whose blocks are not in file order (so a backend that ignores
// buffer-vs-file order fails).  One rank writes everything; each record is
// flushed on its own.  tests/integration/test_backends_h5_nc4_adios.py
// computes the same values (value_of) from the files.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backend_roundtrip.hpp"
#include "model/file_spec.hpp"
#include "model/selection.hpp"

namespace iok_test {

using iok::Attr;
using iok::DType;
using iok::FileSpec;
using iok::Selection;

constexpr int kRecords = 2;
constexpr std::uint64_t kLev = 3, kCol = 12, kChars = 8;

// Deterministic element value for (variable, record, flat index).
inline double value_of(int var, int rec, std::int64_t flat, DType t) {
    if (t == DType::Char) return 'a' + (flat + var + rec) % 26;
    if (t == DType::Byte) return (var * 7 + rec * 3 + flat) % 100 - 50;
    return var * 1000.0 + rec * 100.0 + static_cast<double>(flat) +
           (t == DType::Float || t == DType::Double ? 0.25 : 0);
}

inline Case make_case(const std::string& path) {
    Case c;
    c.records = kRecords;
    c.value = value_of;
    c.flush_each_record = true;
    FileSpec& f = c.spec;
    f.path = path;
    f.label = "test";
    f.dims = {{"time", 0, true}, {"lev", kLev, false}, {"ncol", kCol, false}, {"nchars", kChars, false}};
    f.global_attrs = {Attr::Text("title", "iokernels backend round trip"), Attr::Number("version", DType::Int, {3}),
                      Attr::Number("scale", DType::Double, {0.5, 2.0})};
    // Blocks deliberately out of file order.
    Selection area({kCol});
    for (auto [s, n] : {std::pair<int, int>{6, 3}, {0, 4}, {9, 3}, {4, 2}}) {
        std::int64_t st = s, ct = n;
        area.add_block(&st, &ct);
    }
    // Multi-row blocks side by side: file order interleaves their rows.
    Selection t3({kLev, kCol});
    {
        std::int64_t s1[] = {0, 6}, c1[] = {3, 6}, s2[] = {0, 0}, c2[] = {2, 6}, s3[] = {2, 0}, c3[] = {1, 6};
        t3.add_block(s1, c1);
        t3.add_block(s2, c2);
        t3.add_block(s3, c3);
    }
    c.add_var("lev", DType::Double, {1},
              {Attr::Text("units", "hPa"), Attr::Number("valid_range", DType::Float, {0, 1000})},
              Selection::whole({kLev}));
    c.add_var("area", DType::Double, {2}, {Attr::Text("long_name", "cell area")}, area);
    c.add_var("P0", DType::Double, {}, {Attr::Text("units", "Pa")}, Selection::whole({}));
    c.add_var("name", DType::Char, {3}, {}, Selection::whole({kChars}));
    c.add_var("mask", DType::Byte, {2}, {}, Selection::whole({kCol}));
    c.add_var("ilev", DType::Short, {1}, {}, Selection::whole({kLev}));
    c.add_var("gid", DType::Int64, {2}, {}, Selection::from_runs({kCol}, {{8, 4}, {0, 8}}));
    c.add_var("time", DType::Double, {0}, {Attr::Text("units", "days since 2000-01-01")}, Selection::whole({}));
    c.add_var("T", DType::Float, {0, 1, 2},
              {Attr::Text("units", "K"), Attr::Number("_FillValue", DType::Float, {1e20})}, t3);
    c.add_var("PS", DType::Double, {0, 2}, {}, Selection::from_runs({kCol}, {{0, 5}, {5, 7}}));
    c.add_var("nsteps", DType::Int, {0}, {}, Selection::whole({}));
    return c;
}

}  // namespace iok_test
