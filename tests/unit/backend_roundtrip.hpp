#pragma once
// A small file every library backend must round-trip: fixed and record
// variables of every type, a scalar, a 3-D variable, text and numeric
// attributes, and selections whose blocks are not in file order (so a backend
// that ignores buffer-vs-file order fails).  Used by the HDF5, NetCDF-4 and
// ADIOS2 backend tests.  Files go to the test's scratch directory, or to
// $IOK_TEST_OUTDIR when set (the integration test inspects them with
// h5dump/ncdump/bpls).
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "model/file_spec.hpp"
#include "model/selection.hpp"
#include "scratch_dir.hpp"

namespace iok_test {

using iok::Attr;
using iok::DType;
using iok::FileSpec;
using iok::Selection;

inline std::string output_dir() { return scratch_dir(MPI_COMM_WORLD); }

constexpr int kRecords = 2;
constexpr std::uint64_t kLev = 3, kCol = 12, kChars = 8;

struct Case {
    FileSpec spec;
    std::vector<Selection> sel;  // per variable
};

inline Case make_case(const std::string& path) {
    Case c;
    FileSpec& f = c.spec;
    f.path = path;
    f.label = "test";
    f.dims = {{"time", 0, true}, {"lev", kLev, false}, {"ncol", kCol, false}, {"nchars", kChars, false}};
    f.global_attrs = {Attr::Text("title", "iokernels backend round trip"),
                      Attr::Number("version", DType::Int, {3}),
                      Attr::Number("scale", DType::Double, {0.5, 2.0})};
    auto var = [&](std::string name, DType t, std::vector<int> dims, std::vector<Attr> attrs, Selection s) {
        iok::VarSpec v;
        v.name = std::move(name);
        v.type = t;
        v.dims = std::move(dims);
        v.attrs = std::move(attrs);
        f.vars.push_back(v);
        c.sel.push_back(std::move(s));
    };
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
    var("lev", DType::Double, {1}, {Attr::Text("units", "hPa"), Attr::Number("valid_range", DType::Float, {0, 1000})},
        Selection::whole({kLev}));
    var("area", DType::Double, {2}, {Attr::Text("long_name", "cell area")}, area);
    var("P0", DType::Double, {}, {Attr::Text("units", "Pa")}, Selection::whole({}));
    var("name", DType::Char, {3}, {}, Selection::whole({kChars}));
    var("mask", DType::Byte, {2}, {}, Selection::whole({kCol}));
    var("ilev", DType::Short, {1}, {}, Selection::whole({kLev}));
    var("gid", DType::Int64, {2}, {}, Selection::from_runs({kCol}, {{8, 4}, {0, 8}}));
    var("time", DType::Double, {0}, {Attr::Text("units", "days since 2000-01-01")}, Selection::whole({}));
    var("T", DType::Float, {0, 1, 2}, {Attr::Text("units", "K"), Attr::Number("_FillValue", DType::Float, {1e20})}, t3);
    var("PS", DType::Double, {0, 2}, {}, Selection::from_runs({kCol}, {{0, 5}, {5, 7}}));
    var("nsteps", DType::Int, {0}, {}, Selection::whole({}));
    return c;
}

// Deterministic element value for (variable, record, flat index).
inline double value_of(int var, int rec, std::int64_t flat, DType t) {
    if (t == DType::Char) return 'a' + (flat + var + rec) % 26;
    if (t == DType::Byte) return (var * 7 + rec * 3 + flat) % 100 - 50;
    return var * 1000.0 + rec * 100.0 + static_cast<double>(flat) + (t == DType::Float || t == DType::Double ? 0.25 : 0);
}

template <class T>
void store(std::vector<char>& b, std::size_t i, double v) {
    T x = static_cast<T>(v);
    std::memcpy(b.data() + i * sizeof(T), &x, sizeof(T));
}

inline std::vector<char> expected(const Case& c, int var, int rec) {
    const Selection& s = c.sel[var];
    const DType t = c.spec.vars[var].type;
    std::vector<char> b(std::max<std::uint64_t>(s.elements(), 1) * iok::dtype_size(t));
    std::size_t i = 0;
    s.for_each_run([&](std::int64_t off, std::int64_t len) {
        for (std::int64_t k = 0; k < len; ++k, ++i) {
            double v = value_of(var, rec, off + k, t);
            switch (t) {
                case DType::Char: store<char>(b, i, v); break;
                case DType::Byte: store<signed char>(b, i, v); break;
                case DType::Short: store<short>(b, i, v); break;
                case DType::Int: store<int>(b, i, v); break;
                case DType::Int64: store<std::int64_t>(b, i, v); break;
                case DType::Float: store<float>(b, i, v); break;
                case DType::Double: store<double>(b, i, v); break;
            }
        }
    });
    return b;
}

// Returns the file\'s statistics after close.
// `hints` (if any) is called on the file after define, before any put.
inline iok::BackendStats write_case(iok::Backend& be, const Case& c,
                                    const std::function<void(iok::File&)>& hints = {}) {
    const std::unique_ptr<iok::File> f = be.create(c.spec.path, c.spec, MPI_COMM_WORLD);
    f->define(c.spec);
    if (hints) hints(*f);
    std::vector<std::vector<char>> keep;  // buffers live until flush
    for (int r = 0; r < kRecords; ++r) {
        for (std::size_t v = 0; v < c.spec.vars.size(); ++v) {
            const bool rec = c.spec.vars[v].is_record(c.spec);
            if (!rec && r > 0) continue;
            keep.push_back(expected(c, static_cast<int>(v), rec ? r : 0));
            f->put(static_cast<int>(v), c.sel[v], rec ? r : -1, keep.back().data());
        }
        f->flush();
        keep.clear();
    }
    f->close();
    return f->stats();
}

// Reads everything back through the backend; returns the number of elements
// (over all variables and records) that differ from what was written.
inline std::uint64_t read_mismatches(iok::Backend& be, const Case& c, iok::BackendStats* stats = nullptr) {
    const std::unique_ptr<iok::File> f = be.open(c.spec.path, c.spec, MPI_COMM_WORLD);
    std::vector<std::vector<char>> got;
    std::vector<std::pair<int, int>> which;
    for (int r = 0; r < kRecords; ++r)
        for (std::size_t v = 0; v < c.spec.vars.size(); ++v) {
            const bool rec = c.spec.vars[v].is_record(c.spec);
            if (!rec && r > 0) continue;
            auto want = expected(c, static_cast<int>(v), rec ? r : 0);
            got.emplace_back(want.size(), '\x7f');
            which.emplace_back(static_cast<int>(v), rec ? r : 0);
        }
    for (std::size_t i = 0; i < got.size(); ++i) {
        auto [v, r] = which[i];
        f->get(v, c.sel[v], c.spec.vars[v].is_record(c.spec) ? r : -1, got[i].data());
    }
    f->flush();
    f->close();
    if (stats) *stats = f->stats();
    std::uint64_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        auto [v, r] = which[i];
        auto want = expected(c, v, r);
        const std::size_t es = iok::dtype_size(c.spec.vars[v].type);
        for (std::size_t e = 0; e < c.sel[v].elements(); ++e)
            if (std::memcmp(want.data() + e * es, got[i].data() + e * es, es) != 0) ++bad;
    }
    return bad;
}

inline std::uint64_t expected_bytes(const Case& c) {
    std::uint64_t n = 0;
    for (std::size_t v = 0; v < c.spec.vars.size(); ++v)
        n += c.sel[v].elements() * iok::dtype_size(c.spec.vars[v].type) *
             (c.spec.vars[v].is_record(c.spec) ? kRecords : 1);
    return n;
}

}  // namespace iok_test
