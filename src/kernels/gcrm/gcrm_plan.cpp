#include "kernels/gcrm/gcrm_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "core/error.hpp"

namespace iok::gcrm {

namespace {

// The reference model (ZGrd_register) attaches arrays to these descriptors
// only; every other field of the description has no data to write.
const std::set<std::string> kFieldsAlways = {
    "strm_func",       "vel_pot",       "vorticity", "ke",       "divergence", "divergence_edge", "mass",
    "relative",        "relative_edge", "clus_mask", "pressure", "w_vert",     "geopotential",    "heat_flux_vdiff_ifc",
    "temperature_lyr", "exner_lyr",     "u",         "v",        "wind"};
const std::set<std::string> kFieldsPhysics = {"wtr_flux_vdiff_ifc",
                                              "water_vapor_lyr",
                                              "cloud_water_lyr",
                                              "rain_mmr_lyr",
                                              "cloud_ice_lyr",
                                              "snow_mmr_lyr",
                                              "graupel_mmr_lyr",
                                              "heating_sw_lyr",
                                              "heating_lw_lyr",
                                              "heating_sw_cs_lyr",
                                              "heating_lw_cs_lyr",
                                              "heating_latent_lyr",
                                              "qwv_tend_micro_lyr",
                                              "qcw_tend_micro_lyr",
                                              "qci_tend_micro_lyr",
                                              "qrw_tend_micro_lyr",
                                              "qsn_tend_micro_lyr",
                                              "qgr_tend_micro_lyr",
                                              "prec_tot",
                                              "prec_frz",
                                              "olr",
                                              "swinc"};
const std::set<std::string> kRestartAlways = {
    "dbl_psi", "dbl_chi",     "dbl_eta",     "dbl_eta_f",     "dbl_exn_lyr", "dbl_exn_prm", "dbl_prs_lyr",
    "dbl_rho", "dbl_rho_f",   "dbl_rho_adv", "dbl_rho_adv_f", "dbl_div",     "dbl_div_f",   "dbl_relative",
    "dbl_mss", "dbl_prs_ifc", "dbl_exn_ifc", "dbl_w",         "dbl_w_f",     "dbl_tht_lyr", "dbl_tht_lyr_f"};
const std::set<std::string> kRestartPhysics = {"dbl_vapor_lyr",
                                               "dbl_cloudwater_lyr",
                                               "dbl_rainmmr_lyr",
                                               "dbl_cloudice_lyr",
                                               "dbl_snowmmr_lyr",
                                               "dbl_graupelmmr_lyr",
                                               "dbl_vapor_lyr_f",
                                               "dbl_cloudwater_lyr_f",
                                               "dbl_rainmmr_lyr_f",
                                               "dbl_cloudice_lyr_f",
                                               "dbl_snowmmr_lyr_f",
                                               "dbl_graupelmmr_lyr_f",
                                               "dbl_ts",
                                               "dbl_gwet",
                                               "dbl_zrough"};

enum class Horiz { None, Cells, Corners, Edges };

// Where a descriptor's data lives, from its "dimension" keywords.
struct Shape {
    bool record = false;
    std::string level_dim;  // "nprog"/"ntend" when kept ("index all")
    Horiz horiz = Horiz::None;
    std::string vert;   // "layers"/"interfaces"
    std::string small;  // "cellcorners", "celledges", "cellneighbors", "endpoints"
};

Shape shape_of(const Descriptor& d) {
    Shape s;
    for (const auto& k : d.dims) {
        if (k == "time")
            s.record = true;
        else if (k == "nprog" || k == "ntend") {
            if (d.index_all) s.level_dim = k;  // else only the current time level is output
        } else if (k == "cells") {
            if (s.horiz == Horiz::None) s.horiz = Horiz::Cells;
        } else if (k == "i_cell_corners" || k == "i_uniq_corner")
            s.horiz = Horiz::Corners;
        else if (k == "i_cell_edges" || k == "i_uniq_edge")
            s.horiz = Horiz::Edges;
        else if (k == "ns_ew")
            continue;  // vector component: u and v are separate variables
        else if (k == "layers" || k == "interfaces")
            s.vert = k;
        else if (k == "cellcorners" || k == "celledges" || k == "cellneighbors" || k == "endpoints")
            s.small = k;
        else
            throw Error("variable " + d.name + " uses the unknown dimension keyword '" + k + "'",
                        "the description may use: time, cells, corners/edges keywords, layers, interfaces, "
                        "cellcorners, celledges, cellneighbors, endpoints, nprog, ntend");
    }
    return s;
}

DType dtype_of(const Descriptor& d) {
    if (d.type == "double") return DType::Double;
    if (d.type == "integer") return DType::Int;
    return DType::Float;
}

// GCRM-IO's dimension definition order (below), from each field's
// dimensions in the order the file lists its fields
void fortran_dim_order(FileSpec& spec, const std::vector<std::vector<int>>& fields);

// Builds one FileSpec and this rank's selections.
class SpecBuilder {
public:
    SpecBuilder(const GridParams& g, int rank) : g_(g), rank_(rank) {}

