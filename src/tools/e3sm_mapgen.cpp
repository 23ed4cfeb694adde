// e3sm_mapgen: write a synthetic F-case-like E3SM decomposition map (current
// format), for demos and tests without the real maps.  See
// src/kernels/e3sm/map_synth.hpp for the pattern.
//
//   e3sm_mapgen -o map.nc [--ncol 866] [--nlev 72] [--nprocs 16]
#include <CLI/CLI.hpp>
#include <cstdio>

#include "core/error.hpp"
#include "kernels/e3sm/map_synth.hpp"
#include "kernels/e3sm/map_writer.hpp"

int main(int argc, char** argv) {
    iok::e3sm::SynthFMapOptions o;
    std::string output, format = "cdf5";
    bool verbose = false;
    CLI::App app{"e3sm_mapgen: write a synthetic F-case-like E3SM decomposition map"};
    app.add_option("-o,--output", output, "output map file")->required();
    app.add_option("--ncol", o.ncol, "columns (fastest dimension)")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--nlev", o.nlev, "levels of the 3-D decomposition D3")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--nprocs", o.nprocs, "processes of the imagined E3SM run (decomp_nprocs)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--element-size", o.element_size, "consecutive columns per element")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--seed", o.seed, "seed of the element permutation")->capture_default_str();
    app.add_option("--format", format, "output format")->check(CLI::IsMember({"cdf1", "cdf2", "cdf5"}))->capture_default_str();
    app.add_flag("-v,--verbose", verbose, "print a summary");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    try {
        std::vector<iok::e3sm::RawOffsets> raw;
        iok::e3sm::DecompMap m = iok::e3sm::synthetic_f_map(o, &raw);
        m.path = output;
        iok::e3sm::MapWriteOptions w;
        w.cdf_version = format.back() - '0';
        for (int i = 0; i < argc; ++i) w.command_line += std::string(argv[i]) + " ";
        iok::e3sm::write_decomp_map(output, m, w, &raw);
        if (verbose)
            for (const auto& d : m.decomps)
                std::printf("%s: %zu runs, %lld elements\n", d.name.c_str(), d.offsets.size(),
                            static_cast<long long>(d.covered_elements()));
        return 0;
    } catch (const iok::Error& e) {
        std::fprintf(stderr, "e3sm_mapgen: error: %s\n", e.what());
        if (!e.hint().empty()) std::fprintf(stderr, "  hint: %s\n", e.hint().c_str());
        return 1;
    }
}
