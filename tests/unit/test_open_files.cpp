// A backend opens files; it is not one.  For every backend of this build and
// every strategy around it: one I/O stack holds two files open at once, writes
// them interleaved (puts to one, flush of the other, closes in the other
// order), then opens both at once again and reads each back.  The two files
// hold different values, so a File that shares state with its sibling (a
// handle, a cached selection, a pending request) reads or writes the wrong
// data and the element-by-element comparison fails.
#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/io_stack.hpp"
#include "backends/strategy.hpp"
#include "fixed_and_record_spec.hpp"
#include "scratch_dir.hpp"

namespace {

using iok::DType;
using iok::FileSpec;
using iok::Selection;

constexpr std::uint64_t kN = 16;
constexpr int kRecords = 2;

FileSpec two_variables(const std::string& path) { return iok_test::fixed_and_record_spec(path, "open_files", kN); }

// The value of element i of variable v (record rec) in file `which`.
double value(int which, int v, int rec, std::uint64_t i) { return 1000.0 * which + 100.0 * v + 10.0 * rec + i; }

struct Buffers {
    std::vector<double> a = std::vector<double>(kN);
    std::vector<std::vector<int>> r = std::vector<std::vector<int>>(kRecords, std::vector<int>(kN));
};

Buffers expected(int which) {
    Buffers b;
    for (std::uint64_t i = 0; i < kN; ++i) {
        b.a[i] = value(which, 0, 0, i);
        for (int rec = 0; rec < kRecords; ++rec) b.r[rec][i] = static_cast<int>(value(which, 1, rec, i));
    }
    return b;
}

class OpenFiles : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(OpenFiles, TwoFilesOpenAtOnceThroughOneStack) {
    const auto& [library, strategy] = GetParam();
    iok::BackendConfig cfg;
    const std::unique_ptr<iok::Backend> stack = iok::make_io_stack(library, strategy, cfg);
    const Selection all = Selection::whole({kN});
    std::vector<FileSpec> spec;
    for (int k = 0; k < 2; ++k)
        spec.push_back(two_variables(iok_test::scratch_path("f" + std::to_string(k) + stack->extension())));
    const Buffers want[2] = {expected(0), expected(1)};

    std::unique_ptr<iok::File> w[2];
    for (int k = 0; k < 2; ++k) {
        w[k] = stack->create(spec[k].path, spec[k], MPI_COMM_SELF);
        w[k]->define(spec[k]);
    }
    // Interleaved: both files have requests pending before either flushes.
    // The fixed variable goes with the first record, as the runner sends it
    // (blob defines its subfile from the first flush's selections).
    for (int k = 0; k < 2; ++k) w[k]->put(0, all, -1, want[k].a.data());
    for (int rec = 0; rec < kRecords; ++rec) {
        for (int k = 0; k < 2; ++k) w[k]->put(1, all, rec, want[k].r[rec].data());
        for (int k = 1; k >= 0; --k) w[k]->flush();
    }
    w[1]->close();
    w[0]->close();
    const std::uint64_t data_bytes = kN * 8 + kRecords * kN * 4;
    for (int k = 0; k < 2; ++k) {
        if (strategy == "blob")  // the subfile also holds the blocks each rank owned
            EXPECT_GT(w[k]->stats().bytes_put, data_bytes) << k;
        else
            EXPECT_EQ(w[k]->stats().bytes_put, data_bytes) << k;
    }

    std::unique_ptr<iok::File> r[2];
    for (int k = 0; k < 2; ++k) r[k] = stack->open(spec[k].path, spec[k], MPI_COMM_SELF);
    Buffers got[2];
    for (int k = 0; k < 2; ++k) r[k]->get(0, all, -1, got[k].a.data());
    for (int rec = 0; rec < kRecords; ++rec) {
        for (int k = 0; k < 2; ++k) r[k]->get(1, all, rec, got[k].r[rec].data());
        r[rec % 2]->flush();
        r[1 - rec % 2]->flush();
    }
    r[0]->close();
    r[1]->close();
    for (int k = 0; k < 2; ++k) {
        EXPECT_EQ(got[k].a, want[k].a) << "file " << k;
        for (int rec = 0; rec < kRecords; ++rec) EXPECT_EQ(got[k].r[rec], want[k].r[rec]) << "file " << k;
    }
    // The comparison can fail: the two files' values differ everywhere.
    EXPECT_NE(want[0].a, want[1].a);
}

std::vector<std::tuple<std::string, std::string>> every_stack() {
    std::vector<std::tuple<std::string, std::string>> v;
    for (const auto& b : iok::registered_backends())
        for (const auto& s : iok::registered_strategies()) v.emplace_back(b.name, s.name);
    return v;
}

INSTANTIATE_TEST_SUITE_P(EveryBackendAndStrategy, OpenFiles, ::testing::ValuesIn(every_stack()),
                         [](const auto& p) { return std::get<0>(p.param) + "_" + std::get<1>(p.param); });

}  // namespace
