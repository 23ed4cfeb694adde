// GoogleTest main with MPI initialised (single process) for code that needs a
// communicator; integration tests launch real multi-rank runs separately.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <string>

#include "core/mpi_layer.hpp"
#include "scratch_dir.hpp"

namespace {

// IOK_REQUIRE_ALL=1: a test that called GTEST_SKIP (a dataset in ../shared
// or a library missing) fails instead, naming the reason, so a run meant to
// cover everything cannot pass by skipping.  End events reach listeners in
// reverse order, so this one runs before the printer and the test is
// reported FAILED.
class SkipIsFailure : public testing::EmptyTestEventListener {
    void OnTestEnd(const testing::TestInfo& info) override {
        const testing::TestResult& r = *info.result();
        if (!r.Skipped()) return;
        std::string why;
        for (int i = 0; i < r.total_part_count(); ++i)
            if (r.GetTestPartResult(i).skipped()) why += r.GetTestPartResult(i).message();
        ADD_FAILURE() << "IOK_REQUIRE_ALL=1 forbids skipping: " << (why.empty() ? "GTEST_SKIP" : why);
    }
};

// Removes the test's scratch directory (scratch_dir.hpp) when it ends.
class ScratchCleanup : public testing::EmptyTestEventListener {
    void OnTestEnd(const testing::TestInfo&) override { iok_test::remove_scratch_dir(); }
};

bool require_all() {
    const char* v = std::getenv("IOK_REQUIRE_ALL");
    return v && *v && std::string(v) != "0";
}

}  // namespace

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    // Listing the tests (ctest's discovery at build time) needs no MPI.
    if (GTEST_FLAG_GET(list_tests)) return RUN_ALL_TESTS();
    iok::init_mpi(&argc, &argv);  // a singleton: no btl/sm segment left in /dev/shm
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    listeners.Append(new ScratchCleanup);
    if (require_all()) listeners.Append(new SkipIsFailure);
    int rc = RUN_ALL_TESTS();
    MPI_Finalize();
    return rc;
}
