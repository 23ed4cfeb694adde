// VPIC/BDCATS configuration: h5bench KEY=VALUE parsing, units with and
// without a space, rejected keys and values, pattern combination checks.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "kernels/vpic/vpic_config.hpp"

using namespace iok::vpic;

TEST(VpicConfig, CountsWithUnits) {
    EXPECT_EQ(parse_count("16M", "DIM_1"), 16u << 20);
    EXPECT_EQ(parse_count("16 M", "DIM_1"), 16u << 20);
    EXPECT_EQ(parse_count("4K", "DIM_1"), 4096u);
    EXPECT_EQ(parse_count("1 G", "DIM_1"), 1u << 30);
    EXPECT_EQ(parse_count("1000", "DIM_1"), 1000u);
    EXPECT_THROW(parse_count("16X", "DIM_1"), iok::Error);
    EXPECT_THROW(parse_count("abc", "DIM_1"), iok::Error);
    EXPECT_THROW(parse_count("", "DIM_1"), iok::Error);
}

TEST(VpicConfig, DurationsNeedAUnit) {
    EXPECT_DOUBLE_EQ(parse_duration("10 s", "T"), 10.0);
    EXPECT_DOUBLE_EQ(parse_duration("100 ms", "T"), 0.1);
    EXPECT_DOUBLE_EQ(parse_duration("5000us", "T"), 0.005);
    EXPECT_DOUBLE_EQ(parse_duration("1 min", "T"), 60.0);
    EXPECT_DOUBLE_EQ(parse_duration("0", "T"), 0.0);
    EXPECT_DOUBLE_EQ(parse_duration("1.5s", "T"), 1.5);
    // The reference read "5000" as seconds without complaint.
    EXPECT_THROW(parse_duration("5000", "T"), iok::Error);
    EXPECT_THROW(parse_duration("5 parsecs", "T"), iok::Error);
}

TEST(VpicConfig, ReferenceFileForm) {
    Config c;
    c.load_text(
        "# h5bench sample\n"
        "MEM_PATTERN=CONTIG\nFILE_PATTERN=INTERLEAVED\nTIMESTEPS=5\n"
        "EMULATED_COMPUTE_TIME_PER_TIMESTEP=1 s\n NUM_DIMS = 2 \nDIM_1=4M\nDIM_2=8\nDIM_3=1\n"
        "COLLECTIVE_DATA=YES\nCOLLECTIVE_METADATA=NO\nMODE=SYNC\nDELAYED_CLOSE_TIMESTEPS=2\n"
        "CSV_FILE=out.csv\n\n",
        "cfg");
    EXPECT_EQ(c.mem, MemPattern::Contig);
    EXPECT_EQ(c.file, FilePattern::Interleaved);
    EXPECT_EQ(c.timesteps, 5);
    EXPECT_DOUBLE_EQ(c.compute_seconds, 1.0);
    EXPECT_EQ(c.num_dims, 2);
    EXPECT_EQ(c.dim[0], 4u << 20);
    EXPECT_EQ(c.dim[1], 8u);
    EXPECT_TRUE(c.collective_data);
    EXPECT_FALSE(c.collective_metadata);
    EXPECT_EQ(c.csv_file, "out.csv");
    EXPECT_EQ(c.particles_per_rank(), 32u << 20);
    EXPECT_NO_THROW(c.validate_write());
}

TEST(VpicConfig, ErrorsNameTheKeyAndLine) {
    Config c;
    try {
        c.load_text("TIMESTEPS=2\nNOT_A_KEY=1\n", "my.cfg");
        FAIL() << "unknown key accepted";
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("my.cfg line 2"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("NOT_A_KEY"), std::string::npos);
    }
    EXPECT_THROW(c.load_text("DIM_1\n", "x"), iok::Error);  // not KEY=VALUE
    EXPECT_THROW(c.set("MEM_PATTERN", "DIAGONAL"), iok::Error);
    EXPECT_THROW(c.set("NUM_DIMS", "4"), iok::Error);
    EXPECT_THROW(c.set("DIM_1", "0"), iok::Error);
    EXPECT_THROW(c.set("COLLECTIVE_DATA", "maybe"), iok::Error);
    EXPECT_THROW(c.set("EMULATED_COMPUTE_TIME_PER_TIMESTEP", "10"), iok::Error);
    EXPECT_THROW(c.set("COMPRESS_LEVEL", "10"), iok::Error);
}

