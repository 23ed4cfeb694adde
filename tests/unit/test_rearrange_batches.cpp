// The rearranger hands the library one exchange at a time and lets it
// complete (flush) those requests before the next exchange re-uses the
// aggregation buffer: an aggregator holds one exchange's data, not the whole
// flush's (issue 33: ne30 F h0 on one aggregator held all 1.8 GiB).  A
// library double sees each request's buffer only at its flush, as PnetCDF's
// wait does, so a buffer re-used too early shows as wrong values.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/strategy.hpp"
#include "double_backend.hpp"

using namespace iok;

namespace {

struct Seen {
    std::vector<std::size_t> requests_per_flush;
    std::size_t most_bytes_at_a_flush = 0;
    std::vector<std::vector<double>> values;  // per variable, as the library read them at its flush
};

class WatchingFile final : public File {
public:
    explicit WatchingFile(Seen& seen) : seen_(seen) {}
    void define(const FileSpec&) override {}
    bool do_put(int var, const Selection& sel, std::int64_t, const void* buf) override {
        pending_.push_back({var, static_cast<const double*>(buf), sel.elements()});
        return true;
    }
    void do_get(int, const Selection&, std::int64_t, void*) override {}
    void flush() override {
        std::size_t bytes = 0;
        for (const Pending& p : pending_) {
            bytes += p.n * sizeof(double);
            auto& v = seen_.values.at(static_cast<std::size_t>(p.var));
            v.assign(p.buf, p.buf + p.n);
        }
        seen_.requests_per_flush.push_back(pending_.size());
        seen_.most_bytes_at_a_flush = std::max(seen_.most_bytes_at_a_flush, bytes);
        pending_.clear();
    }
    void close() override {}
    std::string library() const override { return "a library that reads its buffers at the flush"; }

private:
    struct Pending {
        int var;
        const double* buf;
        std::uint64_t n;
    };
    Seen& seen_;
    std::vector<Pending> pending_;
};

constexpr std::uint64_t kElements = 256;  // 2 KiB of doubles per variable
constexpr int kVars = 3;

FileSpec spec_of_three() {
    FileSpec s;
    s.dims = {{"x", kElements, false}};
    for (int v = 0; v < kVars; ++v) {
        VarSpec var;
        var.name = "v" + std::to_string(v);
        var.type = DType::Double;
        var.dims.assign(1, 0);  // x (not `= {0}`: GCC 14 with ASan at -O2 warns -Warray-bounds on it here)
        s.vars.push_back(var);
    }
    return s;
}

// Writes the three variables in one flush of the rearranger (one rank, its
// own aggregator) with `batch_bytes` per exchange; what the library saw.
Seen write_three(std::int64_t batch_bytes) {
    Seen seen;
    seen.values.resize(kVars);
    auto be = make_rearrange_backend(
        std::make_unique<iok_test::DoubleBackend>("watching", [&seen] { return std::make_unique<WatchingFile>(seen); }),
        1, batch_bytes);
    const FileSpec spec = spec_of_three();
    auto f = be->create("unused.none", spec, MPI_COMM_SELF);
    f->define(spec);
    const Selection sel = Selection::whole({kElements});
    std::vector<std::vector<double>> data(kVars, std::vector<double>(kElements));
    for (int v = 0; v < kVars; ++v) {
        for (std::uint64_t i = 0; i < kElements; ++i) data[v][i] = 1000.0 * v + static_cast<double>(i);
        f->put(v, sel, 0, data[v].data());
    }
    f->flush();
    f->close();
    return seen;
}

void expect_values(const Seen& seen) {
    for (int v = 0; v < kVars; ++v) {
        SCOPED_TRACE("variable " + std::to_string(v));
        const auto& got = seen.values.at(static_cast<std::size_t>(v));
        ASSERT_EQ(got.size(), kElements);
        for (std::uint64_t i = 0; i < kElements; ++i)
            ASSERT_EQ(got[i], 1000.0 * v + static_cast<double>(i)) << "element " << i;
    }
}

}  // namespace

TEST(RearrangeBatches, EachExchangeIsCompletedBeforeTheNextReusesTheBuffer) {
    // 2 KiB per exchange: each variable travels, and reaches the library, alone
    const Seen seen = write_three(2048);
    EXPECT_EQ(seen.requests_per_flush, (std::vector<std::size_t>{1, 1, 1}));
    EXPECT_EQ(seen.most_bytes_at_a_flush, kElements * sizeof(double));
    expect_values(seen);
}

TEST(RearrangeBatches, OneExchangeForAFlushThatFits) {
    const Seen seen = write_three(1 << 20);
    EXPECT_EQ(seen.requests_per_flush, (std::vector<std::size_t>{kVars}));
    EXPECT_EQ(seen.most_bytes_at_a_flush, kVars * kElements * sizeof(double));
    expect_values(seen);
}
