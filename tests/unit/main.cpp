// GoogleTest main with MPI initialised (single process) for code that needs a
// communicator; integration tests launch real multi-rank runs separately.
#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    MPI_Init(&argc, &argv);
    int rc = RUN_ALL_TESTS();
    MPI_Finalize();
    return rc;
}
