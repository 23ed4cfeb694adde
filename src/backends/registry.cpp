#include <algorithm>

#include "backends/backend.hpp"
#include "backends/strategy.hpp"
#include "core/error.hpp"
#include "core/library_modules.hpp"
#include "core/manifest.hpp"

namespace iok {

const char* access_name(Access a) { return a == Access::Update ? "update" : "read"; }

void check_option_value(const OptionSpec& o, const std::string& value) {
    if (o.choices.empty() || std::find(o.choices.begin(), o.choices.end(), value) != o.choices.end()) return;
    std::string c;
    for (const auto& x : o.choices) c += (c.empty() ? "" : "|") + x;
    throw Error("--param " + o.key + "=" + value + " is not valid", "use " + o.key + "=" + c);
}

namespace {
const OptionSpec* registered_option(const std::string& key);
}  // namespace

std::string BackendConfig::param(const std::string& key) const {
    const OptionSpec* o = registered_option(key);
    if (!o) throw Error("internal: --param " + key + " is read but no backend or strategy has it in its option table");
    auto it = params.find(key);
    if (it == params.end()) return o->default_value;
    check_option_value(*o, it->second);
    return it->second;
}

bool BackendConfig::flag(const std::string& key) const { return param(key) == "1"; }

std::uint64_t BackendConfig::count(const std::string& key, const std::string& zero_means, std::uint64_t max) const {
    const std::string v = param(key);
    std::size_t used = 0;
    long long n = -1;
    try {
        n = std::stoll(v, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != v.size() || n < 0 || static_cast<std::uint64_t>(n) > max)
        throw Error("--param " + key + "=" + v + " is not a count",
                    "give a whole number >= 0 (0 = " + zero_means + ")");
    return static_cast<std::uint64_t>(n);
}

// ---- File: the checks and counts every library shares -------------------------

void File::bind(const std::string& path, const FileSpec& spec, bool writable) {
    bound_ = true;
    writable_ = writable;
    path_of_file_ = path;
    var_facts_.clear();
    var_facts_.reserve(spec.vars.size());
    for (const VarSpec& v : spec.vars)
        var_facts_.push_back({v.name, spec.fixed_shape(v), dtype_size(v.type), v.is_record(spec)});
}

void File::check_request(int var, const Selection& sel, std::int64_t record, const char* what) const {
    if (!bound_) return;
    if (var < 0 || static_cast<std::size_t>(var) >= var_facts_.size())
        throw Error(std::string(what) + " of variable index " + std::to_string(var) + " in '" + path_of_file_ +
                        "', which has " + std::to_string(var_facts_.size()) + " variables",
                    "define() or open() the file with the spec the plan uses");
    const VarFacts& v = var_facts_[static_cast<std::size_t>(var)];
    if (sel.shape() != v.shape)
        throw Error(std::string(what) + " of variable '" + v.name + "' in '" + path_of_file_ +
                        "': the selection's shape does not match the variable's",
                    "select within the variable's shape (without its record dimension)");
    if (v.record && record < 0)
        throw Error(std::string(what) + " of variable '" + v.name + "' in '" + path_of_file_ +
                    "': it is a record variable but no record was given");
}

std::uint64_t File::request_bytes(int var, const Selection& sel) const {
    return bound_ ? sel.elements() * var_facts_[static_cast<std::size_t>(var)].elem : 0;
}

CallTally Backend::replay_calls(const std::string&, MPI_Comm, const RecordedCalls&, CallData&) {
    throw Error("the " + name() + " backend cannot re-issue recorded MPI-IO calls",
                "use -a mpiio -x canonical, or --calls plan for any backend and strategy");
}

void File::put(int var, const Selection& sel, std::int64_t record, const void* buf) {
    check_request(var, sel, record, "put");
    if (!writable_)
        throw Error("put of variable '" + var_facts_[static_cast<std::size_t>(var)].name + "' into '" + path_of_file_ +
                        "', which was opened read-only",
                    "open it for update (Access::Update) to write into it");
    if (!do_put(var, sel, record, buf)) return;
    stats_.bytes_put += request_bytes(var, sel);
    ++stats_.calls_put;
}

void File::get(int var, const Selection& sel, std::int64_t record, void* buf) {
    check_request(var, sel, record, "get");
    do_get(var, sel, record, buf);
    stats_.bytes_get += request_bytes(var, sel);
    ++stats_.calls_get;
}

bool File::put_struct(const StructBuffer& b, const Selection& sel, std::int64_t record) {
    for (int v : b.vars) check_request(v, sel, record, "put");
    if (!writable_)
        throw Error("put of an array of structs into '" + path_of_file_ + "', which was opened read-only",
                    "open it for update (Access::Update) to write into it");
    const std::size_t calls = do_put_struct(b, sel, record);
    if (calls == 0) return false;
    std::uint64_t bytes = 0;
    for (int v : b.vars) bytes += request_bytes(v, sel);
    stats_.bytes_put += bytes;
    stats_.calls_put += calls;
    return true;
}

bool File::get_struct(const StructBuffer& b, const Selection& sel, std::int64_t record) {
    for (int v : b.vars) check_request(v, sel, record, "get");
    const std::size_t calls = do_get_struct(b, sel, record);
    if (calls == 0) return false;
    std::uint64_t bytes = 0;
    for (int v : b.vars) bytes += request_bytes(v, sel);
    stats_.bytes_get += bytes;
    stats_.calls_get += calls;
    return true;
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
    {"hdf5", "hdf5"},       {"hdf5_md", "hdf5"},
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

// The row of `key` in the table of a registered backend (modules already
// loaded: the one reading it is) or strategy.
const OptionSpec* registered_option(const std::string& key) {
    for (const auto& b : table())
        for (const auto& o : b.options)
            if (o.key == key) return &o;
    for (const auto& s : registered_strategies())
        for (const auto& o : s.options)
            if (o.key == key) return &o;
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
            throw Error("internal: module " + std::string(m->module) + " was loaded but did not register backend " +
                        name);
        }
    std::string known;
    for (const auto& n : backend_names()) known += (known.empty() ? "" : ", ") + n;
    throw Error("unknown or disabled backend '" + name + "'", "available in this build: " + known);
}

std::unique_ptr<Backend> make_backend(const std::string& name, const BackendConfig& cfg) {
    return backend_info(name).factory(cfg);
}

}  // namespace iok
