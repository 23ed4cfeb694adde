// I case: the land model's decomposition of a lat x lon grid (see
// map_synth.hpp).  ELM computes land cells only; it deals them (in grid
// order) to the processes round-robin in short segments, so every process
// gets cells from every latitude band and the maps cover only the land: the
// rest of each array is written, if at all, as fill.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "formats/map_synth.hpp"

namespace iok::e3sm {

namespace {

// Continents as ellipses in (lat, lon) degrees: centre, half extents.
struct Blob {
    double lat, lon, dlat, dlon;
};
const Blob kContinents[] = {
    {47, 258, 20, 32},    // North America
    {17, 265, 9, 9},      // Central America
    {-16, 298, 24, 15},   // South America
    {73, 318, 9, 14},     // Greenland
    {52, 75, 20, 70},     // Eurasia
    {24, 58, 10, 16},     // Arabia and Iran
    {20, 80, 9, 9},       // India
    {15, 105, 9, 9},      // South-east Asia
    {4, 18, 27, 21},      // Africa
    {-25, 134, 11, 17},   // Australia
    {0, 115, 5, 14},      // the islands of Indonesia
    {-73, 180, 12, 400},  // Antarctica (every longitude)
};

// Smooth pseudo-random noise in [-1, 1] on a lattice of `cell` degrees,
// interpolated bilinearly: it makes the coasts irregular.  The amplitudes
// and the continents' scale (1.15) give the 96 x 144 grid 39% land and the
// land-run structure of E3SM's I-case map (request counts within 10%).
double value_noise(double lat, double lon, double cell, std::uint64_t seed) {
    const double x = lon / cell, y = (lat + 90) / cell;
    const auto xi = static_cast<std::int64_t>(std::floor(x)), yi = static_cast<std::int64_t>(std::floor(y));
    const double fx = x - static_cast<double>(xi), fy = y - static_cast<double>(yi);
    const auto wrap = static_cast<std::int64_t>(std::llround(360 / cell));
    auto at = [&](std::int64_t i, std::int64_t j) {
        const std::uint64_t h = mix64(seed ^ mix64(static_cast<std::uint64_t>((i % wrap + wrap) % wrap) * 1000003ull +
                                                   static_cast<std::uint64_t>(j)));
        return static_cast<double>(h >> 11) / 9007199254740992.0 * 2 - 1;
    };
    const double a = at(xi, yi) * (1 - fx) + at(xi + 1, yi) * fx;
    const double b = at(xi, yi + 1) * (1 - fx) + at(xi + 1, yi + 1) * fx;
    return a * (1 - fy) + b * fy;
}

}  // namespace

std::vector<bool> land_mask(std::int64_t nlat, std::int64_t nlon, std::uint64_t seed) {
    std::vector<bool> land(static_cast<std::size_t>(nlat * nlon), false);
    for (std::int64_t j = 0; j < nlat; ++j) {
        const double lat = -90 + (static_cast<double>(j) + 0.5) * 180 / static_cast<double>(nlat);
        for (std::int64_t i = 0; i < nlon; ++i) {
            const double lon = (static_cast<double>(i) + 0.5) * 360 / static_cast<double>(nlon);
            const double noise = 0.40 * value_noise(lat, lon, 12, seed) + 0.25 * value_noise(lat, lon, 4, seed + 1);
            for (const Blob& b : kContinents) {
                double dl = std::fabs(lon - b.lon);
                dl = std::min(dl, 360 - dl);
                const double d = std::hypot((lat - b.lat) / b.dlat, dl / b.dlon);
                if (d < 1.15 + noise) {
                    land[static_cast<std::size_t>(j * nlon + i)] = true;
                    break;
                }
            }
        }
    }
    return land;
}

DecompMap synth_i_map(const IMapOptions& opt, std::vector<RawOffsets>* raw) {
    if (opt.nlat < 2 || opt.nlon < 2) throw Error("I map: --nlat and --nlon must be >= 2");
    if (opt.segment < 1) throw Error("I map: --segment must be >= 1");
    static const std::int64_t kLevels[4] = {15, 10, 9, 17};  // levgrnd (and levdcmp), levlak, ltype, natpft
    const std::int64_t ncell = opt.nlat * opt.nlon;
    if (ncell > std::numeric_limits<std::int32_t>::max() / kLevels[3])
        throw Error("I map: 17 x lat x lon = 17 x " + std::to_string(ncell) + " exceeds the NC_INT offsets of a map",
                    "use a smaller grid");
    const std::vector<bool> land = land_mask(opt.nlat, opt.nlon, opt.seed);
    std::vector<std::int64_t> land_cells;
    for (std::int64_t c = 0; c < ncell; ++c)
        if (land[c]) land_cells.push_back(c);
    const auto nland = static_cast<std::int64_t>(land_cells.size());
    if (opt.nprocs < 1 || opt.nprocs > nland)
        throw Error("I map: " + std::to_string(opt.nprocs) + " processes for " + std::to_string(nland) + " land cells",
                    "every process needs at least one land cell; choose fewer processes or a finer grid");

    // Round-robin segments of land cells.
    std::vector<std::vector<std::int64_t>> cells_of(opt.nprocs);
    for (std::int64_t k = 0; k < nland; ++k) cells_of[(k / opt.segment) % opt.nprocs].push_back(land_cells[k]);

    // Fill: the uncovered elements of an array, in order, split into equal
    // contiguous shares, one per process.
    auto fill_for = [&](std::int64_t nlev) {
        std::vector<std::int64_t> holes;
        for (std::int64_t k = 0; k < nlev; ++k)
            for (std::int64_t c = 0; c < ncell; ++c)
                if (!land[c]) holes.push_back(k * ncell + c);
        std::vector<std::vector<std::int64_t>> f(opt.nprocs);
        const auto nh = static_cast<std::int64_t>(holes.size());
        std::int64_t next = 0;
        for (int p = 0; p < opt.nprocs; ++p) {
            const std::int64_t mine = nh / opt.nprocs + (p < nh % opt.nprocs ? 1 : 0);
            f[p].assign(holes.begin() + next, holes.begin() + next + mine);
            next += mine;
        }
        return f;
    };

    DecompMap m;
    m.path = "generated I map";
    m.nprocs = opt.nprocs;
    m.has_fill_starts = true;
    if (raw) raw->assign(5, RawOffsets{});
    auto rk = [&](int k) { return raw ? &(*raw)[static_cast<std::size_t>(k)] : nullptr; };
    auto f1 = fill_for(1);
    m.decomps.push_back(decomp_from_elements("D1", {opt.nlat, opt.nlon}, cells_of, &f1, rk(0)));
    for (int k = 0; k < 4; ++k) {
        auto fk = fill_for(kLevels[k]);
        m.decomps.push_back(decomp_from_elements("D" + std::to_string(k + 2), {kLevels[k], opt.nlat, opt.nlon},
                                                 over_levels(cells_of, ncell, kLevels[k], true), &fk, rk(k + 1)));
    }
    validate_decomp_map(m);
    return m;
}

}  // namespace iok::e3sm
