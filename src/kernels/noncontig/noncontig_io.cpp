#include "kernels/noncontig/noncontig_io.hpp"

#include <climits>
#include <cstdio>
#include <cstring>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/mpi_layer.hpp"
#include "runner/pattern.hpp"

namespace iok::noncontig {

namespace {

void check(int rc, const std::string& what, const std::string& path) {
    if (rc != MPI_SUCCESS) throw Error(what + " on " + path + " failed: " + mpi_error_text(rc));
}

int as_int(std::uint64_t n, const char* what) {
    if (n > static_cast<std::uint64_t>(INT_MAX))
        throw Error(std::string(what) + " of " + std::to_string(n) + " exceeds an MPI count (INT_MAX)",
                    "use fewer variables or more ranks");
    return static_cast<int>(n);
}

struct Types {
    MPI_Datatype file = MPI_DATATYPE_NULL, buf = MPI_DATATYPE_NULL;
    ~Types() {
        if (file != MPI_DATATYPE_NULL) MPI_Type_free(&file);
        if (buf != MPI_DATATYPE_NULL) MPI_Type_free(&buf);
    }
};

std::vector<std::uint64_t> var_keys(int nvars) {
    std::vector<std::uint64_t> k(static_cast<std::size_t>(nvars));
    for (int v = 0; v < nvars; ++v) k[static_cast<std::size_t>(v)] = pattern_key("noncontig_var" + std::to_string(v));
    return k;
}

}  // namespace

float tile_value(int var, std::int64_t element, int tile) {
    static thread_local std::vector<std::uint64_t> keys;
    if (static_cast<std::size_t>(var) >= keys.size()) keys = var_keys(var + 1);
    return static_cast<float>(pattern_value(keys[static_cast<std::size_t>(var)], static_cast<std::uint64_t>(element),
                                            static_cast<std::uint64_t>(tile)));
}

IoResult run_noncontig_io(MPI_Comm comm, const IoSetup& s, const std::vector<Run>& runs, bool verify) {
    IoResult res;
    const std::size_t R = runs.size();
    std::uint64_t nelems = 0;
    for (const auto& r : runs) nelems += static_cast<std::uint64_t>(r.length);
    const std::uint64_t nv = static_cast<std::uint64_t>(s.nvars);
    Types t;
    collective_step(comm, [&] {
        // filetype: block (v, j) of len_j floats at byte (off_j + v*A)*4
        const int nblocks = as_int(nv * R, "filetype blocks");
        std::vector<int> blen(static_cast<std::size_t>(nblocks));
        std::vector<MPI_Aint> disp(static_cast<std::size_t>(nblocks));
        std::size_t b = 0;
        for (std::uint64_t v = 0; v < nv; ++v)
            for (const auto& r : runs) {
                blen[b] = as_int(static_cast<std::uint64_t>(r.length), "run length");
                disp[b] = static_cast<MPI_Aint>((static_cast<std::uint64_t>(r.offset) + v * s.array_size) * 4);
                ++b;
            }
        MPI_Datatype hi;
        MPI_Type_create_hindexed(nblocks, blen.data(), disp.data(), MPI_FLOAT, &hi);
        MPI_Type_create_resized(hi, 0, static_cast<MPI_Aint>(nv * s.array_size * 4), &t.file);
        MPI_Type_free(&hi);
        MPI_Type_commit(&t.file);
        // buftype: nvars blocks of nelems floats, gap floats apart
        std::vector<int> bl(nv, as_int(nelems, "elements per variable"));
        std::vector<MPI_Aint> bd(nv);
        for (std::uint64_t v = 0; v < nv; ++v) bd[v] = static_cast<MPI_Aint>(v * (nelems + s.gap) * 4);
        MPI_Type_create_hindexed(s.nvars, bl.data(), bd.data(), MPI_FLOAT, &t.buf);
        MPI_Type_commit(&t.buf);
        as_int(nv * nelems, "elements per write");
    });

    // Buffers: tile 0 contiguous, tile 1 with gaps; values differ per tile so
    // that a tile written to the wrong place is caught.
    std::vector<float> contig(nv * nelems), gapped(nv * (nelems + s.gap), -1.0f);
    for (std::uint64_t v = 0, i = 0; v < nv; ++v) {
        float* g = gapped.data() + v * (nelems + s.gap);
        std::uint64_t k = 0;
        for (const auto& r : runs)
            for (std::int64_t e = 0; e < r.length; ++e, ++i, ++k) {
                contig[i] = tile_value(static_cast<int>(v), r.offset + e, 0);
                g[k] = tile_value(static_cast<int>(v), r.offset + e, 1);
            }
    }

    MPI_File fh = MPI_FILE_NULL;
    if (s.write) {
    collective_step(comm, [&] {
        int rc = MPI_File_open(comm, s.path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, s.hints, &fh);
        if (rc != MPI_SUCCESS) {
            fh = MPI_FILE_NULL;
            throw Error("cannot create " + s.path + ": " + mpi_error_text(rc), "check that the output directory is writable");
        }
        check(MPI_File_set_size(fh, 0), "MPI_File_set_size", s.path);
        check(MPI_File_set_view(fh, 0, MPI_BYTE, t.file, "native", MPI_INFO_NULL), "MPI_File_set_view", s.path);
    });

    // MPI_Pack of the noncontiguous buffer (timed, as the reference).
    int pack_size = 0, pos = 0;
    MPI_Pack_size(1, t.buf, comm, &pack_size);
    std::vector<char> packed(static_cast<std::size_t>(pack_size) + 1);
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    MPI_Pack(gapped.data(), 1, t.buf, packed.data(), pack_size, &pos, comm);
    res.pack_s = MPI_Wtime() - t0;
    // homogeneous run: packed bytes are the tile-1 values in order
    for (std::uint64_t v = 0, i = 0; v < nv && res.pack_ok; ++v) {
        std::uint64_t k = 0;
        for (const auto& r : runs)
            for (std::int64_t e = 0; e < r.length && res.pack_ok; ++e, ++i, ++k) {
                float x;
                std::memcpy(&x, packed.data() + i * 4, 4);
                res.pack_ok = x == tile_value(static_cast<int>(v), r.offset + e, 1);
            }
    }

    collective_step(comm, [&] {
        MPI_Status st;
        MPI_Barrier(comm);
        double t1 = MPI_Wtime();
        const int n = static_cast<int>(nv * nelems);
        check(s.collective ? MPI_File_write_all(fh, contig.data(), n, MPI_FLOAT, &st)
                           : MPI_File_write(fh, contig.data(), n, MPI_FLOAT, &st),
              "write (contiguous buffer)", s.path);
        res.contig_s = MPI_Wtime() - t1;
        MPI_Barrier(comm);
        t1 = MPI_Wtime();
        check(s.collective ? MPI_File_write_all(fh, gapped.data(), 1, t.buf, &st)
                           : MPI_File_write(fh, gapped.data(), 1, t.buf, &st),
              "write (noncontiguous buffer)", s.path);
        res.noncontig_s = MPI_Wtime() - t1;
        MPI_Info used = MPI_INFO_NULL;
        MPI_File_get_info(fh, &used);
        res.layer = mpiio_layer_from_info(used);
        res.hints_used = used;
        check(MPI_File_close(&fh), "MPI_File_close", s.path);
    });
    }  // s.write

    if (verify) {
        collective_step(comm, [&] {
            check(MPI_File_open(comm, s.path.c_str(), MPI_MODE_RDONLY, s.hints, &fh), "MPI_File_open (read back)", s.path);
            if (res.hints_used == MPI_INFO_NULL) {
                MPI_File_get_info(fh, &res.hints_used);
                res.layer = mpiio_layer_from_info(res.hints_used);
            }
            MPI_Offset size = 0;
            MPI_File_get_size(fh, &size);
            res.file_size = static_cast<std::uint64_t>(size);
            check(MPI_File_set_view(fh, 0, MPI_BYTE, t.file, "native", MPI_INFO_NULL), "MPI_File_set_view", s.path);
            std::vector<float> back(nv * nelems);
            const int n = static_cast<int>(nv * nelems);
            for (int tile = 0; tile < 2; ++tile) {
                std::fill(back.begin(), back.end(), -7.0f);  // never a pattern value
                MPI_Status st;
                check(s.collective ? MPI_File_read_all(fh, back.data(), n, MPI_FLOAT, &st)
                                   : MPI_File_read(fh, back.data(), n, MPI_FLOAT, &st),
                      "read back", s.path);
                for (std::uint64_t v = 0, i = 0; v < nv; ++v)
                    for (const auto& r : runs)
                        for (std::int64_t e = 0; e < r.length; ++e, ++i) {
                            const float want = tile_value(static_cast<int>(v), r.offset + e, tile);
                            if (back[i] == want) continue;
                            if (res.mismatches++ == 0) {
                                char msg[256];
                                std::snprintf(msg, sizeof msg,
                                              "tile %d, variable %llu, element %lld (file byte %llu): expected %.9g, read %.9g",
                                              tile, static_cast<unsigned long long>(v),
                                              static_cast<long long>(r.offset + e),
                                              static_cast<unsigned long long>(
                                                  ((tile * nv + v) * s.array_size + r.offset + e) * 4),
                                              want, back[i]);
                                res.first_mismatch = msg;
                            }
                        }
            }
            check(MPI_File_close(&fh), "MPI_File_close", s.path);
        });
    }
    return res;
}

}  // namespace iok::noncontig
