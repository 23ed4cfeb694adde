#include "model/readback_plan.hpp"

#include <memory>
#include <utility>

#include "core/error.hpp"

namespace iok {

FilePlan contiguous_readback_plan(const FilePlan& written, int rank, int nranks) {
    if (written.constant_data || !written.fill_selection.empty())
        throw Error(
            "internal: a contiguous read-back needs pattern data in every element (no constant data, "
            "no fill selections)");
    FilePlan p = written;
    p.selection.resize(p.spec.vars.size());
    p.memory_struct.clear();  // packed buffers: the layout read into is ours to choose
    p.sole_rank.clear();      // every variable is spread over the readers
    p.requests = 0;
    const auto r = static_cast<std::uint64_t>(rank), n = static_cast<std::uint64_t>(nranks);
    for (std::size_t v = 0; v < p.spec.vars.size(); ++v) {
        std::vector<std::uint64_t> shape = p.spec.fixed_shape(p.spec.vars[v]);
        const std::uint64_t total = p.spec.fixed_elements(p.spec.vars[v]);
        // [total*r/n, total*(r+1)/n): balanced to one element, every element once
        const auto first = static_cast<std::int64_t>(total * r / n),
                   last = static_cast<std::int64_t>(total * (r + 1) / n);
        std::vector<Run> range;
        if (last > first) range.push_back({first, last - first});
        // `shape` is moved, not copied: GCC 14 warns (-Warray-bounds, a false
        // positive) on copying a vector it cannot prove non-empty here.
        const bool scalar = shape.empty();
        auto sel = std::make_shared<const Selection>(
            scalar ? (range.empty() ? Selection(std::move(shape)) : Selection::whole(std::move(shape)))
                   : Selection::from_ranges(std::move(shape), range));
        p.requests += sel->nblocks();
        p.selection[v] = std::move(sel);
    }
    return p;
}

}  // namespace iok
