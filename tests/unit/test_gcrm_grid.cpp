// The GCRM decomposition against the reference's formulas.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "kernels/gcrm/gcrm_grid.hpp"

using namespace iok::gcrm;

TEST(GcrmGrid, ReadmeCaseParameters) {
    GridParams g = grid_params(5, 20);
    EXPECT_EQ(g.iota, 1);
    EXPECT_EQ(g.level_glbl(), 2);
    EXPECT_EQ(g.nsdm_glbl, 40);
    EXPECT_EQ(g.nsdm, 2);
    EXPECT_EQ(g.im, 18);
    EXPECT_EQ(g.jm, 18);
    EXPECT_EQ(g.cells, 10242);
    EXPECT_EQ(g.corners, 20480);
    EXPECT_EQ(g.edges, 30720);
    GridParams h = grid_params(6, 16);  // the reference's example_output
    EXPECT_EQ(h.iota, 2);
    EXPECT_EQ(h.nsdm_glbl, 160);
    EXPECT_EQ(h.nsdm, 10);
    EXPECT_EQ(h.im, 18);
    EXPECT_EQ(h.cells, 40962);
    GridParams e = grid_params(4, 8);
    EXPECT_EQ(e.nsdm, 5);
    EXPECT_EQ(e.im, 10);
}

TEST(GcrmGrid, InvalidProcessCountsAndLevels) {
    EXPECT_THROW(grid_params(5, 3), iok::Error);   // not 2^a*5^b
    EXPECT_THROW(grid_params(5, 25), iok::Error);  // 5^2
    EXPECT_THROW(grid_params(5, 12), iok::Error);
    EXPECT_THROW(grid_params(2, 4), iok::Error);   // level below 3
    EXPECT_THROW(grid_params(14, 4), iok::Error);  // level above 13
    EXPECT_THROW(grid_params(3, 16), iok::Error);  // iota 2 needs L >= 4
    EXPECT_NO_THROW(grid_params(4, 16));
    EXPECT_NO_THROW(grid_params(5, 80));
    try {
        grid_params(5, 3);
    } catch (const iok::Error& err) {
        EXPECT_NE(std::string(err.what()).find("3 processes"), std::string::npos);
        EXPECT_FALSE(err.hint().empty());
    }
}

TEST(GcrmGrid, BlockOrderSwapsBase4Digits2And3) {
    GridParams g = grid_params(6, 16);  // iota 2: 16 blocks per panel
    // q = 2 (digits 0,2) -> 3; q = 6 = 12_4 -> 13_4 = 7; q = 9 = 21_4 -> 31_4 = 13; q = 14 = 32_4 -> 23_4 = 11
    EXPECT_EQ(block_file_position(g, 2), 3);
    EXPECT_EQ(block_file_position(g, 3), 2);
    EXPECT_EQ(block_file_position(g, 6), 7);
    EXPECT_EQ(block_file_position(g, 9), 13);
    EXPECT_EQ(block_file_position(g, 14), 11);
    EXPECT_EQ(block_file_position(g, 16 + 14), 16 + 11);  // panel kept
    // a permutation of all blocks
    std::set<std::int64_t> seen;
    for (int b = 0; b < g.nsdm_glbl; ++b) seen.insert(block_file_position(g, b));
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(g.nsdm_glbl));
    EXPECT_EQ(*seen.rbegin(), g.nsdm_glbl - 1);
}

TEST(GcrmGrid, SpecExampleRank0Cells) {
    GridParams g = grid_params(4, 8);
    auto runs = cell_runs(g, 0);
    ASSERT_EQ(runs.size(), 6u);
    const std::int64_t first[] = {0, 2, 66, 194, 130, 258};
    const std::int64_t count[] = {1, 64, 64, 64, 64, 64};
    for (int i = 0; i < 6; ++i) {
        EXPECT_EQ(runs[i].first, first[i]) << i;
        EXPECT_EQ(runs[i].count, count[i]) << i;
    }
    auto c = corner_runs(g, 0);
    ASSERT_EQ(c.size(), 5u);
    EXPECT_EQ(c[0].first, 0);
    EXPECT_EQ(c[1].first, 128);
    EXPECT_EQ(c[2].first, 2 * 192);
    EXPECT_EQ(c[0].count, 128);
    auto e = edge_runs(g, 0);
    EXPECT_EQ(e[3].first, 3 * 128);
    EXPECT_EQ(e[3].count, 192);
}

TEST(GcrmGrid, PoleOwners) {
    GridParams g = grid_params(4, 8);
    EXPECT_EQ(north_pole_block(g), 3);
    EXPECT_EQ(south_pole_block(g), 37);
    EXPECT_EQ(owner_of_block(g, 37), 7);
    auto r7 = cell_runs(g, 7);
    EXPECT_EQ(r7.front().first, 1);
    EXPECT_EQ(r7.front().count, 1);
    GridParams h = grid_params(6, 16);
    EXPECT_EQ(north_pole_block(h), 15);
    EXPECT_EQ(south_pole_block(h), 149);
    GridParams one = grid_params(3, 1);  // iota 0: one block per panel
    EXPECT_EQ(north_pole_block(one), 0);
    EXPECT_EQ(south_pole_block(one), 9);
    auto r = cell_runs(one, 0);
    EXPECT_EQ(r[0].first, 0);
    EXPECT_EQ(r[1].first, 1);
}

// Every cell, corner and edge is written by exactly one rank.
TEST(GcrmGrid, RunsPartitionTheGrid) {
    for (auto [level, procs] : {std::pair{4, 8}, {5, 20}, {6, 16}, {4, 4}, {3, 1}}) {
        GridParams g = grid_params(level, procs);
        std::vector<int> cells(static_cast<std::size_t>(g.cells)), corners(static_cast<std::size_t>(g.corners)),
            edges(static_cast<std::size_t>(g.edges));
        for (int r = 0; r < procs; ++r) {
            for (auto run : cell_runs(g, r))
                for (auto i = run.first; i < run.first + run.count; ++i) ++cells[static_cast<std::size_t>(i)];
            for (auto run : corner_runs(g, r))
                for (auto i = run.first; i < run.first + run.count; ++i) ++corners[static_cast<std::size_t>(i)];
            for (auto run : edge_runs(g, r))
                for (auto i = run.first; i < run.first + run.count; ++i) ++edges[static_cast<std::size_t>(i)];
        }
        auto ones = [](const std::vector<int>& v) {
            return std::all_of(v.begin(), v.end(), [](int x) { return x == 1; });
        };
        EXPECT_TRUE(ones(cells)) << level << "/" << procs;
        EXPECT_TRUE(ones(corners)) << level << "/" << procs;
        EXPECT_TRUE(ones(edges)) << level << "/" << procs;
    }
}

TEST(GcrmGrid, ModelSteps) {
    EXPECT_EQ(model_step_seconds(3), 900);
    EXPECT_EQ(model_step_seconds(5), 60);
    EXPECT_EQ(model_step_seconds(12), 0.5);
    EXPECT_EQ(model_step_seconds(13), 3);
    EXPECT_THROW(model_step_seconds(2), iok::Error);
}
