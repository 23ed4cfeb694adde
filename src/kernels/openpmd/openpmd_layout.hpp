#pragma once
// Which mesh blocks and particles each rank writes at each step, as
// h5bench_openpmd_write (openPMD-api example 8a) lays them out: the mesh is
// a grid of mini blocks (minBlock cells each); the ranks get equal patches of
// mini blocks, chosen as 8a chooses them (whole slabs along the first axis
// that divides, else runs along one axis); particles are ratio per cell,
// numbered patch by patch.  balanced=false: on steps 1, 4, 7, ... every rank
// r with r % 4 == 0 (1-D: r % 10 == 0) writes nothing and rank r+1 writes
// both patches.  rankBlocks=false: each mini block is its own request.
#include <cstdint>
#include <vector>

#include "kernels/openpmd/openpmd_config.hpp"

namespace iok::openpmd {

struct Block {
    std::vector<std::uint64_t> offset, count;
};
struct Range {
    std::uint64_t offset = 0, count = 0;
};

struct RankStep {
    std::vector<Block> mesh;       // blocks of every mesh component
    std::vector<Range> particles;  // ranges of every particle record
};

class Layout {
public:
    // Throws iok::Error when the mesh cannot be split over `ranks` as 8a does.
    Layout(const Config& cfg, int ranks);
    RankStep at(int rank, int step) const;
    const std::vector<std::uint64_t>& patch_units() const { return patch_; }

private:
    RankStep patches(std::uint64_t first, std::uint64_t count) const;
    const Config& cfg_;
    int ranks_;
    std::vector<std::uint64_t> units_;  // mini blocks per axis (grid)
    std::vector<std::uint64_t> patch_;  // mini blocks per axis of one rank's patch
};

}  // namespace iok::openpmd