    int dim(const std::string& name) {
        int i = plan_.spec.find_dim(name);
        if (i >= 0) return i;
        Dim d;
        d.name = name;
        if (name == "time")
            d.unlimited = true;
        else
            d.length = length(name);
        plan_.spec.dims.push_back(d);
        return static_cast<int>(plan_.spec.dims.size()) - 1;
    }

    // Adds a variable; `data` false gives every rank an empty selection.
    void add(const Descriptor& d, const std::string& file_name, bool data) {
        const Shape s = shape_of(d);
        VarSpec v;
        v.name = file_name;
        v.type = dtype_of(d);
        if (s.record) v.dims.push_back(dim("time"));
        if (!s.level_dim.empty()) v.dims.push_back(dim(s.level_dim));
        if (s.horiz != Horiz::None) v.dims.push_back(dim(horiz_name(s.horiz)));
        if (!s.vert.empty()) v.dims.push_back(dim(s.vert));
        if (!s.small.empty()) v.dims.push_back(dim(s.small));
        // attributes as GCRM-IO's gio_add_field_descriptor puts them: long_name,
        // units, standard_name, then the rest in order; one with an empty
        // value is not written at all (its gio_put_att_text skips length 0)
        auto put = [&](const std::string& name, const std::string* value) {
            if (value && !value->empty()) v.attrs.push_back(Attr::Text(name, *value));
        };
        put("long_name", d.attr("long_name"));
        put("units", d.attr("units"));
        put("standard_name", d.attr("standard_name"));
        for (const auto& a : d.attrs)
            if (a.name != "long_name" && a.name != "units" && a.name != "standard_name") put(a.name, &a.value);
        plan_.spec.vars.push_back(v);
        field_dims_.push_back(v.dims);
        std::vector<std::uint64_t> shape = plan_.spec.fixed_shape(plan_.spec.vars.back());
        plan_.selection.push_back(data ? selection(s, shape) : std::make_shared<Selection>(shape));
        if (!data) attribute_only_.push_back(static_cast<int>(plan_.spec.vars.size()) - 1);
        if (data) {
            std::uint64_t n = plan_.spec.fixed_elements(plan_.spec.vars.back()) * dtype_size(v.type);
            (s.record ? record_bytes_ : fixed_bytes_) += n;
        }
    }

    // A field the file lists but nothing writes: GCRM-IO defines no variable
    // for it, yet its dimensions (it collects them over every listed field).
    void add_dims_only(const Descriptor& d) {
        const Shape s = shape_of(d);
        std::vector<int> dims;
        if (s.record) dims.push_back(dim("time"));
        if (!s.level_dim.empty()) dims.push_back(dim(s.level_dim));
        if (s.horiz != Horiz::None) dims.push_back(dim(horiz_name(s.horiz)));
        if (!s.vert.empty()) dims.push_back(dim(s.vert));
        if (!s.small.empty()) dims.push_back(dim(s.small));
        field_dims_.push_back(dims);
    }

    std::vector<int> attribute_only() const { return attribute_only_; }

    FilePlan take(int nrecords, std::uint64_t* data_bytes) {
        fortran_dim_order(plan_.spec, field_dims_);
        plan_.nrecords = nrecords;
        plan_.flush_every = 1;  // one wait per file per dump, as the reference
        std::uint64_t req = 0;
        for (const auto& s : plan_.selection) req += s ? s->nblocks() : 0;
        plan_.requests = req * static_cast<std::uint64_t>(nrecords);
        *data_bytes = fixed_bytes_ + record_bytes_ * static_cast<std::uint64_t>(nrecords);
        return std::move(plan_);
    }

private:
    static const char* horiz_name(Horiz h) {
        return h == Horiz::Cells ? "cells" : h == Horiz::Corners ? "corners" : "edges";
    }
    std::uint64_t length(const std::string& n) const {
        if (n == "cells") return static_cast<std::uint64_t>(g_.cells);
        if (n == "corners") return static_cast<std::uint64_t>(g_.corners);
        if (n == "edges") return static_cast<std::uint64_t>(g_.edges);
        if (n == "layers") return static_cast<std::uint64_t>(g_.km);
        if (n == "interfaces") return static_cast<std::uint64_t>(g_.km + 1);
        if (n == "nprog") return 2;
        if (n == "ntend") return 3;
        if (n == "endpoints") return 2;
        return 6;  // cellcorners, celledges, cellneighbors
    }

