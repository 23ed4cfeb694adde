#include "kernels/vpic/vpic_plan.hpp"

#include <memory>

namespace iok::vpic {

namespace {
const char* const kNames[kFields] = {"x", "y", "z", "px", "py", "pz", "id_1", "id_2"};
}

const char* field_name(int f) { return kNames[f]; }
DType field_type(int f) { return f == 6 ? DType::Int : DType::Float; }

FilePlan particle_plan(const Config& cfg, const Geometry& g, Selection sel) {
    FilePlan p;
    FileSpec& s = p.spec;
    s.label = "particles";
    s.dims.push_back({"timestep", 0, true});
    static const char* const one_d[] = {"particle"};
    static const char* const n_d[] = {"dim_1", "dim_2", "dim_3"};
    for (std::size_t d = 0; d < g.shape.size(); ++d)
        s.dims.push_back({g.shape.size() == 1 ? one_d[0] : n_d[d], g.shape[d], false});
    // UNLIMITED=YES (h5bench's write-unlimited): no groups; every library
    // keeps the record dimension, which HDF5 makes an unlimited, chunked
    // dimension extended by one record per time step.
    if (!cfg.unlimited) s.record_group = "Timestep_";
    s.named_dims = false;  // h5bench's files hold the datasets only
    s.expected_records = cfg.timesteps;
    if (cfg.align) {
        s.align_threshold = cfg.align_threshold;
        s.align_bytes = cfg.align_len;
    }
    s.global_attrs.push_back(Attr::Text("kernel", "iokernels vpic (h5bench_write particle pattern)"));
    for (int f = 0; f < kFields; ++f) {
        VarSpec v;
        v.name = kNames[f];
        v.type = field_type(f);
        for (std::size_t d = 0; d <= g.shape.size(); ++d) v.dims.push_back(static_cast<int>(d));
        if (cfg.compress)
            for (std::size_t d = 0; d < g.shape.size(); ++d)
                v.storage.chunk.push_back(cfg.chunk_length(static_cast<int>(d)));
        if (cfg.compress) v.storage.deflate = cfg.deflate_level;
        if (cfg.file == FilePattern::Interleaved) v.compound = "particles";
        // INTERLEAVED memory, CONTIG file: as h5bench, each field's dataset
        // holds a one-member compound, so HDF5 picks the field out of the
        // particle structs by name during type conversion.  Libraries
        // without compounds store the field as a plain variable.
        else if (cfg.mem == MemPattern::Interleaved)
            v.compound = v.name;
        s.vars.push_back(v);
    }
    auto shared = std::make_shared<const Selection>(std::move(sel));
    p.selection.assign(kFields, shared);
    // MEM_PATTERN=INTERLEAVED: the particles live as an array of 32-byte
    // structs in memory, fields in file order (h5bench's particle struct).
    if (cfg.mem == MemPattern::Interleaved)
        for (int f = 0; f < kFields; ++f) p.memory_struct.push_back(f);
    p.nrecords = cfg.timesteps;
    // The runner's pattern, another one per DATA_SEED (overwrite's new values).
    p.pattern_seed = cfg.data_version() * 0x9e3779b97f4a7c15ull;
    p.flush_every = 1;
    p.requests = static_cast<std::uint64_t>(kFields) * static_cast<std::uint64_t>(cfg.timesteps) * shared->nblocks();
    return p;
}

}  // namespace iok::vpic
