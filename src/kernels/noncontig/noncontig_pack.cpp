#include "kernels/noncontig/noncontig_pack.hpp"

#include <climits>
#include <cstring>
#include <string>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "runner/pattern.hpp"

namespace iok::noncontig {

namespace {

int as_int(std::uint64_t n, const char* what) {
    if (n > static_cast<std::uint64_t>(INT_MAX))
        throw Error(std::string(what) + " of " + std::to_string(n) + " exceeds an MPI count (INT_MAX)",
                    "use fewer variables or more ranks");
    return static_cast<int>(n);
}

}  // namespace

float tile_value(int var, std::int64_t element, int tile) {
    static thread_local std::vector<std::uint64_t> keys;
    while (static_cast<std::size_t>(var) >= keys.size())
        keys.push_back(pattern_key("noncontig_var" + std::to_string(keys.size())));
    return static_cast<float>(pattern_value(keys[static_cast<std::size_t>(var)], static_cast<std::uint64_t>(element),
                                            static_cast<std::uint64_t>(tile)));
}

PackProbe pack_probe(MPI_Comm comm, const std::vector<Run>& runs, int nvars, int gap) {
    std::uint64_t nelems = 0;
    for (const auto& r : runs) nelems += static_cast<std::uint64_t>(r.length);
    const std::uint64_t nv = static_cast<std::uint64_t>(nvars);
    MPI_Datatype buf = MPI_DATATYPE_NULL;
    collective_step(comm, [&] {
        as_int(nv * nelems, "elements per write");
        std::vector<int> len(nv, as_int(nelems, "elements per variable"));
        std::vector<MPI_Aint> disp(nv);
        for (std::uint64_t v = 0; v < nv; ++v) disp[v] = static_cast<MPI_Aint>(v * (nelems + gap) * 4);
        MPI_Type_create_hindexed(nvars, len.data(), disp.data(), MPI_FLOAT, &buf);
        MPI_Type_commit(&buf);
    });
    std::vector<float> gapped(nv * (nelems + static_cast<std::uint64_t>(gap)), -1.0f);
    for (std::uint64_t v = 0; v < nv; ++v) {
        float* g = gapped.data() + v * (nelems + static_cast<std::uint64_t>(gap));
        for (const auto& r : runs)
            for (std::int64_t e = 0; e < r.length; ++e) *g++ = tile_value(static_cast<int>(v), r.offset + e, 1);
    }
    int size = 0, pos = 0;
    MPI_Pack_size(1, buf, comm, &size);
    std::vector<char> packed(static_cast<std::size_t>(size) + 1);
    PackProbe p;
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    MPI_Pack(gapped.data(), 1, buf, packed.data(), size, &pos, comm);
    p.seconds = MPI_Wtime() - t0;
    MPI_Type_free(&buf);
    // a homogeneous run: the packed bytes are the tile-1 values in order
    const char* at = packed.data();
    for (std::uint64_t v = 0; v < nv && p.ok; ++v)
        for (const auto& r : runs)
            for (std::int64_t e = 0; e < r.length && p.ok; ++e, at += 4) {
                float x;
                std::memcpy(&x, at, 4);
                p.ok = x == tile_value(static_cast<int>(v), r.offset + e, 1);
            }
    return p;
}

}  // namespace iok::noncontig
