#include "kernels/metadata/metadata_config.hpp"

#include <fstream>

#include "core/error.hpp"

namespace iok::metadata {

namespace {

std::string strip(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    const auto e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

// inih's inline comments: ';' preceded by white space ends the value.
std::string without_inline_comment(const std::string& s) {
    for (std::size_t i = 1; i < s.size(); ++i)
        if (s[i] == ';' && (s[i - 1] == ' ' || s[i - 1] == '\t')) return s.substr(0, i);
    return s;
}

std::uint64_t whole(const std::string& key, const std::string& value, const std::string& where) {
    std::size_t used = 0;
    unsigned long long v = 0;
    try {
        if (!value.empty() && value[0] != '-') v = std::stoull(value, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != value.size())
        throw Error(where + ": " + key + " = '" + value + "' is not a whole number", "e.g. " + key + " = 4");
    return v;
}

std::string one_of(const std::string& key, const std::string& value, const std::string& where,
                   const std::vector<std::string>& choices) {
    for (const auto& c : choices)
        if (value == c) return value;
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
    throw Error(where + ": " + key + " = '" + value + "' is not one of " + list, "hdf5_iotest knows " + list);
}

}  // namespace

const std::vector<std::string>& config_keys() {
    static const std::vector<std::string> keys = {
        "version",      "steps",           "arrays",    "rows",         "columns",
        "process-rows", "process-columns", "scaling",   "dataset-rank", "slowest-dimension",
        "layout",       "mpi-io",          "hdf5-file", "csv-file"};
    return keys;
}

void set_key(Config& c, const std::string& key, const std::string& value, const std::string& where) {
    if (key == "version")
        c.version = static_cast<int>(whole(key, value, where));
    else if (key == "steps")
        c.steps = whole(key, value, where);
    else if (key == "arrays")
        c.arrays = whole(key, value, where);
    else if (key == "rows")
        c.rows = whole(key, value, where);
    else if (key == "columns")
        c.cols = whole(key, value, where);
    else if (key == "process-rows")
        c.proc_rows = whole(key, value, where);
    else if (key == "process-columns")
        c.proc_cols = whole(key, value, where);
    else if (key == "scaling")
        c.scaling = one_of(key, value, where, {"weak", "strong"});
    else if (key == "dataset-rank")
        c.rank = static_cast<int>(whole(key, value, where));
    else if (key == "slowest-dimension")
        c.slowest_dimension = one_of(key, value, where, {"step", "array"});
    else if (key == "layout")
        c.layout = one_of(key, value, where, {"contiguous", "chunked"});
    else if (key == "mpi-io")
        c.mpi_io = one_of(key, value, where, {"independent", "collective"});
    else if (key == "hdf5-file")
        c.hdf5_file = value;
    else if (key == "csv-file")
        c.csv_file = value;
    else {
        std::string list;
        for (const auto& k : config_keys()) list += (list.empty() ? "" : ", ") + k;
        throw Error(where + ": unknown key '" + key + "'", "hdf5_iotest's keys are " + list);
    }
}

void read_ini(Config& c, const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error("cannot read the configuration file '" + path + "'", "give an hdf5_iotest .ini file");
    std::string line, last_key;
    for (int no = 1; std::getline(in, line); ++no) {
        const std::string where = path + ":" + std::to_string(no);
        const bool indented = !line.empty() && (line[0] == ' ' || line[0] == '\t');
        const std::string t = strip(line);
        if (t.empty() || t[0] == ';' || t[0] == '#') continue;
        if (t[0] == '[') {
            if (t.find(']') == std::string::npos)
                throw Error(where + ": section '" + t + "' has no closing ']'", "write e.g. [DEFAULT]");
            last_key.clear();
            continue;
        }
        if (indented && !last_key.empty()) {  // inih: a continuation line of the previous key
            set_key(c, last_key, strip(without_inline_comment(t)), where);
            continue;
        }
        const auto eq = t.find_first_of("=:");
        if (eq == std::string::npos) throw Error(where + ": '" + t + "' is not 'key = value'", "e.g. steps = 20");
        last_key = strip(t.substr(0, eq));
        set_key(c, last_key, strip(without_inline_comment(t.substr(eq + 1))), where);
    }
}

void check(const Config& c, int nprocs) {
    const auto bad = [](const std::string& what, const std::string& hint) { throw Error(what, hint); };
    if (c.version != 0)
        bad("version = " + std::to_string(c.version) + ": hdf5_iotest knows version 0 only", "set version = 0");
    if (c.steps == 0) bad("steps = 0: there must be at least one step", "set steps >= 1");
    if (c.arrays == 0) bad("arrays = 0: there must be at least one array", "set arrays >= 1");
    if (c.rows < 2) bad("rows = " + std::to_string(c.rows) + ": hdf5_iotest needs at least 2 rows", "set rows >= 2");
    if (c.cols < 2)
        bad("columns = " + std::to_string(c.cols) + ": hdf5_iotest needs at least 2 columns", "set columns >= 2");
    if (c.proc_rows == 0 || c.proc_cols == 0)
        bad("process-rows and process-columns must be at least 1", "set both to 1 or more");
    if (c.rank < 2 || c.rank > 4)
        bad("dataset-rank = " + std::to_string(c.rank) + ": hdf5_iotest writes datasets of rank 2, 3 or 4",
            "set dataset-rank = 2, 3 or 4");
    if (c.proc_rows * c.proc_cols != static_cast<std::uint64_t>(nprocs))
        bad("process grid " + std::to_string(c.proc_rows) + " x " + std::to_string(c.proc_cols) + " = " +
                std::to_string(c.proc_rows * c.proc_cols) + " processes, but the job has " + std::to_string(nprocs),
            "launch with mpiexec -n " + std::to_string(c.proc_rows * c.proc_cols) +
                " or set process-rows x process-columns = " + std::to_string(nprocs));
    if (c.strong() && (c.rows % c.proc_rows != 0 || c.cols % c.proc_cols != 0))
        bad("strong scaling: rows x columns " + std::to_string(c.rows) + " x " + std::to_string(c.cols) +
                " do not divide over the process grid " + std::to_string(c.proc_rows) + " x " +
                std::to_string(c.proc_cols),
            "choose rows a multiple of process-rows and columns a multiple of process-columns");
}

}  // namespace iok::metadata