    // One block per (time level, run): the runs of cells/corners/edges this
    // rank owns, whole along the vertical and small dimensions.  Variables
    // without a horizontal dimension (time, layers, interfaces) are written
    // whole by rank 0.  Selections are shared by shape, as backends cache them.
    SelectionPtr selection(const Shape& s, const std::vector<std::uint64_t>& shape) {
        const std::string key =
            std::to_string(static_cast<int>(s.horiz)) + "/" + s.level_dim + "/" + s.vert + "/" + s.small;
        auto it = cache_.find(key);
        if (it != cache_.end()) return it->second;
        SelectionPtr out;
        if (s.horiz == Horiz::None) {
            out = std::make_shared<Selection>(rank_ == 0 ? Selection::whole(shape) : Selection(shape));
        } else {
            const auto runs = s.horiz == Horiz::Cells     ? cell_runs(g_, rank_)
                              : s.horiz == Horiz::Corners ? corner_runs(g_, rank_)
                                                          : edge_runs(g_, rank_);
            auto sel = std::make_shared<Selection>(shape);
            const bool lev = !s.level_dim.empty();
            const std::size_t nd = shape.size();
            const std::size_t h = lev ? 1 : 0;
            const std::uint64_t levels = lev ? shape[0] : 1;
            std::vector<std::int64_t> start(nd, 0), count(shape.begin(), shape.end());
            for (std::uint64_t l = 0; l < levels; ++l)
                for (const auto& r : runs) {
                    if (lev) {
                        start[0] = static_cast<std::int64_t>(l);
                        count[0] = 1;
                    }
                    start[h] = r.first;
                    count[h] = r.count;
                    sel->add_block(start.data(), count.data());
                }
            out = sel;
        }
        cache_[key] = out;
        return out;
    }

