#include "kernels/amrex/amrex_plan.hpp"

#include <cstdio>
#include <memory>

namespace iok::amrex {
namespace {

const char* const kBoxFields[] = {"lo_i", "lo_j", "lo_k", "hi_i", "hi_j", "hi_k"};
const char* const kCenterFields[] = {"i", "j", "k"};

std::string level_group(std::size_t l) { return "/level_" + std::to_string(l); }

int add_dim(FileSpec& s, const std::string& name, std::uint64_t length) {
    s.dims.push_back({name, length, false});
    return static_cast<int>(s.dims.size()) - 1;
}

// A selection of everything (rank 0) or nothing (the others).
SelectionPtr all_or_none(const std::vector<std::uint64_t>& shape, bool all) {
    return std::make_shared<const Selection>(all ? Selection::whole(shape) : Selection(shape));
}

// Runs [offset, offset + length) of a 1-D variable of n elements, one block each.
SelectionPtr runs(std::uint64_t n, const std::vector<std::pair<std::uint64_t, std::uint64_t>>& r) {
    auto s = std::make_shared<Selection>(std::vector<std::uint64_t>{n});
    for (const auto& [off, len] : r) {
        if (len == 0) continue;
        const std::int64_t st = static_cast<std::int64_t>(off), ct = static_cast<std::int64_t>(len);
        s->add_block(&st, &ct);
    }
    return s;
}

// Adds a rank-0 variable that AMReX stores as a compound of ints (one per
// box): the members on libraries with compound datasets, else an int array
// [n][fields].
void add_struct(FilePlan& p, const std::string& name, const char* const* fields, int nfields, int count_dim,
                int fields_dim, const Style& st, int rank) {
    FileSpec& s = p.spec;
    if (st.compound) {
        for (int f = 0; f < nfields; ++f) {
            VarSpec v;
            v.name = fields[f];
            v.type = DType::Int;
            v.dims = {count_dim};
            v.compound = name;
            s.vars.push_back(v);
            p.selection.push_back(all_or_none(s.fixed_shape(s.vars.back()), rank == 0));
            p.sole_rank.push_back(0);
        }
    } else {
        VarSpec v;
        v.name = name;
        v.type = DType::Int;
        v.dims = {count_dim, fields_dim};
        s.vars.push_back(v);
        p.selection.push_back(all_or_none(s.fixed_shape(s.vars.back()), rank == 0));
        p.sole_rank.push_back(0);
    }
    if (rank == 0) p.requests += st.compound ? static_cast<std::uint64_t>(nfields) : 1;
}

void add_var(FilePlan& p, const std::string& name, DType type, int dim, SelectionPtr sel, int sole) {
    VarSpec v;
    v.name = name;
    v.type = type;
    v.dims = {dim};
    p.spec.vars.push_back(v);
    p.requests += sel->nblocks();
    p.selection.push_back(std::move(sel));
    p.sole_rank.push_back(sole);
}

// The rank's first box in the rank-sorted order, and its boxes (AMReX sorts
// the boxes by owner, each owner's in box order).
struct RankShare {
    std::vector<std::size_t> order;  // box indices, rank-sorted
    std::vector<std::size_t> mine;   // this rank's, in that order
    std::uint64_t first = 0;         // position of its first box in `order`
};

RankShare share_of(const Level& l, int rank) {
    RankShare r;
    int top = 0;
    for (int o : l.owner) top = std::max(top, o);
    for (int o = 0; o <= top; ++o)
        for (std::size_t b = 0; b < l.boxes.size(); ++b)
            if (l.owner[b] == o) {
                if (o < rank) ++r.first;
                if (o == rank) r.mine.push_back(b);
                r.order.push_back(b);
            }
    return r;
}

std::uint64_t particles_in(const Config& c, const Box& b) { return static_cast<std::uint64_t>(c.nppc) * b.cells(); }

std::uint64_t total_particles(const Config& c, const Level& l) {
    std::uint64_t n = 0;
    for (const Box& b : l.boxes) n += particles_in(c, b);
    return n;
}

// SetHDF5fapl: alignment 16 MiB for objects of 16 MiB and more, metadata
// blocks of 4 MiB (the file-access settings of both writers' parallel open).
void amrex_fapl(FileSpec& s) {
    s.align_threshold = s.align_bytes = 16u << 20;
    s.meta_block_bytes = 4u << 20;
}

std::string file_stem(const Config& c, int file) {
    char name[32];
    std::snprintf(name, sizeof name, "plt%05d", file);
    return c.directory + name;
}

}  // namespace

std::uint64_t Box::cells() const {
    std::uint64_t n = 1;
    for (int d = 0; d < 3; ++d) n *= static_cast<std::uint64_t>(hi[d] - lo[d] + 1);
    return n;
}

std::vector<Box> chop(const Box& domain, int chunk) {
    // BoxList::maxSize: per axis, halve the length and the chunk while both
    // are even (ratio), then numblk pieces of sz cells, the first `extra` one
    // longer, each times ratio; k outermost, i fastest.
    std::array<int, 3> ratio{1, 1, 1}, numblk{1, 1, 1}, sz{}, extra{0, 0, 0};
    for (int d = 0; d < 3; ++d) {
        const int len = domain.hi[d] - domain.lo[d] + 1;
        sz[d] = len;
        if (len > chunk) {
            int bs = chunk, nlen = len;
            while (bs % 2 == 0 && nlen % 2 == 0) {
                ratio[d] *= 2;
                bs /= 2;
                nlen /= 2;
            }
            numblk[d] = (nlen + bs - 1) / bs;
            sz[d] = nlen / numblk[d];
            extra[d] = nlen - sz[d] * numblk[d];
        }
    }
    auto piece = [&](int d, int n, int& lo, int& hi) {
        lo = n < extra[d] ? n * (sz[d] + 1) * ratio[d] : (n * sz[d] + extra[d]) * ratio[d];
        hi = n < extra[d] ? lo + (sz[d] + 1) * ratio[d] - 1 : lo + sz[d] * ratio[d] - 1;
        lo += domain.lo[d];
        hi += domain.lo[d];
    };
    if (numblk[0] == 1 && numblk[1] == 1 && numblk[2] == 1) return {domain};
    std::vector<Box> out;
    for (int k = 0; k < numblk[2]; ++k)
        for (int j = 0; j < numblk[1]; ++j)
            for (int i = 0; i < numblk[0]; ++i) {
                Box b;
                piece(0, i, b.lo[0], b.hi[0]);
                piece(1, j, b.lo[1], b.hi[1]);
                piece(2, k, b.lo[2], b.hi[2]);
                out.push_back(b);
            }
    return out;
}

std::vector<Level> levels(const Config& c, int nprocs) {
    Level l;
    l.domain.hi = {c.ncells - 1, c.ncells - 1, c.ncells - 1};
    l.boxes = chop(l.domain, c.max_grid_size);
    const std::size_t n = l.boxes.size();
    for (std::size_t b = 0; b < n; ++b) l.owner.push_back(static_cast<int>(b * static_cast<std::size_t>(nprocs) / n));
    return {l};
}

FilePlan plotfile_plan(const Config& c, const std::vector<Level>& lv, int rank, const Style& st, int file) {
    FilePlan p;
    FileSpec& s = p.spec;
    s.label = file_stem(c, file).substr(c.directory.size());
    s.named_dims = false;  // AMReX's files hold no dimension objects
    const int finest = static_cast<int>(lv.size()) - 1;
    GroupSpec root{"/", {}};
    root.attrs = {Attr::Text("version_name", "HyperCLaw-V1.1"), Attr::Text("plotfile_type", "VanillaHDF5"),
                  Attr::Number("num_components", DType::Int, {static_cast<double>(c.ncomp)})};
    for (int i = 0; i < c.ncomp; ++i)
        root.attrs.push_back(Attr::Text("component_" + std::to_string(i), "component_" + std::to_string(i)));
    root.attrs.push_back(Attr::Number("dim", DType::Int, {3}));
    root.attrs.push_back(Attr::Number("time", DType::Double, {0}));
    root.attrs.push_back(Attr::Number("finest_level", DType::Int, {static_cast<double>(finest)}));
    root.attrs.push_back(Attr::Number("coordinate_system", DType::Int, {0}));
    root.attrs.push_back(Attr::Number("num_levels", DType::Int, {static_cast<double>(lv.size())}));
    s.groups.push_back(std::move(root));
    s.groups.push_back({"/Chombo_global", {Attr::Number("SpaceDim", DType::Int, {3})}});
    for (std::size_t l = 0; l < lv.size(); ++l) {
        const Level& L = lv[l];
        const double dx = 1.0 / static_cast<double>(L.domain.hi[0] - L.domain.lo[0] + 1);
        GroupSpec g{level_group(l), {}};
        g.attrs = {Attr::Number("ref_ratio", DType::Int, {1}),
                   Attr::Number("Vec_dx", DType::Double, {dx, dx, dx}),
                   Attr::Number("dx", DType::Double, {dx}),
                   Attr::Number("prob_lo", DType::Double, {0, 0, 0}),
                   Attr::Number("prob_hi", DType::Double, {1, 1, 1}),
                   Attr::Struct("prob_domain", DType::Int, {kBoxFields, kBoxFields + 6},
                                {static_cast<double>(L.domain.lo[0]), static_cast<double>(L.domain.lo[1]),
                                 static_cast<double>(L.domain.lo[2]), static_cast<double>(L.domain.hi[0]),
                                 static_cast<double>(L.domain.hi[1]), static_cast<double>(L.domain.hi[2])}),
                   Attr::Number("domain_type", DType::Int, {0, 0, 0}),
                   Attr::Number("steps", DType::Int, {0}),
                   Attr::Number("ngrid", DType::Int, {static_cast<double>(L.boxes.size())}),
                   Attr::Number("time", DType::Double, {0}),
                   Attr::Number("ngrow", DType::Int, {0})};
        s.groups.push_back(std::move(g));
    }
    const int six = st.compound ? -1 : add_dim(s, "box_bounds", 6);
    const int three = st.compound ? -1 : add_dim(s, "box_center", 3);
    for (std::size_t l = 0; l < lv.size(); ++l) {
        const Level& L = lv[l];
        const std::string g = level_group(l).substr(1) + "/";
        const std::string ls = std::to_string(l);
        const auto nb = static_cast<std::uint64_t>(L.boxes.size());
        const RankShare r = share_of(L, rank);
        std::uint64_t total = 0, offset = 0, mine = 0;
        for (std::size_t i = 0; i < r.order.size(); ++i) {
            const std::uint64_t n = L.boxes[r.order[i]].cells() * static_cast<std::uint64_t>(c.ncomp);
            if (i < r.first) offset += n;
            total += n;
        }
        for (std::size_t b : r.mine) mine += L.boxes[b].cells() * static_cast<std::uint64_t>(c.ncomp);
        const int boxes_dim = add_dim(s, "boxes_" + ls, nb);
        const int offsets_dim = add_dim(s, "offsets_" + ls, nb + 1);
        const int data_dim = add_dim(s, "data_" + ls, total);
        add_struct(p, g + "boxes", kBoxFields, 6, boxes_dim, six, st, rank);
        add_var(p, g + "data:offsets=0", DType::Int64, offsets_dim, all_or_none({nb + 1}, rank == 0), 0);
        add_struct(p, g + "boxcenter", kCenterFields, 3, boxes_dim, three, st, rank);
        // Each rank's boxes are one run of the level's data (one H5Dwrite).
        add_var(p, g + "data:datatype=0", DType::Double, data_dim, runs(total, {{offset, mine}}), -1);
    }
    amrex_fapl(s);
    p.nrecords = 1;
    p.flush_every = 1;
    p.pattern_seed = static_cast<std::uint64_t>(file) + 1;
    return p;
}

FilePlan particle_plan(const Config& c, const std::vector<Level>& lv, int rank, int nprocs, const Style& st, int file) {
    FilePlan p;
    FileSpec& s = p.spec;
    s.label = file_stem(c, file).substr(c.directory.size()) + "/particle0";
    s.named_dims = false;
    std::uint64_t np = 0;
    for (const Level& L : lv) np += total_particles(c, L);
    const std::uint64_t per_rank = (np + static_cast<std::uint64_t>(nprocs) - 1) / static_cast<std::uint64_t>(nprocs);
    GroupSpec root{"/", {}};
    root.attrs = {Attr::Text("version_name", "Version_Two_Dot_One_double"),
                  Attr::Number("num_component", DType::Int, {16}),
                  Attr::Number("num_component_real", DType::Int, {12})};
    for (int i = 0; i < 12; ++i)
        root.attrs.push_back(
            Attr::Text("real_component_" + std::to_string(i), "particle_real_component_" + std::to_string(i)));
    root.attrs.push_back(Attr::Number("num_component_int", DType::Int, {4}));
    for (int i = 0; i < 4; ++i)
        root.attrs.push_back(
            Attr::Text("int_component_" + std::to_string(i), "particle_int_component_" + std::to_string(i)));
    root.attrs.push_back(Attr::Number("nparticles", DType::Int64, {static_cast<double>(np)}));
    root.attrs.push_back(Attr::Number("maxnextid", DType::Int64, {static_cast<double>(per_rank + 1)}));
    root.attrs.push_back(Attr::Number("finest_level", DType::Int, {static_cast<double>(lv.size() - 1)}));
    s.groups.push_back(std::move(root));
    s.groups.push_back({"/Chombo_global", {Attr::Number("SpaceDim", DType::Int, {3})}});
    for (std::size_t l = 0; l < lv.size(); ++l)
        s.groups.push_back(
            {level_group(l), {Attr::Number("ngrids", DType::Int, {static_cast<double>(lv[l].boxes.size())})}});
    const int six = st.compound ? -1 : add_dim(s, "box_bounds", 6);
    for (std::size_t l = 0; l < lv.size(); ++l) {
        const Level& L = lv[l];
        const std::string g = level_group(l).substr(1) + "/";
        const std::string ls = std::to_string(l);
        const auto nb = static_cast<std::uint64_t>(L.boxes.size());
        add_struct(p, g + "boxes", kBoxFields, 6, add_dim(s, "grids_" + ls, nb), six, st, rank);
        const std::uint64_t n = total_particles(c, L);
        if (n == 0) continue;  // AMReX writes no data on a level without particles
        // Rank-sorted grids: this rank's ints, reals and counts follow the lower ranks'.
        const RankShare r = share_of(L, rank);
        std::uint64_t ioff = 0, roff = 0;
        for (std::size_t i = 0; i < r.first; ++i) {
            ioff += particles_in(c, L.boxes[r.order[i]]) * kParticleInts;
            roff += particles_in(c, L.boxes[r.order[i]]) * kParticleReals;
        }
        std::vector<std::pair<std::uint64_t, std::uint64_t>> iruns, rruns;
        for (std::size_t b : r.mine) {  // one write per grid, as WriteParticlesHDF5
            const std::uint64_t k = particles_in(c, L.boxes[b]);
            iruns.push_back({ioff, k * kParticleInts});
            rruns.push_back({roff, k * kParticleReals});
            ioff += k * kParticleInts;
            roff += k * kParticleReals;
        }
        add_var(p, g + "data:datatype=0", DType::Int, add_dim(s, "ints_" + ls, n * kParticleInts),
                runs(n * kParticleInts, iruns), -1);
        add_var(p, g + "data:datatype=1", DType::Double, add_dim(s, "reals_" + ls, n * kParticleReals),
                runs(n * kParticleReals, rruns), -1);
        add_var(p, g + "nparticles_grid", DType::Int, add_dim(s, "counts_" + ls, nb),
                runs(nb, {{r.first, r.mine.size()}}), -1);
    }
    amrex_fapl(s);
    p.nrecords = 1;
    p.flush_every = 1;
    p.pattern_seed = 1000 + static_cast<std::uint64_t>(file);
    return p;
}

std::uint64_t plot_bytes(const Config& c, const std::vector<Level>& lv, int rank) {
    std::uint64_t n = 0;
    for (const Level& L : lv)
        for (std::size_t b = 0; b < L.boxes.size(); ++b)
            if (L.owner[b] == rank) n += L.boxes[b].cells() * static_cast<std::uint64_t>(c.ncomp) * 8;
    return n;
}

std::uint64_t particle_bytes(const Config& c, const std::vector<Level>& lv, int rank) {
    std::uint64_t n = 0;
    for (const Level& L : lv)
        for (std::size_t b = 0; b < L.boxes.size(); ++b)
            if (L.owner[b] == rank) n += particles_in(c, L.boxes[b]) * (kParticleInts * 4 + kParticleReals * 8 + 4);
    return n;
}

}  // namespace iok::amrex
