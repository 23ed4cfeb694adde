#include "backends/io_stack.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace iok {

// ---- strategy registry ----------------------------------------------------

static std::vector<StrategyInfo>& strategies() {
    static std::vector<StrategyInfo> t;
    return t;
}

void register_strategy(StrategyInfo info) {
    strategies().push_back(std::move(info));
    std::sort(strategies().begin(), strategies().end(), [](const StrategyInfo& a, const StrategyInfo& b) {
        if (a.library_alone != b.library_alone) return a.library_alone;
        return a.name < b.name;
    });
}

const std::vector<StrategyInfo>& registered_strategies() { return strategies(); }

const StrategyInfo& strategy_info(const std::string& name) {
    std::string known;
    for (const auto& s : strategies()) {
        if (s.name == name) return s;
        known += (known.empty() ? "" : ", ") + s.name;
    }
    throw Error("unknown strategy '" + name + "'", "use -x with one of: " + known);
}

int strategy_count_param(const BackendConfig& cfg, const std::string& key, const std::string& zero_means) {
    return static_cast<int>(cfg.count(key, zero_means, 1 << 30));
}

// ---- parameter validation ---------------------------------------------------

namespace {

// Older spellings, still accepted: the README and seed wrappers used them.
std::string canonical_key(const std::string& key, const std::string& library, const std::string& strategy) {
    if (key.find('.') != std::string::npos) return key;
    if (key == "api" && library == "pnetcdf") return "pnetcdf.api";
    if (key == "flush" && (library == "hdf5" || library == "hdf5_md" || library == "netcdf4"))
        return library + ".flush";
    if ((key == "sync" || key == "aggregate") && library == "mpiio") return "mpiio." + key;
    if (key == "aggregators") return "rearrange.aggregators";
    if (key == "subfiles" && (strategy == "blob" || strategy == "log")) return strategy + ".subfiles";
    return key;
}

const OptionSpec* find_option(const std::vector<OptionSpec>& table, const std::string& key) {
    for (const auto& o : table)
        if (o.key == key) return &o;
    return nullptr;
}

}  // namespace

std::string valid_param_keys(const std::string& library, const std::string& strategy) {
    const BackendInfo& b = backend_info(library);
    const StrategyInfo& s = strategy_info(strategy);
    std::string keys;
    auto add = [&](const std::string& k) { keys += (keys.empty() ? "" : ", ") + k; };
    for (const auto& o : b.options) add(o.key);
    if (!b.passthrough_prefix.empty()) add(b.passthrough_prefix + "<Parameter>");
    for (const auto& o : s.options) add(o.key);
    return keys.empty() ? "(none: backend " + library + " with strategy " + strategy + " takes no --param)" : keys;
}

std::map<std::string, std::string> validated_params(const std::string& library, const std::string& strategy,
                                                    const std::map<std::string, std::string>& params) {
    const BackendInfo& b = backend_info(library);
    const StrategyInfo& s = strategy_info(strategy);
    std::map<std::string, std::string> out;
    for (const auto& o : b.options) out[o.key] = o.default_value;
    for (const auto& o : s.options) out[o.key] = o.default_value;
    for (const auto& [given, value] : params) {
        const std::string key = canonical_key(given, library, strategy);
        const OptionSpec* o = find_option(b.options, key);
        if (!o) o = find_option(s.options, key);
        const bool passthrough = !b.passthrough_prefix.empty() && key.rfind(b.passthrough_prefix, 0) == 0 &&
                                 key.size() > b.passthrough_prefix.size();
        if (!o && !passthrough)
            throw Error("--param " + given + " is not a setting of backend " + library + " with strategy " + strategy,
                        "valid keys: " + valid_param_keys(library, strategy) + " (iokernels backends lists them all)");
        if (o) check_option_value(*o, value);
        out[key] = value;
    }
    return out;
}

std::unique_ptr<Backend> make_io_stack(const std::string& library, const std::string& strategy,
                                       const BackendConfig& cfg) {
    return strategy_info(strategy).make(library, cfg);
}

// ---- description ---------------------------------------------------------------

