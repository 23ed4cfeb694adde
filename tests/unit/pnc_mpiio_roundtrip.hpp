#pragma once
// Round-trip fixture for the pnetcdf and mpiio backend tests: a small file with
// fixed and record variables of every type, a scalar, 3-D variables,
// attributes of every type, a variable nobody writes, and selections whose
// blocks are out of file order.  Written over MPI_COMM_WORLD: under one
// process (the unit test binary) rank 0 owns everything; the integration test
// also runs these tests under `mpiexec -n 4`, where rows are dealt round-robin
// so every rank holds interleaved, noncontiguous pieces and some ranks hold
// nothing of some variables.
//
// Files go to the test's scratch directory, or to $IOK_TEST_OUTDIR when set
// (the integration test inspects them with ncmpidump / netCDF4-python / numpy).
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "model/file_spec.hpp"
#include "model/selection.hpp"
#include "scratch_dir.hpp"

namespace pnc_test {

using iok::Attr;
using iok::DType;
using iok::FileSpec;
using iok::Selection;

inline int rank() { int r = 0; MPI_Comm_rank(MPI_COMM_WORLD, &r); return r; }
inline int nprocs() { int n = 1; MPI_Comm_size(MPI_COMM_WORLD, &n); return n; }

// One directory name agreed by all ranks.
inline std::string out_dir() { return iok_test::scratch_dir(MPI_COMM_WORLD); }

constexpr int kRecords = 3;
constexpr std::uint64_t kLev = 3, kBnd = 2, kCol = 10, kChars = 8;

struct Case {
    FileSpec spec;
    std::vector<Selection> sel;  // this rank's selection, per variable
};

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

inline Case make_case(const std::string& path) {
    Case c;
    FileSpec& f = c.spec;
    f.path = path;
    f.label = "pnc";
    // 0 time, 1 lev, 2 nbnd, 3 ncol, 4 chars
    f.dims = {{"time", 0, true}, {"lev", kLev, false}, {"nbnd", kBnd, false}, {"ncol", kCol, false},
              {"chars", kChars, false}};
    f.global_attrs = {Attr::Text("title", "iokernels pnetcdf/mpiio round trip"),
                      Attr::Number("ne", DType::Int, {30}),
                      Attr::Number("dt", DType::Double, {1800.5, 0.25}),
                      Attr::Text("empty_text", "")};
    auto var = [&](std::string name, DType t, std::vector<int> dims, std::vector<Attr> attrs, Selection s) {
        iok::VarSpec v;
        v.name = std::move(name);
        v.type = t;
        v.dims = std::move(dims);
        v.attrs = std::move(attrs);
        f.vars.push_back(v);
        c.sel.push_back(std::move(s));
    };
    var("ndbase", DType::Int, {}, {Attr::Text("long_name", "base day")}, root_only({}));
    var("lev", DType::Double, {1}, {Attr::Text("units", "hPa"), Attr::Number("valid_range", DType::Float, {0, 1000})},
        root_only({kLev}));
    var("area", DType::Float, {3},
        {Attr::Number("_FillValue", DType::Float, {1e20}), Attr::Number("flag", DType::Byte, {-3, 7})},
        dealt({kCol}, {{2, 3}, {7, 2}}));  // partial: elements 0,1,5,6,9 never written
    var("mask", DType::Byte, {3}, {Attr::Number("flag_values", DType::Short, {-1, 0, 1})}, dealt({kCol}, rows(kCol, 2)));
    var("ilev", DType::Short, {1, 3}, {}, dealt({kLev, kCol}, rows(kLev * kCol, 5)));
    var("gid", DType::Int64, {3}, {Attr::Number("big", DType::Int64, {1099511627776.0})}, dealt({kCol}, rows(kCol, 3)));
    var("cube", DType::Double, {1, 2, 3}, {Attr::Text("units", "m")}, dealt({kLev, kBnd, kCol}, rows(kLev * kBnd * kCol, 10)));
    var("unwritten", DType::Int, {3}, {}, Selection({kCol}));  // nobody writes: empty everywhere
    var("date", DType::Char, {0, 4}, {}, root_only({kChars}));
    var("time", DType::Double, {0}, {Attr::Text("units", "days since 2000-01-01")}, root_only({}));
    var("time_bnds", DType::Double, {0, 2}, {}, root_only({kBnd}));
    var("PS", DType::Double, {0, 3}, {Attr::Text("units", "Pa"), Attr::Number("_FillValue", DType::Double, {1e36})},
        dealt({kCol}, {{0, 4}, {4, 3}, {7, 3}}));
    var("T", DType::Float, {0, 1, 2, 3}, {Attr::Text("units", "K")}, dealt({kLev, kBnd, kCol}, rows(kLev * kBnd * kCol, 10)));
    var("nstep", DType::Int, {0}, {}, root_only({}));
    var("flags", DType::Short, {0, 3}, {}, dealt({kCol}, rows(kCol, 5)));
    return c;
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

template <class T>
void store(std::vector<char>& b, std::size_t i, double v) {
    T x = static_cast<T>(v);
    std::memcpy(b.data() + i * sizeof(T), &x, sizeof(T));
}

// The packed buffer of this rank's elements of (var, rec), in block order.
inline std::vector<char> expected(const Case& c, int var, int rec) {
    const Selection& s = c.sel[static_cast<std::size_t>(var)];
    const DType t = c.spec.vars[static_cast<std::size_t>(var)].type;
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

inline bool is_rec(const Case& c, std::size_t v) { return c.spec.vars[v].is_record(c.spec); }

// Fixed-size variables first, then every record; one flush at the very end
// when `flush_each_record` is false, so several records' requests are pending
// at once (the record index of the shared start arrays changes under them).
// Returns the file\'s statistics after close.
inline iok::BackendStats write_case(iok::Backend& be, const Case& c, bool flush_each_record = false) {
    const std::unique_ptr<iok::File> f = be.create(c.spec.path, c.spec, MPI_COMM_WORLD);
    f->define(c.spec);
    std::vector<std::vector<char>> keep;  // buffers live until flush
    for (std::size_t v = 0; v < c.spec.vars.size(); ++v)
        if (!is_rec(c, v)) {
            keep.push_back(expected(c, static_cast<int>(v), 0));
            f->put(static_cast<int>(v), c.sel[v], -1, keep.back().data());
        }
    for (int r = 0; r < kRecords; ++r) {
        for (std::size_t v = 0; v < c.spec.vars.size(); ++v)
            if (is_rec(c, v)) {
                keep.push_back(expected(c, static_cast<int>(v), r));
                f->put(static_cast<int>(v), c.sel[v], r, keep.back().data());
            }
        if (flush_each_record) f->flush();
    }
    f->flush();
    f->close();
    return f->stats();
}

// Reads everything back through the backend; returns the number of elements,
// summed over all ranks, that differ from what was written.
inline std::uint64_t read_mismatches(iok::Backend& be, const Case& c, iok::BackendStats* stats = nullptr) {
    const std::unique_ptr<iok::File> f = be.open(c.spec.path, c.spec, MPI_COMM_WORLD);
    std::vector<std::vector<char>> got;
    std::vector<std::pair<int, int>> which;
    for (int r = 0; r < kRecords; ++r)
        for (std::size_t v = 0; v < c.spec.vars.size(); ++v) {
            if (!is_rec(c, v) && r > 0) continue;
            got.emplace_back(expected(c, static_cast<int>(v), r).size(), '\x7f');
            which.emplace_back(static_cast<int>(v), r);
            f->get(static_cast<int>(v), c.sel[v], is_rec(c, v) ? r : -1, got.back().data());
        }
    f->flush();
    f->close();
    if (stats) *stats = f->stats();
    std::uint64_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        auto [v, r] = which[i];
        auto want = expected(c, v, r);
        const std::size_t es = iok::dtype_size(c.spec.vars[static_cast<std::size_t>(v)].type);
        for (std::size_t e = 0; e < c.sel[static_cast<std::size_t>(v)].elements(); ++e)
            if (std::memcmp(want.data() + e * es, got[i].data() + e * es, es) != 0) ++bad;
    }
    std::uint64_t total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

// User bytes this rank puts in write_case.
inline std::uint64_t expected_bytes(const Case& c) {
    std::uint64_t n = 0;
    for (std::size_t v = 0; v < c.spec.vars.size(); ++v)
        n += c.sel[v].elements() * iok::dtype_size(c.spec.vars[v].type) * (is_rec(c, v) ? kRecords : 1);
    return n;
}

// Flips one byte of a file (rank 0), so a read-back comparison must fail.
// Every rank learns whether it worked before asserting: an ASSERT on rank 0
// alone would return before the barrier and leave the others waiting.
inline void corrupt_byte(const std::string& path, std::uint64_t offset) {
    int ok = 1;
    if (rank() == 0) {
        FILE* f = std::fopen(path.c_str(), "r+b");
        ok = f && std::fseek(f, static_cast<long>(offset), SEEK_SET) == 0;
        int ch = ok ? std::fgetc(f) : EOF;
        ok = ok && ch != EOF && std::fseek(f, static_cast<long>(offset), SEEK_SET) == 0 &&
             std::fputc(ch ^ 0x5a, f) != EOF;
        if (f) ok = (std::fclose(f) == 0) && ok;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    ASSERT_TRUE(ok) << "cannot change byte " << offset << " of " << path;
}

}  // namespace pnc_test
