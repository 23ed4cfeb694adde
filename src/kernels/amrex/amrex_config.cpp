#include "kernels/amrex/amrex_config.hpp"

#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace iok::amrex {
namespace {

std::vector<std::string> words(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> out;
    for (std::string w; in >> w;) {
        if (w.size() >= 2 && w.front() == '"' && w.back() == '"') w = w.substr(1, w.size() - 2);
        out.push_back(w);
    }
    return out;
}

int whole(const std::string& text, const std::string& where) {
    std::size_t used = 0;
    long v = 0;
    try {
        v = std::stol(text, &used, 10);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || v < -2147483647L || v > 2147483647L)
        throw Error(where + ": '" + text + "' is not a whole number", "write e.g. ncells = 64");
    return static_cast<int>(v);
}

int one_int(const std::string& value, const std::string& where) {
    const auto w = words(value);
    if (w.size() != 1) throw Error(where + ": expects one number, got '" + value + "'", "write e.g. ncells = 64");
    return whole(w[0], where);
}

}  // namespace

const std::vector<std::string>& config_keys() {
    static const std::vector<std::string> keys = {
        "ncells",         "max_grid_size",   "nlevs",     "ncomp",         "nppc",
        "nplotfile",      "nparticlefile",   "sleeptime", "restart_check", "grids_from_file",
        "ref_ratio_file", "hdf5compression", "directory", "mode"};
    return keys;
}

void set_key(Config& c, const std::string& key, const std::string& value, const std::string& where) {
    const std::string at = where + " (" + key + ")";
    int* ints[] = {&c.ncells,    &c.max_grid_size, &c.nlevs,     &c.ncomp,         &c.nppc,
                   &c.nplotfile, &c.nparticlefile, &c.sleeptime, &c.restart_check, &c.grids_from_file};
    const auto& keys = config_keys();
    bool known = false;
    for (std::size_t i = 0; i < 10; ++i)
        if (key == keys[i]) {
            *ints[i] = one_int(value, at);
            known = true;
        }
    if (key == "ref_ratio_file") {
        c.ref_ratio_file.clear();
        for (const auto& w : words(value)) c.ref_ratio_file.push_back(whole(w, at));
        known = true;
    } else if (key == "hdf5compression" || key == "directory" || key == "mode") {
        const auto w = words(value);
        if (w.size() > 1) throw Error(at + ": expects one word, got '" + value + "'");
        const std::string v = w.empty() ? "" : w[0];
        if (key == "hdf5compression") c.hdf5compression = v;
        if (key == "directory") c.directory = v.empty() || v.back() == '/' ? v : v + "/";
        if (key == "mode") {
            if (v != "SYNC" && v != "ASYNC" && v != "LOG")
                throw Error(at + ": '" + v + "' is not SYNC, ASYNC or LOG", "h5bench's mode key: write mode = SYNC");
            c.mode = v;
        }
        known = true;
    }
    if (!known) {
        std::string list;
        for (const auto& k : keys) list += (list.empty() ? "" : ", ") + k;
        throw Error(where + ": unknown key '" + key + "'", "h5bench_amrex's keys: " + list);
    }
    c.given.insert(key);
}

void read_input(Config& c, const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error("cannot read the AMReX input file " + path, "check the path");
    std::string line;
    for (int no = 1; std::getline(in, line); ++no) {
        const auto hash = line.find('#');
        if (hash != std::string::npos) line.erase(hash);
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const auto eq = line.find('=');
        const std::string where = path + ":" + std::to_string(no);
        if (eq == std::string::npos)
            throw Error(where + ": '" + line + "' is not key = value", "ParmParse lines read e.g. ncells = 64");
        const auto key = words(line.substr(0, eq));
        if (key.size() != 1) throw Error(where + ": '" + line + "' has no single key before '='");
        set_key(c, key[0], line.substr(eq + 1), where);
    }
}

void check(const Config& c) {
    for (const char* k : {"ncells", "max_grid_size", "nlevs", "ncomp", "nppc"})
        if (!c.given.count(k))
            throw Error(std::string("the required key ") + k + " is missing",
                        "h5bench_amrex reads it with ParmParse::get (give it in the input file or as --" +
                            std::string(k) + ")");
    const auto positive = [](int v, const char* k) {
        if (v <= 0) throw Error(std::string(k) + " = " + std::to_string(v) + ": must be at least 1");
    };
    positive(c.ncells, "ncells");
    positive(c.max_grid_size, "max_grid_size");
    positive(c.nlevs, "nlevs");
    positive(c.ncomp, "ncomp");
    for (auto [v, k] : {std::pair{c.nppc, "nppc"}, std::pair{c.nplotfile, "nplotfile"},
                        std::pair{c.nparticlefile, "nparticlefile"}, std::pair{c.sleeptime, "sleeptime"}})
        if (v < 0) throw Error(std::string(k) + " = " + std::to_string(v) + ": must not be negative");
    if (c.nplotfile == 0 && c.nparticlefile == 0)
        throw Error("nplotfile = 0 and nparticlefile = 0: nothing to write",
                    "set nplotfile or nparticlefile to at least 1");
    if (c.restart_check != 0 && c.restart_check != 1)
        throw Error("restart_check = " + std::to_string(c.restart_check) + ": must be 0 or 1");
    if (c.grids_from_file != 0 && c.grids_from_file != 1)
        throw Error("grids_from_file = " + std::to_string(c.grids_from_file) + ": must be 0 or 1");
    if (c.grids_from_file)
        throw Error("grids_from_file = 1 (grids read from grids/Level_<n>) is not supported by this kernel",
                    "use the nested grids (grids_from_file = 0, nlevs = 1), as h5bench's sample does");
    if (c.nlevs > 1)
        throw Error("nlevs = " + std::to_string(c.nlevs) + " with nested grids: h5bench_amrex asserts nlevs < 2 there",
                    "use nlevs = 1 (AMReX's set_grids_nested builds one level)");
}

}  // namespace iok::amrex
