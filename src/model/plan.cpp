#include "model/plan.hpp"

#include <numeric>

namespace iok {

std::vector<int> FilePlan::write_order() const {
    if (!order.empty()) return order;
    std::vector<int> o(spec.vars.size());
    std::iota(o.begin(), o.end(), 0);
    return o;
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
