#include <algorithm>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/library_modules.hpp"
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

namespace {

// Backends built as library modules (core/library_modules.hpp): known by
// name before their module is loaded, so -a can be checked and listed
// without loading HDF5, NetCDF-4 and ADIOS2 into every run.
struct ModuleBackend {
    const char* backend;
    const char* module;
};
const ModuleBackend kModuleBackends[] = {
#ifdef IOK_HAVE_HDF5
    {"hdf5", "hdf5"},
    {"hdf5_md", "hdf5"},
#endif
#ifdef IOK_HAVE_NETCDF4
    {"netcdf4", "netcdf4"},
#endif
#ifdef IOK_HAVE_ADIOS2
    {"adios", "adios2"},
#endif
    {nullptr, nullptr},
};

const BackendInfo* find(const std::string& name) {
    for (const auto& b : table())
        if (b.name == name) return &b;
    return nullptr;
}

}  // namespace

const std::vector<BackendInfo>& registered_backends() {
    for (const ModuleBackend* m = kModuleBackends; m->backend; ++m) load_library_module(m->module);
    return table();
}

std::vector<std::string> backend_names() {
    std::vector<std::string> v;
    for (const auto& b : table()) v.push_back(b.name);
    for (const ModuleBackend* m = kModuleBackends; m->backend; ++m) v.push_back(m->backend);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

const BackendInfo& backend_info(const std::string& name) {
    if (const BackendInfo* b = find(name)) return *b;
    for (const ModuleBackend* m = kModuleBackends; m->backend; ++m)
        if (name == m->backend) {
            load_library_module(m->module);
            if (const BackendInfo* b = find(name)) return *b;
            throw Error("internal: module " + std::string(m->module) + " was loaded but did not register backend " + name);
        }
    std::string known;
    for (const auto& n : backend_names()) known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown or disabled backend '" + name + "'", "available in this build: " + known);
}

std::unique_ptr<Backend> make_backend(const std::string& name, const BackendConfig& cfg) {
    return backend_info(name).factory(cfg);
}

}  // namespace iok
