#include <algorithm>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/manifest.hpp"

namespace iok {

const char* access_name(Access a) { return a == Access::Update ? "update" : "read"; }

std::string BackendConfig::param(const std::string& key, const std::string& dflt) const {
    auto it = params.find(key);
    return it == params.end() ? dflt : it->second;
}

static std::vector<BackendInfo>& table() {
    static std::vector<BackendInfo> t;
    return t;
}

void register_backend(BackendInfo info) {
    if (info.library_version) register_library_version(info.name, info.library_version);
    table().push_back(std::move(info));
    std::sort(table().begin(), table().end(),
              [](const BackendInfo& a, const BackendInfo& b) { return a.name < b.name; });
}

const std::vector<BackendInfo>& registered_backends() { return table(); }

const BackendInfo& backend_info(const std::string& name) {
    std::string known;
    for (const auto& b : table()) {
        if (b.name == name) return b;
        known += (known.empty() ? "" : ", ") + b.name;
    }
    throw Error("unknown or disabled backend '" + name + "'", "available in this build: " + known);
}

std::unique_ptr<Backend> make_backend(const std::string& name, const BackendConfig& cfg) {
    return backend_info(name).factory(cfg);
}

}  // namespace iok
