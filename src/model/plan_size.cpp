#include "model/plan_size.hpp"

#include <algorithm>

#include "core/resource_check.hpp"

namespace iok {

namespace {

struct Split {
    std::uint64_t fixed = 0, per_record = 0;
};

Split split_bytes(const FilePlan& p) {
    Split s;
    for (std::size_t i = 0; i < p.spec.vars.size(); ++i) {
        const VarSpec& v = p.spec.vars[i];
        std::uint64_t elems = 0;
        if (i < p.selection.size() && p.selection[i]) elems = saturating_add(elems, p.selection[i]->elements());
        if (i < p.fill_selection.size() && p.fill_selection[i])
            elems = saturating_add(elems, p.fill_selection[i]->elements());
        const std::uint64_t b = saturating_mul(elems, dtype_size(v.type));
        if (v.is_record(p.spec))
            s.per_record = saturating_add(s.per_record, b);
        else
            s.fixed = saturating_add(s.fixed, b);
    }
    return s;
}

}  // namespace

std::uint64_t plan_buffer_bytes(const FilePlan& plan, int records_per_call) {
    const Split s = split_bytes(plan);
    const int nrec = std::max(plan.nrecords, 0);
    int k = records_per_call > 0 ? records_per_call : plan.flush_every > 0 ? plan.flush_every : nrec;
    k = std::min(k, nrec);
    return saturating_add(s.fixed, saturating_mul(s.per_record, static_cast<std::uint64_t>(std::max(k, 0))));
}

std::uint64_t plan_file_bytes(const FilePlan& plan) {
    const Split s = split_bytes(plan);
    return saturating_add(s.fixed,
                          saturating_mul(s.per_record, static_cast<std::uint64_t>(std::max(plan.nrecords, 0))));
}

}  // namespace iok
