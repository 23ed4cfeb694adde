#include "kernels/e3sm/e3sm_plan.hpp"

#include <map>

#include "core/error.hpp"

namespace iok::e3sm {

int records_of(const std::string& case_name, const std::string& label, int records) {
    if ((case_name == "F" && label == "h0") || (case_name == "I" && label == "h1")) return 1;
    return records;
}

PlanSettings settings_for(const FileSpec& spec, const std::string& case_name, int records, PlanSettings base) {
    base.records = records_of(case_name, spec.label, records);
    return base;
}

static void check_shape(const FileSpec& spec, const VarSpec& v, const Decomp& d) {
    const std::uint64_t n = spec.fixed_elements(v);
    if (static_cast<std::int64_t>(n) != d.elements())
        throw Error("variable " + v.name + " has " + std::to_string(n) + " elements per record but decomposition " +
                        d.name + " covers " + std::to_string(d.elements()),
                    "the map does not match this case; check --case");
}

FilePlan make_file_plan(const FileSpec& spec, const DecompMap& map, const PlanSettings& s) {
    FilePlan plan;
    plan.spec = spec;
    plan.nrecords = s.records;
    plan.flush_every = s.flush_every;
    plan.selection.resize(spec.vars.size());
    plan.sole_rank.assign(spec.vars.size(), -1);
    if (s.fill) plan.fill_selection.resize(spec.vars.size());

    // one selection per (decomposition, shape): variables share it
    std::map<std::pair<int, std::vector<std::uint64_t>>, SelectionPtr> real, fill;
    std::uint64_t requests = 0;
    for (std::size_t i = 0; i < spec.vars.size(); ++i) {
        const VarSpec& v = spec.vars[i];
        const auto shape = spec.fixed_shape(v);
        const std::uint64_t nrec = v.is_record(spec) ? static_cast<std::uint64_t>(s.records) : 1;
        if (v.decomp < 0) {  // not partitioned: rank 0 writes it whole
            plan.selection[i] =
                std::make_shared<Selection>(s.io_rank == 0 ? Selection::whole(shape) : Selection(shape));
            plan.sole_rank[i] = 0;  // as E3SM-IO: the root alone, independently where calls are collective
            if (s.io_rank == 0) requests += nrec;
            continue;
        }
        if (v.decomp >= static_cast<int>(map.decomps.size()))
            throw Error("variable " + v.name + " uses decomposition D" + std::to_string(v.decomp + 1) +
                        " but the map has only " + std::to_string(map.decomps.size()));
        const Decomp& d = map.decomps[static_cast<std::size_t>(v.decomp)];
        check_shape(spec, v, d);
        auto key = std::make_pair(v.decomp, shape);
        auto& sel = real[key];
        if (!sel)
            sel = std::make_shared<Selection>(Selection::from_runs(
                shape, rank_runs(d, s.io_rank, s.io_size, s.sort, false, s.fill ? MapReading::Map : s.reading)));
        plan.selection[i] = sel;
        requests += sel->nblocks() * nrec;
        if (s.fill) {
            auto& f = fill[key];
            if (!f)
                f = std::make_shared<Selection>(
                    Selection::from_runs(shape, rank_runs(d, s.io_rank, s.io_size, s.sort, true)));
            plan.fill_selection[i] = f;
            requests += f->nblocks() * nrec;
        }
    }
    plan.requests = requests;

    // write order: fixed-size first is the runner's rule; -t puts every
    // variable of at most two dimensions (record included) before the rest
    plan.order.clear();
    for (int pass = 0; pass < (s.two_d_first ? 2 : 1); ++pass)
        for (std::size_t i = 0; i < spec.vars.size(); ++i) {
            const bool small = spec.vars[i].dims.size() <= 2;
            if (!s.two_d_first || (pass == 0) == small) plan.order.push_back(static_cast<int>(i));
        }
    return plan;
}

}  // namespace iok::e3sm
