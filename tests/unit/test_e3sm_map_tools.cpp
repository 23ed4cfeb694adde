// Map making: PIO .dat parsing (and its errors), .dat -> runs, the synthetic
// F map, and write/read round trips of the current map format.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "formats/map_synth.hpp"
#include "formats/map_writer.hpp"
#include "formats/pio_dat.hpp"
#include "kernels/e3sm/case_spec.hpp"
#include "scratch_dir.hpp"

using namespace iok;
using namespace iok::e3sm;

namespace {
// In the test's scratch directory, removed when the test ends.
std::string tmp_path(const std::string& name) { return iok_test::scratch_path(name); }
std::string write_text(const std::string& name, const std::string& text) {
    std::string p = tmp_path(name);
    std::ofstream(p) << text;
    return p;
}
std::string error_of_dat(const std::string& p) {
    try {
        read_pio_decomp_dat(p);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST(PioDat, ParsesAndIgnoresTrailingLines) {
    // dims 4 x 2 (Fortran: fastest 4); process 1 skips one entry.
    std::string p = write_text("ok.dat",
                               "version 2001 npes 2 ndims 2 \n4 2 \n0 4\n1 2 3 4 \n1 5\n5 0 6 7 8\n"
                               "Obtained 10 stack frames.\n/x/e3sm.exe() [0x13ff8e7]\n");
    PioDecompDat d = read_pio_decomp_dat(p);
    EXPECT_EQ(d.dims_c(), (std::vector<std::int64_t>{2, 4}));
    ASSERT_EQ(d.offsets.size(), 2u);
    Decomp x = decomp_from_pio(d, false);
    EXPECT_EQ(x.nreqs, (std::vector<std::int64_t>{1, 1}));
    EXPECT_EQ(x.offsets, (std::vector<std::int64_t>{0, 4}));
    EXPECT_EQ(x.lengths, (std::vector<std::int64_t>{4, 4}));
}

TEST(PioDat, RunsBreakAtRowStartsAndSortingMerges) {
    // Row length 3: offsets 2,3 (0-based) are consecutive but 3 starts a row.
    std::string p = write_text("rows.dat", "version 1 npes 1 ndims 2\n3 2\n0 4\n4 3 1 2\n");
    PioDecompDat d = read_pio_decomp_dat(p);
    Decomp unsorted = decomp_from_pio(d, false), sorted = decomp_from_pio(d, true);
    EXPECT_EQ(unsorted.nreqs[0], 3);  // {3},{2},{0,1}
    EXPECT_EQ(sorted.nreqs[0], 2);    // {0,1,2},{3}
    EXPECT_EQ(sorted.lengths, (std::vector<std::int64_t>{3, 1}));
}

TEST(PioDat, ErrorsNameFileAndLine) {
    std::string p = write_text("bad1.dat", "version 1 npes 2 ndims 1\n4\n0 2\n1 2\n");
    EXPECT_NE(error_of_dat(p).find(p + ":5: unexpected end of file while reading a process rank"), std::string::npos)
        << error_of_dat(p);
    p = write_text("bad2.dat", "version 1 npes 1 ndims 1\n4\n0 2\n1 9\n");
    EXPECT_NE(error_of_dat(p).find("offset 9 is outside 1..4"), std::string::npos) << error_of_dat(p);
    p = write_text("bad3.dat", "hello\n");
    EXPECT_NE(error_of_dat(p).find("expected 'version'"), std::string::npos) << error_of_dat(p);
    p = write_text("bad4.dat", "version 1 npes 1 ndims 1\n4\n0 2\n1 x\n");
    EXPECT_NE(error_of_dat(p).find(":4: expected an offset, found 'x'"), std::string::npos) << error_of_dat(p);
}

TEST(SyntheticMap, ValidFullyCoveredAndRoundTrips) {
    SynthFMapOptions o;
    o.ncol = 103;
    o.nlev = 4;
    o.nprocs = 7;
    std::vector<RawOffsets> raw;
    DecompMap m = synthetic_f_map(o, &raw);
    ASSERT_EQ(m.decomps.size(), 3u);
    for (const auto& d : m.decomps) EXPECT_TRUE(fully_covered(d)) << d.name;
    EXPECT_EQ(m.decomps[2].dims, (std::vector<std::int64_t>{4, 103}));
    EXPECT_EQ(m.decomps[1].offsets.size(), 103u);  // interleaved: every run has length 1
    const std::string p = tmp_path("synth.nc");
    write_decomp_map(p, m, {});
    DecompMap back = read_decomp_map(p);
    for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(back.decomps[k].offsets, m.decomps[k].offsets);
        EXPECT_EQ(back.decomps[k].lengths, m.decomps[k].lengths);
        EXPECT_EQ(back.decomps[k].fill_starts, m.decomps[k].nreqs);
    }
    FileSpec f = case_file("f_h0", back);
    EXPECT_EQ(f.dims[f.find_dim("ncol")].length, 103u);
    EXPECT_EQ(f.dims[f.find_dim("ilev")].length, 5u);
    // Same seed, same map; another seed, another map.
    EXPECT_EQ(synthetic_f_map(o).decomps[1].offsets, m.decomps[1].offsets);
    o.seed = 2;
    EXPECT_NE(synthetic_f_map(o).decomps[1].offsets, m.decomps[1].offsets);
}

TEST(SyntheticMap, MoreProcessesThanElementsLeavesSomeEmpty) {
    SynthFMapOptions o;
    o.ncol = 8;
    o.nlev = 2;
    o.nprocs = 5;  // 2 elements of 4 columns
    DecompMap m = synthetic_f_map(o);
    EXPECT_EQ(m.decomps[0].nreqs[4], 0);
    EXPECT_TRUE(fully_covered(m.decomps[2]));
}
