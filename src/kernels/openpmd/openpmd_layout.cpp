#include "kernels/openpmd/openpmd_layout.hpp"

#include "core/error.hpp"

namespace iok::openpmd {
namespace {

std::uint64_t product(const std::vector<std::uint64_t>& v) {
    std::uint64_t n = 1;
    for (auto x : v) n *= x;
    return n;
}

// Row-major coordinates of patch `idx` in a grid of patches.
std::vector<std::uint64_t> coordinate(std::uint64_t idx, const std::vector<std::uint64_t>& grid) {
    std::vector<std::uint64_t> c(grid.size());
    for (std::size_t d = grid.size(); d-- > 0;) {
        c[d] = idx % grid[d];
        idx /= grid[d];
    }
    return c;
}

}  // namespace

Layout::Layout(const Config& cfg, int ranks) : cfg_(cfg), ranks_(ranks), units_(cfg.grid) {
    const auto n = static_cast<std::uint64_t>(ranks);
    const std::uint64_t total = product(units_);
    const std::string grid_text = [&] {
        std::string t;
        for (auto u : units_) t += (t.empty() ? "" : " ") + std::to_string(u);
        return t;
    }();
    if (total % n != 0)
        throw Error("grid=" + grid_text + " has " + std::to_string(total) + " mini blocks, which " +
                        std::to_string(ranks) + " ranks cannot share equally",
                    "make the product of grid a multiple of the rank count (h5bench_openpmd_write: \"Unable to "
                    "balance load\")");
    const std::uint64_t m = total / n;  // mini blocks per rank
    const std::size_t nd = units_.size();
    // 8a's choice, in its order: a slab along the first axis (then the
    // second) whose length the ranks divide, else a run of m along one axis.
    patch_.assign(nd, 1);
    if (m == 1) return;
    if (units_[0] % n == 0) {
        patch_ = units_;
        patch_[0] = units_[0] / n;
        return;
    }
    if (nd >= 2 && units_[1] % n == 0) {
        patch_ = units_;
        patch_[1] = units_[1] / n;
        return;
    }
    for (std::size_t d = 0; d < nd; ++d)
        if (units_[d] % m == 0) {
            patch_[d] = m;
            return;
        }
    // 3-D: columns through the last axis when the first two axes split.
    if (nd == 3 && (units_[0] * units_[1]) % n == 0) {
        const std::uint64_t m2 = units_[0] * units_[1] / n;
        if (units_[0] % m2 == 0) {
            patch_ = {m2, 1, units_[2]};
            return;
        }
        if (units_[1] % m2 == 0) {
            patch_ = {1, m2, units_[2]};
            return;
        }
    }
    throw Error("grid=" + grid_text + " cannot be cut into " + std::to_string(ranks) +
                    " equal patches the way h5bench_openpmd_write cuts it",
                "choose a grid whose first (or second) value is a multiple of the rank count");
}

RankStep Layout::at(int rank, int step) const {
    std::uint64_t first = static_cast<std::uint64_t>(rank), count = 1;
    const int every = cfg_.dim == 1 ? 10 : 4;
    if (!cfg_.balanced && ranks_ >= 2 && step % 3 == 1) {
        if (rank % every == 0) count = 0;  // no load
        if (rank % every == 1) {           // the idle neighbour's patch too
            first -= 1;
            count = 2;
        }
    }
    return patches(first, count);
}

RankStep Layout::patches(std::uint64_t first, std::uint64_t count) const {
    RankStep out;
    const std::size_t nd = units_.size();
    std::vector<std::uint64_t> pgrid(nd);
    for (std::size_t d = 0; d < nd; ++d) pgrid[d] = units_[d] / patch_[d];
    const std::uint64_t cells_per_patch = product(patch_) * product(cfg_.min_block);
    std::uint64_t particle = first * cells_per_patch * cfg_.ratio;
    // Patches first .. first+count-1 in row-major order; consecutive ones
    // along the last axis merge into one block (8a's double load).
    for (std::uint64_t p = first; p < first + count;) {
        std::vector<std::uint64_t> c = coordinate(p, pgrid);
        std::uint64_t run = 1;
        while (p + run < first + count && c[nd - 1] + run < pgrid[nd - 1]) ++run;
        // A 1-D patch run along the only axis, else along the last.
        Block unit;  // in mini blocks
        for (std::size_t d = 0; d < nd; ++d) {
            unit.offset.push_back(c[d] * patch_[d]);
            unit.count.push_back(patch_[d] * (d == nd - 1 ? run : 1));
        }
        auto emit = [&](const std::vector<std::uint64_t>& uoff, const std::vector<std::uint64_t>& ucount) {
            Block b;
            std::uint64_t cells = 1;
            for (std::size_t d = 0; d < nd; ++d) {
                b.offset.push_back(uoff[d] * cfg_.min_block[d]);
                b.count.push_back(ucount[d] * cfg_.min_block[d]);
                cells *= b.count.back();
            }
            out.mesh.push_back(std::move(b));
            out.particles.push_back({particle, cells * cfg_.ratio});
            particle += cells * cfg_.ratio;
        };
        if (cfg_.rank_blocks) {
            emit(unit.offset, unit.count);
        } else {  // every mini block of the patch, row-major
            const std::uint64_t n = product(unit.count);
            for (std::uint64_t k = 0; k < n; ++k) {
                std::vector<std::uint64_t> u = coordinate(k, unit.count);
                for (std::size_t d = 0; d < nd; ++d) u[d] += unit.offset[d];
                emit(u, std::vector<std::uint64_t>(nd, 1));
            }
        }
        p += run;
    }
    return out;
}

}  // namespace iok::openpmd