namespace {

nlohmann::json caps_json(const Capabilities& c) {
    return {{"self_describing", c.self_describing},
            {"nonblocking", c.nonblocking},
            {"struct_memory", c.struct_memory},
            {"compound_files", c.compound_files},
            {"chunking", c.chunking},
            {"alignment", c.alignment},
            {"independent", c.independent},
            {"aligns_objects", c.aligns_objects},
            {"groups", c.groups},
            {"slash_names", c.slash_names},
            {"group_attrs", c.group_attrs}};
}

nlohmann::json options_json(const std::vector<OptionSpec>& table) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& o : table)
        a.push_back({{"key", o.key}, {"default", o.default_value}, {"help", o.help}, {"choices", o.choices}});
    return a;
}

}  // namespace

std::string describe_io_stacks_json() {
    nlohmann::json j;
    j["backends"] = nlohmann::json::array();
    for (const auto& b : registered_backends()) {
        nlohmann::json e = {{"name", b.name},
                            {"description", b.description},
                            {"library", b.library_version ? b.library_version() : ""},
                            {"extension", b.extension},
                            {"capabilities", caps_json(b.caps)},
                            {"options", options_json(b.options)}};
        if (!b.passthrough_prefix.empty())
            e["passthrough"] = {{"prefix", b.passthrough_prefix}, {"help", b.passthrough_help}};
        j["backends"].push_back(e);
    }
    j["strategies"] = nlohmann::json::array();
    for (const auto& s : registered_strategies())
        j["strategies"].push_back({{"name", s.name},
                                   {"description", s.description},
                                   {"options", options_json(s.options)},
                                   {"output_is_directory", s.output_is_directory},
                                   {"read_needs_same_ranks", s.read_needs_same_ranks},
                                   {"library_alone", s.library_alone},
                                   {"keeps_canonical_layout", s.keeps_canonical_layout},
                                   {"library_io_independent", s.library_io_independent},
                                   {"writes_with", s.writes_with},
                                   {"read_back", s.read_back}});
    return j.dump(2) + "\n";
}

std::string describe_io_stacks_text() {
    std::string t;
    auto line = [&](const std::string& s) { t += s + "\n"; };
    auto opt_lines = [&](const std::vector<OptionSpec>& table) {
        for (const auto& o : table) {
            std::string c;
            for (const auto& x : o.choices) c += (c.empty() ? " [" : "|") + x;
            if (!c.empty()) c += "]";
            char buf[512];
            std::snprintf(buf, sizeof buf, "      --param %-28s default %-6s %s%s", (o.key + "=").c_str(),
                          o.default_value.empty() ? "''" : o.default_value.c_str(), o.help.c_str(), c.c_str());
            line(buf);
        }
    };
    line("backends (-a):");
    for (const auto& b : registered_backends()) {
        char buf[512];
        std::snprintf(buf, sizeof buf, "  %-9s %-6s %s", b.name.c_str(), b.extension.c_str(),
                      b.library_version ? b.library_version().c_str() : "");
        line(buf);
        line("      " + b.description);
        std::string caps;
        const Capabilities& c = b.caps;
        for (auto [on, name] : {std::pair{c.self_describing, "self-describing"},
                                {c.nonblocking, "nonblocking"},
                                {c.struct_memory, "struct-memory"},
                                {c.compound_files, "compound-files"},
                                {c.chunking, "chunking+compression"},
                                {c.alignment, "alignment"},
                                {c.independent, "independent"},
                                {c.aligns_objects, "object-alignment"},
                                {c.groups, "groups"},
                                {c.slash_names, "slash-names"},
                                {c.group_attrs, "group-attributes"}})
            if (on) caps += (caps.empty() ? "" : ", ") + std::string(name);
        line("      capabilities: " + (caps.empty() ? std::string("none") : caps));
        opt_lines(b.options);
        if (!b.passthrough_prefix.empty())
            line("      --param " + b.passthrough_prefix + "<Parameter>=VALUE  " + b.passthrough_help);
    }
    line("");
    line("strategies (-x), each wrapping any backend:");
    for (const auto& s : registered_strategies()) {
        char buf[512];
        std::snprintf(buf, sizeof buf, "  %-9s %s", s.name.c_str(), s.description.c_str());
        line(buf);
        line("      read back: " + s.read_back);
        opt_lines(s.options);
    }
    return t;
}

}  // namespace iok
