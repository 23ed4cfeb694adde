// Inputs that crashed a parser under bench/fuzz.sh (libFuzzer + ASan/UBSan),
// kept as regressions: each must now be read or refused with iok::Error,
// with no undefined behaviour (the sanitizer build of these tests,
// build-asan, fails on any).  One test per finding, named after the harness.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <string>

#include "backends/strategy_blob_layout.hpp"
#include "backends/strategy_log_layout.hpp"
#include "core/error.hpp"
#include "formats/cdf_classic.hpp"
#include "kernels/replay/trace.hpp"
#include "kernels/vpic/vpic_config.hpp"
#include "scratch_dir.hpp"

namespace {

std::string write_bytes(const std::string& name, const std::string& bytes) {
    const std::string path = iok_test::scratch_path(name);
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

// Reads every variable in every form; returns how many reads were refused.
int read_everything(const std::string& path) {
    iok::cdf::Reader r(path);
    int refused = 0;
    for (const auto& v : r.header().vars) {
        try {
            r.read_ints(v.name);
        } catch (const iok::Error&) {
            ++refused;
        }
        try {
            r.read_reals(v.name);
        } catch (const iok::Error&) {
            ++refused;
        }
        try {
            r.read_text(v.name);
        } catch (const iok::Error&) {
            ++refused;
        }
    }
    return refused;
}

// fuzz_cdf_classic, finding 1: an mpi_io_test decomposition whose float
// variable holds 3.0e32; converting it to int64 was undefined behaviour
// (UBSan: "outside the range of representable values of type 'long'").
const std::string kCdfFloatOverflow(
    "\x43\x44\x46\x01\x00\x00\x00\x00\x00\x00\x00\x0a\x00\x00\x00\x06\x00\x00\x00\x09\x6e\x75\x6d\x5f\x70\x72\x6f\x63"
    "\x73\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x0a\x61\x72\x72\x61\x79\x5f\x73\x69\x7a\x65\x00\x00\x00\x00\x00\xc8"
    "\x00\x00\x00\x0a\x6e\x72\x65\x71\x5f\x30\x30\x30\x30\x30\x00\x00\x00\x00\x00\x0c\x00\x00\x00\x0a\x6e\x72\x65\x71"
    "\x5f\x30\x30\x30\x30\x31\x00\x00\x00\x00\x00\x0f\x00\x00\x00\x0a\x6e\x72\x65\x71\x5f\x30\x30\x30\x30\x32\x00\x00"
    "\x00\x00\x00\x0c\x00\x00\x00\x0a\x6e\x72\x65\x71\x5f\x30\x30\x30\x30\x33\x00\x00\x00\x00\x00\x11\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x0b\x00\x00\x00\x08\x00\x00\x00\x09\x6f\x66\x66\x5f\x30\x30\x30\x30\x30\x00\x00\x00"
    "\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x30\x5d\x00\x01\xf8"
    "\x00\x00\x00\x09\x6c\x65\x6e\x5f\x30\x30\x30\x30\x30\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x30\x00\x00\x02\x28\x00\x00\x00\x09\x6f\x66\x66\x5f\x30\x30\x30\x30"
    "\x31\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x3c"
    "\x00\x00\x02\x58\x00\x00\x00\x09\x6c\x65\x6e\x5f\x30\x30\x30\x30\x31\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x03"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x3c\x00\x00\x02\x94\x00\x00\x00\x09\x6f\x66\x66\x5f"
    "\x30\x30\x30\x30\x32\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04"
    "\x00\x00\x00\x30\xd0\x02\x00\x00\x00\x00\x00\x09\x6c\x65\x6e\x5f\x30\x30\x30\x30\x32\x00\x00\x00\x00\x00\x00\x01"
    "\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x30\x00\x00\x03\x00\x00\x00\x00\x09"
    "\x6f\x66\x66\x5f\x30\x30\x30\x30\x33\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x04\x00\x00\x00\x44\x00\x00\x03\x30\x00\x00\x00\x09\x6c\x65\x6e\x5f\x30\x30\x30\x30\x33\x00\x00\x00"
    "\x00\x00\x00\x01\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x44\x00\x00\x03\x74"
    "\x00\x00\x00\x00\x00\x00\x00\x0d\x00\x00\x00\x1c\x00\x00\x00\x27\x00\x00\x00\x32\x00\x00\x00\x49\x00\x00\x00\x50"
    "\x00\x00\x00\x6c\x00\x00\x00\x7f\x00\x00\x00\x9f\x00\x00\x00\xa6\x00\x00\x00\xc6\x00\x00\x00\x02\x00\x00\x00\x04"
    "\x00\x00\x00\x06\x00\x00\x00\x03\x00\x00\x00\x06\x00\x00\x00\x03\x00\x00\x00\x06\x00\x00\x00\x06\x00\x00\x00\x05"
    "\x00\x00\x00\x03\x00\x00\x00\x05\x00\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00\x12\x00\x00\x00\x18\x00\x00\x00\x22"
    "\x00\x00\x00\x2a\x00\x00\x00\x31\x00\x00\x00\x00\x00\x00\x0a\x00\x00\x00\x06\x00\x00\x00\x09\x6e\x75\x6d\x5f\x70"
    "\x72\x6f\x63\x73\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x0a\x61\x72\x72\x61\x79\x5f\x73\x69\x7a\x65\x00\x00\x00"
    "\x00\x00\xc8\x00\x00\x00\x0a\x6e\x72\x65\x71\x5f\x30\x30\x30\x30\x30\x00\x00\x00\x00\x00\x0c\x00\x00\x00\x0a\x6e"
    "\x72\x65\x71\x5f\x30\x30\x30\x30\x31\x00\x00\x00\x00\x00\x0f\x00\x00\x00\x0a\x6e\x72\x65\x71\x5f\x30\x30\x30\x30"
    "\x32\x00\x00\x00\x00\x00\x0c\x00\x00\x00\x0a\x6e\x72\x65\x71\x5f\x30\x30\x30\x30\x33\x00\x3d\x00\x00\x00\x43\x00"
    "\x00\x00\x47\x00\x00\x00\x58\x00\x00\x01\x00\x00\x00\x06\x00\x00\x00\x04\x00\x00\x00\x05\x00\x00\x00\x04\x00\x00"
    "\x00\x02\x00\x00\x00\x04\x00\x00\x00\x06\x00\x00\x00\x04",
    798);

}  // namespace

TEST(ParserRegressions, CdfClassicFloatOutsideInt64) {
    const std::string path = write_bytes("crash_float.nc", kCdfFloatOverflow);
    try {
        read_everything(path);
    } catch (const iok::Error&) {
        // refusing the whole file is fine too
    }
}

TEST(ParserRegressions, CdfClassicRealsBecomeClampedIntegers) {
    // the same conversion, asserted: out-of-range reals clamp, NaN is the lowest
    iok::cdf::Writer w(1);
    const int d = w.def_dim("n", 5);
    const int f = w.def_var("f", iok::cdf::NcType::Float, {d});
    const int g = w.def_var("g", iok::cdf::NcType::Double, {d});
    const double nan = std::nan("");
    w.put_reals(f, {3.0e32, -3.0e32, nan, 7.9, -2.5});
    w.put_reals(g, {1e300, -1e300, nan, 123456789012.0, 0.0});
    const std::string path = iok_test::scratch_path("reals.nc");
    w.write(path);
    iok::cdf::Reader r(path);
    const auto lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
    EXPECT_EQ(r.read_ints("f"), (std::vector<std::int64_t>{hi, lo, lo, 7, -2}));
    EXPECT_EQ(r.read_ints("g"), (std::vector<std::int64_t>{hi, lo, lo, 123456789012, 0}));
}

TEST(ParserRegressions, CdfClassicHugeRecordCountIsRefusedAtOnce) {
    // a CDF-5 header claiming 2^62 records of a one-int record variable: the
    // reader looped over every record to check its bounds (minutes)
    iok::cdf::Writer w(5);
    const int t = w.def_dim("t", 0);
    const int v = w.def_var("v", iok::cdf::NcType::Int, {t});
    w.put_ints(v, {1, 2, 3});
    const std::string path = iok_test::scratch_path("records.nc");
    w.write(path);
    std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(4);  // numrecs: 8 bytes big-endian after the magic in CDF-5
    const unsigned char n[8] = {0x40, 0, 0, 0, 0, 0, 0, 0};
    io.write(reinterpret_cast<const char*>(n), 8);
    io.close();
    iok::cdf::Reader r(path);
    EXPECT_EQ(r.header().numrecs, 1ull << 62);
    try {
        r.read_ints("v");
        FAIL() << "2^62 records of a 12-byte file were read";
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    }
}

TEST(ParserRegressions, H5benchCountBeyondTwoToThe63) {
    // fuzz_h5bench_config, finding 1: DIM_2 with 48 digits converted to
    // uint64 with undefined behaviour (UBSan: 3.25556e+47 outside the range)
    const std::string text = "\nDIM_1=64\nDIM_2=32" + std::string(46, '5') + "\nRE\n";
    iok::vpic::Config c;
    try {
        c.load_text(text, "crash.cfg");
        FAIL() << "a 48-digit DIM_2 was accepted";
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("is too large"), std::string::npos) << e.what();
    }
    EXPECT_EQ(iok::vpic::parse_count("8T", "DIM_1"), 8ull << 40);                      // large but fine
    EXPECT_THROW(iok::vpic::parse_count("9999999999999999999", "DIM_1"), iok::Error);  // 1e19
}

