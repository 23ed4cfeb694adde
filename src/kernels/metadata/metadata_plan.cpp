#include "kernels/metadata/metadata_plan.hpp"

#include <memory>
#include <string>

namespace iok::metadata {

namespace {

// Dimension indices of the spec (named for the netCDF libraries; HDF5
// stores no dimension objects, as the original).
enum DimIndex { kStep = 0, kArray = 1, kRow = 2, kCol = 3 };

struct Builder {
    const Config& c;
    Place at;
    FilePlan plan;

    VarSpec& add(const std::string& name, std::vector<int> dims) {
        VarSpec v;
        v.name = name;
        v.type = DType::Double;
        v.dims = std::move(dims);
        plan.spec.vars.push_back(std::move(v));
        return plan.spec.vars.back();
    }
    // Chunks of one tile (1 along the leading axes but `lead`), as create_dataset.
    void chunk(VarSpec& v, std::vector<std::uint64_t> lead, std::vector<bool> extendible) {
        if (!c.chunked()) return;
        lead.push_back(c.my_rows());
        lead.push_back(c.my_cols());
        extendible.resize(lead.size(), false);
        v.storage.chunk = std::move(lead);
        v.storage.extendible = std::move(extendible);
    }
    // A selection of the given tiles: one block per (leading index tuple).
    void tiles(const std::vector<std::vector<std::int64_t>>& leads) {
        const VarSpec& v = plan.spec.vars.back();
        auto sel = std::make_shared<Selection>(plan.spec.fixed_shape(v));
        for (const auto& lead : leads) {
            std::vector<std::int64_t> start(lead), count(lead.size(), 1);
            start.push_back(static_cast<std::int64_t>(at.row * c.my_rows()));
            start.push_back(static_cast<std::int64_t>(at.col * c.my_cols()));
            count.push_back(static_cast<std::int64_t>(c.my_rows()));
            count.push_back(static_cast<std::int64_t>(c.my_cols()));
            sel->add_block(start.data(), count.data());
        }
        plan.requests += leads.size();
        plan.selection.push_back(std::move(sel));
    }
};

}  // namespace

Place place_of(const Config& c, int rank) {
    const auto r = static_cast<std::uint64_t>(rank);
    return {r / c.proc_cols, r % c.proc_cols};
}

std::uint64_t dataset_count(const Config& c) {
    if (c.rank == 4) return 1;
    if (c.rank == 3) return c.step_first() ? c.steps : c.arrays;
    return c.steps * c.arrays;
}

FilePlan iotest_plan(const Config& c, int rank) {
    Builder b{c, place_of(c, rank), {}};
    FileSpec& spec = b.plan.spec;
    spec.label = "hdf5_iotest";
    spec.named_dims = false;
    spec.dims = {{"step", c.steps, false},
                 {"array", c.arrays, false},
                 {"row", c.total_rows(), false},
                 {"column", c.total_cols(), false}};
    const bool sf = c.step_first();
    const auto S = static_cast<std::int64_t>(c.steps), A = static_cast<std::int64_t>(c.arrays);
    std::vector<std::vector<std::int64_t>> leads;
    if (c.rank == 4) {
        VarSpec& v = b.add(
            "dataset", sf ? std::vector<int>{kStep, kArray, kRow, kCol} : std::vector<int>{kArray, kStep, kRow, kCol});
        if (sf)
            b.chunk(v, {1, c.arrays}, {true, false});
        else
            b.chunk(v, {c.arrays, 1}, {false, true});
        for (std::int64_t s = 0; s < S; ++s)
            for (std::int64_t a = 0; a < A; ++a)
                leads.push_back(sf ? std::vector<std::int64_t>{s, a} : std::vector<std::int64_t>{a, s});
        b.tiles(leads);
    } else if (c.rank == 3 && sf) {
        for (std::int64_t s = 0; s < S; ++s) {
            VarSpec& v = b.add("step=" + std::to_string(s), {kArray, kRow, kCol});
            b.chunk(v, {1}, {false});
            leads.clear();
            for (std::int64_t a = 0; a < A; ++a) leads.push_back({a});
            b.tiles(leads);
        }
    } else if (c.rank == 3) {
        for (std::int64_t a = 0; a < A; ++a) {
            VarSpec& v = b.add("array=" + std::to_string(a), {kStep, kRow, kCol});
            b.chunk(v, {1}, {true});
            leads.clear();
            for (std::int64_t s = 0; s < S; ++s) leads.push_back({s});
            b.tiles(leads);
        }
    } else {
        for (std::int64_t s = 0; s < S; ++s)
            for (std::int64_t a = 0; a < A; ++a) {
                const std::string name = sf ? "step=" + std::to_string(s) + "/array=" + std::to_string(a)
                                            : "array=" + std::to_string(a) + "/step=" + std::to_string(s);
                VarSpec& v = b.add(name, {kRow, kCol});
                b.chunk(v, {}, {});
                b.tiles({{}});
            }
    }
    b.plan.constant_data = FilePlan::ConstantData{static_cast<double>(b.at.row + b.at.col), 0};
    return std::move(b.plan);
}

}  // namespace iok::metadata
