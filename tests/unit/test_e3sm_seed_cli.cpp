// E3SM-IO's command line: -a hdf5_ra / hdf5_log rewritten into library +
// strategy, -c chunk shapes by E3SM-IO's rule, -z filter names.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "kernels/e3sm/e3sm_seed_cli.hpp"
#include "kernels/e3sm/e3sm_storage.hpp"

using namespace iok::e3sm;

namespace {

std::vector<std::string> rewrite(std::vector<std::string> args) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    SeedCommandLine s(static_cast<int>(argv.size()), argv.data());
    if (!s.error().empty()) throw iok::Error(s.error(), s.hint());
    return std::vector<std::string>(s.argv(), s.argv() + s.argc());
}

}  // namespace

TEST(E3smSeedCli, HdfRaIsHdf5WithTheRearranger) {
    EXPECT_EQ(rewrite({"e3sm", "-a", "hdf5_ra", "-o", "o.h5", "m.nc"}),
              (std::vector<std::string>{"e3sm", "-x", "rearrange", "-a", "hdf5", "-o", "o.h5", "m.nc"}));
    // E3SM-IO's pairing hdf5_ra + canonical; inline spellings
    EXPECT_EQ(rewrite({"e3sm", "-ahdf5_ra", "-x", "canonical", "m.nc"}),
              (std::vector<std::string>{"e3sm", "-ahdf5", "-x", "rearrange", "m.nc"}));
    EXPECT_EQ(rewrite({"e3sm", "--api=hdf5_ra", "--strategy=canonical", "m.nc"}),
              (std::vector<std::string>{"e3sm", "--api=hdf5", "--strategy=rearrange", "m.nc"}));
    EXPECT_THROW(rewrite({"e3sm", "-a", "hdf5_ra", "-x", "blob", "m.nc"}), iok::Error);
}

TEST(E3smSeedCli, HdfLogIsTheLogStrategy) {
    EXPECT_EQ(rewrite({"e3sm", "-a", "hdf5_log", "-x", "log", "m.nc"}),
              (std::vector<std::string>{"e3sm", "-a", "hdf5", "-x", "log", "m.nc"}));
    EXPECT_EQ(rewrite({"e3sm", "-k", "-a", "hdf5_log", "m.nc"}),
              (std::vector<std::string>{"e3sm", "-x", "log", "-k", "-a", "hdf5", "m.nc"}));
    try {
        rewrite({"e3sm", "-a", "hdf5_log", "-x", "canonical", "m.nc"});
        FAIL();
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("-a hdf5_log"), std::string::npos) << e.what();
    }
}

TEST(E3smSeedCli, OwnNamesUntouched) {
    for (const char* a : {"pnetcdf", "hdf5", "hdf5_md", "netcdf4", "adios"})
        EXPECT_EQ(rewrite({"e3sm", "-a", a, "-x", "blob", "m.nc"}),
                  (std::vector<std::string>{"e3sm", "-a", a, "-x", "blob", "m.nc"}));
    EXPECT_EQ(option_value({"e3sm", "-a", "x", "--api=y"}, "-a", "--api"), "y");  // the last one wins
}

TEST(E3smSeedCli, EnvironmentNotes) {
    ::unsetenv("E3SM_IO_HDF5_MERGE_VARN");
    ::unsetenv("E3SM_IO_HDF5_USE_LOGVOL_WRITEN");
    ::unsetenv("H5VL_LOG_PASSTHRU");
    EXPECT_TRUE(seed_environment_notes().empty());
    ::setenv("E3SM_IO_HDF5_MERGE_VARN", "0", 1);
    auto n = seed_environment_notes();
    ASSERT_EQ(n.size(), 1u);
    EXPECT_NE(n[0].find("without effect"), std::string::npos);
    ::setenv("E3SM_IO_HDF5_MERGE_VARN", "1", 1);
    ::setenv("E3SM_IO_HDF5_USE_LOGVOL_WRITEN", "1", 1);
    EXPECT_EQ(seed_environment_notes().size(), 2u);
    ::unsetenv("E3SM_IO_HDF5_MERGE_VARN");
    ::unsetenv("E3SM_IO_HDF5_USE_LOGVOL_WRITEN");
}

TEST(E3smStorage, ChunkShapeIsE3smIosRule) {
    // 72 levels x 866 columns of doubles: 866*8 = 6928 B per level
    EXPECT_EQ(chunk_shape({72, 866}, 8, 4096), (std::vector<std::uint64_t>{1, 866}));   // 8 < 4096: take 866
    EXPECT_EQ(chunk_shape({72, 866}, 8, 8), (std::vector<std::uint64_t>{1, 1}));        // 8 is not < 8
    EXPECT_EQ(chunk_shape({72, 866}, 8, 7000), (std::vector<std::uint64_t>{72, 866}));  // 6928 < 7000: both
    EXPECT_EQ(chunk_shape({72, 866}, 8, 1 << 30), (std::vector<std::uint64_t>{72, 866}));
    EXPECT_EQ(chunk_shape({10, 20, 30}, 4, 100), (std::vector<std::uint64_t>{1, 1, 30}));
}

TEST(E3smStorage, FilterNames) {
    EXPECT_EQ(filter_level(""), 0);
    EXPECT_EQ(filter_level("deflate"), 6);
    EXPECT_EQ(filter_level("zlib"), 6);
    EXPECT_THROW(filter_level("bzip2"), iok::Error);
    EXPECT_THROW(filter_level("DEFLATE"), iok::Error);  // E3SM-IO compares exactly
}

TEST(E3smStorage, AppliedToRecordAndFixedVariables) {
    iok::FileSpec f;
    f.dims = {{"time", 0, true}, {"lev", 4, false}, {"ncol", 100, false}};
    iok::VarSpec fixed, rec, scalar, time;
    fixed.name = "area";
    fixed.type = iok::DType::Double;
    fixed.dims = {2};
    rec.name = "T";
    rec.type = iok::DType::Float;
    rec.dims = {0, 1, 2};
    time.name = "time";
    time.dims = {0};
    scalar.name = "ne";
    scalar.type = iok::DType::Int;
    f.vars = {fixed, rec, scalar, time};
    std::vector<iok::FileSpec> files{f};
    apply_storage(files, 0, "zlib");  // -z alone: record variables compressed, fixed ones contiguous
    const auto& v = files[0].vars;
    EXPECT_TRUE(v[0].storage.chunk.empty());
    EXPECT_EQ(v[0].storage.deflate, 0);
    EXPECT_TRUE(v[1].storage.chunk.empty());
    EXPECT_EQ(v[1].storage.deflate, 6);
    EXPECT_EQ(v[2].storage.deflate, 0);
    EXPECT_EQ(v[3].storage.deflate, 6);
    files = {f};
    apply_storage(files, 256, "deflate");
    EXPECT_EQ(files[0].vars[0].storage.chunk, (std::vector<std::uint64_t>{100}));
    EXPECT_EQ(files[0].vars[0].storage.deflate, 6);
    EXPECT_EQ(files[0].vars[1].storage.chunk, (std::vector<std::uint64_t>{1, 100}));  // 4*100 >= 256: lev 1
    EXPECT_TRUE(files[0].vars[2].storage.chunk.empty());
    files = {f};
    apply_storage(files, 256, "");  // -c alone: chunked, not compressed
    EXPECT_EQ(files[0].vars[1].storage.chunk, (std::vector<std::uint64_t>{1, 100}));
    EXPECT_EQ(files[0].vars[1].storage.deflate, 0);
}