TEST(ParserRegressions, LogIndexCountProductOverflows) {
    // fuzz_log_index, finding 1: ndims * nblocks from a damaged index
    // overflowed int64 (UBSan: 562949953421312 * 1125899906842624).
    const std::vector<std::int64_t> v = {1, std::int64_t{1} << 49, std::int64_t{1} << 50, 0, 0};
    try {
        iok::log_parse(v, "damaged.idx");
        FAIL() << "an index with overflowing counts was accepted";
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("bad selection 0"), std::string::npos) << e.what();
    }
    EXPECT_EQ(iok::log_parse({0, 0}, "empty.idx").entries.size(), 0u);  // the smallest valid index
}

TEST(ParserRegressions, BlobSubfileDescriptionEmpty) {
    // fuzz_blob_index, finding 1: an empty description threw the JSON
    // library's parse_error, reported as an internal error.
    for (const std::string text : {"", "{", "[1,2]", "{\"sels\": 3}"}) {
        try {
            iok::blob_subfile_from_json(text);
            FAIL() << "accepted: '" << text << "'";
        } catch (const iok::Error& e) {
            EXPECT_NE(std::string(e.what()).find("damaged"), std::string::npos) << e.what();
            EXPECT_NE(e.hint().find("-x blob"), std::string::npos) << e.hint();
        }
    }
}

TEST(ParserRegressions, CaptureTraceValuesJsonCannotHold) {
    // fuzz_capture_trace, finding 1: a number beyond any double (4.3E4624 in
    // a real trace) made the JSON library throw out_of_range, and a string
    // where an optional field wants another type throws type_error: both
    // escaped as internal errors.
    for (const std::string text : {R"({"format":"iokernels-trace","version":1,"nranks":2,"ranks":[],"x":4.3E4624})",
                                   R"({"format":"iokernels-trace","version":1,"nranks":1,"program":5,"ranks":[]})"}) {
        try {
            iok::replay::parse_trace(text, "t.json");
            FAIL() << "accepted: " << text;
        } catch (const iok::Error& e) {
            EXPECT_NE(std::string(e.what()).find("trace t.json is damaged"), std::string::npos) << e.what();
            EXPECT_NE(e.hint().find("libiok_capture.so"), std::string::npos) << e.hint();
        }
    }
}
