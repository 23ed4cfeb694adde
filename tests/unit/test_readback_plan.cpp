// contiguous_readback_plan: every element of every variable read by exactly
// one rank, in one contiguous range each, whatever the rank count; plans it
// cannot serve are refused.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "core/error.hpp"
#include "model/readback_plan.hpp"

using namespace iok;

namespace {

FilePlan cube_plan() {  // a 3-D double array (7 x 5 x 3) and a record variable of it
    FilePlan p;
    p.spec.dims = {{"time", 0, true}, {"z", 7, false}, {"y", 5, false}, {"x", 3, false}};
    VarSpec a;
    a.name = "a";
    a.dims = {1, 2, 3};
    VarSpec r = a;
    r.name = "r";
    r.type = DType::Int;
    r.dims = {0, 1, 2, 3};
    p.spec.vars = {a, r};
    // the writers' selection: one block (any; the read-back ignores it)
    auto blk = std::make_shared<const Selection>(Selection::block({7, 5, 3}, {1, 1, 1}, {2, 2, 2}));
    p.selection = {blk, blk};
    p.nrecords = 3;
    return p;
}

}  // namespace

TEST(ReadbackPlan, EveryElementOnceInOneRangePerRank) {
    const FilePlan w = cube_plan();
    for (int nranks : {1, 2, 4, 16, 200}) {
        for (std::size_t v = 0; v < 2; ++v) {
            std::vector<int> seen(105, 0);
            std::int64_t next = 0;  // ranks' ranges follow each other in rank order
            for (int r = 0; r < nranks; ++r) {
                const FilePlan p = contiguous_readback_plan(w, r, nranks);
                EXPECT_EQ(p.nrecords, 3);
                p.selection[v]->for_each_run([&](std::int64_t off, std::int64_t len) {
                    EXPECT_EQ(off, next) << nranks << " ranks, rank " << r;
                    next = off + len;
                    for (std::int64_t i = off; i < off + len; ++i) ++seen[static_cast<std::size_t>(i)];
                });
                EXPECT_LE(p.selection[v]->elements(), 105u / static_cast<unsigned>(nranks) + 1);
            }
            for (int s : seen) ASSERT_EQ(s, 1) << nranks << " ranks";
        }
    }
}

TEST(ReadbackPlan, RefusesConstantDataAndFillSelections) {
    FilePlan c = cube_plan();
    c.constant_data = FilePlan::ConstantData{1, 'b'};
    EXPECT_THROW(contiguous_readback_plan(c, 0, 2), Error);
    FilePlan f = cube_plan();
    f.fill_selection = f.selection;
    EXPECT_THROW(contiguous_readback_plan(f, 0, 2), Error);
}

// The read-back verifies for real: a file written with the writers' blocks
// passes when read back by ranges, and one flipped byte is found (MPI-IO raw
// layout: element i of "a" is at byte 8 i).
#include <fcntl.h>
#include <unistd.h>

#include "backends/io_stack.hpp"
#include "runner/runner.hpp"
#include "scratch_dir.hpp"

TEST(ReadbackPlan, ReadBackPassesThenFindsAFlippedByte) {
    FilePlan w;
    w.spec.dims = {{"z", 4, false}, {"x", 6, false}};
    VarSpec a;
    a.name = "a";
    a.dims = {0, 1};
    w.spec.vars = {a};
    w.selection = {std::make_shared<const Selection>(Selection::whole({4, 6}))};
    const std::string path = iok_test::scratch_path("readback.bin");
    w.spec.path = path;
    BackendConfig cfg;
    auto be = make_io_stack("mpiio", "canonical", cfg);
    Runner runner(MPI_COMM_SELF, *be, RunOptions{});
    ASSERT_EQ(runner.write(w, path).mismatches, 0u);
    EXPECT_EQ(runner.read(contiguous_readback_plan(w, 0, 1), path).mismatches, 0u);
    const int fd = ::open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    unsigned char b = 0;
    ASSERT_EQ(::pread(fd, &b, 1, 8 * 13 + 3), 1);
    b ^= 0x10;
    ASSERT_EQ(::pwrite(fd, &b, 1, 8 * 13 + 3), 1);
    ::close(fd);
    const FileOutcome r = runner.read(contiguous_readback_plan(w, 0, 1), path);
    EXPECT_EQ(r.mismatches, 1u);
    EXPECT_NE(r.first_mismatch.find("13"), std::string::npos) << r.first_mismatch;
}
