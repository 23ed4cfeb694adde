#include "kernels/openpmd/openpmd_plan.hpp"

#include <memory>

namespace iok::openpmd {
namespace {

const char* const kAxes[] = {"x", "y", "z"};
// unitDimension: powers of (L, M, T, I, theta, N, J).
using Units = std::vector<double>;
const Units kNone = {0, 0, 0, 0, 0, 0, 0};
const Units kLength = {1, 0, 0, 0, 0, 0, 0};
const Units kElectric = {1, 1, -3, -1, 0, 0, 0};      // V/m = kg m s^-3 A^-1
const Units kMagnetic = {0, 1, -2, -1, 0, 0, 0};      // T = kg s^-2 A^-1
const Units kChargeDensity = {-3, 0, 1, 1, 0, 0, 0};  // C/m^3
const Units kCharge = {0, 0, 1, 1, 0, 0, 0};          // C = A s

std::string iteration(int step) { return "/data/" + std::to_string(step); }

// What every record carries (openPMD 1.1.0, "Required for each record").
void record_attrs(std::vector<Attr>& a, const Units& units) {
    a.push_back(Attr::Number("unitDimension", DType::Double, units));
    a.push_back(Attr::Scalar("timeOffset", DType::Float, 0.0));
}

// A mesh record (group E, or the scalar dataset rho).
void mesh_attrs(std::vector<Attr>& a, int dim, const Units& units) {
    record_attrs(a, units);
    std::vector<std::string> labels(kAxes, kAxes + dim);  // dataOrder C: slowest axis first
    a.push_back(Attr::Text("geometry", "cartesian"));
    a.push_back(Attr::Text("dataOrder", "C"));
    a.push_back(Attr::Texts("axisLabels", labels));
    a.push_back(Attr::Number("gridSpacing", DType::Double, std::vector<double>(static_cast<std::size_t>(dim), 1.0)));
    a.push_back(
        Attr::Number("gridGlobalOffset", DType::Double, std::vector<double>(static_cast<std::size_t>(dim), 0.0)));
    a.push_back(Attr::Scalar("gridUnitSI", DType::Double, 1.0));
}

// A mesh component: where in the cell it sits, and its unit.
void component_attrs(std::vector<Attr>& a, int dim) {
    a.push_back(Attr::Number("position", DType::Double, std::vector<double>(static_cast<std::size_t>(dim), 0.0)));
    a.push_back(Attr::Scalar("unitSI", DType::Double, 1.0));
}

SelectionPtr blocks(const std::vector<std::uint64_t>& shape, const std::vector<Block>& b) {
    auto s = std::make_shared<Selection>(shape);
    for (const Block& k : b) {
        std::vector<std::int64_t> st(k.offset.begin(), k.offset.end()), ct(k.count.begin(), k.count.end());
        s->add_block(st.data(), ct.data());
    }
    return s;
}

SelectionPtr ranges(std::uint64_t n, const std::vector<Range>& r) {
    std::vector<Block> b;
    for (const Range& x : r) b.push_back({{x.offset}, {x.count}});
    return blocks({n}, b);
}

// Which variable of an iteration a name is, from its path below /data/<i>/.
bool is_particle(const std::string& name) { return name.find("/particles/") != std::string::npos; }

int step_of(const std::string& name) { return std::stoi(name.substr(6, name.find('/', 6) - 6)); }

}  // namespace

std::string mesh_var(int step, const std::string& record, const std::string& component) {
    return iteration(step) + "/fields/" + record + (component.empty() ? "" : "/" + component);
}

std::string particle_var(int step, const std::string& record) { return iteration(step) + "/particles/ion/" + record; }

FileSpec openpmd_spec(const Config& cfg, const Provenance& who) {
    FileSpec s;
    s.label = "openpmd";
    s.named_dims = false;  // openPMD files hold no dimension objects
    const auto mesh = cfg.global_mesh();
    for (int d = 0; d < cfg.dim; ++d) s.dims.push_back({kAxes[d], mesh[static_cast<std::size_t>(d)], false});
    const int np_dim = cfg.dim;
    s.dims.push_back({"particles", cfg.particles(), false});
    std::vector<int> mesh_dims;
    for (int d = 0; d < cfg.dim; ++d) mesh_dims.push_back(d);

    GroupSpec root{"/", {}};
    root.attrs = {Attr::Text("openPMD", "1.1.0"),
                  Attr::Scalar("openPMDextension", DType::Int, 0.0),
                  Attr::Text("basePath", "/data/%T/"),
                  Attr::Text("meshesPath", "fields/"),
                  Attr::Text("particlesPath", "particles/"),
                  Attr::Text("iterationEncoding", "groupBased"),
                  Attr::Text("iterationFormat", "/data/%T/"),
                  Attr::Text("software", "iokernels openpmd_write (h5bench_openpmd_write layout)"),
                  Attr::Text("softwareVersion", who.software_version),
                  Attr::Text("author", who.author),
                  Attr::Text("date", who.date)};
    root.attrs[1].is_unsigned = true;
    s.groups.push_back(root);

    for (int step = 1; step <= cfg.steps; ++step) {
        const std::string it = iteration(step);
        s.groups.push_back({it,
                            {Attr::Scalar("dt", DType::Double, 1.0), Attr::Scalar("time", DType::Double, 0.0),
                             Attr::Scalar("timeUnitSI", DType::Double, 1.0)}});
        // Meshes: E and B with a component per axis, then rho (8a's order).
        for (const auto& [rec, units] : {std::pair{"E", kElectric}, std::pair{"B", kMagnetic}}) {
            GroupSpec g{mesh_var(step, rec, ""), {}};
            mesh_attrs(g.attrs, cfg.dim, units);
            s.groups.push_back(std::move(g));
        }
        for (int d = 0; d < cfg.dim; ++d)
            for (const char* rec : {"E", "B"}) {
                VarSpec v;
                v.name = mesh_var(step, rec, kAxes[d]);
                v.dims = mesh_dims;
                component_attrs(v.attrs, cfg.dim);
                s.vars.push_back(std::move(v));
            }
        VarSpec rho;
        rho.name = mesh_var(step, "rho", "");
        rho.dims = mesh_dims;
        mesh_attrs(rho.attrs, cfg.dim, kChargeDensity);
        component_attrs(rho.attrs, cfg.dim);
        s.vars.push_back(std::move(rho));
        // The species: its own attributes (8a's), id, charge, position/x and
        // the constant positionOffset/x.
        const std::string sp = iteration(step) + "/particles/ion";
        s.groups.push_back({sp,
                            {Attr::Text("particleSmoothing", "none"), Attr::Scalar("openPMD_STEP", DType::Int, step),
                             Attr::Scalar("p2mRatio", DType::Int, static_cast<double>(cfg.ratio))}});
        for (const auto& [rec, type, units] :
             {std::tuple{"id", DType::Int64, kNone}, std::tuple{"charge", DType::Double, kCharge}}) {
            VarSpec v;
            v.name = particle_var(step, rec);
            v.type = type;
            v.dims = {np_dim};
            record_attrs(v.attrs, units);
            v.attrs.push_back(Attr::Scalar("unitSI", DType::Double, 1.0));
            s.vars.push_back(std::move(v));
        }
        for (const char* rec : {"position", "positionOffset"}) {
            GroupSpec g{sp + "/" + rec, {}};
            record_attrs(g.attrs, kLength);
            s.groups.push_back(std::move(g));
        }
        VarSpec px;
        px.name = particle_var(step, "position/x");
        px.dims = {np_dim};
        px.attrs.push_back(Attr::Scalar("unitSI", DType::Double, 1.0));
        s.vars.push_back(std::move(px));
        GroupSpec offset{sp + "/positionOffset/x",
                         {Attr::Scalar("value", DType::Double, 0.0),
                          Attr::Number("shape", DType::Int64, {static_cast<double>(cfg.particles())}),
                          Attr::Scalar("unitSI", DType::Double, 1.0)}};
        offset.attrs[1].is_unsigned = true;
        s.groups.push_back(std::move(offset));
    }
    return s;
}

FilePlan write_plan(const Config& cfg, FileSpec spec, const Layout& layout, int rank) {
    FilePlan p;
    const auto mesh = cfg.global_mesh();
    const std::uint64_t np = cfg.particles();
    std::vector<RankStep> steps;
    for (int step = 1; step <= cfg.steps; ++step) steps.push_back(layout.at(rank, step));
    std::vector<SelectionPtr> mesh_sel, part_sel;
    for (const RankStep& r : steps) {
        mesh_sel.push_back(blocks(mesh, r.mesh));
        part_sel.push_back(ranges(np, r.particles));
    }
    for (const VarSpec& v : spec.vars) {
        const int step = step_of(v.name);
        const auto& sel = is_particle(v.name) ? part_sel : mesh_sel;
        p.selection.push_back(sel[static_cast<std::size_t>(step - 1)]);
        p.requests += p.selection.back()->nblocks();
    }
    p.spec = std::move(spec);
    p.nrecords = 1;
    p.flush_every = 1;
    return p;
}

FilePlan read_plan(const Config& cfg, FileSpec spec, int rank, int ranks) {
    FilePlan p;
    const auto mesh = cfg.global_mesh();
    const std::uint64_t np = cfg.particles();
    const auto r = static_cast<std::uint64_t>(rank), n = static_cast<std::uint64_t>(ranks);
    // A slice across `axis` at rank % extent (h5bench_openpmd_read's getSlice).
    auto slice = [&](int axis) {
        Block b{std::vector<std::uint64_t>(mesh.size(), 0), mesh};
        b.offset[static_cast<std::size_t>(axis)] = r % mesh[static_cast<std::size_t>(axis)];
        b.count[static_cast<std::size_t>(axis)] = 1;
        return blocks(mesh, {b});
    };
    // Rows [lo, hi) of the first axis, or of the particles, for this reader.
    auto share = [&](std::uint64_t length) { return Range{length * r / n, length * (r + 1) / n - length * r / n}; };
    const auto none_mesh = std::make_shared<const Selection>(mesh);
    const auto none_part = std::make_shared<const Selection>(std::vector<std::uint64_t>{np});
    SelectionPtr mesh_full, part_full, rho_sel, b_sel;
    {
        const Range rows = share(mesh[0]);
        Block b{std::vector<std::uint64_t>(mesh.size(), 0), mesh};
        b.offset[0] = rows.offset;
        b.count[0] = rows.count;
        mesh_full = blocks(mesh, {b});
        part_full = ranges(np, {share(np)});
    }
    switch (cfg.pattern) {
        case Pattern::SliceX: rho_sel = slice(0); break;
        case Pattern::SliceY: rho_sel = slice(1); break;
        case Pattern::SliceZ: rho_sel = slice(2); break;
        case Pattern::FieldX: b_sel = slice(0); break;
        case Pattern::FieldY: b_sel = slice(1); break;
        case Pattern::FieldZ: b_sel = slice(2); break;
        default: break;
    }
    for (const VarSpec& v : spec.vars) {
        SelectionPtr s = is_particle(v.name) ? none_part : none_mesh;
        if (cfg.pattern == Pattern::Full) {
            s = is_particle(v.name) ? part_full : mesh_full;
        } else if (rho_sel && v.name.size() >= 4 && v.name.compare(v.name.size() - 4, 4, "/rho") == 0) {
            s = rho_sel;
        } else if (b_sel && v.name.find("/fields/B/") != std::string::npos) {
            s = b_sel;
        }
        p.selection.push_back(s);
        p.requests += s->nblocks();
    }
    p.spec = std::move(spec);
    p.nrecords = 1;
    p.flush_every = 1;
    return p;
}

}  // namespace iok::openpmd
