// VPIC/BDCATS geometry: the element sets each write and read pattern
// selects, checked element by element against independent definitions, on
// 1, 4 and 16 ranks; normal-distribution counts are deterministic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/error.hpp"
#include "kernels/vpic/vpic_geometry.hpp"
#include "kernels/vpic/vpic_plan.hpp"

using namespace iok::vpic;

namespace {

// Flattened element indices of a selection; fails on an element selected twice.
std::multiset<std::int64_t> elements(const iok::Selection& s) {
    std::multiset<std::int64_t> out;
    s.for_each_run([&](std::int64_t off, std::int64_t len) {
        for (std::int64_t i = 0; i < len; ++i) out.insert(off + i);
    });
    return out;
}

// Union over all readers, asserting no element is read by two ranks.
std::set<std::int64_t> read_union(const Geometry& g, const Config& c, int readers) {
    std::set<std::int64_t> all;
    for (int r = 0; r < readers; ++r) {
        auto s = read_selection(g, c, r, readers);
        EXPECT_EQ(s.shape(), g.shape);
        for (auto e : elements(s)) EXPECT_TRUE(all.insert(e).second) << "element " << e << " read twice";
    }
    return all;
}

Config two_d(std::uint64_t d1, std::uint64_t d2, ReadOption r) {
    Config c;
    c.num_dims = 2;
    c.dim[0] = d1;
    c.dim[1] = d2;
    c.read = r;
    return c;
}

}  // namespace

TEST(VpicGeometry, WriteCovers1D2D3D) {
    for (int P : {1, 4, 16}) {
        for (int nd = 1; nd <= 3; ++nd) {
            Config c;
            c.num_dims = nd;
            c.dim[0] = 6;
            if (nd > 1) c.dim[1] = 5;
            if (nd > 2) c.dim[2] = 3;
            auto g = make_geometry(c, P);
            std::uint64_t total = 1;
            for (auto d : g.shape) total *= d;
            EXPECT_EQ(total, static_cast<std::uint64_t>(P) * c.particles_per_rank());
            EXPECT_EQ(g.shape[0], 6u * (nd == 1 ? static_cast<std::uint64_t>(P) : static_cast<std::uint64_t>(P)));
            std::set<std::int64_t> all;
            for (int r = 0; r < P; ++r) {
                auto s = write_selection(g, c, r);
                EXPECT_EQ(s.elements(), c.particles_per_rank());
                // rank r's elements are [r n, (r+1) n) in C order
                auto e = elements(s);
                EXPECT_EQ(*e.begin(), static_cast<std::int64_t>(r * c.particles_per_rank()));
                EXPECT_EQ(*e.rbegin(), static_cast<std::int64_t>((r + 1) * c.particles_per_rank() - 1));
                for (auto x : e) EXPECT_TRUE(all.insert(x).second);
            }
            EXPECT_EQ(all.size(), total);
        }
    }
}

TEST(VpicGeometry, StridedWrite) {
    Config c;
    c.file = FilePattern::Strided;
    c.dim[0] = 20;  // each rank's region; 4 blocks of 3 every 5 span 18 of it
    c.block_size = 3;
    c.block_cnt = 4;
    c.stride = 5;
    auto g = make_geometry(c, 4);
    EXPECT_EQ(g.shape, (std::vector<std::uint64_t>{4 * 20}));
    EXPECT_EQ(g.counts, (std::vector<std::uint64_t>(4, 12)));
    for (int r = 0; r < 4; ++r) {
        std::set<std::int64_t> expect;
        for (int k = 0; k < 4; ++k)
            for (int i = 0; i < 3; ++i) expect.insert(r * 20 + k * 5 + i);
        auto e = elements(write_selection(g, c, r));
        EXPECT_EQ(std::set<std::int64_t>(e.begin(), e.end()), expect);
        EXPECT_EQ(e.size(), 12u);
        // STRIDED read with the same parameters reads exactly what was written
        auto rd = elements(read_selection(
            g,
            [&] {
                Config x = c;
                x.read = ReadOption::Strided;
                return x;
            }(),
            r, 4));
        EXPECT_EQ(rd, e);
    }
}

