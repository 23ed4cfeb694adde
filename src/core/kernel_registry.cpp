#include "core/kernel_registry.hpp"

#include <algorithm>

namespace iok {

static std::vector<KernelInfo>& table() {
    static std::vector<KernelInfo> t;
    return t;
}

void register_kernel(KernelInfo info) {
    table().push_back(std::move(info));
    std::sort(table().begin(), table().end(),
              [](const KernelInfo& a, const KernelInfo& b) { return a.name < b.name; });
}

const std::vector<KernelInfo>& registered_kernels() { return table(); }

}  // namespace iok
