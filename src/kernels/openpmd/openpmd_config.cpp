#include "kernels/openpmd/openpmd_config.hpp"

#include <fstream>
#include <sstream>

#include "core/command_line.hpp"
#include "core/error.hpp"

namespace iok::openpmd {
namespace {

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\"");
    if (b == std::string::npos) return "";
    const auto e = s.find_last_not_of(" \t\r\"");
    return s.substr(b, e - b + 1);
}

std::uint64_t number(const std::string& text, const std::string& key) {
    const std::string t = trim(text);
    std::size_t used = 0;
    unsigned long long v = 0;
    try {
        if (t.empty() || t[0] == '-') throw std::invalid_argument(t);
        v = std::stoull(t, &used, 10);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != t.size())
        throw Error(key + "='" + text + "' is not a whole number", "write e.g. " + key + "=4");
    return v;
}

std::vector<std::uint64_t> numbers(const std::string& text, const std::string& key) {
    std::istringstream in(trim(text));
    std::vector<std::uint64_t> out;
    for (std::string w; in >> w;) out.push_back(number(w, key));
    if (out.empty()) throw Error(key + " is empty", "give one count per mesh dimension, e.g. " + key + "=16 32 32");
    return out;
}

bool truth(const std::string& text, const std::string& key) {
    const std::string t = lowercase(trim(text));
    if (t == "true" || t == "yes" || t == "1") return true;
    if (t == "false" || t == "no" || t == "0") return false;
    throw Error(key + "='" + text + "' is not true or false", "write " + key + "=true or " + key + "=false");
}

}  // namespace

const char* name(Pattern p) {
    switch (p) {
        case Pattern::Metadata: return "m";
        case Pattern::SliceX: return "sx";
        case Pattern::SliceY: return "sy";
        case Pattern::SliceZ: return "sz";
        case Pattern::FieldX: return "fx";
        case Pattern::FieldY: return "fy";
        case Pattern::FieldZ: return "fz";
        case Pattern::Full: return "full";
    }
    return "?";
}

const std::vector<std::string>& config_keys() {
    static const std::vector<std::string> keys = {"dim",  "balanced",   "ratio",    "steps",        "minBlock",
                                                  "grid", "rankBlocks", "encoding", "fileLocation", "pattern"};
    return keys;
}

void Config::set(const std::string& key_in, const std::string& value) {
    const std::string key = trim(key_in);
    if (key == "dim") {
        const auto d = number(value, key);
        if (d < 1 || d > 3)
            throw Error("dim=" + trim(value) + ": the benchmark's meshes are 1-, 2- or 3-dimensional",
                        "write dim=1, dim=2 or dim=3");
        dim = static_cast<int>(d);
    } else if (key == "balanced") {
        balanced = truth(value, key);
    } else if (key == "ratio") {
        ratio = number(value, key);
        if (ratio == 0) throw Error("ratio=0: no particles", "ratio is particles per mesh cell, at least 1");
    } else if (key == "steps") {
        const auto s = number(value, key);
        if (s == 0 || s > 1000000) throw Error("steps=" + trim(value) + " is not in 1..1000000", "write e.g. steps=2");
        steps = static_cast<int>(s);
    } else if (key == "minBlock") {
        min_block = numbers(value, key);
    } else if (key == "grid") {
        grid = numbers(value, key);
    } else if (key == "rankBlocks") {
        rank_blocks = truth(value, key);
    } else if (key == "encoding") {
        // 8a: f = a file per iteration, g = groups in one file, else variable
        // based (one iteration's objects rewritten per ADIOS2 step; on HDF5 a
        // single /data/ with a `snapshot` attribute).
        if (trim(value) != "g")
            throw Error("encoding=" + trim(value) + ": only group-based iteration encoding (encoding=g) is built",
                        "drop encoding or write encoding=g (iterations as groups /data/<i>/ of one file, the "
                        "encoding the openPMD validator checks)");
    } else if (key == "fileLocation") {
        file_location = trim(value);
        if (file_location.empty()) throw Error("fileLocation is empty", "name the directory of the file");
    } else if (key == "pattern") {
        static const std::pair<const char*, Pattern> kPatterns[] = {
            {"m", Pattern::Metadata}, {"sx", Pattern::SliceX}, {"sy", Pattern::SliceY}, {"sz", Pattern::SliceZ},
            {"fx", Pattern::FieldX},  {"fy", Pattern::FieldY}, {"fz", Pattern::FieldZ}, {"full", Pattern::Full}};
        const std::string v = trim(value);
        bool found = false;
        for (const auto& [n, p] : kPatterns)
            if (v == n) pattern = p, found = true;
        if (!found)
            throw Error("pattern=" + v + " is not a read pattern of h5bench_openpmd_read",
                        "use m (metadata), sx/sy/sz (a slice of rho), fx/fy/fz (a slice of B) or full");
    } else {
        std::string list;
        for (const auto& k : config_keys()) list += (list.empty() ? "" : " ") + k;
        throw Error("unknown openPMD configuration key '" + key + "'", "known keys: " + list);
    }
    given[key] = trim(value);
}

