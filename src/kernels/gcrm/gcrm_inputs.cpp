#include "kernels/gcrm/gcrm_inputs.hpp"

#include <strings.h>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/command_line.hpp"
#include "core/error.hpp"

namespace iok::gcrm {

namespace {

std::string trim(const std::string& s) {
    std::size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

std::string unquote(std::string s) {
    s = trim(s);
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
    return s;
}

// Splits "key rest of line" (key = first token).
std::pair<std::string, std::string> key_rest(const std::string& line) {
    std::string t = trim(line);
    std::size_t sp = 0;
    while (sp < t.size() && !std::isspace(static_cast<unsigned char>(t[sp]))) ++sp;
    return {t.substr(0, sp), trim(t.substr(sp))};
}

// Removes a '!' or '#' comment that is not inside double quotes.
std::string strip_comment(const std::string& line, const char* markers) {
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '"')
            quoted = !quoted;
        else if (!quoted && std::strchr(markers, line[i]))
            return line.substr(0, i);
    }
    return line;
}

Error bad_value(const std::string& source, int lineno, const std::string& key, const std::string& value,
                const std::string& expected) {
    return Error(source + ":" + std::to_string(lineno) + ": " + key + " '" + value + "' is not " + expected,
                 "fix the value in the parameter file");
}

long to_long(const std::string& v, const std::string& source, int lineno, const std::string& key) {
    char* end = nullptr;
    long x = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0') throw bad_value(source, lineno, key, v, "an integer");
    return x;
}

double to_double(const std::string& v, const std::string& source, int lineno, const std::string& key) {
    char* end = nullptr;
    double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0') throw bad_value(source, lineno, key, v, "a number");
    return x;
}

bool to_bool(const std::string& v, const std::string& source, int lineno, const std::string& key) {
    const std::string l = lowercase(v);
    if (l == "true" || l == ".true." || l == "t" || l == "1" || l == "yes") return true;
    if (l == "false" || l == ".false." || l == "f" || l == "0" || l == "no") return false;
    throw bad_value(source, lineno, key, v, "true or false");
}

// The value of a description line as GCRM-IO's read_param.c takes it: after
// the key and the blanks that follow it, everything up to the first quote or
// the end of the line, a leading quote skipped.  So `location    center ` is
// "center " (the blank kept: GCRM-IO writes it into the attribute) and
// `long_name "Mass"` is "Mass".
std::string gio_value(const std::string& line) {
    std::size_t k = line.find_first_not_of(" \t=");
    if (k == std::string::npos) return "";
    std::size_t e = line.find_first_of(" \t=", k);
    if (e == std::string::npos) return "";
    std::size_t v = e + 1;
    while (v < line.size() && (line[v] == ' ' || line[v] == '\t')) ++v;
    while (v < line.size() && (line[v] == '"' || line[v] == '\'')) ++v;
    std::size_t end = line.find_first_of("\"'", v);
    std::string out = line.substr(v, end == std::string::npos ? std::string::npos : end - v);
    if (!out.empty() && out.back() == '\r') out.pop_back();  // a file with DOS line ends
    return out;
}

}  // namespace

