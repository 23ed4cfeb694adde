// Sizes refused up front (core/resource_check, model/plan_size): the
// estimates of a plan, the saturating arithmetic that keeps absurd sizes
// absurd, and the refusals with their figures against this machine's real
// free memory and disk space.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <limits>
#include <memory>

#include "core/collective.hpp"
#include "core/resource_check.hpp"
#include "model/plan_size.hpp"
#include "scratch_dir.hpp"

namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

// A record variable (double, 10 elements selected) and a fixed one (int, 5).
iok::FilePlan small_plan(int nrecords, int flush_every) {
    iok::FilePlan p;
    p.spec.dims = {{"time", 0, true}, {"x", 10, false}, {"y", 5, false}};
    iok::VarSpec rec;
    rec.name = "r";
    rec.type = iok::DType::Double;
    rec.dims = {0, 1};
    iok::VarSpec fixed;
    fixed.name = "f";
    fixed.type = iok::DType::Int;
    fixed.dims = {2};
    p.spec.vars = {rec, fixed};
    p.selection = {std::make_shared<iok::Selection>(iok::Selection::whole({10})),
                   std::make_shared<iok::Selection>(iok::Selection::whole({5}))};
    p.nrecords = nrecords;
    p.flush_every = flush_every;
    return p;
}

// The message of the failure check_resources throws, or "" when it passes.
std::string refusal(const iok::ResourceNeeds& need, bool skip = false) {
    try {
        iok::check_resources(MPI_COMM_SELF, need, skip, "DIM_1");
    } catch (const iok::Error& e) {
        return std::string(e.what()) + " | " + e.hint();
    }
    return "";
}

}  // namespace

TEST(PlanSize, BufferFollowsTheFlushGrouping) {
    // fixed 5 x 4 bytes with the first call, 10 doubles per record
    EXPECT_EQ(iok::plan_buffer_bytes(small_plan(4, 2)), 20u + 2 * 80);
    EXPECT_EQ(iok::plan_buffer_bytes(small_plan(4, 0)), 20u + 4 * 80);  // one flush at the end
    EXPECT_EQ(iok::plan_buffer_bytes(small_plan(4, 2), 1), 20u + 80);   // the kernel's own call size
    EXPECT_EQ(iok::plan_buffer_bytes(small_plan(3, 9)), 20u + 3 * 80);  // never more records than exist
    EXPECT_EQ(iok::plan_file_bytes(small_plan(4, 2)), 20u + 4 * 80);
    EXPECT_EQ(iok::plan_file_bytes(small_plan(4, 2)), small_plan(4, 2).bytes());
}

TEST(PlanSize, AbsurdSizesSaturateInsteadOfWrapping) {
    EXPECT_EQ(iok::saturating_mul(1ull << 40, 1ull << 30), kMax);
    EXPECT_EQ(iok::saturating_mul(1ull << 20, 1ull << 30), 1ull << 50);
    EXPECT_EQ(iok::saturating_mul(0, kMax), 0u);
    EXPECT_EQ(iok::saturating_add(kMax - 1, 5), kMax);
    EXPECT_EQ(iok::saturating_add(2, 3), 5u);
    iok::FilePlan p = small_plan(1 << 30, 0);  // 2^30 records of 80 bytes: fine
    EXPECT_EQ(iok::plan_file_bytes(p), 20u + (80ull << 30));
    p.selection[0] = std::make_shared<iok::Selection>(iok::Selection::whole({1ull << 40}));
    EXPECT_EQ(iok::plan_file_bytes(p), kMax);  // 2^40 doubles x 2^30 records
}

TEST(ResourceCheck, RefusesMoreMemoryThanTheNodeHasWithTheFigures) {
    const std::uint64_t avail = iok::available_memory_bytes();
    ASSERT_GT(avail, 0u);
    ASSERT_LT(avail, kMax) << "no /proc/meminfo";
    iok::ResourceNeeds need;
    need.memory_bytes = avail + (avail / 2) + (1ull << 30);
    const std::string msg = refusal(need);
    EXPECT_NE(msg.find("of memory on this node"), std::string::npos) << msg;
    EXPECT_NE(msg.find("is available"), std::string::npos) << msg;
    EXPECT_NE(msg.find("reduce DIM_1"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--no-size-check"), std::string::npos) << msg;
    EXPECT_EQ(refusal(need, true), "");   // the flag
    setenv("IOK_NO_SIZE_CHECK", "1", 1);  // and the environment
    EXPECT_EQ(refusal(need), "");
    unsetenv("IOK_NO_SIZE_CHECK");
    need.memory_bytes = kMax;  // an overflowing estimate says so
    EXPECT_NE(refusal(need).find("overflows"), std::string::npos) << refusal(need);
    need.memory_bytes = 1 << 20;  // 1 MiB fits
    EXPECT_EQ(refusal(need), "");
}

TEST(ResourceCheck, RefusesMoreBytesThanTheFileSystemHasFree) {
    const std::string dir = iok_test::scratch_dir();
    const std::uint64_t free_b = iok::free_bytes_for(dir + "/out.nc");
    ASSERT_GT(free_b, 0u);
    ASSERT_LT(free_b, kMax);
    iok::ResourceNeeds need;
    need.output_path = dir + "/out.nc";
    need.file_bytes = free_b + (1ull << 40);
    const std::string msg = refusal(need);
    EXPECT_NE(msg.find("the file system holding " + dir + "/out.nc has only"), std::string::npos) << msg;
    EXPECT_NE(msg.find("free"), std::string::npos) << msg;
    need.replaced_bytes = 2ull << 40;  // replacing a file that big frees enough
    EXPECT_EQ(refusal(need), "");
    need.replaced_bytes = 0;
    need.output_path.clear();  // a read writes nothing
    EXPECT_EQ(refusal(need), "");
    need.output_path = dir + "/out.nc";
    need.file_bytes = 4096;
    EXPECT_EQ(refusal(need), "");
}
