// e3sm_mapgen: write an E3SM decomposition map of any size, decomposed as
// E3SM decomposes its components (src/formats/map_synth.hpp):
//   F  atmosphere: cubed sphere ne x np4, space-filling-curve partition
//   G  ocean: MPAS-like mesh in compact blocks
//   I  land: lat x lon grid, land cells only (fill runs for the rest)
// Defaults reproduce the sizes of the 16-process maps E3SM-IO ships.
//
//   e3sm_mapgen --case F --ne 30 --nprocs 512 -o map.nc
#include <CLI/CLI.hpp>
#include <cstdio>

#include "core/error.hpp"
#include "formats/map_synth.hpp"
#include "formats/map_writer.hpp"

namespace {

using namespace iok::e3sm;

// Options that only make sense for some cases: using one elsewhere is an error.
void only_for(const CLI::App& app, const std::string& opt, const std::string& cases, const std::string& chosen) {
    if (app.count(opt) && cases.find(chosen) == std::string::npos)
        throw iok::Error(opt + " does not apply to --case " + chosen,
                         opt + " is an option of --case " +
                             (cases.size() == 1 ? cases : std::string(1, cases[0]) + "/" + cases.substr(1)) +
                             "; see e3sm_mapgen --help");
}

}  // namespace

int main(int argc, char** argv) {
    std::string output, format = "cdf5", kase = "F";
    FMapOptions f;
    GMapOptions g;
    IMapOptions i;
    SynthFMapOptions simple;
    int nprocs = 16;
    std::int64_t nlev = 0;
    std::uint64_t seed = 1;
    bool verbose = false;
    CLI::App app{
        "e3sm_mapgen: write an E3SM decomposition map of any size, decomposed as E3SM does\n"
        "(F: cubed sphere on a space-filling curve; G: MPAS ocean mesh in compact blocks;\n"
        " I: land cells of a lat x lon grid dealt round-robin).  Defaults give the sizes of\n"
        "E3SM-IO's 16-process maps."};
    app.add_option("-o,--output", output, "output map file")->required();
    app.add_option("--case", kase, "E3SM case: F (atmosphere), G (ocean) or I (land)")
        ->capture_default_str()
        ->transform(CLI::IsMember({"F", "G", "I"}, CLI::ignore_case));
    app.add_option("--nprocs", nprocs, "processes of the imagined E3SM run (decomp_nprocs)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--nlev", nlev, "vertical levels: F lev (default 72), G nVertLevels (default 100)")
        ->check(CLI::PositiveNumber);
    app.add_option("--seed", seed,
                   "G: placement of the continents; I: irregularity of the coasts; "
                   "--ncol pattern: element permutation")
        ->capture_default_str();
    app.add_option("--ne", f.ne, "F: elements along a cube-face edge (ncol = 6 ne^2 9 + 2: ne4 866, ne30 48602)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--pcols", f.pcols, "F: columns per physics chunk")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--ncells", g.ncells, "G: ocean cells (nCells)")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--nlat", i.nlat, "I: latitudes")->capture_default_str()->check(CLI::Range(2, 1 << 20));
    app.add_option("--nlon", i.nlon, "I: longitudes")->capture_default_str()->check(CLI::Range(2, 1 << 20));
    app.add_option("--segment", i.segment, "I: land cells dealt to a process at a time")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    auto* ncol = app.add_option("--ncol", simple.ncol,
                                "F: instead of a cubed sphere, the simple pattern of exactly this many columns "
                                "(scattered elements; for tiny test maps)")
                     ->check(CLI::PositiveNumber);
    app.add_option("--element-size", simple.element_size, "with --ncol: consecutive columns per element")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--format", format,
                   "map container: NetCDF classic cdf1/cdf2/cdf5, hdf5, netcdf4, bp (ADIOS2 BP3, "
                   "as E3SM-IO), bp4, bp5 (directories)")
        ->check(CLI::IsMember(iok::formats::file_format_names()))
        ->capture_default_str();
    app.add_flag("-v,--verbose", verbose, "print a summary of each decomposition");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help prints and succeeds; a bad option gets the one-message form
        // every program uses (CLI11's own "Run with --help" line names no program)
        if (e.get_exit_code() == 0) return app.exit(e);
        std::fprintf(stderr, "e3sm_mapgen: error: %s\n  hint: see e3sm_mapgen --help\n", e.what());
        return 2;
    }
    try {
        only_for(app, "--ne", "F", kase);
        only_for(app, "--pcols", "F", kase);
        only_for(app, "--ncol", "F", kase);
        only_for(app, "--element-size", "F", kase);
        only_for(app, "--ncells", "G", kase);
        only_for(app, "--nlat", "I", kase);
        only_for(app, "--nlon", "I", kase);
        only_for(app, "--segment", "I", kase);
        only_for(app, "--nlev", "FG", kase);
        if (app.count("--ne") && ncol->count())
            throw iok::Error("--ne and --ncol exclude each other",
                             "--ne makes a cubed sphere, --ncol the simple pattern");
        if (app.count("--element-size") && !ncol->count())
            throw iok::Error("--element-size needs --ncol", "it sets the simple pattern's element size");

        std::vector<RawOffsets> raw;
        DecompMap m;
        if (kase == "F" && ncol->count()) {
            simple.nprocs = nprocs;
            simple.seed = seed;
            if (nlev) simple.nlev = nlev;
            m = synthetic_f_map(simple, &raw);
        } else if (kase == "F") {
            f.nprocs = nprocs;
            if (nlev) f.nlev = nlev;
            m = synth_f_map(f, &raw);
        } else if (kase == "G") {
            g.nprocs = nprocs;
            g.seed = seed;
            if (nlev) g.nlev = nlev;
            m = synth_g_map(g, &raw);
        } else {
            i.nprocs = nprocs;
            i.seed = seed;
            m = synth_i_map(i, &raw);
        }
        m.path = output;
        MapWriteOptions w;
        w.format = iok::formats::parse_file_format(format);
        for (int k = 0; k < argc; ++k) w.command_line += std::string(argv[k]) + " ";
        write_decomp_map(output, m, w, &raw);
        if (verbose)
            for (const auto& d : m.decomps) {
                std::string dims;
                for (auto x : d.dims) dims += (dims.empty() ? "" : " x ") + std::to_string(x);
                std::printf("%s (%s): %zu runs (%lld real), %lld of %lld elements covered\n", d.name.c_str(),
                            dims.c_str(), d.offsets.size(), static_cast<long long>(d.real_runs()),
                            static_cast<long long>(d.covered_elements()), static_cast<long long>(d.elements()));
            }
        return 0;
    } catch (const iok::Error& e) {
        std::fprintf(stderr, "e3sm_mapgen: error: %s\n", e.what());
        if (!e.hint().empty()) std::fprintf(stderr, "  hint: %s\n", e.hint().c_str());
        return 1;
    }
}