std::string read_text_file(const std::string& path, const std::string& role) {
    std::ifstream in(path);
    if (!in) throw Error("cannot read the " + role + " " + path, "check the path (see --help for how it is found)");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

const char* iotype_name(IoType t) {
    switch (t) {
        case IoType::NonblockingCollective: return "nonblocking_collective";
        case IoType::NonblockingIndependent: return "nonblocking_independent";
        case IoType::BlockingCollective: return "blocking_collective";
        case IoType::BlockingIndependent: return "blocking_independent";
    }
    return "?";
}

IoType iotype_from_name(const std::string& s) {
    for (IoType t : {IoType::NonblockingCollective, IoType::NonblockingIndependent, IoType::BlockingCollective,
                     IoType::BlockingIndependent})
        if (lowercase(s) == iotype_name(t)) return t;
    if (lowercase(s) == "direct" || lowercase(s) == "interleaved")
        throw Error("iotype '" + s + "' is one of the original GCRM's methods that GCRM-IO does not implement",
                    "use nonblocking_collective, nonblocking_independent, blocking_collective or blocking_independent");
    throw Error("iotype '" + s + "' is not known",
                "use nonblocking_collective, nonblocking_independent, blocking_collective or blocking_independent");
}

const char* grid_option_name(GridOption g) {
    switch (g) {
        case GridOption::NoGrid: return "nogrid";
        case GridOption::AllFiles: return "all_files";
        case GridOption::SepGrid: return "sep_grid";
    }
    return "?";
}

RunParams parse_params(const std::string& text, const std::string& source) {
    RunParams p;
    long days = 0, hours = 0, minutes = 0, seconds = 0;
    std::istringstream in(text);
    std::string raw;
    int lineno = 0;
    while (std::getline(in, raw)) {
        ++lineno;
        auto [key, rest] = key_rest(strip_comment(raw, "!#"));
        if (key.empty()) continue;
        key = lowercase(key);
        // the value is the first token (file names and numbers have no blanks)
        const std::string value = unquote(key_rest(rest).first);
        try {
            if (key == "level_max")
                p.level_max = static_cast<int>(to_long(value, source, lineno, key));
            else if (key == "end_days")
                days = to_long(value, source, lineno, key);
            else if (key == "end_hours")
                hours = to_long(value, source, lineno, key);
            else if (key == "end_minutes")
                minutes = to_long(value, source, lineno, key);
            else if (key == "end_seconds")
                seconds = to_long(value, source, lineno, key);
            else if (key == "physics_mode")
                p.physics = lowercase(value).rfind("disable", 0) != 0;
            else if (key == "iotype")
                p.iotype = iotype_from_name(value);
            else if (key == "io_desc_file")
                p.io_desc_file = value;
            else if (key == "io_config_file")
                p.io_config_file = value;
            else if (key == "cdf_output_path")
                p.cdf_output_path = value;
            else if (key == "cdf_output_frequency")
                p.output_frequency = to_double(value, source, lineno, key);
            else if (key == "cdf_output_nsamples")
                p.nsamples = static_cast<int>(to_long(value, source, lineno, key));
            else if (key == "cdf_grid_option") {
                const std::string v = lowercase(value);
                if (v == "nogrid")
                    p.grid_option = GridOption::NoGrid;
                else if (v == "all_files")
                    p.grid_option = GridOption::AllFiles;
                else if (v == "sep_grid")
                    p.grid_option = GridOption::SepGrid;
                else
                    throw bad_value(source, lineno, key, value, "nogrid, all_files or sep_grid");
            } else if (key == "cdf_sep_grid")
                p.sep_grid = value;
            else if (key == "restart_interval")
                p.restart_interval = to_double(value, source, lineno, key);
            else if (key == "restart_output")
                p.restart_output = value;
            else if (key == "restart_overwrite")
                p.restart_overwrite = to_bool(value, source, lineno, key);
            // The other keys of GCRM-IO's zgrd.in do not shape its I/O: miscellaneous
            // output and input directories, the I/O process count GIO ignores,
            // cluster detection, the initial condition, and the restart reading
            // GCRM-IO never completed (its README: only restart_interval,
            // restart_output and restart_overwrite take effect).
            else if (key == "output_path" || key == "data_path" || key == "io_procs" || key == "clusdet_enable" ||
                     key == "initial_condition" || key == "read_restart" || key == "restart_input" ||
                     key == "use_binary_restart")
                continue;
            else
                throw Error(source + ":" + std::to_string(lineno) + ": unknown parameter '" + key + "'",
                            "GCRM-IO's parameters: level_max, end_days/hours/minutes/seconds, physics_mode, iotype, "
                            "io_desc_file, io_config_file, cdf_output_path, cdf_output_frequency, "
                            "cdf_output_nsamples, cdf_grid_option, cdf_sep_grid, restart_interval, restart_output, "
                            "restart_overwrite (and output_path, data_path, io_procs, clusdet_enable, "
                            "initial_condition, read_restart, restart_input, use_binary_restart, without effect)");
        } catch (const Error& e) {
            if (key != "iotype") throw;
            throw Error(source + ":" + std::to_string(lineno) + ": " + e.what(), e.hint());
        }
    }
    p.end_seconds = ((days * 24 + hours) * 60 + minutes) * 60 + seconds;
    if (p.end_seconds < 0)
        throw Error(source + ": the simulated length is negative", "fix end_days/hours/minutes/seconds");
    if (p.output_frequency < 0)
        throw Error(source + ": cdf_output_frequency is negative", "use a positive number of seconds");
    if (p.nsamples < 1)
        throw Error(source + ": cdf_output_nsamples must be at least 1", "set cdf_output_nsamples 8 (the default)");
    if (p.restart_interval < 0)
        throw Error(source + ": restart_interval is negative", "use 0 to turn restart files off");
    return p;
}

RunParams parse_params_file(const std::string& path) {
    return parse_params(read_text_file(path, "parameter file"), path);
}

const std::string* Descriptor::attr(const std::string& key) const {
    for (const auto& a : attrs)
        if (a.name == key) return &a.value;
    return nullptr;
}

const Descriptor* Description::find(const std::string& name) const {
    for (const auto& d : vars)
        if (d.name == name) return &d;
    return nullptr;
}

Description parse_desc(const std::string& text, const std::string& source) {
    Description desc;
    std::istringstream in(text);
    std::string raw;
    int lineno = 0;
    Descriptor* cur = nullptr;
    while (std::getline(in, raw)) {
        ++lineno;
        auto [key, rest] = key_rest(strip_comment(raw, "#"));
        if (key.empty()) continue;
        const std::string where = source + ":" + std::to_string(lineno);
        if (key == "property") {
            const std::string pname = key_rest(rest).first;
            if (pname.empty()) throw Error(where + ": property without a name", "write: property NAME \"value\"");
            // GCRM-IO: the name ends at the first blank, the value is taken as any other
            const std::size_t at = raw.find(pname, raw.find("property") + 8) + pname.size();
            const std::string after = raw.substr(at);
            desc.properties.push_back({pname, gio_value("property" + after)});
            continue;
        }
        if (key == "name") {
            if (rest.empty()) throw Error(where + ": 'name' without a variable name", "write: name VARIABLE");
            desc.vars.emplace_back();
            cur = &desc.vars.back();
            cur->name = key_rest(rest).first;
            continue;
        }
        if (!cur)
            throw Error(where + ": '" + key + "' before the first 'name' line",
                        "start each descriptor with: name VARIABLE");
        if (key == "type")
            cur->type = lowercase(key_rest(rest).first);
        else if (key == "dimension") {
            cur->dims.clear();
            std::istringstream ds(rest);
            for (std::string d; ds >> d;) cur->dims.push_back(d);
            if (!cur->dims.empty()) cur->dimension_lines.push_back({cur->dims, cur->type == "double" ? 8 : 4});
        } else if (key == "isgridvar")
            cur->isgridvar = true;
        else if (key == "restart")
            cur->restart = true;
        else if (key == "index")
            cur->index_all = lowercase(rest) == "all";
        else if (key == "slice")
            continue;  // a component of a vector field: one variable per component
        else if (key == "no_data")
            cur->no_data = lowercase(unquote(rest)) == "true";
        else if (!cur->no_data)
            cur->attrs.push_back({key, gio_value(raw)});
        // (after no_data "true" GCRM-IO keeps no further attribute of the variable)
    }
    for (const auto& d : desc.vars)
        if (d.type != "float" && d.type != "double" && d.type != "integer")
            throw Error(source + ": variable " + d.name + " has type '" + d.type + "'", "use float, double or integer");
    return desc;
}

Description parse_desc_file(const std::string& path) {
    return parse_desc(read_text_file(path, "variable description (io_desc_file)"), path);
}

std::vector<FileGroup> parse_fcfg(const std::string& text, const std::string& source) {
    std::vector<FileGroup> groups;
    std::istringstream in(text);
    std::string raw;
    int lineno = 0;
    while (std::getline(in, raw)) {
        ++lineno;
        auto [key, rest] = key_rest(strip_comment(raw, "#"));
        if (key.empty()) continue;
        const std::string where = source + ":" + std::to_string(lineno);
        if (key == "file_prefix") {
            groups.push_back({unquote(rest), {}});
        } else if (key == "field") {
            if (groups.empty())
                throw Error(where + ": field before any file_prefix", "start each file with: file_prefix \"name_\"");
            std::istringstream fs(rest);
            FieldRef f;
            std::string flag;
            fs >> f.name >> flag;
            if (f.name.empty()) throw Error(where + ": field without a name", "write: field NAME [avg]");
            if (!flag.empty() && flag != "avg")
                throw Error(where + ": unknown field option '" + flag + "'", "the only option is avg");
            f.avg = flag == "avg";
            if (f.name != "time") groups.back().fields.push_back(f);  // time is in every history file
        } else {
            throw Error(where + ": unknown keyword '" + key + "'", "an fcfg file has only file_prefix and field lines");
        }
    }
    if (groups.empty()) throw Error(source + ": no file_prefix found", "is this an .fcfg file?");
    return groups;
}

std::vector<FileGroup> parse_fcfg_file(const std::string& path) {
    return parse_fcfg(read_text_file(path, "file configuration (io_config_file)"), path);
}

}  // namespace iok::gcrm
