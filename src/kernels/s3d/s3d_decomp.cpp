#include "kernels/s3d/s3d_decomp.hpp"

#include <string>

#include "core/error.hpp"

namespace iok::s3d {

namespace {

std::string grid_text(const Grid& g) {
    return std::to_string(g.nx_g) + " x " + std::to_string(g.ny_g) + " x " + std::to_string(g.nz_g);
}

std::string procs_text(const Grid& g) {
    return std::to_string(g.npx) + " x " + std::to_string(g.npy) + " x " + std::to_string(g.npz);
}

}  // namespace

void validate(const Grid& g, int nprocs) {
    if (g.nx_g <= 0 || g.ny_g <= 0 || g.nz_g <= 0)
        throw Error("global grid " + grid_text(g) + " must be positive along every axis",
                    "give three positive sizes, e.g. --grid 100,100,100");
    if (g.npx <= 0 || g.npy <= 0 || g.npz <= 0)
        throw Error("process grid " + procs_text(g) + " must be positive along every axis",
                    "give three positive counts, e.g. --procs 2,2,2");
    const struct {
        const char* axis;
        std::int64_t n;
        int np;
    } axes[] = {{"X", g.nx_g, g.npx}, {"Y", g.ny_g, g.npy}, {"Z", g.nz_g, g.npz}};
    for (const auto& a : axes)
        if (a.n % a.np != 0)
            throw Error(std::string("global grid size along ") + a.axis + " (" + std::to_string(a.n) +
                            ") is not divisible by the number of processes along " + a.axis + " (" +
                            std::to_string(a.np) + ")",
                        "S3D gives every process an equal block: choose sizes that are multiples of "
                        "the process grid " +
                            procs_text(g));
    if (static_cast<long long>(g.npx) * g.npy * g.npz != nprocs)
        throw Error("process grid " + procs_text(g) + " = " +
                        std::to_string(static_cast<long long>(g.npx) * g.npy * g.npz) + " processes, but the job has " +
                        std::to_string(nprocs),
                    "launch with mpiexec -n " + std::to_string(static_cast<long long>(g.npx) * g.npy * g.npz) +
                        " or change the process grid so that npx*npy*npz = " + std::to_string(nprocs));
}

Block block_of(const Grid& g, int rank) {
    // The reference's numbering: X fastest, then Y, then Z.
    const int plane = g.npx * g.npy;
    Block b;
    b.pz = rank / plane;
    b.px = (rank % plane) % g.npx;
    b.py = (rank % plane) / g.npx;
    b.nx = g.nx_g / g.npx;
    b.ny = g.ny_g / g.npy;
    b.nz = g.nz_g / g.npz;
    b.x0 = b.px * b.nx;
    b.y0 = b.py * b.ny;
    b.z0 = b.pz * b.nz;
    return b;
}

}  // namespace iok::s3d