void Config::load_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error("cannot read configuration file '" + path + "'", "check the path and its permissions");
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (trim(line).empty() || trim(line)[0] == '#') continue;
        const auto eq = line.find('=');
        if (eq == std::string::npos)
            throw Error(path + " line " + std::to_string(n) + ": '" + trim(line) + "' is not KEY=VALUE",
                        "each line of h5bench's openpmd.input is KEY=VALUE, e.g. dim=3");
        try {
            set(line.substr(0, eq), line.substr(eq + 1));
        } catch (const Error& e) {
            throw Error(path + " line " + std::to_string(n) + ": " + e.what(), e.hint());
        }
    }
}

void Config::resolve(int ranks) {
    // 8a's defaults: minBlock 64 32 32, grid <ranks> 8 8, cut to `dim` values.
    if (min_block.empty()) min_block = {64, 32, 32};
    if (grid.empty()) grid = {static_cast<std::uint64_t>(ranks), 8, 8};
    if (!given.count("minBlock")) min_block.resize(static_cast<std::size_t>(dim));
    if (!given.count("grid")) grid.resize(static_cast<std::size_t>(dim));
    for (const auto* k : {"minBlock", "grid"}) {
        const auto& v = std::string(k) == "minBlock" ? min_block : grid;
        if (v.size() != static_cast<std::size_t>(dim))
            throw Error(std::string(k) + " has " + std::to_string(v.size()) + " values and dim=" + std::to_string(dim),
                        "give one value per mesh dimension, e.g. " + std::string(k) + "=" +
                            (dim == 1   ? "16"
                             : dim == 2 ? "16 32"
                                        : "16 32 32"));
        for (auto x : v)
            if (x == 0) throw Error(std::string(k) + " has a zero", "every mesh axis needs at least one cell");
    }
    std::uint64_t cells = 1;
    for (auto n : global_mesh()) {
        if (n > (std::uint64_t{1} << 40) / cells)
            throw Error("a mesh of more than 2^40 cells", "lower minBlock or grid");
        cells *= n;
    }
    if (cells > (std::uint64_t{1} << 40) / ratio) throw Error("more than 2^40 particles", "lower ratio");
}

void Config::validate_read() const {
    const bool slice = pattern == Pattern::SliceX || pattern == Pattern::SliceY || pattern == Pattern::SliceZ;
    const bool field = pattern == Pattern::FieldX || pattern == Pattern::FieldY || pattern == Pattern::FieldZ;
    const int axis = pattern == Pattern::SliceY || pattern == Pattern::FieldY   ? 1
                     : pattern == Pattern::SliceZ || pattern == Pattern::FieldZ ? 2
                                                                                : 0;
    if (slice && axis >= dim)
        throw Error(std::string("pattern=") + name(pattern) + " slices axis " + std::to_string(axis) + " of a " +
                        std::to_string(dim) + "-D mesh",
                    "the reference reads nothing then; use a slice of an axis the mesh has");
    if (field && dim != 3)
        throw Error(std::string("pattern=") + name(pattern) + " slices the 3-D magnetic field; the meshes are " +
                        std::to_string(dim) + "-D",
                    "use fx/fy/fz with dim=3, or sx/sy for 2-D meshes");
}

std::vector<std::uint64_t> Config::global_mesh() const {
    std::vector<std::uint64_t> g;
    for (std::size_t i = 0; i < min_block.size() && i < grid.size(); ++i) g.push_back(min_block[i] * grid[i]);
    return g;
}

std::uint64_t Config::particles() const {
    std::uint64_t n = ratio;
    for (auto x : global_mesh()) n *= x;
    return n;
}

std::string Config::file_stem() const { return "8a_parallel_" + std::to_string(dim) + "D" + (balanced ? "b" : "u"); }

}  // namespace iok::openpmd
