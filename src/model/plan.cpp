#include "model/plan.hpp"

#include <numeric>

namespace iok {

std::vector<int> FilePlan::write_order() const {
    if (!order.empty()) return order;
    std::vector<int> o(spec.vars.size());
    std::iota(o.begin(), o.end(), 0);
    return o;
}

std::uint64_t FilePlan::bytes() const {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < spec.vars.size(); ++i) {
        const VarSpec& v = spec.vars[i];
        std::uint64_t elems = 0;
        if (i < selection.size() && selection[i]) elems += selection[i]->elements();
        if (i < fill_selection.size() && fill_selection[i]) elems += fill_selection[i]->elements();
        const std::uint64_t times = v.is_record(spec) ? static_cast<std::uint64_t>(nrecords) : 1;
        n += elems * dtype_size(v.type) * times;
    }
    return n;
}

std::vector<std::size_t> FilePlan::struct_offsets() const {
    std::vector<std::size_t> off;
    std::size_t at = 0;
    for (int v : memory_struct) {
        off.push_back(at);
        at += dtype_size(spec.vars[static_cast<std::size_t>(v)].type);
    }
    return off;
}

std::size_t FilePlan::struct_size() const {
    std::size_t n = 0;
    for (int v : memory_struct) n += dtype_size(spec.vars[static_cast<std::size_t>(v)].type);
    return n;
}

}  // namespace iok
