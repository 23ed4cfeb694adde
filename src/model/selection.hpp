#pragma once
// The part of one variable that one rank accesses: a list of hyper-rectangular
// blocks (start/count over the variable's fixed, non-record dimensions), in the
// order their elements are packed in the user buffer.  This is the shape of
// PnetCDF's varn requests and maps directly onto HDF5 hyperslab unions and
// MPI-IO file views, so every backend can consume it without knowing which
// kernel produced it.  Selections are immutable and shared: all variables that
// use one decomposition point at the same object.
#include <cstdint>
#include <memory>
#include <vector>

namespace iok {

struct Run {              // contiguous elements in the flattened fixed space
    std::int64_t offset;  // flattened C-order element index
    std::int64_t length;  // elements
};

// Identity rule for caches: backends and strategies may cache work derived
// from a selection (MPI datatypes, varn arrays, rearrangement routes, index
// entries) under its id().  An id names one content for the life of the
// process: every constructed or modified selection gets a fresh id, copies
// share it (same content).  Unlike an address, an id is never reused by a
// later selection, so a cache needs no lifetime rule of its own.
class Selection {
public:
    Selection() : id_(next_id()) {}
    // A selection of nothing over a variable of this shape.
    explicit Selection(std::vector<std::uint64_t> shape);

    static Selection whole(std::vector<std::uint64_t> shape);
    static Selection block(std::vector<std::uint64_t> shape, std::vector<std::int64_t> start,
                           std::vector<std::int64_t> count);
    // Runs that each stay within the fastest dimension become blocks of
    // count (1, ..., 1, len).  Throws iok::Error if a run leaves the array or
    // crosses a row of the fastest dimension.
    static Selection from_runs(std::vector<std::uint64_t> shape, const std::vector<Run>& runs);

    // Arbitrary contiguous ranges of the flattened space (they may span rows,
    // planes, ...): each becomes at most 2*ndims-1 hyper-rectangular blocks.
    static Selection from_ranges(std::vector<std::uint64_t> shape, const std::vector<Run>& ranges);

    void add_block(const std::int64_t* start, const std::int64_t* count);

    int ndims() const { return static_cast<int>(shape_.size()); }
    const std::vector<std::uint64_t>& shape() const { return shape_; }
    std::size_t nblocks() const { return nblocks_; }
    const std::int64_t* start(std::size_t b) const { return starts_.data() + b * shape_.size(); }
    const std::int64_t* count(std::size_t b) const { return counts_.data() + b * shape_.size(); }
    std::uint64_t elements() const { return elements_; }
    std::uint64_t block_elements(std::size_t b) const;
    bool empty() const { return elements_ == 0; }
    std::uint64_t id() const { return id_; }  // see the identity rule above

    // Calls fn(flat_offset, length) for every contiguous run, in buffer order.
    template <class F>
    void for_each_run(F&& fn) const;

    // All runs, flattened (for backends that address bytes: MPI-IO, blob).
    std::vector<Run> runs() const;

private:
    static std::uint64_t next_id();
    std::uint64_t id_;
    std::vector<std::uint64_t> shape_;
    std::vector<std::int64_t> starts_, counts_;
    std::size_t nblocks_ = 0;
    std::uint64_t elements_ = 0;
};

using SelectionPtr = std::shared_ptr<const Selection>;

template <class F>
void Selection::for_each_run(F&& fn) const {
    const std::size_t nd = shape_.size();
    if (nd == 0) {
        for (std::size_t b = 0; b < nblocks_; ++b) fn(std::int64_t{0}, std::int64_t{1});
        return;
    }
    // strides of the flattened index
    std::vector<std::int64_t> stride(nd, 1);
    for (std::size_t d = nd - 1; d > 0; --d) stride[d - 1] = stride[d] * static_cast<std::int64_t>(shape_[d]);
    std::vector<std::int64_t> idx(nd);
    for (std::size_t b = 0; b < nblocks_; ++b) {
        const std::int64_t* s = start(b);
        const std::int64_t* c = count(b);
        // One row -- every block from_runs makes -- is one run: no odometer
        // (E3SM maps average one or two elements a run: issue 19).
        if (nd == 1) {
            if (c[0] > 0) fn(s[0], c[0]);
            continue;
        }
        if (nd == 2 && c[0] == 1) {
            if (c[1] > 0) fn(s[0] * stride[0] + s[1], c[1]);
            continue;
        }
        bool any = true;
        for (std::size_t d = 0; d < nd; ++d) any = any && c[d] > 0;
        if (!any) continue;
        // odometer over all but the fastest dimension: one run per row
        for (std::size_t d = 0; d < nd; ++d) idx[d] = 0;
        for (;;) {
            std::int64_t off = s[nd - 1];
            for (std::size_t d = 0; d + 1 < nd; ++d) off += (s[d] + idx[d]) * stride[d];
            fn(off, c[nd - 1]);
            int d = static_cast<int>(nd) - 2;
            for (; d >= 0; --d) {
                if (++idx[d] < c[d]) break;
                idx[d] = 0;
            }
            if (d < 0) break;
        }
    }
}

}  // namespace iok
