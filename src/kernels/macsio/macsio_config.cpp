#include "kernels/macsio/macsio_config.hpp"

#include <cmath>

#include "core/error.hpp"

namespace iok::macsio {
namespace {

// MACSIO_UTILS_Best2DFactors / Best3DFactors, as they are.
bool best2d(int val, int& x, int& y) {
    for (int root = static_cast<int>(std::sqrt(static_cast<double>(val))); root; --root)
        if (val % root == 0) {
            x = root;
            y = val / root;
            return true;
        }
    return false;
}

void best3d(int val, int& x, int& y, int& z) {
    int xb = 0, yb = 0, zb = 0, mb = -1, mf = -1;
    for (int root = static_cast<int>(std::cbrt(static_cast<double>(val))); root; --root)
        if (val % root == 0) {
            const int val2d = val / root;
            if (best2d(val2d, x, y)) {
                z = val / val2d;
                xb = x;
                yb = y;
                zb = z;
                mb = std::min(xb, std::min(yb, zb));
                break;
            }
        }
    const int root2 = static_cast<int>(std::sqrt(static_cast<double>(val)));
    for (int root = static_cast<int>(std::cbrt(static_cast<double>(val))); root < root2; ++root)
        if (val % root == 0) {
            const int val2d = val / root;
            if (best2d(val2d, x, y)) {
                z = val / val2d;
                mf = std::min(x, std::min(y, z));
                break;
            }
        }
    if (mb != -1 && mb > mf) {
        x = xb;
        y = yb;
        z = zb;
    }
}

// "80000", "1M", "4K", "2G", "512B" in MACSio's units prefix system.
long long bytes_of(const std::string& text, bool binary) {
    std::size_t used = 0;
    long long v = 0;
    try {
        v = std::stoll(text, &used, 10);
    } catch (const std::exception&) {
        used = 0;
    }
    long long mult = 1;
    if (used > 0 && used + 1 == text.size()) {
        const long long k = binary ? 1024 : 1000;
        switch (text.back()) {
            case 'B': mult = 1; break;
            case 'K': mult = k; break;
            case 'M': mult = k * k; break;
            case 'G': mult = k * k * k; break;
            default: used = 0;
        }
        if (used) ++used;
    }
    if (used == 0 || used != text.size())
        throw Error("--part_size " + text + " is not a size", "write bytes with an optional B, K, M or G: 80000, 1M");
    return v * mult;
}

}  // namespace

void Options::add_to(CLI::App& app) {
    app.add_option("--interface", interface, "I/O interface: hdf5 (the HDF5 plugin's layout) [default: hdf5]");
    app.add_option("--parallel_file_mode", file_mode,
                   "MIF <files> (multiple independent files, baton passed in each file's group of ranks), "
                   "MIFMAX (a file per rank) or SIF <n> (one shared file) [default: MIF 4]")
        ->expected(1, 2);
    app.add_option("--avg_num_parts", avg_num_parts, "mesh parts per rank (whole numbers only here) [default: 1]");
    app.add_option("--part_size", part_size,
                   "bytes of doubles per part, with an optional B, K, M or G [default: 80000]");
    app.add_option("--part_mesh_dims", part_mesh_dims, "nodes per part in each dimension (overrides --part_size)")
        ->expected(1, 3);
    app.add_option("--mesh_decomp", mesh_decomp, "parts along x y z (default: MACSio's best factors)")->expected(1, 3);
    app.add_option("--part_dim", part_dim, "spatial dimension of the parts: 1, 2 or 3 [default: 2]");
    app.add_option("--part_type", part_type,
                   "uniform, rectilinear, curvilinear, unstructured or arbitrary (the HDF5 plugin writes the "
                   "variables only, the same for each) [default: rectilinear]");
    app.add_option("--vars_per_part", vars_per_part, "variables per part [default: 20]");
    app.add_option("--num_dumps", num_dumps, "dumps (files per MIF group, or shared files) [default: 10]");
    app.add_option("--compute_time", compute_time, "seconds of emulated work (a sleep) between dumps [default: 0]");
    app.add_option("--compute_work_intensity", compute_work_intensity,
                   "MACSio's work level 1-3: every level sleeps here [default: 1]");
    app.add_option("--dataset_growth", dataset_growth,
                   "growth factor of the data between dumps (> 1 not supported here) [default: none]");
    app.add_option("--filebase", filebase, "base name of the files [default: macsio]");
    app.add_option("--fileext", fileext, "file extension [default: h5; other libraries: their own]");
    app.add_option("--log_file_name", log_file_name,
                   "MACSio's log file: accepted, not written (the run's report is the suite's) "
                   "[default: macsio-log.log]");
    app.add_option("--timings_file_name", timings_file_name,
                   "MACSio's timings file: accepted, not written [default: macsio-timings.log]");
    app.add_option("--units_prefix_system", units_prefix_system,
                   "binary (K = 1024) or decimal (K = 1000) size suffixes [default: binary]");
    app.add_option("--meta_type", meta_type, "tabular or amorphous; the HDF5 plugin writes none [default: tabular]");
    app.add_option("--meta_size", meta_size,
                   "metadata bytes per rank and on rank 0; not written by the HDF5 "
                   "plugin [default: 10000 50000]")
        ->expected(2);
    app.add_flag("--no_collective", no_collective, "HDF5 plugin: independent instead of collective writes in SIF");
}

Mesh resolve(const Options& o, int nprocs) {
    if (o.interface != "hdf5")
        throw Error("--interface " + o.interface + ": this kernel writes MACSio's HDF5 plugin layout",
                    "use --interface hdf5 (and -a for the library)");
    Mesh m;
    const std::string mode = o.file_mode.at(0);
    int count = 0;
    if (o.file_mode.size() > 1) {
        std::size_t used = 0;
        try {
            count = std::stoi(o.file_mode[1], &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != o.file_mode[1].size())
            throw Error("--parallel_file_mode " + mode + " " + o.file_mode[1] + ": the file count is not a number");
    }
    if (mode == "SIF") {
        m.sif = true;
    } else if (mode == "MIF" || mode == "MIFFPP") {
        if (o.file_mode.size() < 2) throw Error("--parallel_file_mode " + mode + " needs a file count", "e.g. MIF 8");
        if (count <= 0)
            throw Error("--parallel_file_mode " + mode + " " + std::to_string(count) + ": the file count must be >= 1");
        m.files = std::min(count, nprocs);  // MACSIO_MIF_Init: groups of 0 ranks write nothing
    } else if (mode == "MIFMAX") {
        m.files = nprocs;
    } else {
        throw Error(
            "--parallel_file_mode " + mode + " is not MIF, MIFFPP, MIFMAX or SIF",
            "e.g. --parallel_file_mode MIF 8 or SIF 1 (MIFAUTO has no file count rule in MACSio's HDF5 plugin)");
    }
    if (o.avg_num_parts < 1 || o.avg_num_parts != std::floor(o.avg_num_parts) || o.avg_num_parts > 1e6)
        throw Error("--avg_num_parts " + std::to_string(o.avg_num_parts) +
                    ": whole numbers >= 1 only (MACSio's HDF5 plugin refuses fractions in SIF mode; in MIF "
                    "they draw random part counts, not reproduced here)");
    m.parts_per_rank = static_cast<int>(o.avg_num_parts);
    if (o.part_dim < 1 || o.part_dim > 3) throw Error("--part_dim " + std::to_string(o.part_dim) + ": 1, 2 or 3");
    m.dim = o.part_dim;
    if (o.vars_per_part < 1) throw Error("--vars_per_part " + std::to_string(o.vars_per_part) + ": at least 1");
    m.vars = o.vars_per_part;
    if (o.num_dumps < 1) throw Error("--num_dumps " + std::to_string(o.num_dumps) + ": at least 1");
    if (o.compute_time < 0) throw Error("--compute_time must not be negative");
    if (o.dataset_growth > 1)
        throw Error("--dataset_growth " + std::to_string(o.dataset_growth) + " is not supported by this kernel",
                    "leave it out (MACSio's default: the data do not grow)");
    if (o.units_prefix_system != "binary" && o.units_prefix_system != "decimal")
        throw Error("--units_prefix_system " + o.units_prefix_system + ": binary or decimal");
    const char* types[] = {"uniform", "rectilinear", "curvilinear", "unstructured", "arbitrary"};
    if (std::find(std::begin(types), std::end(types), o.part_type) == std::end(types))
        throw Error("--part_type " + o.part_type +
                    " is not one of uniform, rectilinear, curvilinear, unstructured, "
                    "arbitrary");
    // The part: part_size bytes of doubles, or part_mesh_dims.
    if (!o.part_mesh_dims.empty()) {
        if (static_cast<int>(o.part_mesh_dims.size()) < m.dim)
            throw Error("--part_mesh_dims gives " + std::to_string(o.part_mesh_dims.size()) + " sizes for part_dim " +
                        std::to_string(m.dim));
        for (int d = 0; d < m.dim; ++d) {
            if (o.part_mesh_dims[static_cast<std::size_t>(d)] < 2)
                throw Error("--part_mesh_dims: each size must be at least 2 (a zone needs two nodes)");
            m.part[static_cast<std::size_t>(d)] = o.part_mesh_dims[static_cast<std::size_t>(d)];
        }
    } else {
        const long long bytes = bytes_of(o.part_size, o.units_prefix_system == "binary");
        const long long n = bytes / 8;
        if (n < 1 || n > (1LL << 30))
            throw Error("--part_size " + o.part_size + ": " + std::to_string(n) + " doubles per part",
                        "give between 8 bytes and 8 GiB");
        int nx = static_cast<int>(n), ny = 1, nz = 1;
        if (m.dim == 2) best2d(static_cast<int>(n), nx, ny);
        if (m.dim == 3) best3d(static_cast<int>(n), nx, ny, nz);
        m.part = {nx, ny, nz};
        for (int d = 0; d < m.dim; ++d)
            if (m.part[static_cast<std::size_t>(d)] < 2)
                throw Error("--part_size " + o.part_size + " gives parts of " + std::to_string(nx) + " x " +
                                std::to_string(ny) + " x " + std::to_string(nz) +
                                " nodes: a zone-centred variable would have no zones",
                            "give a larger --part_size or --part_mesh_dims");
    }
    const int total = nprocs * m.parts_per_rank;
    int px = total, py = 1, pz = 1;
    if (!o.mesh_decomp.empty()) {
        if (static_cast<int>(o.mesh_decomp.size()) < m.dim)
            throw Error("--mesh_decomp gives " + std::to_string(o.mesh_decomp.size()) + " counts for part_dim " +
                        std::to_string(m.dim));
        px = o.mesh_decomp[0];
        py = m.dim > 1 ? o.mesh_decomp[1] : 1;
        pz = m.dim > 2 ? o.mesh_decomp[2] : 1;
        if (px * py * pz != total)
            throw Error("--mesh_decomp " + std::to_string(px) + " x " + std::to_string(py) + " x " +
                            std::to_string(pz) + " is not the " + std::to_string(total) + " parts of the run",
                        "ranks x avg_num_parts parts");
    } else if (m.dim == 2) {
        best2d(total, px, py);
    } else if (m.dim == 3) {
        best3d(total, px, py, pz);
    }
    m.layout = {px, py, pz};
    return m;
}

std::vector<Var> variables(int count) {
    // make_mesh_vars: the eight kinds in turn, zone/node and double/int as MACSio pairs them.
    static const char* const names[] = {"constant", "random", "spherical", "xramp",
                                        "ysin",     "noise",  "noise_sum", "xlayers"};
    static const bool zone[] = {true, true, true, false, false, false, false, true};
    std::vector<Var> out;
    for (int i = 0; i < count; ++i) {
        const int k = i % 8;
        char name[32];
        if (i < 8)
            std::snprintf(name, sizeof name, "%s", names[k]);
        else
            std::snprintf(name, sizeof name, "%s_%03d", names[k], (i - 8) / 8);
        out.push_back({name, zone[k], k == 7});
    }
    return out;
}

int group_of(int rank, int nprocs, int files) {
    const int size = nprocs / files, extra = nprocs % files, split = extra * (size + 1);
    return rank < split ? rank / (size + 1) : extra + (rank - split) / size;
}

std::vector<int> group_ranks(int group, int nprocs, int files) {
    std::vector<int> out;
    for (int r = 0; r < nprocs; ++r)
        if (group_of(r, nprocs, files) == group) out.push_back(r);
    return out;
}

}  // namespace iok::macsio
