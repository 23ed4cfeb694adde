// check_mpi (core/mpi_layer.hpp), the one check of an MPI return code: silent
// on success; otherwise one iok::Error naming the action, MPI's own text and
// the call, with the hint the error class calls for.  Real MPI error codes
// (error classes are valid codes) and a real failed MPI_File_open.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>

#include "core/error.hpp"
#include "core/mpi_layer.hpp"
#include "scratch_dir.hpp"

namespace {

// The Error check_mpi throws for `rc` (fails the test if it throws none).
iok::Error thrown(int rc, const std::string& hint = {}) {
    try {
        iok::check_mpi(rc, "MPI_File_write_at_all", "write /some/file", hint);
    } catch (const iok::Error& e) {
        return e;
    }
    ADD_FAILURE() << "no error for code " << rc;
    return iok::Error("");
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(MpiCheck, SuccessIsSilent) { EXPECT_NO_THROW(iok::check_mpi(MPI_SUCCESS, "MPI_File_open", "open x")); }

TEST(MpiCheck, NamesTheActionMpisTextAndTheCall) {
    const iok::Error e = thrown(MPI_ERR_IO, "look at the disk");
    const std::string what = e.what();
    EXPECT_TRUE(has(what, "cannot write /some/file: ")) << what;
    EXPECT_TRUE(has(what, iok::mpi_error_text(MPI_ERR_IO))) << what;
    EXPECT_TRUE(has(what, "(MPI_File_write_at_all)")) << what;
    EXPECT_EQ(e.hint(), "look at the disk");
    EXPECT_EQ(e.exit_code(), 1);
}

TEST(MpiCheck, TheErrorClassChoosesTheHint) {
    EXPECT_EQ(thrown(MPI_ERR_NO_SPACE, "general").hint(), "free space or write to another file system");
    EXPECT_EQ(thrown(MPI_ERR_QUOTA).hint(), "free space or write to another file system");
    EXPECT_EQ(thrown(MPI_ERR_ACCESS, "general").hint(), "check the permissions of the file and its directory");
    EXPECT_EQ(thrown(MPI_ERR_FILE_EXISTS).hint(), "remove the file or allow overwriting");
    // A missing file: the caller knows best where to look, else a general hint.
    EXPECT_EQ(thrown(MPI_ERR_NO_SUCH_FILE, "was it written?").hint(), "was it written?");
    EXPECT_EQ(thrown(MPI_ERR_NO_SUCH_FILE).hint(), "check the path and that its directory exists");
    EXPECT_EQ(thrown(MPI_ERR_OTHER).hint(), "");
}

TEST(MpiCheck, AFailedOpenOfAMissingDirectory) {
    const std::string path = iok_test::scratch_dir(MPI_COMM_SELF) + "/no-such-dir/x.bin";
    MPI_File fh = MPI_FILE_NULL;
    const int rc = MPI_File_open(MPI_COMM_SELF, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    ASSERT_NE(rc, MPI_SUCCESS);
    try {
        iok::check_mpi(rc, "MPI_File_open", "create " + path);
        FAIL() << "no error";
    } catch (const iok::Error& e) {
        EXPECT_TRUE(has(e.what(), "cannot create " + path + ": ")) << e.what();
        EXPECT_TRUE(has(e.what(), "(MPI_File_open)")) << e.what();
    }
}

}  // namespace

// init_mpi takes Open MPI's shared-memory transport out of a singleton's
// OMPI_MCA_btl (Open MPI 5 leaves a singleton's segment in /dev/shm).
TEST(BtlWithoutSm, InclusionListsLoseItExclusionListsGainIt) {
    EXPECT_EQ(iok::btl_without_sm(""), "^sm");
    EXPECT_EQ(iok::btl_without_sm("self,sm"), "self");
    EXPECT_EQ(iok::btl_without_sm("sm,self"), "self");
    EXPECT_EQ(iok::btl_without_sm("sm"), "self");
    EXPECT_EQ(iok::btl_without_sm("self,vader,tcp"), "self,tcp");
    EXPECT_EQ(iok::btl_without_sm("self,tcp"), "self,tcp");
    EXPECT_EQ(iok::btl_without_sm("^tcp"), "^tcp,sm");
    EXPECT_EQ(iok::btl_without_sm("^sm"), "^sm");
    EXPECT_EQ(iok::btl_without_sm("^tcp,vader"), "^tcp,vader");
}
