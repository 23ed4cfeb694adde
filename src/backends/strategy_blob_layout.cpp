#include "backends/strategy_blob_layout.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/broadcast_file.hpp"
#include "core/collective.hpp"
#include "core/error.hpp"

namespace iok {

using nlohmann::json;

std::string blob_subfile_path(const std::string& dir, std::size_t k, const std::string& ext) {
    char name[32];
    std::snprintf(name, sizeof name, "subfile_%04zu", k);
    return dir + "/" + name + ext;
}

std::string blob_blocks_var(std::size_t sel) { return "blob_blocks_" + std::to_string(sel); }

std::int64_t blob_elem_offset(const BlobSel& s, std::size_t i) {
    std::int64_t at = 0;
    for (std::size_t r = 0; r < i; ++r) at += s.nelems[r];
    return at;
}

std::int64_t blob_block_offset(const BlobSel& s, std::size_t i) {
    std::int64_t at = 0;
    for (std::size_t r = 0; r < i; ++r) at += s.nblocks[r] * 2 * s.ndims;
    return at;
}

void append_blocks_as_ints(const Selection& sel, std::vector<std::int64_t>& v) {
    const std::size_t nd = static_cast<std::size_t>(sel.ndims());
    std::size_t at = v.size();
    v.resize(at + sel.nblocks() * 2 * nd);  // one allocation: E3SM maps have ~10^5 one-element blocks
    for (std::size_t b = 0; b < sel.nblocks(); ++b, at += 2 * nd) {
        std::copy_n(sel.start(b), nd, v.data() + at);
        std::copy_n(sel.count(b), nd, v.data() + at + nd);
    }
}

std::vector<std::int64_t> blocks_to_ints(const Selection& sel) {
    std::vector<std::int64_t> v;
    append_blocks_as_ints(sel, v);
    return v;
}

void add_blocks_from_ints(Selection& sel, const std::int64_t* ints, std::int64_t nblocks) {
    const std::size_t nd = static_cast<std::size_t>(sel.ndims());
    for (std::int64_t b = 0; b < nblocks; ++b) {
        const std::int64_t* p = ints + static_cast<std::size_t>(b) * 2 * nd;
        for (std::size_t d = 0; d < nd; ++d)
            if (p[d] < 0 || p[nd + d] < 0 || static_cast<std::uint64_t>(p[d] + p[nd + d]) > sel.shape()[d])
                throw Error("blob metadata: block " + std::to_string(b) + " lies outside the variable",
                            "the subfile's blob_blocks variable is corrupt");
        sel.add_block(p, p + nd);
    }
}

BlobSubfileSpec blob_subfile_spec(const FileSpec& c, const BlobSubfile& sf, std::size_t k, std::size_t nsubfiles) {
    BlobSubfileSpec out;
    FileSpec& f = out.spec;
    f.label = c.label;
    f.global_attrs = c.global_attrs;
    f.global_attrs.push_back(Attr::Text("blob_subfile", std::to_string(k) + " of " + std::to_string(nsubfiles)));
    const int crec = c.record_dim();
    int rec = -1;
    if (crec >= 0) {
        rec = 0;
        f.dims.push_back(c.dims[static_cast<std::size_t>(crec)]);
    }
    // one dimension per distinct length: variables of one decomposition share it
    std::map<std::uint64_t, int> dim_of;
    auto length_dim = [&](std::uint64_t n) {
        auto it = dim_of.find(n);
        if (it != dim_of.end()) return it->second;
        f.dims.push_back({"blob_len_" + std::to_string(n), n, false});
        return dim_of[n] = static_cast<int>(f.dims.size() - 1);
    };
    out.var_index.assign(c.vars.size(), -1);
    out.var_length.assign(c.vars.size(), 0);
    for (std::size_t v = 0; v < c.vars.size(); ++v) {
        const VarSpec& cv = c.vars[v];
        const BlobSel& s = sf.sels.at(static_cast<std::size_t>(sf.var_sel.at(v)));
        const std::uint64_t n = static_cast<std::uint64_t>(blob_elem_offset(s, s.nelems.size()));
        out.var_length[v] = n;
        if (n == 0) continue;
        VarSpec bv;
        bv.name = cv.name;
        bv.type = cv.type;
        if (cv.is_record(c)) bv.dims.push_back(rec);
        bv.dims.push_back(length_dim(n));
        bv.attrs = cv.attrs;
        std::string names;
        for (int d : cv.dims) names += (names.empty() ? "" : " ") + c.dims[static_cast<std::size_t>(d)].name;
        bv.attrs.push_back(Attr::Text("blob_canonical_dims", names.empty() ? "(scalar)" : names));
        out.var_index[v] = static_cast<int>(f.vars.size());
        f.vars.push_back(std::move(bv));
    }
    out.blocks_index.assign(sf.sels.size(), -1);
    for (std::size_t s = 0; s < sf.sels.size(); ++s) {
        const std::uint64_t n = static_cast<std::uint64_t>(blob_block_offset(sf.sels[s], sf.sels[s].nblocks.size()));
        if (n == 0) continue;
        VarSpec bv;
        bv.name = blob_blocks_var(s);
        bv.type = DType::Int64;
        bv.dims.push_back(length_dim(n));
        bv.attrs.push_back(Attr::Text("description", "per writer rank, its blocks as start[ndims] count[ndims]"));
        out.blocks_index[s] = static_cast<int>(f.vars.size());
        f.vars.push_back(std::move(bv));
    }
    return out;
}

// ---- JSON -----------------------------------------------------------------

namespace {

// Objects filled member by member: a braced initializer list copies every
// element (its elements are const), which made building an E3SM index (1,563
// attributes) 5,000 instructions per attribute, on rank 0 while the others wait.
json attr_json(const Attr& a) {
    json j(json::value_t::object);
    j.emplace("name", a.name);
    j.emplace("type", dtype_name(a.type));
    if (a.type == DType::Char)
        j.emplace("text", a.text);
    else
        j.emplace("values", a.values);
    return j;
}

Attr attr_from(const json& j) {
    Attr a;
    a.name = j.at("name").get<std::string>();
    a.type = dtype_from_name(j.at("type").get<std::string>());
    if (a.type == DType::Char)
        a.text = j.at("text").get<std::string>();
    else
        a.values = j.at("values").get<std::vector<double>>();
    return a;
}

}  // namespace

json file_spec_to_json(const FileSpec& f) {
    // Arrays built in place and moved in: copying each variable's JSON (with
    // its attributes) into the array was most of writing an E3SM blob index.
    json dims = json::array(), vars = json::array(), attrs = json::array();
    for (const Dim& d : f.dims) {
        json jd(json::value_t::object);
        jd.emplace("name", d.name);
        jd.emplace("length", d.length);
        jd.emplace("unlimited", d.unlimited);
        dims.push_back(std::move(jd));
    }
    vars.get_ref<json::array_t&>().reserve(f.vars.size());
    for (const VarSpec& v : f.vars) {
        json va = json::array();
        va.get_ref<json::array_t&>().reserve(v.attrs.size());
        for (const Attr& a : v.attrs) va.push_back(attr_json(a));
        json jv(json::value_t::object);
        jv.emplace("name", v.name);
        jv.emplace("type", dtype_name(v.type));
        jv.emplace("dims", v.dims);
        jv.emplace("decomp", v.decomp);
        jv.emplace("attrs", std::move(va));
        if (v.fill_value) jv.emplace("fill_value", *v.fill_value);
        vars.push_back(std::move(jv));
    }
    for (const Attr& a : f.global_attrs) attrs.push_back(attr_json(a));
    json j = {{"label", f.label}};
    j["dims"] = std::move(dims);
    j["vars"] = std::move(vars);
    j["attrs"] = std::move(attrs);
    return j;
}

FileSpec file_spec_from_json(const json& j) {
    FileSpec f;
    f.label = j.at("label").get<std::string>();
    for (const auto& d : j.at("dims"))
        f.dims.push_back(
            {d.at("name").get<std::string>(), d.at("length").get<std::uint64_t>(), d.at("unlimited").get<bool>()});
    for (const auto& jv : j.at("vars")) {
        VarSpec v;
        v.name = jv.at("name").get<std::string>();
        v.type = dtype_from_name(jv.at("type").get<std::string>());
        v.dims = jv.at("dims").get<std::vector<int>>();
        v.decomp = jv.at("decomp").get<int>();
        if (jv.contains("fill_value")) v.fill_value = jv["fill_value"].get<double>();
        for (const auto& a : jv.at("attrs")) v.attrs.push_back(attr_from(a));
        for (int d : v.dims)
            if (d < 0 || static_cast<std::size_t>(d) >= f.dims.size())
                throw Error("variable " + v.name + " names a dimension that does not exist");
        f.vars.push_back(std::move(v));
    }
    for (const auto& a : j.at("attrs")) f.global_attrs.push_back(attr_from(a));
    return f;
}

namespace {

json subfile_json(const BlobSubfile& s) {
    json j = {{"ranks", s.ranks}, {"var_sel", s.var_sel}, {"sels", json::array()}};
    for (const BlobSel& x : s.sels)
        j["sels"].push_back({{"ndims", x.ndims}, {"nblocks", x.nblocks}, {"nelems", x.nelems}});
    return j;
}

BlobSubfile subfile_from(const json& j) {
    BlobSubfile s;
    s.ranks = j.at("ranks").get<std::vector<int>>();
    s.var_sel = j.at("var_sel").get<std::vector<int>>();
    for (const auto& x : j.at("sels")) {
        BlobSel b;
        b.ndims = x.at("ndims").get<int>();
        b.nblocks = x.at("nblocks").get<std::vector<std::int64_t>>();
        b.nelems = x.at("nelems").get<std::vector<std::int64_t>>();
        if (b.nblocks.size() != s.ranks.size() || b.nelems.size() != s.ranks.size())
            throw Error("a selection's per-rank lists do not match the subfile's rank count");
        s.sels.push_back(std::move(b));
    }
    for (int v : s.var_sel)
        if (v < 0 || static_cast<std::size_t>(v) >= s.sels.size()) throw Error("a variable names a missing selection");
    return s;
}

}  // namespace

std::string blob_subfile_to_json(const BlobSubfile& s) { return subfile_json(s).dump(); }
BlobSubfile blob_subfile_from_json(const std::string& text) {
    try {
        return subfile_from(json::parse(text));
    } catch (const json::exception& e) {  // a damaged description is the file's fault, not a bug
        throw Error(std::string("the blob subfile description is damaged (") + e.what() + ")",
                    "was it written completely by -x blob? rerun the write");
    }
}

std::string blob_index_to_json(const BlobIndex& index) {
    json j = {{"format", "iokernels-blob"},
              {"version", 1},
              {"library", index.library},
              {"extension", index.extension},
              {"writers", index.writers},
              {"nrecords", index.nrecords},
              {"spec", file_spec_to_json(index.spec)},
              {"subfiles", json::array()}};
    for (const auto& s : index.subfiles) j["subfiles"].push_back(subfile_json(s));
    return j.dump();
}

BlobIndex blob_index_from_json(const std::string& text, const std::string& where) {
    try {
        json j = json::parse(text);
        if (j.value("format", "") != "iokernels-blob" || j.value("version", 0) != 1)
            throw Error("not an iokernels blob index (format/version)");
        BlobIndex x;
        x.library = j.at("library").get<std::string>();
        x.extension = j.at("extension").get<std::string>();
        x.writers = j.at("writers").get<int>();
        x.nrecords = j.at("nrecords").get<std::int64_t>();
        x.spec = file_spec_from_json(j.at("spec"));
        std::vector<int> seen(static_cast<std::size_t>(std::max(x.writers, 0)), 0);
        for (const auto& s : j.at("subfiles")) {
            x.subfiles.push_back(subfile_from(s));
            if (x.subfiles.back().var_sel.size() != x.spec.vars.size())
                throw Error("a subfile describes " + std::to_string(x.subfiles.back().var_sel.size()) +
                            " variables, the spec " + std::to_string(x.spec.vars.size()));
            for (int r : x.subfiles.back().ranks) {
                if (r < 0 || r >= x.writers || seen[static_cast<std::size_t>(r)]++)
                    throw Error("writer rank " + std::to_string(r) + " is out of range or listed twice");
            }
        }
        for (std::size_t r = 0; r < seen.size(); ++r)
            if (!seen[r]) throw Error("writer rank " + std::to_string(r) + " is in no subfile");
        return x;
    } catch (const Error& e) {
        throw Error(where + ": " + e.what(), "the blob output is incomplete or corrupt; write it again");
    } catch (const std::exception& e) {
        throw Error(where + ": malformed blob index (" + e.what() + ")",
                    "the blob output is incomplete or corrupt; write it again");
    }
}

ProcessGroups split_into_groups(MPI_Comm comm, int requested) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    ProcessGroups g;
    int color = 0;
    if (requested > 0) {
        const int n = std::min(requested, size);
        color = static_cast<int>(static_cast<long long>(rank) * n / size);
        g.count = static_cast<std::size_t>(n);
    } else {
        // one group per node, numbered in the order of the node's lowest rank
        MPI_Comm node;
        MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        int leader = rank;
        MPI_Bcast(&leader, 1, MPI_INT, 0, node);
        MPI_Comm_free(&node);
        std::vector<int> leaders(static_cast<std::size_t>(size));
        MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm);
        std::sort(leaders.begin(), leaders.end());
        leaders.erase(std::unique(leaders.begin(), leaders.end()), leaders.end());
        color = static_cast<int>(std::lower_bound(leaders.begin(), leaders.end(), leader) - leaders.begin());
        g.count = leaders.size();
    }
    g.index = static_cast<std::size_t>(color);
    MPI_Comm_split(comm, color, rank, &g.comm);
    return g;
}

void make_output_directory(const std::string& dir, const char* marker) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(dir, ec)) {
        if (!fs::exists(dir + "/" + marker) && !fs::is_empty(dir, ec))
            throw Error(dir + " is a directory that is not an output of this strategy (no " + marker + ")",
                        "choose another output path with -o");
        fs::remove_all(dir, ec);
    } else if (fs::exists(fs::symlink_status(dir, ec))) {
        fs::remove(dir, ec);  // a file: --overwrite allowed replacing it
    }
    if (!fs::create_directory(dir, ec))
        throw Error("cannot create the output directory " + dir + " (" + ec.message() + ")",
                    "check that its parent directory is writable");
}

BlobIndex read_blob_index(const std::string& dir, MPI_Comm comm) {
    const std::string where = dir + "/" + kBlobIndexName;
    const std::string text = read_text_collective(
        where, comm, "is " + dir + " a blob output (written with -x blob) and was it closed cleanly?");
    BlobIndex x;
    collective_step(comm, [&] { x = blob_index_from_json(text, where); });
    return x;
}

}  // namespace iok
