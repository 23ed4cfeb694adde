#pragma once
// The model's memory footprint.  GCRM holds ~250 double arrays of
// nsdm*im*jm*km per rank (prognostic, diagnostic and physics state), which is
// what makes it memory-bound at scale; the reference keeps them on purpose.
// With --model-memory the kernel allocates and touches the same amount and
// refills it at every dump (the reference's pseudo computation), so memory
// high-water marks and compute time resemble the application's.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/gcrm/gcrm_grid.hpp"

namespace iok::gcrm {

class ModelMemory {
public:
    ModelMemory() = default;
    ModelMemory(const GridParams& g, int arrays);
    // Refills every array from a generator seeded by (rank, dump): work
    // proportional to the footprint, like the reference's random fill.
    void compute(int rank, int dump);
    std::uint64_t bytes() const { return bytes_; }
    double checksum() const;  // keeps the compiler from dropping compute()

private:
    std::vector<std::vector<double>> arrays_;
    std::uint64_t bytes_ = 0;
};

}  // namespace iok::gcrm
