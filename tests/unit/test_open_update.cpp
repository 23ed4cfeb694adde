// Backend::open(..., Access::Update) for every backend and strategy of this
// build: a file written once is opened for update, one record is rewritten
// (and the fixed variable), one record is appended after the last, and a
// read-only open then finds the new values where they were written and the
// old ones everywhere else.  ADIOS2 writes steps once: there the rewrite is
// refused with a message and the append still works.  The blob and log
// strategies refuse update altogether.  Negative twins: a missing file, and a
// file whose variables have another size than the update's, are refused.
#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/io_stack.hpp"
#include "backends/strategy.hpp"
#include "core/error.hpp"
#include "fixed_and_record_spec.hpp"
#include "scratch_dir.hpp"

namespace {

using iok::Access;
using iok::DType;
using iok::FileSpec;
using iok::Selection;

constexpr std::uint64_t kN = 12;

FileSpec spec_of(const std::string& path, std::uint64_t n = kN) {
    return iok_test::fixed_and_record_spec(path, "update", n);
}

// Generation g of variable `a`, and of record `rec` of `r`: every generation differs everywhere.
std::vector<double> a_values(int g) {
    std::vector<double> v(kN);
    for (std::uint64_t i = 0; i < kN; ++i) v[i] = 1000.0 * g + 0.5 * static_cast<double>(i);
    return v;
}
std::vector<int> r_values(int g, int rec) {
    std::vector<int> v(kN);
    for (std::uint64_t i = 0; i < kN; ++i) v[i] = 10000 * g + 100 * rec + static_cast<int>(i);
    return v;
}

bool refuses_update(const std::string& strategy) { return strategy == "blob" || strategy == "log"; }

class OpenUpdate : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
protected:
    std::unique_ptr<iok::Backend> stack() {
        const auto& [library, strategy] = GetParam();
        return iok::make_io_stack(library, strategy, iok::BackendConfig{});
    }
    // Generation 0: `a` and records 0, 1 of `r`.
    static void write_first(iok::Backend& b, const FileSpec& spec) {
        const Selection all = Selection::whole({kN});
        auto w = b.create(spec.path, spec, MPI_COMM_SELF);
        w->define(spec);
        const auto a = a_values(0);
        const auto r0 = r_values(0, 0), r1 = r_values(0, 1);
        w->put(0, all, -1, a.data());
        w->put(1, all, 0, r0.data());
        w->flush();
        w->put(1, all, 1, r1.data());
        w->flush();
        w->close();
    }
};

TEST_P(OpenUpdate, RewritesAndAppendsThenReadsBack) {
    const std::string library = std::get<0>(GetParam()), strategy = std::get<1>(GetParam());
    auto b = stack();
    const FileSpec spec = spec_of(iok_test::scratch_path("u" + b->extension()));
    write_first(*b, spec);
    if (refuses_update(strategy)) {
        try {
            b->open(spec.path, spec, MPI_COMM_SELF, Access::Update);
            FAIL() << strategy << " opened a file for update";
        } catch (const iok::Error& e) {
            EXPECT_NE(std::string(e.what()).find("cannot update"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.hint()).find("-x canonical"), std::string::npos) << e.hint();
        }
        return;
    }
    const bool steps_once = library == "adios";  // BP steps are written once
    const Selection all = Selection::whole({kN});
    const auto a1 = a_values(1);
    const auto r1_0 = r_values(1, 0), r1_2 = r_values(1, 2);
    {
        auto u = b->open(spec.path, spec, MPI_COMM_SELF, Access::Update);
        EXPECT_EQ(u->records(), 2);
        if (steps_once) {
            try {  // refused at the put, or at the flush where a strategy hands it on (rearrange)
                u->put(1, all, 0, r1_0.data());
                u->flush();
                FAIL() << "ADIOS2 rewrote a step";
            } catch (const iok::Error& e) {
                EXPECT_NE(std::string(e.what()).find("written once"), std::string::npos) << e.what();
            }
        } else {
            u->put(0, all, -1, a1.data());
            u->put(1, all, 0, r1_0.data());
            u->flush();
        }
        u->put(1, all, 2, r1_2.data());  // appended after the last record
        u->flush();
        EXPECT_EQ(u->records(), 3);
        u->close();
    }
    auto rd = b->open(spec.path, spec, MPI_COMM_SELF);
    EXPECT_EQ(rd->records(), 3);
    std::vector<double> a(kN);
    std::vector<std::vector<int>> r(3, std::vector<int>(kN));
    rd->get(0, all, -1, a.data());
    for (int rec = 0; rec < 3; ++rec) rd->get(1, all, rec, r[static_cast<std::size_t>(rec)].data());
    rd->flush();
    rd->close();
    EXPECT_EQ(a, steps_once ? a_values(0) : a1);
    EXPECT_EQ(r[0], steps_once ? r_values(0, 0) : r1_0);
    EXPECT_EQ(r[1], r_values(0, 1));  // untouched
    EXPECT_EQ(r[2], r1_2);
    // The comparisons can fail: the generations differ everywhere.
    EXPECT_NE(a_values(0), a1);
    EXPECT_NE(r_values(0, 0), r1_0);
}

