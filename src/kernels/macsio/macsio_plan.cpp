#include "kernels/macsio/macsio_plan.hpp"

#include <cstdio>
#include <memory>

namespace iok::macsio {
namespace {

int dim_of(FileSpec& s, std::uint64_t length) {
    const std::string name = "n" + std::to_string(length);
    const int at = s.find_dim(name);
    if (at >= 0) return at;
    s.dims.push_back({name, length, false});
    return static_cast<int>(s.dims.size()) - 1;
}

std::array<int, 3> position(const Mesh& m, int chunk) {
    const int ny = m.layout[1], nz = m.layout[2];
    return {chunk / (ny * nz), chunk / nz % ny, chunk % nz};
}

}  // namespace

std::vector<int> chunks_of(const Mesh& m, int rank) {
    std::vector<int> c;
    for (int k = 0; k < m.parts_per_rank; ++k) c.push_back(rank * m.parts_per_rank + k);
    return c;
}

std::string mif_path(const std::string& base, int group, int dump, const std::string& ext) {
    char tail[64];
    std::snprintf(tail, sizeof tail, "_hdf5_%05d_%03d.", group, dump);
    return base + tail + ext;
}

std::string sif_path(const std::string& base, int dump, const std::string& ext) {
    char tail[64];
    std::snprintf(tail, sizeof tail, "_hdf5_%03d.", dump);
    return base + tail + ext;
}

FilePlan mif_plan(const Mesh& m, const std::vector<int>& ranks, int me, int dump, bool groups) {
    FilePlan p;
    FileSpec& s = p.spec;
    s.label = "mif";
    s.named_dims = false;
    const auto vars = variables(m.vars);
    for (std::size_t i = 0; i < ranks.size(); ++i)
        for (int chunk : chunks_of(m, ranks[i])) {
            char dom[32];
            std::snprintf(dom, sizeof dom, "domain_%07d", chunk);
            if (groups) s.groups.push_back({std::string("/") + dom, {}});
            for (const Var& v : vars) {
                VarSpec vs;
                vs.name = std::string(dom) + (groups ? "/" : "_") + v.name;
                vs.type = v.integer ? DType::Int : DType::Double;
                // The extarr's dims as they are (x first), one less for zones.
                for (int d = 0; d < m.dim; ++d)
                    vs.dims.push_back(
                        dim_of(s, static_cast<std::uint64_t>(m.part[static_cast<std::size_t>(d)] - (v.zone ? 1 : 0))));
                s.vars.push_back(vs);
                const auto shape = s.fixed_shape(s.vars.back());
                const bool mine = static_cast<int>(i) == me;
                p.selection.push_back(
                    std::make_shared<const Selection>(mine ? Selection::whole(shape) : Selection(shape)));
                p.sole_rank.push_back(static_cast<int>(i));
                if (mine) ++p.requests;
            }
        }
    p.nrecords = 1;
    p.flush_every = 1;
    p.pattern_seed = static_cast<std::uint64_t>(dump);
    return p;
}

FilePlan sif_plan(const Mesh& m, int rank, int dump) {
    FilePlan p;
    FileSpec& s = p.spec;
    s.label = "sif";
    s.named_dims = false;
    for (const Var& v : variables(m.vars)) {
        VarSpec vs;
        vs.name = v.name;
        vs.type = v.integer ? DType::Int : DType::Double;
        // Global axes reversed (slowest first): nodes x parts, less one per part for zones.
        std::vector<std::uint64_t> shape;
        for (int d = m.dim - 1; d >= 0; --d) {
            const auto u = static_cast<std::size_t>(d);
            const auto n = static_cast<std::uint64_t>(m.part[u]) * static_cast<std::uint64_t>(m.layout[u]);
            shape.push_back(n - (v.zone ? static_cast<std::uint64_t>(m.layout[u]) : 0));
            vs.dims.push_back(dim_of(s, shape.back()));
        }
        s.vars.push_back(vs);
        auto sel = std::make_shared<Selection>(shape);
        for (int chunk : chunks_of(m, rank)) {
            const auto at = position(m, chunk);
            std::vector<std::int64_t> st, ct;
            for (int d = m.dim - 1; d >= 0; --d) {
                const auto u = static_cast<std::size_t>(d);
                const int z = v.zone ? 1 : 0;
                st.push_back(static_cast<std::int64_t>(at[u]) * (m.part[u] - z));
                ct.push_back(m.part[u] - z);
            }
            sel->add_block(st.data(), ct.data());
            ++p.requests;
        }
        p.selection.push_back(sel);
    }
    p.nrecords = 1;
    p.flush_every = 1;
    p.pattern_seed = static_cast<std::uint64_t>(dump);
    return p;
}

}  // namespace iok::macsio