    const GridParams& g_;
    int rank_;
    FilePlan plan_;
    std::map<std::string, SelectionPtr> cache_;
    std::uint64_t fixed_bytes_ = 0, record_bytes_ = 0;
    std::vector<int> attribute_only_;
    std::vector<std::vector<int>> field_dims_;  // dims of every listed field, in order
};

// GCRM-IO defines a file's dimensions in the order they first appear in its
// variables, each variable's dimensions read in Fortran order (fastest
// first): `layers` before `cells` for mass(time, cells, layers).  Variables
// keep their C-order dimensions; only the definition order changes.
void fortran_dim_order(FileSpec& spec, const std::vector<std::vector<int>>& fields) {
    std::vector<int> order;
    auto take = [&](int d) {
        if (std::find(order.begin(), order.end(), d) == order.end()) order.push_back(d);
    };
    for (const auto& dims : fields)
        for (auto it = dims.rbegin(); it != dims.rend(); ++it) take(*it);
    for (int d = 0; d < static_cast<int>(spec.dims.size()); ++d) take(d);  // defined, unused
    std::vector<Dim> dims;
    std::vector<int> new_index(spec.dims.size());
    for (int d : order) {
        new_index[static_cast<std::size_t>(d)] = static_cast<int>(dims.size());
        dims.push_back(spec.dims[static_cast<std::size_t>(d)]);
    }
    spec.dims = std::move(dims);
    for (auto& v : spec.vars)
        for (auto& d : v.dims) d = new_index[static_cast<std::size_t>(d)];
}

bool multiple_of(double t, double f) {
    if (f <= 0) return false;
    const double q = t / f;
    return std::fabs(q - std::round(q)) < 1e-9;
}

void add_globals(FileSpec& spec, const Description& desc) {
    for (const auto& p : desc.properties)
        if (!p.value.empty()) spec.global_attrs.push_back(Attr::Text(p.name, p.value));
    // GCRM-IO's history stamp: fixed (USE_FIXED_TIME_STAMP in its
    // io_netcdfx.c), so its files are the same from run to run; ours too.
    spec.global_attrs.push_back(Attr::Text("history", "created on: 08-03-2017 at 16:33:00"));
}

// What GCRM-IO's gio_write_restart_attrs adds to a restart file: the time
// level indices (nprog, ntend and their index arrays), then the restart
// doubles (prs_top, the model top's pressure in Pa) and ints (km, level_max).
void add_restart_globals(FileSpec& spec, const GridParams& g) {
    spec.global_attrs.push_back(Attr::Number("nprog", DType::Int, {2}));
    spec.global_attrs.push_back(Attr::Number("nprog_index", DType::Int, {0, 1}));
    spec.global_attrs.push_back(Attr::Number("ntend", DType::Int, {3}));
    spec.global_attrs.push_back(Attr::Number("ntend_index", DType::Int, {0, 1, 2}));
    spec.global_attrs.push_back(Attr::Number("prs_top", DType::Double, {20.0}));
    spec.global_attrs.push_back(Attr::Number("km", DType::Int, {static_cast<double>(g.km)}));
    spec.global_attrs.push_back(Attr::Number("level_max", DType::Int, {static_cast<double>(g.level)}));
}

void add_grid_vars(SpecBuilder& b, const Description& desc, bool physics) {
    std::set<std::string> seen;
    for (const auto& d : desc.vars)
        if (d.isgridvar && seen.insert(d.name).second) b.add(d, d.name, has_data(d, physics));
}

}  // namespace

FilePlan OutputFile::read_plan() const {
    FilePlan r = plan;
    if (attribute_only.empty()) return r;
    // Keep every variable in the spec (layouts such as MPI-IO's raw file
    // depend on all of them) but leave the attribute-only ones out of the
    // access order, so no get() asks a library for data it never stored.
    r.order.clear();
    for (int v = 0; v < static_cast<int>(plan.spec.vars.size()); ++v) {
        bool skip = false;
        for (int a : attribute_only) skip = skip || a == v;
        if (!skip) r.order.push_back(v);
    }
    return r;
}

bool has_data(const Descriptor& d, bool physics) {
    if (d.no_data) return false;
    if (d.isgridvar || d.name == "time") return true;
    if (kFieldsAlways.count(d.name) || kRestartAlways.count(d.name)) return true;
    return physics && (kFieldsPhysics.count(d.name) || kRestartPhysics.count(d.name));
}

std::vector<Dump> dump_schedule(const RunParams& p, int level) {
    const double dt = model_step_seconds(level);
    const double freq = p.output_frequency > 0 ? p.output_frequency : dt;
    std::vector<Dump> dumps;
    // GCRM-IO's main loop: a step at t = 0, dt, 2 dt, ..., the last one the
    // first to reach the end time (so a run shorter than one step still
    // dumps at 0 and at dt, as GCRM-IO does at level 3 with one minute).
    bool last = false;
    for (long n = 0; !last; ++n) {
        const double t = static_cast<double>(n) * dt;
        last = t >= static_cast<double>(p.end_seconds) - 1e-9;
        Dump d;
        d.seconds = t;
        d.history = multiple_of(t, freq);
        d.restart = p.restart_interval > 0 && multiple_of(t, p.restart_interval);
        if (!d.history && !d.restart) continue;
        d.index = static_cast<int>(dumps.size());
        dumps.push_back(d);
    }
    return dumps;
}

std::string time_stamp(double seconds) {
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const long s = static_cast<long>(std::floor(seconds + 1e-9));
    long days = s / 86400, rem = s % 86400;
    const long year = 1901 + days / 365;
    days %= 365;
    int month = 0;
    while (days >= mdays[month]) days -= mdays[month++];
    char buf[128];  // room for the widest long in every field (-Wformat-truncation counts it)
    std::snprintf(buf, sizeof buf, "%04ld%02d%02ld_%02ld%02ld%02ld", year, month + 1, days + 1, rem / 3600,
                  (rem / 60) % 60, rem % 60);
    return buf;
}

RunPlan build_run_plan(const RunParams& p, const GridParams& g, const Description& desc,
                       const std::vector<FileGroup>& groups, int rank, const std::string& dir, const std::string& ext) {
    RunPlan rp;
    rp.grid = g;
    rp.dumps = dump_schedule(p, g.level);
    const Descriptor* time = desc.find("time");
    if (!time) throw Error("the variable description has no 'time' variable", "use the stock ZGrd.desc");

    std::vector<const Dump*> hist, rest;
    for (const auto& d : rp.dumps) {
        if (d.history) hist.push_back(&d);
        if (d.restart) rest.push_back(&d);
    }
    rp.history_dumps = static_cast<int>(hist.size());
    rp.restart_dumps = static_cast<int>(rest.size());

    std::set<std::string> grid_names, field_names;
    for (const auto& d : desc.vars)
        if (d.isgridvar) grid_names.insert(d.name);

    // The separate grid file, written with the first history dump.
    if (p.grid_option == GridOption::SepGrid && !hist.empty()) {
        SpecBuilder b(g, rank);
        add_grid_vars(b, desc, p.physics);
        OutputFile f;
        f.attribute_only = b.attribute_only();
        f.kind = FileKind::Grid;
        f.path = dir + p.sep_grid + ext;
        f.plan = b.take(0, &f.data_bytes);
        f.plan.spec.label = "grid";
        add_globals(f.plan.spec, desc);
        f.dumps = {hist.front()->index};
        rp.files.push_back(std::move(f));
    }

    // History files: one per group per nsamples records, named by the first record's time.
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
        const FileGroup& grp = groups[gi];
        std::vector<std::string> missing;
        for (const auto& fr : grp.fields) {
            const Descriptor* d = desc.find(fr.name);
            if (!d)
                throw Error("field '" + fr.name + "' of file " + grp.prefix + " is not in the variable description",
                            "check io_config_file against io_desc_file");
            if (!has_data(*d, p.physics)) missing.push_back(fr.file_name());
        }
        for (std::size_t first = 0; first < hist.size(); first += static_cast<std::size_t>(p.nsamples)) {
            const std::size_t n = std::min(hist.size() - first, static_cast<std::size_t>(p.nsamples));
            SpecBuilder b(g, rank);
            b.add(*time, "time", true);
            for (const auto& fr : grp.fields) {
                const Descriptor* d = desc.find(fr.name);
                if (!has_data(*d, p.physics)) {  // reported (warned) by the caller
                    b.add_dims_only(*d);
                    continue;
                }
                b.add(*d, fr.file_name(), true);
                field_names.insert(fr.file_name());
            }
            if (p.grid_option == GridOption::AllFiles) add_grid_vars(b, desc, p.physics);
            OutputFile f;
            f.attribute_only = b.attribute_only();
            f.kind = FileKind::History;
            f.group = static_cast<int>(gi);
            f.path = dir + grp.prefix + time_stamp(hist[first]->seconds) + ext;
            f.plan = b.take(static_cast<int>(n), &f.data_bytes);
            f.plan.spec.label = grp.prefix + time_stamp(hist[first]->seconds);
            add_globals(f.plan.spec, desc);
            for (std::size_t k = 0; k < n; ++k) f.dumps.push_back(hist[first + k]->index);
            f.no_data = missing;
            rp.files.push_back(std::move(f));
        }
    }