TEST(VpicConfig, WriteCombinations) {
    auto check = [](MemPattern m, FilePattern f, int dims, bool ok) {
        Config c;
        c.mem = m;
        c.file = f;
        c.num_dims = dims;
        if (f == FilePattern::Strided) {
            c.dim[0] = 128;
            c.block_size = 16;
            c.block_cnt = 4;
            c.stride = 32;
        }
        if (ok)
            EXPECT_NO_THROW(c.validate_write()) << name(m) << "/" << name(f) << " " << dims;
        else
            EXPECT_THROW(c.validate_write(), iok::Error) << name(m) << "/" << name(f) << " " << dims;
    };
    using M = MemPattern;
    using F = FilePattern;
    for (int d = 1; d <= 3; ++d) check(M::Contig, F::Contig, d, true);
    for (int d = 1; d <= 3; ++d) {
        check(M::Contig, F::Interleaved, d, d <= 2);
        check(M::Interleaved, F::Contig, d, d <= 2);
        check(M::Interleaved, F::Interleaved, d, d <= 2);
        check(M::Contig, F::Strided, d, d == 1);
        check(M::Strided, F::Contig, d, false);
        check(M::Interleaved, F::Strided, d, false);
    }
    Config c;
    c.num_dims = 1;
    c.dim[1] = 4;  // unused dimension must be 1
    EXPECT_THROW(c.validate_write(), iok::Error);
    Config s;
    s.file = FilePattern::Strided;
    s.dim[0] = 64;
    s.block_size = 16;
    s.block_cnt = 3;  // blocks at 0, 32, 64: the last ends at 80 > 64
    s.stride = 32;
    EXPECT_THROW(s.validate_write(), iok::Error);
    s.block_cnt = 2;  // ends at 48
    EXPECT_NO_THROW(s.validate_write());
    s.block_cnt = 4;
    s.stride = 8;  // overlapping blocks
    EXPECT_THROW(s.validate_write(), iok::Error);
    // h5bench's sample_write_strided.cfg: 1 Mi blocks of 2 every 2 in DIM_1 = 8 Mi
    s.dim[0] = 8388608;
    s.block_size = 2;
    s.stride = 2;
    s.block_cnt = 1048576;
    EXPECT_NO_THROW(s.validate_write());
    Config z;
    z.compress = true;  // no chunk dims: h5bench's default, one-element chunks
    EXPECT_NO_THROW(z.validate_write());
    EXPECT_EQ(z.chunk_length(0), 1u);
    EXPECT_EQ(z.deflate_level, 9);  // h5bench's H5Pset_deflate(9)
    z.chunk[0] = 1024;
    EXPECT_EQ(z.chunk_length(0), 1024u);
    EXPECT_NO_THROW(z.validate_write());
}

TEST(VpicConfig, ReadCombinations) {
    Config c;
    c.read = ReadOption::Ldc;
    c.num_dims = 1;
    EXPECT_THROW(c.validate_read(), iok::Error);  // 2-D pattern on a 1-D file
    c.num_dims = 2;
    EXPECT_NO_THROW(c.validate_read());
    c.read = ReadOption::Partial;
    EXPECT_THROW(c.validate_read(), iok::Error);  // PARTIAL is 1-D
    c.num_dims = 1;
    EXPECT_NO_THROW(c.validate_read());  // no TO_READ_NUM_PARTICLES: h5bench reads the whole part
    c.to_read = 10;
    EXPECT_NO_THROW(c.validate_read());
    c.file = FilePattern::Strided;
    EXPECT_THROW(c.validate_read(), iok::Error);  // gaps: only STRIDED reads
    c.read = ReadOption::Strided;
    EXPECT_NO_THROW(c.validate_read());
}

TEST(VpicConfig, H5benchOlderKeysAndOperations) {
    Config c;
    c.set("NUM_PARTICLES", "1 M");  // older spelling: accepted, no effect on the geometry
    c.set("BLOCK_SIZE_3", "1");
    c.set("STRIDE_SIZE_3", "2");
    c.set("DIM_1", "4K");
    EXPECT_EQ(c.num_particles, 1048576u);
    EXPECT_EQ(c.particles_per_rank(), 4096u);
    EXPECT_EQ(c.stride_3, 2u);
    EXPECT_NO_THROW(c.validate_write());
    EXPECT_THROW(c.set("NUM_PARTICLES", "0"), iok::Error);
    c.set("IO_OPERATION", "READ");
    EXPECT_THROW(c.validate_write(), iok::Error);  // that is bdcats
    EXPECT_NO_THROW(c.validate_read());
    c.set("IO_OPERATION", "OVERWRITE");
    EXPECT_NO_THROW(c.validate_write());          // the file is opened for update
    EXPECT_THROW(c.validate_read(), iok::Error);  // that is vpic
    c.set("IO_OPERATION", "APPEND");
    EXPECT_THROW(c.validate_write(), iok::Error);  // appends along the unlimited dimension only
    c.set("UNLIMITED", "YES");
    EXPECT_NO_THROW(c.validate_write());
    c.set("UNLIMITED", "NO");
    EXPECT_THROW(c.set("IO_OPERATION", "DELETE"), iok::Error);
    c.set("IO_OPERATION", "WRITE");
    c.set("UNLIMITED", "YES");
    EXPECT_TRUE(c.unlimited);
    EXPECT_NO_THROW(c.validate_write());
    EXPECT_THROW(c.set("UNLIMITED", "maybe"), iok::Error);
}
