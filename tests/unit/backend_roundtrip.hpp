#pragma once
// The one round-trip fixture of the Backend contract: a Case (a file
// description, each variable's selection on this rank and the value of every
// element) is written through a backend, read back through it, and compared
// element by element.  The cases: library_roundtrip_case.hpp (the HDF5,
// NetCDF-4 and ADIOS2 tests, one rank) and pnc_mpiio_roundtrip.hpp (the
// PnetCDF and MPI-IO tests, also run under `mpiexec -n 4`).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.hpp"
#include "model/file_spec.hpp"
#include "model/selection.hpp"
#include "scratch_dir.hpp"

namespace iok_test {

inline int rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}
inline int nprocs() {
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

// Files go to the test's scratch directory (one name agreed by all ranks), or
// to $IOK_TEST_OUTDIR when set: the integration tests inspect them with the
// libraries' own tools.
inline std::string output_dir() { return scratch_dir(MPI_COMM_WORLD); }

struct Case {
    iok::FileSpec spec;
    std::vector<iok::Selection> sel;  // this rank's selection, per variable
    int records = 1;                  // records written of each record variable
    // The value of element `flat` (row-major index in the variable) of
    // (variable, record); record 0 for fixed-size variables.
    double (*value)(int var, int rec, std::int64_t flat, iok::DType t) = nullptr;
    bool flush_each_record = false;  // else one flush after the last record

    bool is_rec(std::size_t v) const { return spec.vars[v].is_record(spec); }

    // One variable of the file and this rank's selection of it.
    void add_var(std::string name, iok::DType t, std::vector<int> dims, std::vector<iok::Attr> attrs,
                 iok::Selection s) {
        iok::VarSpec v;
        v.name = std::move(name);
        v.type = t;
        v.dims = std::move(dims);
        v.attrs = std::move(attrs);
        spec.vars.push_back(std::move(v));
        sel.push_back(std::move(s));
    }
};

template <class T>
void store(std::vector<char>& b, std::size_t i, double v) {
    T x = static_cast<T>(v);
    std::memcpy(b.data() + i * sizeof(T), &x, sizeof(T));
}

// The packed buffer of this rank's elements of (var, rec), in block order.
inline std::vector<char> expected(const Case& c, int var, int rec) {
    const iok::Selection& s = c.sel[static_cast<std::size_t>(var)];
    const iok::DType t = c.spec.vars[static_cast<std::size_t>(var)].type;
    std::vector<char> b(std::max<std::uint64_t>(s.elements(), 1) * iok::dtype_size(t));
    std::size_t i = 0;
    s.for_each_run([&](std::int64_t off, std::int64_t len) {
        for (std::int64_t k = 0; k < len; ++k, ++i) {
            const double v = c.value(var, rec, off + k, t);
            switch (t) {
                case iok::DType::Char: store<char>(b, i, v); break;
                case iok::DType::Byte: store<signed char>(b, i, v); break;
                case iok::DType::Short: store<short>(b, i, v); break;
                case iok::DType::Int: store<int>(b, i, v); break;
                case iok::DType::Int64: store<std::int64_t>(b, i, v); break;
                case iok::DType::Float: store<float>(b, i, v); break;
                case iok::DType::Double: store<double>(b, i, v); break;
            }
        }
    });
    return b;
}

// Fixed-size variables first, then every record; with flush_each_record
// false one flush at the very end, so several records' requests are pending
// at once (the record index of shared start arrays changes under them).
// `hints` (if any) is called on the file after define, before any put.
// Returns the file's statistics after close.
inline iok::BackendStats write_case(iok::Backend& be, const Case& c,
                                    const std::function<void(iok::File&)>& hints = {}) {
    const std::unique_ptr<iok::File> f = be.create(c.spec.path, c.spec, MPI_COMM_WORLD);
    f->define(c.spec);
    if (hints) hints(*f);
    std::vector<std::vector<char>> keep;  // buffers live until flush
    for (std::size_t v = 0; v < c.spec.vars.size(); ++v)
        if (!c.is_rec(v)) {
            keep.push_back(expected(c, static_cast<int>(v), 0));
            f->put(static_cast<int>(v), c.sel[v], -1, keep.back().data());
        }
    for (int r = 0; r < c.records; ++r) {
        for (std::size_t v = 0; v < c.spec.vars.size(); ++v)
            if (c.is_rec(v)) {
                keep.push_back(expected(c, static_cast<int>(v), r));
                f->put(static_cast<int>(v), c.sel[v], r, keep.back().data());
            }
        if (c.flush_each_record) {
            f->flush();
            keep.clear();
        }
    }
    f->flush();
    f->close();
    return f->stats();
}

// Reads everything back through the backend; returns the number of elements,
// summed over all ranks, that differ from what was written.
inline std::uint64_t read_mismatches(iok::Backend& be, const Case& c, iok::BackendStats* stats = nullptr) {
    const std::unique_ptr<iok::File> f = be.open(c.spec.path, c.spec, MPI_COMM_WORLD);
    std::vector<std::vector<char>> got;  // moving a vector keeps its buffer: get() may fill it later
    std::vector<std::pair<int, int>> which;
    for (int r = 0; r < c.records; ++r)
        for (std::size_t v = 0; v < c.spec.vars.size(); ++v) {
            if (!c.is_rec(v) && r > 0) continue;
            got.emplace_back(expected(c, static_cast<int>(v), r).size(), '\x7f');
            which.emplace_back(static_cast<int>(v), r);
            f->get(static_cast<int>(v), c.sel[v], c.is_rec(v) ? r : -1, got.back().data());
        }
    f->flush();
    f->close();
    if (stats) *stats = f->stats();
    std::uint64_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const auto [v, r] = which[i];
        const std::vector<char> want = expected(c, v, r);
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
        n += c.sel[v].elements() * iok::dtype_size(c.spec.vars[v].type) *
             static_cast<std::uint64_t>(c.is_rec(v) ? c.records : 1);
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

}  // namespace iok_test
