// The classic-format reader/writer: round trips in all three versions, all
// types, record variables, and clear errors on truncated or foreign files.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "formats/cdf_classic.hpp"
#include "scratch_dir.hpp"

using namespace iok::cdf;
namespace fs = std::filesystem;

namespace {

// In the test's scratch directory, removed when the test ends.
std::string tmp_path(const std::string& name) { return iok_test::scratch_path(name); }

// A file with fixed and record variables of every classic type.
void write_sample(const std::string& path, int version) {
    Writer w(version);
    int t = w.def_dim("time", 0);
    int x = w.def_dim("x", 3);
    int c = w.def_dim("chars", 5);
    w.put_att(-1, Attr::Text("title", "sample"));
    w.put_att(-1, Attr::Ints("dims", NcType::Int, {72, 866}));
    int vi = w.def_var("ints", NcType::Int, {x});
    w.put_att(vi, Attr::Reals("scale", NcType::Float, {1e20}));
    w.put_ints(vi, {-1, 2, 2147483647});
    int vd = w.def_var("reals", NcType::Double, {t, x});
    w.put_reals(vd, {0.5, 1.5, 2.5, 3.5, 4.5, 5.5});
    int vs = w.def_var("shorts", NcType::Short, {x});
    w.put_ints(vs, {-7, 0, 32767});
    int vb = w.def_var("bytes", NcType::Byte, {t});
    w.put_ints(vb, {-3, 4});
    int vc = w.def_var("text", NcType::Char, {t, c});
    w.put_text(vc, std::string("helloworld"));
    int vf = w.def_var("floats", NcType::Float, {x});
    w.put_reals(vf, {0.25, -1e20, 3});
    if (version == 5) {
        int v64 = w.def_var("big", NcType::Int64, {x});
        w.put_ints(v64, {-5, 1LL << 40, 9});
        // unsigned types: zero- not sign-extended (the bulk decoder's widening)
        int vus = w.def_var("ushorts", NcType::UShort, {x});
        w.put_ints(vus, {65535, 0, 1});
        int vui = w.def_var("uints", NcType::UInt, {x});
        w.put_ints(vui, {4294967295LL, 2147483648LL, 7});
    }
    w.write(path);
}

}  // namespace

class CdfRoundTrip : public ::testing::TestWithParam<int> {};

TEST_P(CdfRoundTrip, AllTypesAndRecords) {
    const int version = GetParam();
    const std::string p = tmp_path("rt" + std::to_string(version) + ".nc");
    write_sample(p, version);
    Reader r(p);
    const Header& h = r.header();
    EXPECT_EQ(h.version, version);
    EXPECT_EQ(h.numrecs, 2u);
    ASSERT_EQ(h.dims.size(), 3u);
    EXPECT_TRUE(h.dims[0].is_record());
    EXPECT_EQ(h.find_gatt("title")->text, "sample");
    EXPECT_EQ(h.find_gatt("dims")->as_ints(), (std::vector<std::int64_t>{72, 866}));
    EXPECT_FLOAT_EQ(static_cast<float>(h.vars[h.find_var("ints")].find_attr("scale")->reals[0]), 1e20f);
    EXPECT_EQ(r.read_ints("ints"), (std::vector<std::int64_t>{-1, 2, 2147483647}));
    EXPECT_EQ(r.read_reals("reals"), (std::vector<double>{0.5, 1.5, 2.5, 3.5, 4.5, 5.5}));
    EXPECT_EQ(r.read_ints("shorts"), (std::vector<std::int64_t>{-7, 0, 32767}));
    EXPECT_EQ(r.read_ints("bytes"), (std::vector<std::int64_t>{-3, 4}));
    EXPECT_EQ(r.read_text("text"), "helloworld");
    EXPECT_EQ(r.read_reals("floats"), (std::vector<double>{0.25, static_cast<double>(-1e20f), 3}));
    if (version == 5) {
        EXPECT_EQ(r.read_ints("big"), (std::vector<std::int64_t>{-5, 1LL << 40, 9}));
        EXPECT_EQ(r.read_ints("ushorts"), (std::vector<std::int64_t>{65535, 0, 1}));
        EXPECT_EQ(r.read_ints("uints"), (std::vector<std::int64_t>{4294967295LL, 2147483648LL, 7}));
        EXPECT_EQ(r.read_ints("big", 1, 2), (std::vector<std::int64_t>{1LL << 40, 9}));
        EXPECT_EQ(r.read_ints("uints", 0, 2), (std::vector<std::int64_t>{4294967295LL, 2147483648LL}));
    }
    // slices of each width: one read, the same values as the whole array cut
    EXPECT_EQ(r.read_ints("ints", 1, 2), (std::vector<std::int64_t>{2, 2147483647}));
    EXPECT_EQ(r.read_ints("shorts", 0, 1), (std::vector<std::int64_t>{-7}));
    EXPECT_EQ(r.read_ints("bytes", 1, 1), (std::vector<std::int64_t>{4}));
    // The file ends exactly after the last record.
    EXPECT_EQ(r.file_size(), h.vars[h.find_var("reals")].begin + 2 * h.record_size());
}