TEST(VpicGeometry, FullAndPartialAndStridedRead1D) {
    Config c;
    c.dim[0] = 10;
    auto g = make_geometry(c, 4);
    for (int Q : {1, 4, 16}) {
        c.read = ReadOption::Full;
        auto all = read_union(g, c, Q);
        EXPECT_EQ(all.size(), 40u);
        EXPECT_EQ(*all.rbegin(), 39);
    }
    c.read = ReadOption::Partial;
    c.to_read = 3;
    for (int r = 0; r < 4; ++r) {
        auto e = elements(read_selection(g, c, r, 4));
        EXPECT_EQ(e, (std::multiset<std::int64_t>{r * 10, r * 10 + 1, r * 10 + 2}));
    }
    c.to_read = 11;  // more than a rank holds
    EXPECT_THROW(read_selection(g, c, 0, 4), iok::Error);
    c.read = ReadOption::Strided;
    c.block_size = 2;
    c.stride = 4;
    c.block_cnt = 3;  // offsets 0,1, 4,5, 8,9 of each part
    for (int r = 0; r < 4; ++r) {
        auto e = elements(read_selection(g, c, r, 4));
        std::multiset<std::int64_t> expect;
        for (int k : {0, 1, 4, 5, 8, 9}) expect.insert(r * 10 + k);
        EXPECT_EQ(e, expect);
    }
    c.block_cnt = 4;  // span 14 > 10
    EXPECT_THROW(read_selection(g, c, 0, 4), iok::Error);
}

TEST(VpicGeometry, TwoDPatternsReadExactlyTheirElements) {
    // 4 writers x 5 rows = 20 rows, 12 columns
    const std::uint64_t R = 20, C = 12;
    struct Case {
        ReadOption r;
        std::uint64_t bs, bs2, st, st2;
    };
    const Case cases[] = {{ReadOption::Ldc, 3, 4, 1, 1},
                          {ReadOption::Rdc, 3, 4, 1, 1},
                          {ReadOption::Prl, 2, 3, 1, 1},
                          {ReadOption::Cs, 3, 2, 4, 3},
                          {ReadOption::Cs, 2, 2, 5, 1}};
    for (const Case& k : cases) {
        Config c = two_d(5, C, k.r);
        c.block_size = k.bs;
        c.block_size_2 = k.bs2;
        c.stride = k.st;
        c.stride_2 = k.st2;
        auto g = make_geometry(c, 4);
        ASSERT_EQ(g.shape, (std::vector<std::uint64_t>{R, C}));
        // independent definitions of each pattern
        std::set<std::int64_t> expect;
        for (std::uint64_t i = 0; i < R; ++i)
            for (std::uint64_t j = 0; j < C; ++j) {
                bool in = false;
                switch (k.r) {
                    case ReadOption::Ldc: in = (i < k.bs && j < k.bs2) || (i >= R - k.bs && j >= C - k.bs2); break;
                    case ReadOption::Rdc: in = (i < k.bs && j >= C - k.bs2) || (i >= R - k.bs && j < k.bs2); break;
                    case ReadOption::Prl: in = i < k.bs || i >= R - k.bs || j < k.bs2 || j >= C - k.bs2; break;
                    default:
                        for (std::uint64_t m = 0; m * k.st + k.bs <= R && m * k.st2 + k.bs2 <= C; ++m)
                            in =
                                in || (i >= m * k.st && i < m * k.st + k.bs && j >= m * k.st2 && j < m * k.st2 + k.bs2);
                }
                if (in) expect.insert(static_cast<std::int64_t>(i * C + j));
            }
        ASSERT_FALSE(expect.empty());
        for (int Q : {1, 4, 16}) {
            EXPECT_EQ(read_union(g, c, Q), expect) << name(k.r) << " on " << Q << " readers";
            // not rank 0 alone: every block's rows are shared by min(Q, rows) ranks
            if (Q == 4) {
                int busy = 0;
                for (int r = 0; r < Q; ++r) busy += read_selection(g, c, r, Q).elements() > 0;
                EXPECT_GE(busy, static_cast<int>(std::min<std::uint64_t>(4, k.bs))) << name(k.r);
            }
        }
    }
}

