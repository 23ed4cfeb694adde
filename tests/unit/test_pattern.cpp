#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "runner/pattern.hpp"

using namespace iok;

TEST(Pattern, SameElementSameValueAcrossSelections) {
    // the value depends on the global element, not on who writes it
    auto a = Selection::from_runs({4, 10}, {{12, 5}});
    auto b = Selection::from_runs({4, 10}, {{10, 10}});
    std::vector<double> va(5), vb(10);
    pattern_fill(DType::Double, va.data(), a, pattern_key("T"), 3);
    pattern_fill(DType::Double, vb.data(), b, pattern_key("T"), 3);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(va[i], vb[i + 2]);
}

TEST(Pattern, DependsOnVariableAndRecord) {
    auto s = Selection::whole({100});
    std::vector<float> x(100), y(100), z(100);
    pattern_fill(DType::Float, x.data(), s, pattern_key("U"), 0);
    pattern_fill(DType::Float, y.data(), s, pattern_key("V"), 0);
    pattern_fill(DType::Float, z.data(), s, pattern_key("U"), 1);
    int same_var = 0, same_rec = 0;
    for (int i = 0; i < 100; ++i) {
        same_var += x[i] == y[i];
        same_rec += x[i] == z[i];
    }
    EXPECT_LT(same_var, 3);
    EXPECT_LT(same_rec, 3);
}

TEST(Pattern, FloatAndDoubleHoldTheSameValue) {
    auto s = Selection::whole({1000});
    std::vector<float> f(1000);
    std::vector<double> d(1000);
    pattern_fill(DType::Float, f.data(), s, 7, 2);
    pattern_fill(DType::Double, d.data(), s, 7, 2);
    for (int i = 0; i < 1000; ++i) EXPECT_EQ(static_cast<double>(f[i]), d[i]);
}

TEST(Pattern, CheckPassesOnGoodData) {
    auto s = Selection::from_runs({3, 50}, {{60, 20}, {5, 10}});
    for (DType t : {DType::Char, DType::Short, DType::Int, DType::Int64, DType::Float, DType::Double}) {
        std::vector<unsigned char> buf(30 * 8);
        pattern_fill(t, buf.data(), s, 42, 1);
        EXPECT_FALSE(pattern_check(t, buf.data(), s, 42, 1).found) << dtype_name(t);
    }
}

TEST(Pattern, CheckNamesTheFlippedElement) {
    auto s = Selection::from_runs({3, 50}, {{60, 20}, {5, 10}});
    std::vector<double> buf(30);
    pattern_fill(DType::Double, buf.data(), s, 42, 1);
    buf[23] += 1.0;  // 4th element of the second run: global element 5 + 3
    auto m = pattern_check(DType::Double, buf.data(), s, 42, 1);
    ASSERT_TRUE(m.found);
    EXPECT_EQ(m.position, 23u);
    EXPECT_EQ(m.element, 8u);
}

TEST(Pattern, WrongRecordFails) {
    auto s = Selection::whole({64});
    std::vector<int> buf(64);
    pattern_fill(DType::Int, buf.data(), s, 1, 0);
    EXPECT_TRUE(pattern_check(DType::Int, buf.data(), s, 1, 1).found);
}

TEST(Pattern, ConstantCheck) {
    auto s = Selection::whole({8});
    std::vector<double> buf(8);
    fill_constant(DType::Double, buf.data(), 8, 1e20f);
    EXPECT_FALSE(constant_check(DType::Double, buf.data(), s, static_cast<double>(1e20f)).found);
    buf[5] = 0;
    auto m = constant_check(DType::Double, buf.data(), s, static_cast<double>(1e20f));
    ASSERT_TRUE(m.found);
    EXPECT_EQ(m.element, 5u);
}

