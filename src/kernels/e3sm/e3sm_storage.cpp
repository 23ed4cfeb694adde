#include "kernels/e3sm/e3sm_storage.hpp"

#include "core/error.hpp"
#include "driver/driver.hpp"

namespace iok::e3sm {

int filter_level(const std::string& filter) {
    if (filter.empty() || filter == "none") return 0;
    if (filter == "deflate" || filter == "zlib") return 6;  // E3SM-IO: H5Pset_deflate(dcpl, 6)
    throw Error("-z: unknown filter '" + filter + "'",
                "E3SM-IO's filter names are deflate and zlib (both zlib deflate, level 6)");
}

std::vector<std::uint64_t> chunk_shape(const std::vector<std::uint64_t>& shape, std::size_t element_bytes,
                                       std::uint64_t chunk_bytes) {
    std::vector<std::uint64_t> chunk(shape.size(), 1);
    std::uint64_t bytes = element_bytes;
    for (std::size_t i = shape.size(); i-- > 0;) {
        if (bytes < chunk_bytes) {
            chunk[i] = shape[i] ? shape[i] : 1;
            bytes *= chunk[i];
        }
    }
    return chunk;
}

void apply_storage(std::vector<FileSpec>& files, std::uint64_t chunk_bytes, const std::string& filter) {
    const int level = filter_level(filter);
    for (FileSpec& f : files) {
        for (VarSpec& v : f.vars) {
            const auto shape = f.fixed_shape(v);
            const bool record = v.is_record(f);
            if (v.dims.empty()) continue;  // scalars have nothing to chunk
            if (chunk_bytes > 0 && !shape.empty())
                v.storage.chunk = chunk_shape(shape, dtype_size(v.type), chunk_bytes);
            // A filter needs chunks: record variables always have them.
            if (level > 0 && (record || !v.storage.chunk.empty())) v.storage.deflate = level;
        }
    }
}

void configure_storage(Driver& d, std::uint64_t chunk_bytes, const std::string& filter, std::vector<FileSpec>& files) {
    if (chunk_bytes == 0 && filter_level(filter) == 0) return;
    const std::string what = chunk_bytes > 0 && !filter.empty() ? "-c " + std::to_string(chunk_bytes) + " -z " + filter
                             : chunk_bytes > 0 ? "-c " + std::to_string(chunk_bytes) + " (chunked variables)"
                                               : "-z " + filter + " (compressed variables)";
    d.require(d.library().caps.chunking, what, "chunking");
    const std::string& x = d.options().strategy;
    d.expressible(d.strategy().keeps_canonical_layout,
                  what + " with -x " + x + ": the " + x + " layout keeps no per-variable datasets to chunk or compress",
                  "use -x canonical or -x rearrange (E3SM-IO: -a hdf5 / hdf5_ra)");
    // Parallel HDF5 writes filtered datasets collectively only; the
    // rearranger's aggregators write their parts independently.
    d.expressible(filter_level(filter) == 0 || !d.strategy().library_io_independent,
                  what + " with -x " + x +
                      ": its aggregators write independently, and parallel HDF5 writes "
                      "compressed datasets collectively only",
                  "use -x canonical (E3SM-IO: -a hdf5), or drop -z");
    d.check(filter_level(filter) == 0 || !d.options().independent,
            what + " with --independent: parallel HDF5 writes compressed datasets collectively only",
            "drop --independent");
    apply_storage(files, chunk_bytes, filter);
}

}  // namespace iok::e3sm
