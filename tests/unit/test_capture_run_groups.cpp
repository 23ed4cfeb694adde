// Trace format 2's run encoding (src/capture/run_groups.hpp): runs folded
// into groups and repeated blocks by the capture library come back exactly,
// in order, from the reader; the folding finds E3SM's per-level repeats;
// damaged encodings are refused with a message.
#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "capture/run_groups.hpp"
#include "core/error.hpp"
#include "kernels/replay/trace.hpp"

namespace {

using Runs = std::vector<std::pair<std::int64_t, std::int64_t>>;

std::vector<std::int64_t> encode(const Runs& r) { return iok_runs::fold_groups(iok_runs::group_runs(r)); }

Runs decode(const std::vector<std::int64_t>& flat, std::string* err = nullptr) {
    Runs out;
    const std::string e = iok_runs::unfold_runs(flat, std::int64_t{1} << 20,
                                                [&](std::int64_t o, std::int64_t l) { out.emplace_back(o, l); });
    if (err)
        *err = e;
    else
        EXPECT_EQ(e, "");
    return out;
}

bool has_repeat(const std::vector<std::int64_t>& flat) {
    for (std::size_t i = 3; i < flat.size(); i += 4)
        if (flat[i] == 0) return true;
    return false;
}

// One "level": irregular runs of 1-3 elements of 8 bytes over `ncol` columns.
Runs level(std::mt19937_64& g, std::int64_t ncol) {
    Runs r;
    std::int64_t c = static_cast<std::int64_t>(g() % 3);
    while (c < ncol) {
        const std::int64_t n = 1 + static_cast<std::int64_t>(g() % 3);
        if (c + n > ncol) break;
        r.emplace_back(c * 8, n * 8);
        c += n + 1 + static_cast<std::int64_t>(g() % 4);
    }
    return r;
}

}  // namespace

TEST(CaptureRunGroups, E3smLevelsFoldToOneLevelAndRoundTrip) {
    std::mt19937_64 g(7);
    const std::int64_t ncol = 866, nlev = 72;
    const Runs one = level(g, ncol);
    Runs all;
    for (std::int64_t k = 0; k < nlev; ++k)
        for (const auto& [o, l] : one) all.emplace_back(o + k * ncol * 8, l);
    const auto flat = encode(all);
    EXPECT_TRUE(has_repeat(flat));
    // about one level's groups plus one repeat group (not nlev levels)
    EXPECT_LE(flat.size(), iok_runs::group_runs(one).size() * 4 + 8);
    EXPECT_EQ(decode(flat), all);
}

TEST(CaptureRunGroups, RandomListsRoundTrip) {
    std::mt19937_64 g(42);
    for (int trial = 0; trial < 300; ++trial) {
        Runs r;
        const int kind = trial % 4;
        std::int64_t at = static_cast<std::int64_t>(g() % 5);
        if (kind == 0) {  // irregular
            for (int i = 0, n = static_cast<int>(g() % 200); i < n; ++i) {
                const std::int64_t len = 1 + static_cast<std::int64_t>(g() % 9);
                r.emplace_back(at, len);
                at += len + static_cast<std::int64_t>(g() % 7);
            }
        } else {  // a random block repeated with a random shift, sometimes perturbed, with a random tail
            Runs block;
            for (int i = 0, n = 1 + static_cast<int>(g() % 12); i < n; ++i) {
                const std::int64_t len = 1 + static_cast<std::int64_t>(g() % 4);
                block.emplace_back(at, len);
                at += len + static_cast<std::int64_t>(g() % 3);
            }
            const std::int64_t shift = at + static_cast<std::int64_t>(g() % 10) - (kind == 3 ? at / 2 : 0);
            const int reps = 1 + static_cast<int>(g() % 20);
            for (int k = 0; k < reps; ++k)
                for (const auto& [o, l] : block) r.emplace_back(o + k * shift, l);
            if (kind == 2 && !r.empty()) r[g() % r.size()].second += 1;  // one run differs
            for (int i = 0, n = static_cast<int>(g() % 5); i < n; ++i) r.emplace_back(r.back().first + 100, 3);
        }
        EXPECT_EQ(decode(encode(r)), r) << "trial " << trial;
    }
}

TEST(CaptureRunGroups, AdversarialListsRoundTrip) {
    // Equal runs at one stride (one group), equal gaps almost periodic
    // (windows match, blocks do not), overlapping and descending runs (a
    // struct filetype), and a long nearly-periodic list that exhausts the
    // folding budget: all must come back exactly.
    std::vector<Runs> cases;
    Runs a;
    for (int i = 0; i < 10000; ++i) a.emplace_back(i * 16, 8);
    cases.push_back(a);
    Runs b;
    for (int i = 0; i < 5000; ++i) b.emplace_back(i * 10, i % 97 == 96 ? 3 : 2);
    cases.push_back(b);
    cases.push_back({{100, 4}, {50, 4}, {0, 4}, {100, 4}, {50, 4}, {0, 4}, {102, 1}});
    cases.push_back({{0, 10}, {5, 10}, {0, 10}, {5, 10}, {0, 10}, {5, 10}});
    Runs c;
    std::mt19937_64 g(3);
    for (int i = 0; i < 60000; ++i)
        c.emplace_back(i * 12 + static_cast<std::int64_t>(i % 1000 == 999 ? g() % 2 : 0), 4 + (i % 3 ? 0 : 4));
    cases.push_back(c);
    cases.push_back({});
    cases.push_back({{0, 1}});
    for (std::size_t k = 0; k < cases.size(); ++k) EXPECT_EQ(decode(encode(cases[k])), cases[k]) << "case " << k;
}

