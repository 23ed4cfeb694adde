#include "kernels/vpic/vpic_geometry.hpp"

#include <cmath>
#include <string>

#include "core/error.hpp"

namespace iok::vpic {

namespace {

std::uint64_t splitmix64(std::uint64_t& s) {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Uniform in (0, 1], 53 bits.
double uniform(std::uint64_t& s) { return (static_cast<double>(splitmix64(s) >> 11) + 1.0) / 9007199254740992.0; }

std::string n2s(std::uint64_t n) { return std::to_string(n); }

// [first, last) of `n` items for part q of Q, split as evenly as possible.
std::pair<std::uint64_t, std::uint64_t> even_part(std::uint64_t n, int q, int Q) {
    const auto a = n * static_cast<std::uint64_t>(q) / static_cast<std::uint64_t>(Q);
    const auto b = n * static_cast<std::uint64_t>(q + 1) / static_cast<std::uint64_t>(Q);
    return {a, b};
}

}  // namespace

std::vector<std::uint64_t> normal_counts(std::uint64_t mean, double stdev, std::uint64_t seed, int ranks) {
    // Box-Muller on our own generator: std::normal_distribution's algorithm
    // is implementation-defined, so counts would differ between C++ libraries.
    std::vector<std::uint64_t> out;
    out.reserve(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
        std::uint64_t s = seed * 0x2545F4914F6CDD1Dull + static_cast<std::uint64_t>(r) * 0x9E3779B97F4A7C15ull + 1;
        const double u1 = uniform(s), u2 = uniform(s);
        const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
        const double v = std::round(static_cast<double>(mean) + stdev * z);
        out.push_back(v > 0 ? static_cast<std::uint64_t>(v) : 0);
    }
    return out;
}

std::uint64_t Geometry::total_particles() const {
    std::uint64_t n = 0;
    for (auto c : counts) n += c;
    return n;
}

Geometry make_geometry(const Config& cfg, int writers) {
    Geometry g;
    g.num_dims = cfg.num_dims;
    g.writers = writers;
    g.strided = cfg.file == FilePattern::Strided;
    const auto P = static_cast<std::uint64_t>(writers);
    if (cfg.stdev_dim_1 > 0 && cfg.num_dims == 1)
        g.counts = normal_counts(cfg.dim[0], cfg.stdev_dim_1, cfg.seed, writers);
    else
        g.counts.assign(static_cast<std::size_t>(writers), cfg.particles_per_rank());
    if (cfg.num_dims == 1) {
        if (g.strided) {
            // As h5bench: rank r's region is [r DIM_1, (r+1) DIM_1); it writes
            // BLOCK_CNT blocks of BLOCK_SIZE, STRIDE_SIZE apart, from its start.
            const std::uint64_t region = cfg.dim[0];
            g.counts.assign(static_cast<std::size_t>(writers), cfg.block_size * cfg.block_cnt);
            for (std::uint64_t r = 0; r < P; ++r) g.offsets.push_back(r * region);
            g.shape = {P * region};
        } else {
            std::uint64_t off = 0;
            for (auto c : g.counts) {
                g.offsets.push_back(off);
                off += c;
            }
            g.shape = {off};
        }
    } else {
        g.part_rows = cfg.dim[0];
        for (std::uint64_t r = 0; r < P; ++r) g.offsets.push_back(r * cfg.dim[0]);
        g.shape = {cfg.dim[0] * P, cfg.dim[1]};
        if (cfg.num_dims == 3) g.shape.push_back(cfg.dim[2]);
    }
    return g;
}

Selection write_selection(const Geometry& g, const Config& cfg, int rank) {
    const auto r = static_cast<std::size_t>(rank);
    Selection s(g.shape);
    if (g.num_dims == 1) {
        if (g.strided) {
            for (std::uint64_t k = 0; k < cfg.block_cnt; ++k) {
                const std::int64_t start = static_cast<std::int64_t>(g.offsets[r] + k * cfg.stride);
                const std::int64_t count = static_cast<std::int64_t>(cfg.block_size);
                s.add_block(&start, &count);
            }
        } else if (g.counts[r] > 0) {
            const std::int64_t start = static_cast<std::int64_t>(g.offsets[r]);
            const std::int64_t count = static_cast<std::int64_t>(g.counts[r]);
            s.add_block(&start, &count);
        }
        return s;
    }
    std::vector<std::int64_t> start(g.shape.size(), 0), count(g.shape.begin(), g.shape.end());
    start[0] = static_cast<std::int64_t>(g.offsets[r]);
    count[0] = static_cast<std::int64_t>(g.part_rows);
    s.add_block(start.data(), count.data());
    return s;
}

std::vector<Box> pattern_boxes(const Config& cfg, std::uint64_t R, std::uint64_t C) {
    const std::uint64_t bs = cfg.block_size, bs2 = cfg.block_size_2;
    const std::string sizes =
        "BLOCK_SIZE=" + n2s(bs) + ", BLOCK_SIZE_2=" + n2s(bs2) + " on a " + n2s(R) + " x " + n2s(C) + " array";
    const std::string what = std::string("READ_OPTION=") + name(cfg.read);
    if (bs > R || bs2 > C)
        throw Error(what + ": a block (" + sizes + ") does not fit the array",
                    "BLOCK_SIZE must be at most DIM_1 x ranks (" + n2s(R) + ") and BLOCK_SIZE_2 at most DIM_2 (" +
                        n2s(C) + ")");
    std::vector<Box> out;
    switch (cfg.read) {
        case ReadOption::Ldc:
        case ReadOption::Rdc:
            // Two corner blocks; they must not overlap.
            if (2 * bs > R && 2 * bs2 > C)
                throw Error(what + ": the two corner blocks overlap (" + sizes + ")",
                            "make 2 x BLOCK_SIZE <= " + n2s(R) + " or 2 x BLOCK_SIZE_2 <= " + n2s(C));
            if (cfg.read == ReadOption::Ldc)
                out = {{0, 0, bs, bs2}, {R - bs, C - bs2, bs, bs2}};
            else
                out = {{0, C - bs2, bs, bs2}, {R - bs, 0, bs, bs2}};
            break;
        case ReadOption::Prl:
            // The frame: BLOCK_SIZE rows at top and bottom, BLOCK_SIZE_2
            // columns left and right of the rows between.
            if (2 * bs > R || 2 * bs2 > C)
                throw Error(what + ": the frame is wider than the array (" + sizes + ")",
                            "make 2 x BLOCK_SIZE <= " + n2s(R) + " and 2 x BLOCK_SIZE_2 <= " + n2s(C));
            out.push_back({0, 0, bs, C});
            if (R > 2 * bs) {  // 2 bs2 <= C: left and right columns are disjoint
                out.push_back({bs, 0, R - 2 * bs, bs2});
                out.push_back({bs, C - bs2, R - 2 * bs, bs2});
            }
            out.push_back({R - bs, 0, bs, C});
            break;
        case ReadOption::Cs: {
            // Blocks at (k STRIDE, k STRIDE_2) for k = 0, 1, ... while inside.
            if (cfg.stride < bs && cfg.stride_2 < bs2)
                throw Error(what + ": blocks overlap (STRIDE_SIZE=" + n2s(cfg.stride) +
                                " < BLOCK_SIZE and STRIDE_SIZE_2=" + n2s(cfg.stride_2) + " < BLOCK_SIZE_2)",
                            "make STRIDE_SIZE >= BLOCK_SIZE or STRIDE_SIZE_2 >= BLOCK_SIZE_2");
            for (std::uint64_t k = 0; k * cfg.stride + bs <= R && k * cfg.stride_2 + bs2 <= C; ++k)
                out.push_back({k * cfg.stride, k * cfg.stride_2, bs, bs2});
            break;
        }
        default: throw Error(what + " is not a 2-D pattern");
    }
    return out;
}

Selection read_selection(const Geometry& g, const Config& cfg, int rank, int readers) {
    Selection s(g.shape);
    const std::string what = std::string("READ_OPTION=") + name(cfg.read);
    if (is_2d_pattern(cfg.read)) {
        if (g.num_dims != 2) throw Error(what + " needs a 2-D file", "use NUM_DIMS=2");
        // Each rectangle's rows split evenly over the readers: all ranks share
        // the work, and together they read exactly the pattern's elements.
        for (const Box& b : pattern_boxes(cfg, g.shape[0], g.shape[1])) {
            const auto [a, e] = even_part(b.nr, rank, readers);
            if (e == a || b.nc == 0) continue;
            const std::int64_t start[2] = {static_cast<std::int64_t>(b.r0 + a), static_cast<std::int64_t>(b.c0)};
            const std::int64_t count[2] = {static_cast<std::int64_t>(e - a), static_cast<std::int64_t>(b.nc)};
            s.add_block(start, count);
        }
        return s;
    }
    // This reader's partition along dim 0: [first, first + len).
    std::uint64_t first = 0, len = 0;
    if (readers == g.writers) {
        const auto r = static_cast<std::size_t>(rank);
        first = g.offsets[r];
        len = g.num_dims == 1 ? (g.strided ? cfg.dim[0] : g.counts[r]) : g.part_rows;
    } else {
        if (g.strided)
            throw Error("a FILE_PATTERN=STRIDED file must be read by as many ranks as wrote it (" +
                            std::to_string(g.writers) + ")",
                        "run bdcats with " + std::to_string(g.writers) + " ranks, or give --writers");
        const auto [a, e] = even_part(g.shape[0], rank, readers);
        first = a;
        len = e - a;
    }
    std::vector<std::int64_t> start(g.shape.size(), 0), count(g.shape.begin(), g.shape.end());
    start[0] = static_cast<std::int64_t>(first);
    switch (cfg.read) {
        case ReadOption::Full:
            count[0] = static_cast<std::int64_t>(len);
            if (len > 0) s.add_block(start.data(), count.data());
            break;
        case ReadOption::Partial: {
            // h5bench's default without TO_READ_NUM_PARTICLES: the rank's whole part.
            const std::uint64_t to_read = cfg.to_read ? cfg.to_read : len;
            if (to_read > len)
                throw Error(what + ": TO_READ_NUM_PARTICLES=" + n2s(cfg.to_read) + " exceeds rank " +
                                std::to_string(rank) + "'s " + n2s(len) + " particles",
                            "read at most the particles each rank's part holds");
            count[0] = static_cast<std::int64_t>(to_read);
            if (to_read > 0) s.add_block(start.data(), count.data());
            break;
        }
        case ReadOption::Strided: {
            if (cfg.stride < cfg.block_size)
                throw Error(what + ": STRIDE_SIZE " + n2s(cfg.stride) + " < BLOCK_SIZE " + n2s(cfg.block_size),
                            "blocks would overlap; the stride is the distance between block starts");
            const std::uint64_t span = (cfg.block_cnt - 1) * cfg.stride + cfg.block_size;
            if (span > len)
                throw Error(what + ": BLOCK_CNT=" + n2s(cfg.block_cnt) + " blocks of BLOCK_SIZE=" +
                                n2s(cfg.block_size) + " every STRIDE_SIZE=" + n2s(cfg.stride) + " span " + n2s(span) +
                                " particles, more than rank " + std::to_string(rank) + "'s " + n2s(len),
                            "lower BLOCK_CNT or STRIDE_SIZE");
            for (std::uint64_t k = 0; k < cfg.block_cnt; ++k) {
                const std::int64_t st = static_cast<std::int64_t>(first + k * cfg.stride);
                const std::int64_t ct = static_cast<std::int64_t>(cfg.block_size);
                s.add_block(&st, &ct);
            }
            break;
        }
        default: throw Error(what + " is not a 1-D pattern");
    }
    return s;
}

}  // namespace iok::vpic

namespace iok::vpic {
Geometry own_file_geometry(const Config& cfg, int writers, int rank) {
    Geometry g = make_geometry(cfg, 1);
    if (cfg.stdev_dim_1 > 0 && cfg.num_dims == 1) {
        const auto all = normal_counts(cfg.dim[0], cfg.stdev_dim_1, cfg.seed, writers);
        g.counts = {all[static_cast<std::size_t>(rank)]};
        g.shape = {g.counts[0]};
    }
    return g;
}
}  // namespace iok::vpic