INSTANTIATE_TEST_SUITE_P(Versions, CdfRoundTrip, ::testing::Values(1, 2, 5));

TEST(CdfClassic, LoneRecordVariableIsNotPadded) {
    const std::string p = tmp_path("lone.nc");
    Writer w(1);
    int t = w.def_dim("t", 0);
    int v = w.def_var("c", NcType::Char, {t});
    w.put_text(v, "abcde");
    w.write(p);
    Reader r(p);
    EXPECT_EQ(r.header().record_size(), 1u);
    EXPECT_EQ(r.header().numrecs, 5u);
    EXPECT_EQ(r.read_text("c"), "abcde");
    EXPECT_EQ(r.file_size(), r.header().header_size + 5);
}

TEST(CdfClassic, TruncatedVariableNamesVariableAndSizes) {
    const std::string p = tmp_path("trunc.nc");
    write_sample(p, 5);
    const auto full = fs::file_size(p);
    fs::resize_file(p, full - 20);
    Reader r(p);  // the header is intact
    try {
        r.read_text("text");  // the last record lost its tail
        FAIL() << "expected iok::Error";
    } catch (const iok::Error& e) {
        std::string m = e.what();
        EXPECT_NE(m.find(p + ": truncated: variable text needs 5 bytes at offset"), std::string::npos) << m;
        EXPECT_NE(m.find("but the file has " + std::to_string(full - 20)), std::string::npos) << m;
    }
}

TEST(CdfClassic, TruncatedHeaderAndForeignFilesAreErrors) {
    const std::string p = tmp_path("hdr.nc");
    write_sample(p, 2);
    fs::resize_file(p, 40);
    EXPECT_THROW({ Reader r(p); }, iok::Error);
    try {
        Reader r(p);
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    }
    { std::ofstream(p, std::ios::trunc) << "\x89HDF\r\n\x1a\n and more"; }
    try {
        Reader r(p);
        FAIL();
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("not a NetCDF classic file"), std::string::npos);
    }
    EXPECT_THROW({ Reader r(p + ".missing"); }, iok::Error);
}

TEST(CdfClassic, CorruptCountsDoNotAllocate) {
    // A header claiming 2^40 dimensions must fail cleanly, not allocate.
    const std::string p = tmp_path("corrupt.nc");
    {
        std::ofstream o(p, std::ios::binary);
        const unsigned char b[] = {'C', 'D', 'F', 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0A, 0, 0, 1, 0, 0, 0, 0, 0};
        o.write(reinterpret_cast<const char*>(b), sizeof b);
    }
    EXPECT_THROW({ Reader r(p); }, iok::Error);
}

TEST(CdfClassic, WriterRejectsWhatTheFormatCannotHold) {
    Writer w(1);
    int x = w.def_dim("x", 2);
    EXPECT_THROW(w.def_var("v", NcType::Int64, {x}), iok::Error);
    EXPECT_THROW(w.def_dim("x", 3), iok::Error);
    w.def_dim("t", 0);
    EXPECT_THROW(w.def_dim("t2", 0), iok::Error);
}
