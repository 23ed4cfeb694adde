#include "kernels/e3sm/e3sm_options.hpp"

#include "core/error.hpp"
#include "kernels/e3sm/e3sm_storage.hpp"

namespace iok::e3sm {

void Options::add_to(CLI::App& app) {
    app.add_option("map", map_path,
                   "decomposition map: NetCDF classic, HDF5, NetCDF-4 or ADIOS2 BP (seed or current format)")
        ->required();
    app.add_option("-o,--output", output,
                   "write test: output path stem; history files get _h0/_h1 inserted before the extension");
    app.add_option("-i,--input", input, "read test: verify existing history files at this path stem");
    app.add_option("--case", case_name, "E3SM case: F, G, I, or auto (from the map's num_decomp)")
        ->capture_default_str();
    app.add_option("-r,--records", records, "number of records (time steps) to write")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("-f,--hist", hist, "history files: 0 = h0 only, 1 = h1 only, -1 = both")
        ->capture_default_str()
        ->check(CLI::IsMember({-1, 0, 1}));
    app.add_option("-s,--stride", stride, "I/O rank stride: every s-th rank performs I/O")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--flush-every", flush_every, "records per flush (wait_all); 0 = flush once at the end")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    app.add_flag("-m,--noncontig-buffer", noncontig_buf, "noncontiguous user buffer (gaps between variables)")
        ->capture_default_str();
    app.add_flag("-t,--2d-first", two_d_first, "write all 2-D variables before the 3-D ones")->capture_default_str();
    app.add_flag("-j,--float", use_float, "record variables as float instead of double")->capture_default_str();
    app.add_flag("--fill", fill, "fill mode: also write uncovered elements with _FillValue and check them")
        ->capture_default_str();
    app.add_option("--define-order", define_order,
                   "define order of the variables: seed (E3SM-IO's today: its header and offsets byte for byte) "
                   "or listing (the older order of the seed's listings of real E3SM output)")
        ->capture_default_str()
        ->check(CLI::IsMember({"seed", "listing"}));
    app.add_option("--data", data,
                   "values written: pattern (a function of variable, element and record; verified) or rank "
                   "(E3SM-IO's: the writing rank, 'a' + rank in text, so files compare with cmp; verified against the "
                   "reading rank, so read back with the writer's rank count)")
        ->capture_default_str()
        ->check(CLI::IsMember({"pattern", "rank"}));
    app.add_option("--map-reading", map_reading,
                   "runs each rank takes from a map with fill runs (I case): map (each map process's real runs, "
                   "as the map defines them; the same file at every rank count) or e3sm-io (E3SM-IO's reading "
                   "today without -u: windows counted by Dk.fill_starts over the concatenated runs, so some fill "
                   "runs get data and the last real runs none; its files byte for byte). F and G: the same")
        ->capture_default_str()
        ->check(CLI::IsMember({"map", "e3sm-io"}));
    app.add_flag("--no-sort", no_sort, "keep each rank's runs in map order (no sort/coalesce across processes)")
        ->capture_default_str();
    app.add_flag("-d,--vard", vard, "PnetCDF: vard API (one derived datatype per variable)")->capture_default_str();
    app.add_flag("-n,--varn", varn, "PnetCDF: nonblocking varn API (the default)")->capture_default_str();
    app.add_flag("--blocking", blocking, "PnetCDF: blocking varn API")->capture_default_str();
    app.add_option(
           "-c,--chunk-size", chunk_bytes,
           "chunked variables: chunk size in bytes (E3SM-IO's rule: dimensions taken whole from the "
           "fastest while the chunk is under SIZE; one record per chunk); 0 = no chunking. HDF5 and NetCDF-4 only")
        ->capture_default_str();
    app.add_option("-z,--filter", filter,
                   "compress the chunked variables (record variables always are): deflate or zlib (zlib level 6, "
                   "as E3SM-IO). HDF5 and NetCDF-4 only")
        ->default_str("none");
    app.add_option("--ranks", ranks, "ranks the dry run imagines (0: the number of MPI processes)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
}

void Options::validate() const {
    if (ranks > 0 && !dry_run) throw Error("--ranks needs --dry-run", "add --dry-run, or launch that many MPI ranks");
    if (output.empty() && input.empty() && !dry_run)
        throw Error("nothing to do: give -o PATH (write test) and/or -i PATH (read test)",
                    "e.g. iokernels e3sm -o /tmp/out.nc map_f_case_16p.nc, or --dry-run --ranks N to plan only");
    if (vard + varn + blocking > 1) throw Error("choose one of -d/--vard, -n/--varn, --blocking");
    filter_level(filter);  // E3SM-IO's names only
    if (case_name != "auto" && case_name != "F" && case_name != "G" && case_name != "I")
        throw Error("unknown case '" + case_name + "'", "use F, G, I or auto");
}

}  // namespace iok::e3sm
