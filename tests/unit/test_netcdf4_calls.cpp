// netcdf4 backend's call plans: a selection's blocks merged into exact boxes
// (writes) and sieved windows (reads), and the copies between the user
// buffer and the staging buffer put every element where it belongs.
#ifdef IOK_HAVE_NETCDF4
#include <gtest/gtest.h>

#include <numeric>

#include "backends/netcdf4_calls.hpp"

namespace {

using iok::Selection;
using iok::nc4::CallPlan;

// E3SM-like: on each of `nlev` levels the same column runs, blocks in level
// order (as the kernel packs its buffer).
Selection levels_times_runs(std::uint64_t nlev, std::uint64_t ncol, const std::vector<std::pair<int, int>>& runs) {
    Selection s({nlev, ncol});
    for (std::int64_t l = 0; l < static_cast<std::int64_t>(nlev); ++l)
        for (auto [c0, n] : runs) {
            std::int64_t st[2] = {l, c0}, ct[2] = {1, n};
            s.add_block(st, ct);
        }
    return s;
}

// Replays a plan as the backend does: the file image gets each call's
// elements, from the user buffer directly or through the staging buffer.
std::vector<double> write_image(const CallPlan& p, const Selection& sel, const std::vector<double>& user) {
    const std::uint64_t ncol = sel.shape().size() > 1 ? sel.shape()[1] : 1;
    std::vector<double> image(sel.shape()[0] * ncol, -1.0), stage(p.staging);
    for (const auto& c : p.calls) {
        const double* data = c.direct >= 0 ? user.data() + c.direct : stage.data();
        if (c.direct < 0)
            iok::nc4::gather(c, reinterpret_cast<const char*>(user.data()), reinterpret_cast<char*>(stage.data()),
                             sizeof(double));
        for (std::uint64_t i = 0; i < c.count[0]; ++i)
            for (std::uint64_t j = 0; j < c.count[1]; ++j)
                image[(c.start[0] + i) * ncol + c.start[1] + j] = data[i * c.count[1] + j];
    }
    return image;
}

TEST(Netcdf4Calls, LevelRunsBecomeOneBoxPerRun) {
    const auto sel = levels_times_runs(72, 100, {{3, 5}, {20, 7}, {60, 1}});
    const CallPlan p = iok::nc4::boxes(sel);
    ASSERT_EQ(p.calls.size(), 3u);  // 216 blocks
    EXPECT_EQ(p.calls[0].start, (std::vector<std::uint64_t>{0, 3}));
    EXPECT_EQ(p.calls[0].count, (std::vector<std::uint64_t>{72, 5}));
    EXPECT_EQ(p.calls[2].count, (std::vector<std::uint64_t>{72, 1}));
    EXPECT_EQ(p.moved, sel.elements());
    EXPECT_EQ(p.selected, sel.elements());
    EXPECT_EQ(p.staging, 72u * 7u);
}

TEST(Netcdf4Calls, BoxesPutEveryElementWhereItBelongs) {
    const auto sel = levels_times_runs(4, 30, {{0, 2}, {2, 3}, {10, 4}, {29, 1}});
    std::vector<double> user(sel.elements());
    std::iota(user.begin(), user.end(), 0.0);
    const CallPlan p = iok::nc4::boxes(sel);
    // {0,2} and {2,3} touch: after the level merge they join along columns.
    EXPECT_EQ(p.calls.size(), 3u);
    const auto image = write_image(p, sel, user);
    // Expected: element by element, in buffer order.
    std::vector<double> want(4 * 30, -1.0);
    double v = 0;
    for (int l = 0; l < 4; ++l)
        for (auto [c0, n] : std::vector<std::pair<int, int>>{{0, 2}, {2, 3}, {10, 4}, {29, 1}})
            for (int j = 0; j < n; ++j) want[l * 30 + c0 + j] = v++;
    EXPECT_EQ(image, want);
}

TEST(Netcdf4Calls, NothingOutsideTheSelectionIsWritten) {
    // Diagonal blocks: no two can merge without covering a gap.
    Selection sel({3, 3});
    for (std::int64_t i = 0; i < 3; ++i) {
        std::int64_t st[2] = {i, i}, ct[2] = {1, 1};
        sel.add_block(st, ct);
    }
    const CallPlan p = iok::nc4::boxes(sel);
    ASSERT_EQ(p.calls.size(), 3u);
    for (const auto& c : p.calls) {
        EXPECT_EQ(c.elements, 1u);
        EXPECT_GE(c.direct, 0);  // one block each: no staging
    }
    EXPECT_EQ(p.staging, 0u);
}

TEST(Netcdf4Calls, ContiguousBlocksInBufferOrderNeedNoStaging) {
    Selection sel({4, 10});
    for (std::int64_t l = 0; l < 4; ++l) {
        std::int64_t st[2] = {l, 0}, ct[2] = {1, 10};
        sel.add_block(st, ct);
    }
    const CallPlan p = iok::nc4::boxes(sel);
    ASSERT_EQ(p.calls.size(), 1u);
    EXPECT_EQ(p.calls[0].direct, 0);
    EXPECT_EQ(p.staging, 0u);
}

TEST(Netcdf4Calls, WindowsJoinBoxesUpToTheLimitAndScatterBack) {
    const auto sel = levels_times_runs(2, 100, {{0, 1}, {10, 1}, {50, 2}, {99, 1}});
    // Boxes: 4 (2 levels x run).  Limit 2 x 60 elements: [0..52) joins three
    // of them, the box at column 99 stays alone.
    const CallPlan p = iok::nc4::windows(sel, 120);
    ASSERT_EQ(p.calls.size(), 2u);
    EXPECT_EQ(p.calls[0].start, (std::vector<std::uint64_t>{0, 0}));
    EXPECT_EQ(p.calls[0].count, (std::vector<std::uint64_t>{2, 52}));
    EXPECT_EQ(p.calls[1].count, (std::vector<std::uint64_t>{2, 1}));
    EXPECT_EQ(p.moved, 2u * 52u + 2u);
    // Scatter a file image through the plan: the user buffer gets the
    // selected elements in block order, nothing from the gaps.
    std::vector<double> file(200);
    std::iota(file.begin(), file.end(), 1000.0);
    std::vector<double> user(sel.elements(), -1.0), stage(p.staging);
    for (const auto& c : p.calls) {
        for (std::uint64_t i = 0; i < c.count[0]; ++i)
            for (std::uint64_t j = 0; j < c.count[1]; ++j)
                stage[i * c.count[1] + j] = file[(c.start[0] + i) * 100 + c.start[1] + j];
        ASSERT_LT(c.direct, 0);
        iok::nc4::scatter(c, reinterpret_cast<const char*>(stage.data()), reinterpret_cast<char*>(user.data()),
                          sizeof(double));
    }
    std::vector<double> want;
    for (int l = 0; l < 2; ++l)
        for (auto [c0, n] : std::vector<std::pair<int, int>>{{0, 1}, {10, 1}, {50, 2}, {99, 1}})
            for (int j = 0; j < n; ++j) want.push_back(1000.0 + l * 100 + c0 + j);
    EXPECT_EQ(user, want);
}

TEST(Netcdf4Calls, NoSievingWhenTheLimitIsZero) {
    const auto sel = levels_times_runs(2, 100, {{0, 1}, {10, 1}});
    EXPECT_EQ(iok::nc4::windows(sel, 0).calls.size(), 2u);
    EXPECT_EQ(iok::nc4::windows(sel, 0).moved, sel.elements());
}

TEST(Netcdf4Calls, EmptyBlocksAndEmptySelections) {
    Selection sel({5});
    std::int64_t st = 2, zero = 0, one = 1;
    sel.add_block(&st, &zero);
    sel.add_block(&st, &one);
    const CallPlan p = iok::nc4::boxes(sel);
    ASSERT_EQ(p.calls.size(), 1u);
    EXPECT_EQ(p.calls[0].direct, 0);
    EXPECT_TRUE(iok::nc4::boxes(Selection({5})).calls.empty());
}

}  // namespace
#endif
