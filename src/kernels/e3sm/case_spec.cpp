#include "kernels/e3sm/case_spec.hpp"

#include <cctype>
#include <sstream>
#include <unordered_map>

#include "core/error.hpp"
#include "formats/cdl_header.hpp"
#include "kernels/e3sm/case_cdl.hpp"

namespace iok::e3sm {

namespace {

// How a case description says to use its listing ("// iok:" lines).
struct Directives {
    struct DecompRule {
        int decomp;                     // 0-based
        std::string var;                // by name, or
        std::vector<std::string> dims;  // by non-record dimension names
    };
    std::vector<DecompRule> rules;
    struct DimRule {
        std::string dim, base;
        std::int64_t add = 0;
    };
    std::vector<DimRule> dim_rules;
    bool promote_all = false;      // every float variable -> double
    bool promote_records = false;  // float record variables -> double
};

std::string trim(const std::string& s) {
    std::size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

Directives read_directives(const std::string& text, const std::string& source) {
    Directives d;
    int n = 0;
    // Lines found by searching, not read through a stream: only the few
    // directive lines are copied (every rank reads the case's 84 KB).
    for (std::size_t at = 0; at < text.size();) {
        std::size_t eol = text.find('\n', at);
        if (eol == std::string::npos) eol = text.size();
        ++n;
        const bool directive = text.compare(at, 7, "// iok:") == 0;
        const std::size_t from = at + 7;
        at = eol + 1;
        if (!directive) continue;
        std::istringstream w(text.substr(from, eol - from));
        std::string verb;
        w >> verb;
        const std::string where = source + ":" + std::to_string(n);
        if (verb == "decomp") {
            Directives::DecompRule r;
            int k = 0;
            w >> k;
            if (k < 1) throw Error(where + ": decomp needs a decomposition number >= 1");
            r.decomp = k - 1;
            std::string rest;
            std::getline(w, rest);
            rest = trim(rest);
            if (!rest.empty() && rest.front() == '(' && rest.back() == ')') {
                std::istringstream dl(rest.substr(1, rest.size() - 2));
                std::string dim;
                while (std::getline(dl, dim, ',')) r.dims.push_back(trim(dim));
            } else if (!rest.empty()) {
                r.var = rest;
            } else {
                throw Error(where + ": decomp needs a variable name or (dims)");
            }
            d.rules.push_back(std::move(r));
        } else if (verb == "dim") {
            Directives::DimRule r;
            std::string eq, plus;
            w >> r.dim >> eq >> r.base >> plus >> r.add;
            if (eq != "=" || plus != "+" || w.fail()) throw Error(where + ": expected 'dim A = B + N'");
            d.dim_rules.push_back(r);
        } else if (verb == "promote-float") {
            std::string what;
            w >> what;
            if (what == "all")
                d.promote_all = true;
            else if (what == "records")
                d.promote_records = true;
            else
                throw Error(where + ": promote-float takes 'records' or 'all'");
        } else {
            throw Error(where + ": unknown directive '" + verb + "'");
        }
    }
    return d;
}

const EmbeddedCdl& find_embedded(const std::vector<EmbeddedCdl>& files, const std::string& stem, const char* what) {
    for (const auto& e : files)
        if (e.name == stem) return e;
    throw Error(std::string("no E3SM ") + what + " '" + stem + "'", "known: f_h0, f_h1, g_hist, i_h0, i_h1");
}

std::string dims_text(const std::vector<std::int64_t>& dims) {
    std::string s;
    for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? " x " : "") + std::to_string(dims[i]);
    return s;
}

// Names of a variable's non-record dimensions.
std::vector<std::string> fixed_dim_names(const FileSpec& f, const VarSpec& v) {
    std::vector<std::string> names;
    for (std::size_t i = v.is_record(f) ? 1 : 0; i < v.dims.size(); ++i) names.push_back(f.dims[v.dims[i]].name);
    return names;
}

}  // namespace

const char* case_name(CaseKind c) {
    switch (c) {
        case CaseKind::F: return "F";
        case CaseKind::G: return "G";
        case CaseKind::I: return "I";
    }
    return "?";
}

CaseKind case_from_name(const std::string& name) {
    if (name == "F" || name == "f") return CaseKind::F;
    if (name == "G" || name == "g") return CaseKind::G;
    if (name == "I" || name == "i") return CaseKind::I;
    throw Error("unknown E3SM case '" + name + "'", "choose F (atmosphere), G (ocean) or I (land)");
}

CaseKind case_for_map(const DecompMap& m) {
    switch (m.decomps.size()) {
        case 3: return CaseKind::F;
        case 6: return CaseKind::G;
        case 5: return CaseKind::I;
        default:
            throw Error(m.path + ": a map with " + std::to_string(m.decomps.size()) +
                            " decompositions matches no E3SM case (F has 3, G 6, I 5)",
                        "choose the case explicitly");
    }
}

double default_fill_value(DType t) {
    switch (t) {
        case DType::Char: return 0;
        case DType::Byte: return -127;
        case DType::Short: return -32767;
        case DType::Int: return -2147483647;
        case DType::Int64: return -9223372036854775806.0;
        case DType::Float: return static_cast<double>(9.9692099683868690e+36f);
        case DType::Double: return 9.9692099683868690e+36;
    }
    return 0;
}

void order_variables(FileSpec& f, std::string_view order, const std::string& source) {
    std::unordered_map<std::string_view, std::size_t> index;
    index.reserve(f.vars.size());
    for (std::size_t i = 0; i < f.vars.size(); ++i) index.emplace(f.vars[i].name, i);
    std::vector<int> listed_at(f.vars.size(), 0);  // line of each variable's name, 0 = not yet
    std::vector<std::size_t> listed;               // the variables' indices in the listed order
    listed.reserve(f.vars.size());
    int n = 0;
    for (std::size_t at = 0; at < order.size();) {
        std::size_t eol = order.find('\n', at);
        if (eol == std::string_view::npos) eol = order.size();
        ++n;
        const std::string line = trim(std::string(order.substr(at, eol - at)));
        at = eol + 1;
        if (line.empty() || line[0] == '#') continue;
        const std::string where = source + ":" + std::to_string(n);
        if (line.find_first_of(" \t") != std::string::npos)
            throw Error(where + ": '" + line + "' is not one variable name", "list one variable name a line");
        const auto it = index.find(line);
        if (it == index.end())
            throw Error(where + ": '" + line + "' is no variable of the case description",
                        "the listing order may name only the case's variables");
        if (listed_at[it->second])
            throw Error(where + ": variable '" + line + "' is listed twice (first at line " +
                            std::to_string(listed_at[it->second]) + ")",
                        "list each variable once");
        listed_at[it->second] = n;
        listed.push_back(it->second);
    }
    if (listed.size() != f.vars.size()) {
        std::string missing;
        std::size_t count = 0;
        for (std::size_t i = 0; i < f.vars.size(); ++i)
            if (!listed_at[i] && ++count <= 5) missing += (count > 1 ? ", " : "") + f.vars[i].name;
        if (count > 5) missing += ", ...";
        throw Error(source + ": " + std::to_string(count) + " variable" + (count > 1 ? "s" : "") +
                        " of the case description not listed: " + missing,
                    "the listing order must name every variable of the case once");
    }
    std::vector<VarSpec> vars;  // moved once all names are checked (index views them)
    vars.reserve(f.vars.size());
    for (std::size_t i : listed) vars.push_back(std::move(f.vars[i]));
    f.vars = std::move(vars);
}

FileSpec case_file(const std::string& stem, const DecompMap& m, const CaseOptions& opt) {
    const std::string text(find_embedded(embedded_case_cdls(), stem, "case description").text);
    const std::string source = "e3sm case " + stem + ".cdl";
    const Directives dir = read_directives(text, source);
    FileSpec f = parse_cdl_header(text, source);
    f.label = stem.substr(stem.find('_') + 1);
    if (opt.listing_order)
        order_variables(f, find_embedded(embedded_listing_orders(), stem, "listing order").text,
                        "e3sm case " + stem + ".listing-order");

    // Which decomposition partitions each variable: a rule by name wins over
    // rules by dimensions; no rule means rank 0 writes the variable whole.
    for (auto& v : f.vars) {
        v.decomp = -1;
        const auto names = fixed_dim_names(f, v);
        for (const auto& r : dir.rules)
            if (r.var == v.name) v.decomp = r.decomp;
        if (v.decomp < 0)
            for (const auto& r : dir.rules)
                if (r.var.empty() && r.dims == names) v.decomp = r.decomp;
        if (v.decomp >= static_cast<int>(m.decomps.size()))
            throw Error(m.path + ": the E3SM " + stem + " file needs decomposition D" + std::to_string(v.decomp + 1) +
                            " (for variable " + v.name + ") but the map has " + std::to_string(m.decomps.size()),
                        "use a map of this case or choose the case that matches the map");
    }

    // Dimension lengths from the decompositions of the variables using them.
    std::vector<int> set_by(f.dims.size(), -1);
    for (const auto& v : f.vars) {
        if (v.decomp < 0) continue;
        const Decomp& d = m.decomps[v.decomp];
        const std::size_t first = v.is_record(f) ? 1 : 0;
        if (v.dims.size() - first != d.dims.size())
            throw Error(m.path + ": " + d.name + " has " + std::to_string(d.dims.size()) + " dimensions (" +
                            dims_text(d.dims) + ") but variable " + v.name + " of the E3SM " + stem + " file has " +
                            std::to_string(v.dims.size() - first),
                        "the map does not belong to this case");
        for (std::size_t i = 0; i < d.dims.size(); ++i) {
            const int id = v.dims[first + i];
            const auto len = static_cast<std::uint64_t>(d.dims[i]);
            if (set_by[id] >= 0 && f.dims[id].length != len)
                throw Error(m.path + ": dimension " + f.dims[id].name + " is " + std::to_string(f.dims[id].length) +
                                " in D" + std::to_string(set_by[id] + 1) + " but " + std::to_string(len) + " in " +
                                d.name + " (" + dims_text(d.dims) + ")",
                            "the map's decompositions disagree; regenerate it");
            f.dims[id].length = len;
            set_by[id] = v.decomp;
        }
    }
    for (const auto& r : dir.dim_rules) {
        int a = f.find_dim(r.dim), b = f.find_dim(r.base);
        if (a < 0 || b < 0) throw Error(source + ": dim rule names an unknown dimension");
        f.dims[a].length = f.dims[b].length + static_cast<std::uint64_t>(r.add);
    }

    // Types: float variables become double unless the float option is given;
    // _FillValue follows the variable's type, missing_value stays float.
    for (auto& v : f.vars) {
        const bool promote =
            !opt.float_vars && v.type == DType::Float && (dir.promote_all || (dir.promote_records && v.is_record(f)));
        if (promote) {
            v.type = DType::Double;
            for (auto& a : v.attrs)
                if (a.name == "_FillValue") a.type = DType::Double;  // value: the float constant widened
        }
        v.fill_value = default_fill_value(v.type);
        for (const auto& a : v.attrs)
            if (a.name == "_FillValue" && !a.values.empty()) v.fill_value = a.values[0];
    }
    return f;
}

std::vector<FileSpec> case_files(CaseKind c, const DecompMap& m, const CaseOptions& opt) {
    switch (c) {
        case CaseKind::F: return {case_file("f_h0", m, opt), case_file("f_h1", m, opt)};
        case CaseKind::G: return {case_file("g_hist", m, opt)};
        case CaseKind::I: return {case_file("i_h0", m, opt), case_file("i_h1", m, opt)};
    }
    return {};
}

}  // namespace iok::e3sm
