// File::put refuses a write into a file opened read-only, in every backend
// and strategy, before the library sees it: an iok::Error naming the file,
// nothing counted, and the file still readable.  A request outside the file's
// variables (index, selection shape) is refused the same way.
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

constexpr std::uint64_t kN = 8;

class ReadOnlyPut : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(ReadOnlyPut, IsRefusedByFileItself) {
    const auto& [library, strategy] = GetParam();
    iok::BackendConfig cfg;
    const std::unique_ptr<iok::Backend> stack = iok::make_io_stack(library, strategy, cfg);
    const iok::FileSpec spec = iok_test::fixed_and_record_spec(
        iok_test::scratch_path("ro_" + library + "_" + strategy + stack->extension()), "read_only", kN);
    const iok::Selection all = iok::Selection::whole({kN});
    std::vector<double> a(kN, 1.5);
    std::vector<int> r(kN, 7);
    {
        auto w = stack->create(spec.path, spec, MPI_COMM_SELF);
        w->define(spec);
        w->put(0, all, -1, a.data());
        w->put(1, all, 0, r.data());
        w->flush();
        w->close();
    }
    auto f = stack->open(spec.path, spec, MPI_COMM_SELF);
    try {
        f->put(1, all, 0, r.data());
        FAIL() << "a put into a read-only file was accepted";
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("read-only"), std::string::npos) << e.what();
    }
    EXPECT_THROW(f->get(2, all, 0, r.data()), iok::Error);                              // no such variable
    EXPECT_THROW(f->get(1, iok::Selection::whole({kN + 1}), 0, r.data()), iok::Error);  // wrong shape
    EXPECT_EQ(f->stats().calls_put, 0u);
    std::vector<int> got(kN, 0);
    f->get(1, all, 0, got.data());
    f->flush();
    f->close();
    EXPECT_EQ(got, r);
}

std::vector<std::tuple<std::string, std::string>> every_stack() {
    std::vector<std::tuple<std::string, std::string>> v;
    for (const auto& b : iok::registered_backends())
        for (const auto& s : iok::registered_strategies()) v.emplace_back(b.name, s.name);
    return v;
}

INSTANTIATE_TEST_SUITE_P(EveryBackendAndStrategy, ReadOnlyPut, ::testing::ValuesIn(every_stack()),
                         [](const auto& p) { return std::get<0>(p.param) + "_" + std::get<1>(p.param); });

}  // namespace
