#include "kernels/s3d/s3d_plan.hpp"

#include <cstdio>
#include <memory>

namespace iok::s3d {

std::string time_label(int checkpoint) {
    // %.3E matches 1pe10.3 for every exponent below 100 (always, here).
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3E", checkpoint * 1.0e-6);
    return buf;
}

std::string checkpoint_name(int checkpoint, const std::string& extension) {
    return "pressure_wave_test." + time_label(checkpoint) + ".field" + extension;
}

std::string join_path(const std::string& dir, const std::string& name) {
    if (dir.empty()) return name;
    return dir.back() == '/' ? dir + name : dir + "/" + name;
}

std::uint64_t checkpoint_bytes(const Grid& g) { return kBytesPerPoint * g.points(); }

FilePlan checkpoint_plan(const Grid& g, int rank, int checkpoint) {
    const Block b = block_of(g, rank);
    FilePlan p;
    FileSpec& f = p.spec;
    f.label = "ckpt" + std::to_string(checkpoint);
    p.pattern_seed = static_cast<std::uint64_t>(checkpoint) * 0x9e3779b97f4a7c15ull;  // distinct data per checkpoint
    // Dimension order of the reference: x y z nsc three.
    const auto len = [](std::int64_t n) { return static_cast<std::uint64_t>(n); };
    f.dims = {{"x", len(g.nx_g), false},
              {"y", len(g.ny_g), false},
              {"z", len(g.nz_g), false},
              {"nsc", kSpecies, false},
              {"three", kComponents, false}};
    enum { X, Y, Z, NSC, THREE };
    const auto var = [](const char* name, std::vector<int> dims) {
        VarSpec v;
        v.name = name;
        v.type = DType::Double;
        v.dims = std::move(dims);
        v.decomp = 0;  // every array follows the one block decomposition
        return v;
    };
    f.vars = {var("yspecies", {NSC, Z, Y, X}), var("u", {THREE, Z, Y, X}), var("pressure", {Z, Y, X}),
              var("temp", {Z, Y, X})};
    f.global_attrs = {Attr::Number("time", DType::Double, {checkpoint * kTimeStep}),
                      Attr::Number("tstep", DType::Double, {checkpoint == 0 ? 0.0 : kTimeStep}),
                      Attr::Number("time_save", DType::Double, {kTimeSave})};

    // One hyper-rectangle per array; the species/component axis is whole.
    const std::vector<std::uint64_t> shape3 = {len(g.nz_g), len(g.ny_g), len(g.nx_g)};
    const std::vector<std::int64_t> start3 = {b.z0, b.y0, b.x0}, count3 = {b.nz, b.ny, b.nx};
    const auto block4 = [&](int n) {
        std::vector<std::uint64_t> shape = {static_cast<std::uint64_t>(n)};
        shape.insert(shape.end(), shape3.begin(), shape3.end());
        std::vector<std::int64_t> start = {0}, count = {n};
        start.insert(start.end(), start3.begin(), start3.end());
        count.insert(count.end(), count3.begin(), count3.end());
        return std::make_shared<const Selection>(Selection::block(shape, start, count));
    };
    auto sel3 = std::make_shared<const Selection>(Selection::block(shape3, start3, count3));
    p.selection = {block4(kSpecies), block4(kComponents), sel3, sel3};
    p.nrecords = 1;     // no record dimension: every array is fixed-size
    p.flush_every = 1;  // one flush (wait_all) per checkpoint, as the reference
    p.requests = 4;     // one block per array
    return p;
}

}  // namespace iok::s3d