TEST(VpicGeometry, TwoDPatternSizesOutOfRangeAreRefused) {
    Config c = two_d(5, 12, ReadOption::Ldc);  // 20 x 12 on 4 writers
    auto g = make_geometry(c, 4);
    c.block_size = 21;  // taller than the array
    EXPECT_THROW(read_selection(g, c, 0, 4), iok::Error);
    c.block_size = 11;
    c.block_size_2 = 7;  // corner blocks overlap
    EXPECT_THROW(read_selection(g, c, 0, 4), iok::Error);
    c.read = ReadOption::Prl;
    c.block_size = 11;  // frame taller than half
    c.block_size_2 = 2;
    EXPECT_THROW(read_selection(g, c, 0, 4), iok::Error);
    c.read = ReadOption::Cs;
    c.block_size = 3;
    c.block_size_2 = 3;
    c.stride = 2;
    c.stride_2 = 2;  // overlapping blocks
    EXPECT_THROW(read_selection(g, c, 0, 4), iok::Error);
    Config one;
    one.read = ReadOption::Prl;
    auto g1 = make_geometry(one, 4);
    EXPECT_THROW(read_selection(g1, one, 0, 4), iok::Error);  // 2-D pattern, 1-D file
}

TEST(VpicGeometry, NormalCountsAreDeterministic) {
    auto a = normal_counts(100000, 20000, 7, 16);
    auto b = normal_counts(100000, 20000, 7, 16);
    auto d = normal_counts(100000, 20000, 8, 16);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, d);
    // The first ranks' counts do not depend on how many ranks there are.
    auto four = normal_counts(100000, 20000, 7, 4);
    EXPECT_EQ(std::vector<std::uint64_t>(a.begin(), a.begin() + 4), four);
    // Plausibly normal: a large sample has mean and spread close to asked.
    auto big = normal_counts(100000, 20000, 3, 4000);
    double mean = 0, var = 0;
    for (auto v : big) mean += static_cast<double>(v);
    mean /= big.size();
    for (auto v : big) var += (v - mean) * (v - mean);
    var /= big.size();
    EXPECT_NEAR(mean, 100000, 1500);
    EXPECT_NEAR(std::sqrt(var), 20000, 1500);
    // Geometry: prefix sums of those counts.
    Config c;
    c.dim[0] = 1000;
    c.stdev_dim_1 = 300;
    c.seed = 5;
    auto g = make_geometry(c, 16);
    auto n = normal_counts(1000, 300, 5, 16);
    std::uint64_t off = 0;
    for (int r = 0; r < 16; ++r) {
        auto s = write_selection(g, c, r);
        EXPECT_EQ(s.elements(), n[r]);
        if (n[r]) {
            EXPECT_EQ(s.start(0)[0], static_cast<std::int64_t>(off));
        }
        off += n[r];
    }
    EXPECT_EQ(g.shape[0], off);
}

TEST(VpicPlan, VariablesGroupsAndCompound) {
    Config c;
    c.timesteps = 3;
    c.file = FilePattern::Interleaved;
    c.compress = true;
    c.chunk[0] = 64;
    auto g = make_geometry(c, 2);
    auto p = particle_plan(c, g, write_selection(g, c, 0));
    ASSERT_EQ(p.spec.vars.size(), 8u);
    const char* names[] = {"x", "y", "z", "px", "py", "pz", "id_1", "id_2"};
    std::uint64_t bytes = 0;
    for (int f = 0; f < 8; ++f) {
        EXPECT_EQ(p.spec.vars[f].name, names[f]);
        EXPECT_EQ(p.spec.vars[f].compound, "particles");
        EXPECT_TRUE(p.spec.vars[f].is_record(p.spec));
        EXPECT_EQ(p.spec.vars[f].storage.chunk, (std::vector<std::uint64_t>{64}));
        bytes += iok::dtype_size(p.spec.vars[f].type);
    }
    EXPECT_EQ(bytes, kBytesPerParticle);
    EXPECT_EQ(p.spec.vars[6].type, iok::DType::Int);
    EXPECT_EQ(p.spec.record_group, "Timestep_");
    EXPECT_EQ(p.spec.expected_records, 3);
    EXPECT_EQ(p.nrecords, 3);
}
