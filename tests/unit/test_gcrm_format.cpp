// GCRM-IO's choice of file format (CDF-2, or CDF-5 when its size check
// passes 2 GiB), reproduced from a description and a grid.
#include <gtest/gtest.h>

#include "kernels/gcrm/gcrm_format.hpp"
#include "kernels/gcrm/gcrm_grid.hpp"
#include "kernels/gcrm/gcrm_inputs.hpp"

using namespace iok::gcrm;

namespace {
Description desc(const std::string& text) { return parse_desc(text, "unit.desc"); }
}  // namespace

TEST(GcrmFormat, CellEdgeFieldsCrossTwoGiBAtLevelFour) {
    // cells x (all) edges x layers x 4 bytes: level 3 642*1920*256*4, level 4 2562*7680*256*4
    const Description d = desc("name mass_flux\ntype float\ndimension time cells i_cell_edges layers\n");
    EXPECT_EQ(gcrm_io_largest_field(d, grid_params(3, 4)), 642LL * 1920 * 256 * 4);
    EXPECT_EQ(gcrm_io_file_format(d, grid_params(3, 4)), "cdf2");
    EXPECT_EQ(gcrm_io_largest_field(d, grid_params(4, 4)), 2562LL * 7680 * 256 * 4);
    EXPECT_EQ(gcrm_io_file_format(d, grid_params(4, 4)), "cdf5");
}

TEST(GcrmFormat, DoubleCountsEightBytesOnlyWhenTypedBeforeItsDimensions) {
    // 642 * 1920 * 257 = 316,792,320 elements: 1.27 GB in 4 bytes, 2.53 GB in 8
    const std::string dims = "dimension time cells i_cell_edges interfaces\n";
    EXPECT_EQ(gcrm_io_file_format(desc("name f\ntype double\n" + dims), grid_params(3, 4)), "cdf5");
    EXPECT_EQ(gcrm_io_file_format(desc("name f\n" + dims + "type double\n"), grid_params(3, 4)), "cdf2");
    EXPECT_EQ(gcrm_io_largest_field(desc("name f\n" + dims + "type double\n"), grid_params(3, 4)),
              642LL * 1920 * 257 * 4);
}

TEST(GcrmFormat, TimeLeftOutUnknownKeywordsCountZeroEveryDescriptorCounts) {
    const GridParams g = grid_params(3, 4);
    EXPECT_EQ(gcrm_io_largest_field(desc("name t\ntype double\ndimension time\n"), g), 8);
    // nprog is an index dimension: GCRM-IO's check counts it 0
    EXPECT_EQ(gcrm_io_largest_field(desc("name r\ntype double\ndimension time cells layers nprog\n"), g), 0);
    // keywords without case; vector 3, cellcorners 6, ns_ew 2, corners and interfaces
    EXPECT_EQ(gcrm_io_largest_field(desc("name a\ndimension CELLS vector\n"), g), 642 * 3 * 4);
    EXPECT_EQ(gcrm_io_largest_field(desc("name a\ndimension cells cellcorners\n"), g), 642 * 6 * 4);
    EXPECT_EQ(gcrm_io_largest_field(desc("name a\ndimension time ns_ew i_uniq_corner interfaces\n"), g),
              2LL * 1280 * 257 * 4);
    // the largest of all descriptors, written to a file or not
    EXPECT_EQ(gcrm_io_largest_field(desc("name a\ndimension cells\nname b\ndimension cells layers\n"), g),
              642 * 256 * 4);
    EXPECT_EQ(gcrm_io_largest_field(desc("name a\nno_data true\n"), g), 0);
}