// Short runs take an inline path, long ones the vectorised one: the values
// must not depend on which (every type, runs of 1..20 elements), and a
// flipped element of a short run must be found where it is.
TEST(Pattern, ShortAndLongRunsHoldTheSameValues) {
    std::vector<iok::Run> runs;
    std::int64_t off = 3;
    for (std::int64_t len = 1; len <= 20; ++len) {
        runs.push_back({off, len});
        off += len + 25;  // past 512 elements: runs in several hashed blocks, one across a boundary
    }
    auto pieces = Selection::from_runs({static_cast<std::uint64_t>(off)}, runs);
    auto whole = Selection::whole({static_cast<std::uint64_t>(off)});
    for (DType t : {DType::Char, DType::Byte, DType::Short, DType::Int, DType::Int64, DType::Float, DType::Double}) {
        const std::size_t w = dtype_size(t);
        std::vector<unsigned char> a(pieces.elements() * w), b(static_cast<std::size_t>(off) * w);
        pattern_fill(t, a.data(), pieces, 9, 4);
        pattern_fill(t, b.data(), whole, 9, 4);
        std::size_t pos = 0;
        for (const iok::Run& r : runs)
            for (std::int64_t i = 0; i < r.length; ++i, ++pos)
                ASSERT_EQ(0, std::memcmp(&a[pos * w], &b[static_cast<std::size_t>(r.offset + i) * w], w))
                    << dtype_name(t) << " element " << r.offset + i;
        EXPECT_FALSE(pattern_check(t, a.data(), pieces, 9, 4).found) << dtype_name(t);
        a[2 * w] ^= 1;  // 2nd run (length 2), its 2nd element: global element 3 + 1 + 25 + 1
        auto m = pattern_check(t, a.data(), pieces, 9, 4);
        ASSERT_TRUE(m.found) << dtype_name(t);
        EXPECT_EQ(m.position, 2u);
        EXPECT_EQ(m.element, 30u);
    }
}

// Short runs are generated a fixed 4 elements at a time, the values past a
// run overwritten by the next runs: never past the selection's own part of
// the buffer, when it ends with short runs.
TEST(Pattern, ShortRunsNeverWritePastTheirPart) {
    std::vector<iok::Run> runs;
    for (std::int64_t k = 0; k < 40; ++k) runs.push_back({k * 7, 1 + k % 3});
    auto sel = Selection::from_runs({400}, runs);
    for (DType t : {DType::Char, DType::Short, DType::Int, DType::Double}) {
        const std::size_t w = dtype_size(t), n = sel.elements() * w;
        std::vector<unsigned char> buf(n + 64, 0x5a);
        pattern_fill(t, buf.data(), sel, 3, 1);
        for (std::size_t i = n; i < buf.size(); ++i)
            ASSERT_EQ(buf[i], 0x5a) << dtype_name(t) << " byte " << i - n << " past";
        EXPECT_FALSE(pattern_check(t, buf.data(), sel, 3, 1).found) << dtype_name(t);
    }
}

// The runner packs slices of different types back to back, so a double may
// start at any byte: every function takes any alignment, writes the same
// bytes as at an aligned address, stays inside its part, and a flipped
// element is still found where it is (and a constant mismatch too).
TEST(Pattern, MisalignedBuffersHoldTheSameBytes) {
    auto sel = Selection::from_runs({3, 50}, {{60, 20}, {5, 10}, {100, 3}});
    for (DType t : {DType::Short, DType::Int, DType::Int64, DType::Float, DType::Double}) {
        const std::size_t w = dtype_size(t), n = sel.elements() * w;
        std::vector<unsigned char> aligned(n);
        pattern_fill(t, aligned.data(), sel, 11, 2);
        for (std::size_t shift = 1; shift < w; ++shift) {
            std::vector<unsigned char> raw(n + 16, 0x5a);
            unsigned char* p = raw.data() + shift;  // vector storage is 16-aligned: p is not w-aligned
            pattern_fill(t, p, sel, 11, 2);
            ASSERT_EQ(0, std::memcmp(p, aligned.data(), n)) << dtype_name(t) << " shift " << shift;
            for (std::size_t i = 0; i < shift; ++i) ASSERT_EQ(raw[i], 0x5a);
            for (std::size_t i = shift + n; i < raw.size(); ++i) ASSERT_EQ(raw[i], 0x5a);
            EXPECT_FALSE(pattern_check(t, p, sel, 11, 2).found) << dtype_name(t) << " shift " << shift;
            p[7 * w] ^= 1;
            auto m = pattern_check(t, p, sel, 11, 2);
            ASSERT_TRUE(m.found) << dtype_name(t) << " shift " << shift;
            EXPECT_EQ(m.position, 7u);
            EXPECT_EQ(m.element, 67u);

            fill_constant(t, p, sel.elements(), 3.0);
            EXPECT_FALSE(constant_check(t, p, sel, 3.0).found) << dtype_name(t);
            p[n - 1] ^= 0x40;
            auto c = constant_check(t, p, sel, 3.0);
            ASSERT_TRUE(c.found) << dtype_name(t);
            EXPECT_EQ(c.position, sel.elements() - 1);
            EXPECT_EQ(raw[shift + n], 0x5a);
        }
    }
}
