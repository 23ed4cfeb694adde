#include "backends/netcdf4_calls.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace iok::nc4 {
namespace {

struct Box {
    std::vector<std::int64_t> start, count;
    std::vector<std::uint32_t> blocks;  // selection blocks inside, in merge order
    bool alive = true;
};

// Offset of each block's first element in the user buffer.
std::vector<std::uint64_t> user_offsets(const Selection& sel) {
    std::vector<std::uint64_t> off(sel.nblocks());
    std::uint64_t o = 0;
    for (std::size_t b = 0; b < sel.nblocks(); ++b) {
        off[b] = o;
        o += sel.block_elements(b);
    }
    return off;
}

// One pass along dimension d: boxes equal in every other dimension and
// touching along d become one.  Returns whether anything merged.
bool merge_along(std::vector<Box>& boxes, int nd, int d) {
    std::vector<std::uint32_t> idx;
    for (std::uint32_t i = 0; i < boxes.size(); ++i)
        if (boxes[i].alive) idx.push_back(i);
    auto same_elsewhere = [&](const Box& a, const Box& b) {
        for (int k = 0; k < nd; ++k)
            if (k != d && (a.start[k] != b.start[k] || a.count[k] != b.count[k])) return false;
        return true;
    };
    std::sort(idx.begin(), idx.end(), [&](std::uint32_t x, std::uint32_t y) {
        const Box &a = boxes[x], &b = boxes[y];
        for (int k = 0; k < nd; ++k) {
            if (k == d) continue;
            if (a.start[k] != b.start[k]) return a.start[k] < b.start[k];
            if (a.count[k] != b.count[k]) return a.count[k] < b.count[k];
        }
        return a.start[d] < b.start[d];
    });
    bool merged = false;
    std::size_t cur = 0;
    for (std::size_t i = 1; i < idx.size(); ++i) {
        Box& a = boxes[idx[cur]];
        Box& b = boxes[idx[i]];
        if (same_elsewhere(a, b) && a.start[d] + a.count[d] == b.start[d]) {
            a.count[d] += b.count[d];
            a.blocks.insert(a.blocks.end(), b.blocks.begin(), b.blocks.end());
            b.alive = false;
            merged = true;
        } else {
            cur = i;
        }
    }
    return merged;
}

// The copies between the user buffer and a row-major region (rstart, rcount)
// holding `blocks`: one per row of each block, joined where both sides run on.
void add_copies(const Selection& sel, const std::vector<std::uint64_t>& uoff, const std::vector<std::uint32_t>& blocks,
                const std::vector<std::uint64_t>& rstart, const std::vector<std::uint64_t>& rcount,
                std::vector<Copy>& out) {
    const int nd = sel.ndims();
    std::vector<std::uint64_t> stride(nd, 1);
    for (int k = nd - 2; k >= 0; --k) stride[k] = stride[k + 1] * rcount[k + 1];
    std::vector<std::int64_t> i(nd, 0);
    for (std::uint32_t b : blocks) {
        const std::int64_t* s = sel.start(b);
        const std::int64_t* c = sel.count(b);
        const std::uint64_t len = static_cast<std::uint64_t>(c[nd - 1]);
        std::uint64_t user = uoff[b];
        std::fill(i.begin(), i.end(), 0);
        for (;;) {
            std::uint64_t local = 0;
            for (int k = 0; k < nd; ++k) local += (static_cast<std::uint64_t>(s[k] + i[k]) - rstart[k]) * stride[k];
            if (!out.empty() && out.back().user + out.back().length == user &&
                out.back().local + out.back().length == local)
                out.back().length += len;
            else
                out.push_back({user, local, len});
            user += len;
            int k = nd - 2;
            for (; k >= 0; --k) {
                if (++i[k] < c[k]) break;
                i[k] = 0;
            }
            if (k < 0) break;
        }
    }
}

Call make_call(const Selection& sel, const std::vector<std::uint64_t>& uoff, const std::vector<std::uint32_t>& blocks,
               std::vector<std::uint64_t> start, std::vector<std::uint64_t> count) {
    Call c;
    c.elements = 1;
    for (auto n : count) c.elements *= n;
    add_copies(sel, uoff, blocks, start, count, c.copies);
    c.start = std::move(start);
    c.count = std::move(count);
    if (c.copies.size() == 1 && c.copies[0].local == 0 && c.copies[0].length == c.elements) {
        c.direct = static_cast<std::int64_t>(c.copies[0].user);
        c.copies.clear();
    }
    return c;
}

bool row_major_less(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
}

std::vector<Box> merged_boxes(const Selection& sel) {
    const int nd = sel.ndims();
    std::vector<Box> boxes;
    for (std::size_t b = 0; b < sel.nblocks(); ++b) {
        if (sel.block_elements(b) == 0) continue;
        Box x;
        x.start.assign(sel.start(b), sel.start(b) + nd);
        x.count.assign(sel.count(b), sel.count(b) + nd);
        x.blocks.push_back(static_cast<std::uint32_t>(b));
        boxes.push_back(std::move(x));
    }
    // Fastest dimension first; repeat until a whole round merges nothing
    // (two level-merged column runs may then touch along the columns).
    for (bool again = nd > 0; again;) {
        again = false;
        for (int d = nd - 1; d >= 0; --d) again = merge_along(boxes, nd, d) || again;
    }
    boxes.erase(std::remove_if(boxes.begin(), boxes.end(), [](const Box& b) { return !b.alive; }), boxes.end());
    std::sort(boxes.begin(), boxes.end(), [](const Box& a, const Box& b) { return row_major_less(a.start, b.start); });
    return boxes;
}

std::vector<std::uint64_t> u64(const std::vector<std::int64_t>& v) { return {v.begin(), v.end()}; }

void finish(CallPlan& p, const Selection& sel) {
    p.selected = sel.elements();
    for (const Call& c : p.calls) {
        p.moved += c.elements;
        if (c.direct < 0) p.staging = std::max(p.staging, c.elements);
    }
}

CallPlan scalar_calls(const Selection& sel) {
    const auto uoff = user_offsets(sel);
    CallPlan p;
    for (std::size_t b = 0; b < sel.nblocks(); ++b) {
        if (sel.block_elements(b) == 0) continue;
        Call c;
        c.elements = 1;
        c.direct = static_cast<std::int64_t>(uoff[b]);
        p.calls.push_back(std::move(c));
    }
    finish(p, sel);
    return p;
}

}  // namespace