    // Restart files: time plus every restart variable with data, one record each.
    for (const Dump* d : rest) {
        SpecBuilder b(g, rank);
        std::set<std::string> seen;
        for (const auto& v : desc.vars)
            if (v.restart && has_data(v, p.physics) && seen.insert(v.name).second) {
                b.add(v, v.name, true);
                if (v.name != "time") field_names.insert(v.name);
            }
        OutputFile f;
        f.kind = FileKind::Restart;
        // restart_overwrite: one file, rewritten at each restart dump, named as given
        const std::string& r = p.restart_output;
        const bool has_ext = r.size() >= ext.size() && r.compare(r.size() - ext.size(), ext.size(), ext) == 0;
        f.path = dir + r + (p.restart_overwrite ? (has_ext ? "" : ext) : time_stamp(d->seconds) + ext);
        f.plan = b.take(1, &f.data_bytes);
        f.plan.spec.label = "restart" + time_stamp(d->seconds);
        add_globals(f.plan.spec, desc);
        add_restart_globals(f.plan.spec, g);
        f.dumps = {d->index};
        rp.files.push_back(std::move(f));
    }
    for (const auto& f : rp.files) rp.data_bytes += f.data_bytes;
    rp.grid_vars = p.grid_option == GridOption::NoGrid ? 0 : static_cast<int>(grid_names.size());
    rp.field_vars = static_cast<int>(field_names.size());
    return rp;
}

}  // namespace iok::gcrm