TEST(CaptureRunGroups, DamagedEncodingsAreRefused) {
    std::string err;
    decode({0, 8, 0, 1, 5}, &err);
    EXPECT_NE(err.find("groups of 4"), std::string::npos) << err;
    decode({0, 8, 0, 1, 2, 3, 100, 0}, &err);  // a repeat of 2 groups after one
    EXPECT_NE(err.find("does not follow"), std::string::npos) << err;
    decode({0, 8, 0, 1, 1, 1, 100, 0}, &err);  // n < 2
    EXPECT_NE(err.find("does not follow"), std::string::npos) << err;
    decode({0, 8, 0, 1, 1, 3, 100, 0, 1, 3, 100, 0}, &err);  // a repeat of a repeat
    EXPECT_NE(err.find("does not follow"), std::string::npos) << err;
    decode({0, 8, 0, 1, 1, std::int64_t{1} << 40, 100, 0}, &err);
    EXPECT_NE(err.find("more than"), std::string::npos) << err;
    decode({0, 8, INT64_MAX / 2, 3}, &err);
    EXPECT_NE(err.find("overflows"), std::string::npos) << err;
    decode({0, 0, 0, 1}, &err);
    EXPECT_NE(err.find("length 0"), std::string::npos) << err;
    EXPECT_EQ(decode({0, 8, 0, 1, 1, 3, 100, 0}), (Runs{{0, 8}, {100, 8}, {200, 8}}));
}

TEST(CaptureRunGroups, TraceReaderReadsBothVersions) {
    // The same shape (a level of 3 runs repeated 4 times) as version 1
    // (plain groups) and version 2 (folded), with a version-2 access record.
    const std::string v1 = R"({"format":"iokernels-trace","version":1,"nranks":1,"ranks":[{"rank":0,
      "sessions":[{"file":"f","amode":5,"comm_size":1,"comm_rank":0,"open":0,"close":1,
        "ops":[[1,1,0,0,12,1,0,0,0.1,0.2,0.1]]}],
      "shapes":[{"size":1,"extent":1,"runs":[0,1,0,1]},
                {"size":12,"extent":400,"runs":[0,2,0,1,10,1,0,1,100,2,0,1,110,1,0,1,200,2,0,1,210,1,0,1,300,2,0,1,310,1,0,1]}]}]})";
    std::string v2 = v1;
    v2.replace(v2.find("\"version\":1"), 11, "\"version\":2");
    v2.replace(v2.find("0.1,0.2,0.1]"), 12, "0.1,0.2,0.1,1,0]");
    v2.replace(v2.find("[0,2,0,1,10,1,0,1,100,2"),
               std::string("[0,2,0,1,10,1,0,1,100,2,0,1,110,1,0,1,200,2,0,1,210,1,0,1,300,2,0,1,310,1,0,1]").size(),
               "[0,2,0,1,10,1,0,1,2,4,100,0]");
    const auto a = iok::replay::parse_trace(v1, "v1"), b = iok::replay::parse_trace(v2, "v2");
    ASSERT_EQ(a.shapes[0][1].runs.size(), 8u);
    ASSERT_EQ(b.shapes[0][1].runs.size(), 8u);
    for (std::size_t i = 0; i < 8; ++i) {
        EXPECT_EQ(a.shapes[0][1].runs[i].offset, b.shapes[0][1].runs[i].offset);
        EXPECT_EQ(a.shapes[0][1].runs[i].length, b.shapes[0][1].runs[i].length);
    }
    EXPECT_EQ(b.files[0].sessions[0].ops[0].views, 1);
    EXPECT_EQ(a.files[0].sessions[0].ops[0].views, 0);
    // version 1 with a version-2 repeat group, or a version-2 access record of 11 numbers: refused
    std::string bad1 = v1;
    bad1.replace(bad1.find("[0,2,0,1,10,1,0,1,100,2"),
                 std::string("[0,2,0,1,10,1,0,1,100,2,0,1,110,1,0,1,200,2,0,1,210,1,0,1,300,2,0,1,310,1,0,1]").size(),
                 "[0,2,0,1,10,1,0,1,2,4,100,0]");
    EXPECT_THROW(iok::replay::parse_trace(bad1, "bad1"), iok::Error);
    std::string bad2 = v2;
    bad2.replace(bad2.find("0.1,0.2,0.1,1,0]"), 16, "0.1,0.2,0.1]");
    EXPECT_THROW(iok::replay::parse_trace(bad2, "bad2"), iok::Error);
}
