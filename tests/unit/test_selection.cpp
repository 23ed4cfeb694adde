#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"
#include "model/selection.hpp"

using iok::Run;
using iok::Selection;

TEST(Selection, RunsBecomeRowBlocks) {
    auto s = Selection::from_runs({72, 866}, {{0, 4}, {866 + 10, 3}, {72 * 866 - 1, 1}});
    ASSERT_EQ(s.nblocks(), 3u);
    EXPECT_EQ(s.elements(), 8u);
    EXPECT_EQ(s.start(1)[0], 1);
    EXPECT_EQ(s.start(1)[1], 10);
    EXPECT_EQ(s.count(1)[0], 1);
    EXPECT_EQ(s.count(1)[1], 3);
    auto runs = s.runs();
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[2].offset, 72 * 866 - 1);
}

TEST(Selection, RunsOfThreeDimensionsGetEveryIndex) {
    // offset 56 of a 3 x 4 x 5 array is element [2][3][1]; 0 is [0][0][0]
    auto s = Selection::from_runs({3, 4, 5}, {{56, 3}, {0, 2}, {7, 1}});
    ASSERT_EQ(s.nblocks(), 3u);
    EXPECT_EQ(s.elements(), 6u);
    EXPECT_EQ(std::vector<std::int64_t>(s.start(0), s.start(0) + 3), (std::vector<std::int64_t>{2, 3, 1}));
    EXPECT_EQ(std::vector<std::int64_t>(s.count(0), s.count(0) + 3), (std::vector<std::int64_t>{1, 1, 3}));
    EXPECT_EQ(std::vector<std::int64_t>(s.start(1), s.start(1) + 3), (std::vector<std::int64_t>{0, 0, 0}));
    EXPECT_EQ(std::vector<std::int64_t>(s.start(2), s.start(2) + 3), (std::vector<std::int64_t>{0, 1, 2}));
    auto runs = s.runs();
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[0].offset, 56);
    EXPECT_EQ(runs[0].length, 3);
    EXPECT_EQ(runs[2].offset, 7);
    EXPECT_THROW(Selection::from_runs({3, 4, 5}, {{58, 3}}), iok::Error);  // [2][3][3..5] leaves the row
}

TEST(Selection, RejectsRunCrossingFastestDimension) {
    EXPECT_THROW(Selection::from_runs({2, 10}, {{8, 4}}), iok::Error);
}

TEST(Selection, RejectsRunOutsideArray) {
    EXPECT_THROW(Selection::from_runs({10}, {{8, 4}}), iok::Error);
    EXPECT_THROW(Selection::from_runs({10}, {{-1, 1}}), iok::Error);
}

TEST(Selection, BlockRunsInCOrder) {
    // 3-D block 2x2x3 at (1,1,1) in 4x4x5
    auto s = Selection::block({4, 4, 5}, {1, 1, 1}, {2, 2, 3});
    EXPECT_EQ(s.elements(), 12u);
    auto runs = s.runs();
    ASSERT_EQ(runs.size(), 4u);
    EXPECT_EQ(runs[0].offset, 1 * 20 + 1 * 5 + 1);
    EXPECT_EQ(runs[1].offset, 1 * 20 + 2 * 5 + 1);
    EXPECT_EQ(runs[2].offset, 2 * 20 + 1 * 5 + 1);
    EXPECT_EQ(runs[3].offset, 2 * 20 + 2 * 5 + 1);
    for (auto& r : runs) EXPECT_EQ(r.length, 3);
}

TEST(Selection, ScalarIsOneElement) {
    auto s = Selection::whole({});
    EXPECT_EQ(s.elements(), 1u);
    EXPECT_EQ(s.runs().size(), 1u);
}

TEST(Selection, RangesSpanningRowsAndPlanesBecomeFewBlocks) {
    const std::vector<std::uint64_t> shape{3, 4, 5};  // 60 elements
    for (std::int64_t a = 0; a < 60; ++a)
        for (std::int64_t b = a + 1; b <= 60; ++b) {
            auto s = Selection::from_ranges(shape, {{a, b - a}});
            ASSERT_EQ(s.elements(), static_cast<std::uint64_t>(b - a));
            ASSERT_LE(s.nblocks(), 5u);
            // the runs, in order, cover exactly [a, b)
            std::int64_t next = a;
            for (auto& r : s.runs()) {
                ASSERT_EQ(r.offset, next) << a << ".." << b;
                next += r.length;
            }
            ASSERT_EQ(next, b);
        }
}

TEST(Selection, WholeArrayRangeIsOneBlock) {
    auto s = Selection::from_ranges({72, 866}, {{0, 72 * 866}});
    EXPECT_EQ(s.nblocks(), 1u);
}

TEST(Selection, IdNamesOneContent) {
    // The cache rule of selection.hpp: ids are never reused, copies share
    // theirs, a modification gets a new one.
    iok::Selection a({10}), b({10});
    EXPECT_NE(a.id(), b.id());
    iok::Selection c = a;
    EXPECT_EQ(c.id(), a.id());
    const std::int64_t start = 2, count = 3;
    c.add_block(&start, &count);
    EXPECT_NE(c.id(), a.id());
    const auto before = c.id();
    { iok::Selection tmp({10}); }
    iok::Selection d({10});  // may reuse tmp's address, never its id
    EXPECT_NE(d.id(), before);
    EXPECT_GT(d.id(), before);
}