TEST_P(OpenUpdate, MissingFileIsRefused) {
    auto b = stack();
    const FileSpec spec = spec_of(iok_test::scratch_path("absent" + b->extension()));
    EXPECT_THROW(b->open(spec.path, spec, MPI_COMM_SELF, Access::Update), iok::Error);
}

// A file written with other sizes: the update is refused with a message
// (at open, or for NetCDF-4 at the first put past its dimension) and the
// file is not changed.  A raw MPI-IO file has no header: its backend sees
// only a size that is not a whole number of the update's records, which
// n = 13 against the file's 12 gives (fixed 104 + records of 52 bytes
// against the file's 192 bytes).
TEST_P(OpenUpdate, OtherSizesAreRefused) {
    auto b = stack();
    const FileSpec spec = spec_of(iok_test::scratch_path("m" + b->extension()));
    write_first(*b, spec);
    if (refuses_update(std::get<1>(GetParam()))) {  // whatever the sizes
        EXPECT_THROW(b->open(spec.path, spec_of(spec.path, kN + 1), MPI_COMM_SELF, Access::Update), iok::Error);
        return;
    }
    const FileSpec bigger = spec_of(spec.path, kN + 1);
    const Selection all = Selection::whole({kN + 1});
    std::vector<int> r(kN + 1, 7);
    std::string message;
    try {
        auto u = b->open(spec.path, bigger, MPI_COMM_SELF, Access::Update);
        u->put(1, all, 0, r.data());
        u->flush();
        u->close();
    } catch (const iok::Error& e) {
        message = e.what();
    }
    EXPECT_FALSE(message.empty()) << "an update with twice the file's size was accepted";
    auto rd = b->open(spec.path, spec, MPI_COMM_SELF);
    std::vector<int> got(kN);
    const Selection whole = Selection::whole({kN});  // valid until the flush, as put()/get() require
    rd->get(1, whole, 0, got.data());
    rd->flush();
    rd->close();
    EXPECT_EQ(got, r_values(0, 0));
}

std::vector<std::tuple<std::string, std::string>> every_stack() {
    std::vector<std::tuple<std::string, std::string>> v;
    for (const auto& b : iok::registered_backends())
        for (const auto& s : iok::registered_strategies()) v.emplace_back(b.name, s.name);
    return v;
}

INSTANTIATE_TEST_SUITE_P(EveryBackendAndStrategy, OpenUpdate, ::testing::ValuesIn(every_stack()),
                         [](const auto& p) { return std::get<0>(p.param) + "_" + std::get<1>(p.param); });

}  // namespace
