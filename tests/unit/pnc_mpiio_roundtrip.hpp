#pragma once
// The case the pnetcdf and mpiio backends round-trip through the fixture of
// backend_roundtrip.hpp: a small file with fixed and record variables of
// every type, a scalar, 3-D variables, attributes of every type, a variable
// nobody writes, and selections whose blocks are out of file order.  Written
// over MPI_COMM_WORLD: under one process (the unit test binary) rank 0 owns
// everything; the integration test also runs these tests under `mpiexec -n
// 4`, where rows are dealt round-robin so every rank holds interleaved,
// noncontiguous pieces and some ranks hold nothing of some variables.
// tests/integration/test_backends_pnc_mpiio.py inspects the files with
// ncmpidump / netCDF4-python / numpy and computes the same values.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backend_roundtrip.hpp"
#include "model/file_spec.hpp"
#include "model/selection.hpp"

namespace pnc_test {

using iok::Attr;
using iok::DType;
using iok::FileSpec;
using iok::Selection;
// The fixture, by the names these tests use.
using iok_test::Case;
using iok_test::corrupt_byte;
using iok_test::expected;
using iok_test::expected_bytes;
using iok_test::nprocs;
using iok_test::rank;
using iok_test::read_mismatches;
using iok_test::write_case;
inline std::string out_dir() { return iok_test::output_dir(); }

constexpr int kRecords = 3;
constexpr std::uint64_t kLev = 3, kBnd = 2, kCol = 10, kChars = 8;

// Runs dealt round-robin to ranks; each rank lists its runs in reverse (out
// of file order) so a backend that confuses buffer and file order fails.
inline Selection dealt(std::vector<std::uint64_t> shape, const std::vector<iok::Run>& runs) {
    std::vector<iok::Run> mine;
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (static_cast<int>(i % static_cast<std::size_t>(nprocs())) == rank()) mine.push_back(runs[i]);
    return Selection::from_runs(std::move(shape), {mine.rbegin(), mine.rend()});
}
inline std::vector<iok::Run> rows(std::int64_t total, std::int64_t len) {
    std::vector<iok::Run> r;
    for (std::int64_t o = 0; o < total; o += len) r.push_back({o, std::min(len, total - o)});
    return r;
}
// Rank 0 writes it whole; everyone else holds nothing ("not partitioned").
inline Selection root_only(std::vector<std::uint64_t> shape) {
    return rank() == 0 ? Selection::whole(shape) : Selection(shape);
}

// Deterministic element value for (variable, record, flat index); the
// integration test computes the same numbers in Python.
inline double value_of(int var, int rec, std::int64_t flat, DType t) {
    switch (t) {
        case DType::Char: return 'a' + (flat + var + rec) % 26;
        case DType::Byte: return (var * 7 + rec * 3 + flat) % 100 - 50;
        case DType::Short: return var * 100 + rec * 10 + flat;
        case DType::Int64: return 1099511627776.0 + var * 1000 + rec * 100 + static_cast<double>(flat);
        case DType::Int: return var * 1000 + rec * 100 + static_cast<double>(flat);
        default: return var * 1000.0 + rec * 100.0 + static_cast<double>(flat) + 0.25;
    }
}

inline Case make_case(const std::string& path) {
    Case c;
    c.records = kRecords;
    c.value = value_of;
    FileSpec& f = c.spec;
    f.path = path;
    f.label = "pnc";
    // 0 time, 1 lev, 2 nbnd, 3 ncol, 4 chars
    f.dims = {{"time", 0, true},
              {"lev", kLev, false},
              {"nbnd", kBnd, false},
              {"ncol", kCol, false},
              {"chars", kChars, false}};
    f.global_attrs = {Attr::Text("title", "iokernels pnetcdf/mpiio round trip"), Attr::Number("ne", DType::Int, {30}),
                      Attr::Number("dt", DType::Double, {1800.5, 0.25}), Attr::Text("empty_text", "")};
    c.add_var("ndbase", DType::Int, {}, {Attr::Text("long_name", "base day")}, root_only({}));
    c.add_var("lev", DType::Double, {1},
              {Attr::Text("units", "hPa"), Attr::Number("valid_range", DType::Float, {0, 1000})}, root_only({kLev}));
    c.add_var("area", DType::Float, {3},
              {Attr::Number("_FillValue", DType::Float, {1e20}), Attr::Number("flag", DType::Byte, {-3, 7})},
              dealt({kCol}, {{2, 3}, {7, 2}}));  // partial: elements 0,1,5,6,9 never written
    c.add_var("mask", DType::Byte, {3}, {Attr::Number("flag_values", DType::Short, {-1, 0, 1})},
              dealt({kCol}, rows(kCol, 2)));
    c.add_var("ilev", DType::Short, {1, 3}, {}, dealt({kLev, kCol}, rows(kLev * kCol, 5)));
    c.add_var("gid", DType::Int64, {3}, {Attr::Number("big", DType::Int64, {1099511627776.0})},
              dealt({kCol}, rows(kCol, 3)));
    c.add_var("cube", DType::Double, {1, 2, 3}, {Attr::Text("units", "m")},
              dealt({kLev, kBnd, kCol}, rows(kLev * kBnd * kCol, 10)));
    c.add_var("unwritten", DType::Int, {3}, {}, Selection({kCol}));  // nobody writes: empty everywhere
    c.add_var("date", DType::Char, {0, 4}, {}, root_only({kChars}));
    c.add_var("time", DType::Double, {0}, {Attr::Text("units", "days since 2000-01-01")}, root_only({}));
    c.add_var("time_bnds", DType::Double, {0, 2}, {}, root_only({kBnd}));
    c.add_var("PS", DType::Double, {0, 3},
              {Attr::Text("units", "Pa"), Attr::Number("_FillValue", DType::Double, {1e36})},
              dealt({kCol}, {{0, 4}, {4, 3}, {7, 3}}));
    c.add_var("T", DType::Float, {0, 1, 2, 3}, {Attr::Text("units", "K")},
              dealt({kLev, kBnd, kCol}, rows(kLev * kBnd * kCol, 10)));
    c.add_var("nstep", DType::Int, {0}, {}, root_only({}));
    c.add_var("flags", DType::Short, {0, 3}, {}, dealt({kCol}, rows(kCol, 5)));
    return c;
}

}  // namespace pnc_test
