#include "kernels/s3d/s3d_options.hpp"

#include <mpi.h>

#include "core/command_line.hpp"
#include "core/error.hpp"

namespace iok::s3d {

namespace {

const char* kReferenceUsage = "nx_g ny_g nz_g npx npy npz method restart dir_path";

std::int64_t parse_integer(const std::string& text, const std::string& what) {
    std::size_t used = 0;
    long long v = 0;
    try {
        v = std::stoll(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size())
        throw Error(what + " '" + text + "' is not an integer",
                    std::string("the reference form is: iokernels s3d ") + kReferenceUsage);
    return v;
}

}  // namespace

bool parse_logical(const std::string& text, const std::string& what) {
    const std::string t = lowercase(text);
    if (t == "t" || t == "true" || t == ".true." || t == "1" || t == "yes" || t == "y") return true;
    if (t == "f" || t == "false" || t == ".false." || t == "0" || t == "no" || t == "n") return false;
    throw Error(what + " '" + text + "' is not a logical value", "use T or F (also true/false, 1/0)");
}

void Options::add_to(CLI::App& app) {
    app.add_option("reference", reference_args,
                   std::string("the S3D-IO reference's arguments: ") + kReferenceUsage +
                       " (method 1 = nonblocking, else blocking; restart T/F); implies --keep --overwrite, as the "
                       "reference keeps and clobbers its files");
    auto* g = app.add_option("--grid", grid, "global grid NX,NY,NZ (default: --local times --procs)")
                  ->delimiter(',')
                  ->expected(3);
    app.add_option("--local", local, "grid points per process NX,NY,NZ, when --grid is not given (weak scaling)")
        ->delimiter(',')
        ->expected(3)
        ->capture_default_str()
        ->excludes(g);
    app.add_option("--procs", procs, "process grid NPX,NPY,NPZ (default: MPI_Dims_create over the ranks)")
        ->delimiter(',')
        ->expected(3);
    app.add_option("--method", method,
                   "blocking (collective puts, one per array) or nonblocking (4 posted puts, one wait); "
                   "selects the PnetCDF api parameter")
        ->capture_default_str()
        ->check(CLI::IsMember({"blocking", "nonblocking"}));
    app.add_flag("--restart", restart,
                 "first read and verify checkpoint 0 of a previous run in the directory, "
                 "as the reference's restart (skipped with a note if absent)")
        ->capture_default_str();
    app.add_option("-o,--dir", dir, "output directory of the checkpoint files (must exist)")->capture_default_str();
    app.add_option("-c,--checkpoints", checkpoints, "number of checkpoints (one new file each)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--ranks", ranks,
                   "ranks the dry run imagines (0: the number of MPI processes); "
                   "with --procs, their product")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
}

int Options::planned_ranks(int nprocs) const {
    if (ranks > 0 && !dry_run) throw Error("--ranks needs --dry-run", "add --dry-run, or launch that many MPI ranks");
    return dry_run && ranks > 0 ? ranks : nprocs;
}

Grid Options::resolve(int nprocs) {
    Grid g;
    if (reference_form()) {
        if (reference_args.size() != 9)
            throw Error(
                "the reference form takes exactly 9 arguments, got " + std::to_string(reference_args.size()),
                std::string("usage: iokernels s3d ") + kReferenceUsage + "  (or use the named options, see --help)");
        if (!grid.empty() || !procs.empty())
            throw Error("give either the 9 reference arguments or --grid/--procs, not both");
        const char* names[] = {"nx_g", "ny_g", "nz_g", "npx", "npy", "npz"};
        std::int64_t v[6];
        for (int i = 0; i < 6; ++i) v[i] = parse_integer(reference_args[static_cast<std::size_t>(i)], names[i]);
        for (int i = 3; i < 6; ++i)
            if (v[i] <= 0 || v[i] > 1 << 30) throw Error(std::string(names[i]) + " must be a positive process count");
        g = {v[0], v[1], v[2], static_cast<int>(v[3]), static_cast<int>(v[4]), static_cast<int>(v[5])};
        method = parse_integer(reference_args[6], "method") == 1 ? "nonblocking" : "blocking";
        restart = parse_logical(reference_args[7], "restart");
        dir = reference_args[8];
        return g;
    }
    if (procs.empty()) {
        int dims[3] = {0, 0, 0};
        MPI_Dims_create(nprocs, 3, dims);
        procs = {dims[2], dims[1], dims[0]};  // smallest count along X
    }
    g.npx = procs[0];
    g.npy = procs[1];
    g.npz = procs[2];
    if (!grid.empty()) {
        g.nx_g = grid[0];
        g.ny_g = grid[1];
        g.nz_g = grid[2];
    } else {
        for (auto n : local)
            if (n <= 0) throw Error("--local sizes must be positive", "e.g. --local 50,50,50");
        g.nx_g = local[0] * g.npx;
        g.ny_g = local[1] * g.npy;
        g.nz_g = local[2] * g.npz;
    }
    return g;
}

}  // namespace iok::s3d
