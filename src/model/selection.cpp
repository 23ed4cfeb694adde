#include "model/selection.hpp"

#include <atomic>

#include <algorithm>
#include <string>

#include "core/error.hpp"

namespace iok {

std::uint64_t Selection::next_id() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
}

Selection::Selection(std::vector<std::uint64_t> shape) : id_(next_id()), shape_(std::move(shape)) {}

Selection Selection::whole(std::vector<std::uint64_t> shape) {
    Selection s(std::move(shape));
    std::vector<std::int64_t> start(s.shape_.size(), 0), count(s.shape_.begin(), s.shape_.end());
    s.add_block(start.data(), count.data());
    return s;
}

Selection Selection::block(std::vector<std::uint64_t> shape, std::vector<std::int64_t> start,
                           std::vector<std::int64_t> count) {
    Selection s(std::move(shape));
    if (start.size() != s.shape_.size() || count.size() != s.shape_.size())
        throw Error("block rank does not match the variable's rank");
    s.add_block(start.data(), count.data());
    return s;
}

Selection Selection::from_runs(std::vector<std::uint64_t> shape, const std::vector<Run>& runs) {
    Selection s(std::move(shape));  // a fresh selection: one id for all its blocks
    const std::size_t nd = s.shape_.size();
    std::uint64_t total = 1;
    for (auto d : s.shape_) total *= d;
    const std::int64_t fastest = nd ? static_cast<std::int64_t>(s.shape_.back()) : 1;
    s.starts_.reserve(runs.size() * nd);
    s.counts_.reserve(runs.size() * nd);
    // Blocks appended here, not through add_block: an E3SM map is 10^5
    // runs per rank (ne30), and per run add_block took a new id (an atomic
    // increment), re-checked bounds checked here already, and this loop
    // divided four times; now once (row and column from one division).
    for (const Run& r : runs) {
        if (r.length <= 0) continue;
        if (r.offset < 0 || static_cast<std::uint64_t>(r.offset + r.length) > total)
            throw Error("run [" + std::to_string(r.offset) + ", +" + std::to_string(r.length) +
                        ") lies outside an array of " + std::to_string(total) + " elements");
        std::int64_t rest = r.offset / fastest;
        const std::int64_t column = r.offset - rest * fastest;
        if (column + r.length > fastest)
            throw Error("run at offset " + std::to_string(r.offset) + " of length " + std::to_string(r.length) +
                        " crosses a row of the fastest dimension");
        if (nd == 0) {
            ++s.nblocks_;
            s.elements_ += 1;
            continue;
        }
        const std::size_t at = s.starts_.size();
        s.starts_.resize(at + nd);
        s.counts_.resize(at + nd, 1);
        s.starts_[at + nd - 1] = column;
        s.counts_[at + nd - 1] = r.length;
        for (std::size_t d = nd - 1; d-- > 1;) {  // the middle dimensions: the row index's digits
            const auto len = static_cast<std::int64_t>(s.shape_[d]);
            s.starts_[at + d] = rest % len;
            rest /= len;
        }
        if (nd > 1) s.starts_[at] = rest;  // the slowest: what is left (the run lies inside the array)
        ++s.nblocks_;
        s.elements_ += static_cast<std::uint64_t>(r.length);
    }
    return s;
}

Selection Selection::from_ranges(std::vector<std::uint64_t> shape, const std::vector<Run>& ranges) {
    Selection s(std::move(shape));
    const int nd = static_cast<int>(s.shape_.size());
    std::uint64_t total = 1;
    for (auto d : s.shape_) total *= d;
    if (nd == 0) {
        for (const Run& r : ranges)
            if (r.length > 0) s.add_block(nullptr, nullptr);
        return s;
    }
    std::vector<std::int64_t> stride(static_cast<std::size_t>(nd), 1);
    for (int d = nd - 1; d > 0; --d) stride[d - 1] = stride[d] * static_cast<std::int64_t>(s.shape_[d]);
    std::vector<std::int64_t> start(static_cast<std::size_t>(nd)), count(static_cast<std::size_t>(nd));
    // Block of n units of dimension `level` starting at flat offset a (a is
    // aligned to stride[level]): dims above fixed, dims below whole.
    auto emit = [&](std::int64_t a, int level, std::int64_t n) {
        for (int d = 0; d < nd; ++d) {
            start[d] = (a / stride[d]) % static_cast<std::int64_t>(s.shape_[d]);
            count[d] = d < level ? 1 : d == level ? n : static_cast<std::int64_t>(s.shape_[d]);
        }
        s.add_block(start.data(), count.data());
    };
    for (const Run& r : ranges) {
        if (r.length <= 0) continue;
        if (r.offset < 0 || static_cast<std::uint64_t>(r.offset + r.length) > total)
            throw Error("range [" + std::to_string(r.offset) + ", +" + std::to_string(r.length) +
                        ") lies outside an array of " + std::to_string(total) + " elements");
        std::int64_t a = r.offset;
        const std::int64_t b = r.offset + r.length;
        // leading pieces, fine to coarse, until a is aligned to a whole slab
        for (int d = nd - 1; d >= 1 && a < b; --d) {
            const std::int64_t up = stride[d - 1];
            if (a % up == 0) continue;
            const std::int64_t lim = std::min(b, (a / up + 1) * up);
            const std::int64_t n = (lim - a) / stride[d];
            if (n > 0) {
                emit(a, d, n);
                a += n * stride[d];
            }
            if (a % up != 0) break;  // b falls inside this slab: finish below
        }
        // middle, then trailing pieces coarse to fine
        for (int d = 0; d < nd && a < b; ++d) {
            const std::int64_t n = (b - a) / stride[d];
            if (n > 0) {
                emit(a, d, n);
                a += n * stride[d];
            }
        }
    }
    return s;
}

void Selection::add_block(const std::int64_t* start, const std::int64_t* count) {
    id_ = next_id();  // new content, new identity
    std::uint64_t n = 1;
    for (std::size_t d = 0; d < shape_.size(); ++d) {
        if (start[d] < 0 || count[d] < 0 || static_cast<std::uint64_t>(start[d] + count[d]) > shape_[d])
            throw Error("block exceeds dimension " + std::to_string(d) + " of length " + std::to_string(shape_[d]));
        n *= static_cast<std::uint64_t>(count[d]);
    }
    starts_.insert(starts_.end(), start, start + shape_.size());
    counts_.insert(counts_.end(), count, count + shape_.size());
    ++nblocks_;
    elements_ += n;
}

std::uint64_t Selection::block_elements(std::size_t b) const {
    std::uint64_t n = 1;
    const std::int64_t* c = count(b);
    for (std::size_t d = 0; d < shape_.size(); ++d) n *= static_cast<std::uint64_t>(c[d]);
    return n;
}

std::vector<Run> Selection::runs() const {
    std::vector<Run> out;
    for_each_run([&](std::int64_t off, std::int64_t len) { out.push_back({off, len}); });
    return out;
}

}  // namespace iok
