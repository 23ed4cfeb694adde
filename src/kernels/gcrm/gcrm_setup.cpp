#include "kernels/gcrm/gcrm_setup.hpp"

#include <cstdlib>
#include <filesystem>

#include "core/collective.hpp"
#include "kernels/gcrm/gcrm_format.hpp"

namespace iok::gcrm {
namespace {

// Rank 0 reads a text file; every rank gets its contents (or the same error,
// which names the file's role: "the parameter file ...").
std::string read_on_root(MPI_Comm comm, const std::string& path, const std::string& role) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::string text;
    collective_step(comm, [&] {
        if (rank == 0) text = read_text_file(path, role);
    });
    unsigned long long n = text.size();
    MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    text.resize(static_cast<std::size_t>(n));
    MPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, 0, comm);
    return text;
}

// A path from the parameter file is relative to the parameter file's directory.
std::string beside(const std::string& paramfile, const std::string& name) {
    namespace fs = std::filesystem;
    if (name.empty() || fs::path(name).is_absolute()) return name;
    return (fs::path(paramfile).parent_path() / name).lexically_normal().string();
}

std::string as_dir(std::string d) {
    if (!d.empty() && d.back() != '/') d += '/';
    return d;
}

}  // namespace

Inputs load_inputs(MPI_Comm comm, const Options& o) {
    int nprocs = 1;
    MPI_Comm_size(comm, &nprocs);
    Inputs in;
    RunParams& p = in.params;
    const std::string ptext = read_on_root(comm, o.paramfile, "parameter file");
    collective_step(comm, [&] {
        p = parse_params(ptext, o.paramfile);
        if (!o.iotype.empty()) p.iotype = iotype_from_name(o.iotype);
        if (o.level > 0) p.level_max = o.level;
    });
    in.desc_path = o.desc.empty() ? beside(o.paramfile, p.io_desc_file) : o.desc;
    in.fcfg_path = o.fcfg.empty() ? beside(o.paramfile, p.io_config_file) : o.fcfg;
    const std::string dtext = read_on_root(comm, in.desc_path, "variable description (io_desc_file)");
    const std::string ftext = read_on_root(comm, in.fcfg_path, "file configuration (io_config_file)");
    collective_step(comm, [&] {
        in.desc = parse_desc(dtext, in.desc_path);
        in.groups = parse_fcfg(ftext, in.fcfg_path);
        in.grid = grid_params(p.level_max, nprocs);
    });
    const char* env_out = std::getenv("GCRM_OUTPUT_PATH");
    in.out_dir = as_dir(!o.output_path.empty()  ? o.output_path
                        : (env_out && *env_out) ? std::string(env_out)
                                                : p.cdf_output_path);
    return in;
}

void configure_stack(Driver& d, const Inputs& in) {
    const IoType t = in.params.iotype;
    const bool nonblocking = t == IoType::NonblockingCollective || t == IoType::NonblockingIndependent;
    const bool collective =
        (t == IoType::NonblockingCollective || t == IoType::BlockingCollective) && !d.options().independent;
    d.set_collective(collective);
    d.default_param("pnetcdf.api", nonblocking ? "varn" : "blocking");
    // GCRM-IO's create mode: CDF-2 unless its size check passes 2 GiB.  Only
    // for the files GCRM-IO writes (canonical, or rearranged into canonical):
    // blob and log subfiles have a layout of their own, with 64-bit index
    // variables that need CDF-5.
    if (d.strategy().keeps_canonical_layout) d.default_param("pnetcdf.format", gcrm_io_file_format(in.desc, in.grid));
    d.default_hint("nc_header_align_size", in.grid.level < 8 ? "2048" : "1048576");
    d.default_hint("nc_var_align_size", "1");
    d.default_hint("romio_cb_write", "enable");
    d.default_hint("romio_ds_write", "disable");
    d.config();
}

}  // namespace iok::gcrm
