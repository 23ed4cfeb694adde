#include "kernels/gcrm/gcrm_model.hpp"

namespace iok::gcrm {

ModelMemory::ModelMemory(const GridParams& g, int arrays) {
    const std::size_t n = static_cast<std::size_t>(g.nsdm) * g.im * g.jm * g.km;
    arrays_.resize(static_cast<std::size_t>(arrays));
    for (auto& a : arrays_) a.assign(n, 0.0);  // assign touches every page
    bytes_ = static_cast<std::uint64_t>(n) * sizeof(double) * static_cast<std::uint64_t>(arrays);
}

void ModelMemory::compute(int rank, int dump) {
    std::uint64_t x =
        0x9E3779B97F4A7C15ull ^ (static_cast<std::uint64_t>(rank) << 32) ^ static_cast<std::uint64_t>(dump);
    for (auto& a : arrays_)
        for (double& v : a) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            v = static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0);
        }
}

double ModelMemory::checksum() const {
    double s = 0;
    for (const auto& a : arrays_)
        if (!a.empty()) s += a.front() + a.back();
    return s;
}

}  // namespace iok::gcrm