CallPlan boxes(const Selection& sel) {
    if (sel.ndims() == 0) return scalar_calls(sel);
    const auto uoff = user_offsets(sel);
    CallPlan p;
    for (Box& b : merged_boxes(sel)) p.calls.push_back(make_call(sel, uoff, b.blocks, u64(b.start), u64(b.count)));
    finish(p, sel);
    return p;
}

CallPlan windows(const Selection& sel, std::uint64_t max_elements) {
    if (sel.ndims() == 0 || max_elements == 0) return boxes(sel);
    const int nd = sel.ndims();
    const auto uoff = user_offsets(sel);
    const auto bx = merged_boxes(sel);
    CallPlan p;
    std::size_t i = 0;
    while (i < bx.size()) {
        std::vector<std::int64_t> lo = bx[i].start, hi(nd);
        for (int k = 0; k < nd; ++k) hi[k] = lo[k] + bx[i].count[k];
        std::vector<std::uint32_t> blocks = bx[i].blocks;
        std::size_t j = i + 1;
        for (; j < bx.size(); ++j) {
            std::uint64_t n = 1;
            std::vector<std::int64_t> l2(nd), h2(nd);
            for (int k = 0; k < nd; ++k) {
                l2[k] = std::min(lo[k], bx[j].start[k]);
                h2[k] = std::max(hi[k], bx[j].start[k] + bx[j].count[k]);
                n *= static_cast<std::uint64_t>(h2[k] - l2[k]);
            }
            if (n > max_elements) break;
            lo = std::move(l2);
            hi = std::move(h2);
            blocks.insert(blocks.end(), bx[j].blocks.begin(), bx[j].blocks.end());
        }
        std::vector<std::uint64_t> count(nd);
        for (int k = 0; k < nd; ++k) count[k] = static_cast<std::uint64_t>(hi[k] - lo[k]);
        p.calls.push_back(make_call(sel, uoff, blocks, u64(lo), std::move(count)));
        i = j;
    }
    finish(p, sel);
    return p;
}

void gather(const Call& c, const char* user, char* staging, std::size_t es) {
    for (const Copy& k : c.copies) std::memcpy(staging + k.local * es, user + k.user * es, k.length * es);
}

void scatter(const Call& c, const char* staging, char* user, std::size_t es) {
    for (const Copy& k : c.copies) std::memcpy(user + k.user * es, staging + k.local * es, k.length * es);
}

}  // namespace iok::nc4
