#include "kernels/exerciser/exerciser_plan.hpp"

#include <memory>
#include <string>

namespace iok::exerciser {

namespace {

// The members of sim_params_t, in its order.
const struct {
    const char* name;
    DType type;
} kDerived[] = {
    {"total blocks", DType::Int}, {"time", DType::Double}, {"timestep", DType::Double}, {"number of steps", DType::Int},
    {"nxb", DType::Int},          {"nyb", DType::Int},     {"nzb", DType::Int}};

int shifted(int rank, int shift, int nprocs) {
    return static_cast<int>((rank + static_cast<long long>(shift)) % nprocs);
}

// The hyperslab at place `loc`: blocks start + k*stride (k < count) per
// dimension; the derived dataset's is one block of the rank's elements.
SelectionPtr hyperslab(const std::vector<std::uint64_t>& shape, const Geometry& g,
                       const std::vector<std::uint64_t>& loc, bool derived) {
    auto sel = std::make_shared<Selection>(shape);
    const auto nd = static_cast<std::size_t>(g.ndims);
    std::vector<std::int64_t> start(nd), count(nd);
    std::vector<std::uint64_t> k(nd, 0), blocks(nd, 1);
    for (std::size_t d = 0; d < nd; ++d) blocks[d] = derived ? 1 : g.count[d];
    for (;;) {
        for (std::size_t d = 0; d < nd; ++d) {
            const std::uint64_t stride = derived ? g.nels[d] : g.stride[d];
            start[d] = static_cast<std::int64_t>(stride * blocks[d] * loc[d] + k[d] * stride);
            count[d] = static_cast<std::int64_t>(derived ? g.nels[d] : g.block[d]);
        }
        sel->add_block(start.data(), count.data());
        std::size_t d = nd;
        for (; d > 0; --d) {  // last dimension fastest
            if (++k[d - 1] < blocks[d - 1]) break;
            k[d - 1] = 0;
        }
        if (d == 0) return sel;
    }
}

FilePlan spec_of(const Options& o, const Geometry& g, int it, const Layout& l) {
    FilePlan p;
    FileSpec& s = p.spec;
    s.label = "exerciser";
    s.named_dims = false;
    const auto nd = static_cast<std::size_t>(g.ndims);
    std::vector<int> dims, ddims;
    for (std::size_t d = 0; d < nd; ++d) {
        dims.push_back(static_cast<int>(s.dims.size()));
        s.dims.push_back({"dim" + std::to_string(d), g.dims[d], false});
    }
    for (std::size_t d = 0; d < nd; ++d) {
        ddims.push_back(static_cast<int>(s.dims.size()));
        s.dims.push_back({"derived_dim" + std::to_string(d), g.derived_dims[d], false});
    }
    const std::string top = l.groups ? "Data/" : "";
    VarSpec v;
    v.name = top + dataset_name(g, it);
    v.type = DType::Double;
    v.dims = dims;
    if (o.usechunked) v.storage.chunk = g.block;
    s.vars.push_back(v);
    if (o.derivedtype)
        for (const auto& m : kDerived) {
            VarSpec f;
            f.name = m.name;
            f.type = m.type;
            f.dims = ddims;
            f.compound = top + (l.groups ? "derivedData/" : "derivedData_") + "simulation parameters";
            // The original keeps the derived dataset's block from the first size
            // on (its file block is not reset per size): chunks of --minels.
            if (o.usechunked)
                for (std::size_t d = 0; d < nd; ++d) f.storage.chunk.push_back(static_cast<std::uint64_t>(o.minels[d]));
            s.vars.push_back(f);
        }
    if (o.addattr) {
        std::vector<Attr> attrs;
        for (int i = 0; i < kAttributes; ++i) {
            const std::string text = "This is my attribute string number " + std::to_string(i);
            std::vector<double> bytes(kAttributeSize, 0.0);
            for (std::size_t c = 0; c < text.size(); ++c) bytes[c] = static_cast<unsigned char>(text[c]);
            attrs.push_back(Attr::Number("Attribute " + std::to_string(i) + " Name", DType::Byte, std::move(bytes)));
        }
        if (l.group_attrs)
            s.group_attrs.push_back({"Data", std::move(attrs)});
        else
            s.global_attrs = std::move(attrs);
    }
    return p;
}

}  // namespace

std::string dataset_name(const Geometry& g, int iteration) {
    return "hdf5DataSet1-iter" + std::to_string(iteration) + "-size" + std::to_string(g.elements);
}

FilePlan write_plan(const Options& o, const Geometry& g, int it, int rank, int nprocs, const Layout& l) {
    FilePlan p = spec_of(o, g, it, l);
    const int at = o.rshift > 0 ? shifted(rank, o.rshift, nprocs) : rank;
    p.selection.push_back(hyperslab(p.spec.fixed_shape(p.spec.vars[0]), g, location(o, at), false));
    p.requests = 1;
    // The compound dataset is written whole from an array of sim_params_t
    // structs, as the original does: written member by member, HDF5 reads
    // the dataset back before each member's write to keep the others (a
    // collective read-modify-write per member, 7 of them per dataset).
    if (p.spec.vars.size() > 1) {
        SelectionPtr derived = hyperslab(p.spec.fixed_shape(p.spec.vars[1]), g, location(o, rank), true);
        for (std::size_t v = 1; v < p.spec.vars.size(); ++v) {
            p.selection.push_back(derived);
            p.memory_struct.push_back(static_cast<int>(v));
        }
        ++p.requests;
    }
    p.pattern_seed = static_cast<std::uint64_t>(it);
    p.constant_data = FilePlan::ConstantData{static_cast<double>(rank + 1), 0};
    return p;
}

FilePlan read_plan(const Options& o, const Geometry& g, int it, int rank, int nprocs, const Layout& l) {
    FilePlan p = spec_of(o, g, it, l);
    const int at = o.rshift > 0 ? shifted(rank, 2 * o.rshift, nprocs) : rank;
    p.selection.push_back(hyperslab(p.spec.fixed_shape(p.spec.vars[0]), g, location(o, at), false));
    p.requests = 1;
    p.selection.resize(p.spec.vars.size());  // the derived dataset is not read back, as the original
    if (l.read_derived)
        for (std::size_t v = 1; v < p.spec.vars.size(); ++v)
            p.selection[v] = hyperslab(p.spec.fixed_shape(p.spec.vars[v]), g, location(o, rank), true);
    // The value there is that of its writer, rank (r + 2 shift) - shift.
    const int writer = o.rshift > 0 ? shifted(rank, o.rshift, nprocs) : rank;
    p.constant_data = FilePlan::ConstantData{static_cast<double>(writer + 1), 0};
    return p;
}

}  // namespace iok::exerciser
