#include "model/plan.hpp"

#include <numeric>

namespace iok {

std::vector<int> FilePlan::write_order() const {
    if (!order.empty()) return order;
    std::vector<int> o(spec.vars.size());
    std::iota(o.begin(), o.end(), 0);
    return o;
}

}  // namespace iok
