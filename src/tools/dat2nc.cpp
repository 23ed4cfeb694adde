// dat2nc: convert PIO decomposition text files (.dat) into one E3SM
// decomposition map (current format with Dk.fill_starts; NetCDF classic by
// default, or any container E3SM-IO reads: --format hdf5|netcdf4|bp|...).
//
//   dat2nc -o map.nc [--sort|--no-sort] [--format cdf5] D1.dat D2.dat ...
//   dat2nc -o map.nc -1 D1.dat -2 D2.dat -3 D3.dat      (the seed's form; sorts)
//
// The long form keeps each process's offsets in file order (what the current
// reference converter does); the seed's form sorts them first, as the seed's
// dat2nc did.  Both merge consecutive offsets into runs that never cross a
// row of the fastest dimension.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "formats/map_writer.hpp"
#include "formats/pio_dat.hpp"

namespace {

struct Job {
    std::string output;
    std::vector<std::string> inputs;
    bool sort = false;
    bool verbose = false;
    std::string format = "cdf5";  // a formats::file_format_names() entry
};

const char* kSeedUsage =
    "Usage: %s [OPTION]... [FILE]...\n"
    "      -h               Print help\n"
    "      -v               Verbose mode\n"
    "      -l num           Max number of characters per line in input file (accepted, not needed)\n"
    "      -o out_file      Name of output NetCDF file\n"
    "      -1 input_file    name of 1st decomposition file\n"
    "      -2 input_file    name of 2nd decomposition file\n"
    "      -3 input_file    name of 3rd decomposition file\n"
    "      -4 input_file    name of 4th decomposition file\n"
    "      -5 input_file    name of 5th decomposition file\n"
    "      -6 input_file    name of 6th decomposition file\n"
    "  (this seed-compatible form sorts each process's offsets; see --help for the long form)\n";

bool seed_form(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (argv[i][0] == '-' && argv[i][1] >= '1' && argv[i][1] <= '6') return true;
    return false;
}

// The seed's command line: getopt with -1..-6 naming the decompositions.
int parse_seed(int argc, char** argv, Job& job) {
    std::vector<std::string> slot(6);
    int c;
    opterr = 0;
    while ((c = getopt(argc, argv, "hvl:o:1:2:3:4:5:6:")) != -1) {
        switch (c) {
            case 'h': std::printf(kSeedUsage, argv[0]); return 0;
            case 'v': job.verbose = true; break;
            case 'l':
                if (std::atoi(optarg) <= 0)
                    throw iok::Error(std::string("-l needs a positive number, not '") + optarg + "'");
                break;
            case 'o': job.output = optarg; break;
            case '1':
            case '2':
            case '3':
            case '4':
            case '5':
            case '6': slot[c - '1'] = optarg; break;
            default:
                throw iok::Error(std::string("unknown option or missing value: -") + static_cast<char>(optopt),
                                 "see dat2nc -h");
        }
    }
    if (optind < argc) throw iok::Error(std::string("unexpected argument '") + argv[optind] + "'", "see dat2nc -h");
    for (std::size_t k = 0; k < slot.size(); ++k) {
        if (slot[k].empty()) {
            for (std::size_t j = k + 1; j < slot.size(); ++j)
                if (!slot[j].empty())
                    throw iok::Error("decomposition file -" + std::to_string(k + 1) + " is missing while -" +
                                         std::to_string(j + 1) + " is given",
                                     "decompositions are numbered from 1 without gaps");
            break;
        }
        job.inputs.push_back(slot[k]);
    }
    job.sort = true;
    return -1;
}

std::string command_line(int argc, char** argv) {
    std::string s;
    for (int i = 0; i < argc; ++i) s += std::string(argv[i]) + " ";
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    Job job;
    try {
        if (seed_form(argc, argv)) {
            int rc = parse_seed(argc, argv, job);
            if (rc >= 0) return rc;
        } else {
            CLI::App app{
                "dat2nc: convert PIO decomposition files (.dat) into an E3SM decomposition map.\n"
                "The seed's form (-o out.nc -1 a.dat -2 b.dat ...) is accepted too and sorts."};
            app.add_option("-o,--output", job.output, "output map file (container chosen by --format)")->required();
            app.add_option("inputs", job.inputs, "the .dat files, in decomposition order D1, D2, ...")
                ->required()
                ->check(CLI::ExistingFile);
            app.add_flag("--sort,!--no-sort", job.sort,
                         "sort each process's offsets before merging them into runs (the seed's behaviour)")
                ->capture_default_str();
            app.add_option("--format", job.format,
                           "map container: NetCDF classic cdf1/cdf2/cdf5, hdf5, netcdf4, bp (ADIOS2 BP3, as "
                           "E3SM-IO), bp4, bp5 (directories)")
                ->check(CLI::IsMember(iok::formats::file_format_names()))
                ->capture_default_str();
            int maxline = 0;
            app.add_option("-l,--max-line-length", maxline, "accepted for compatibility; lines may be any length");
            app.add_flag("-v,--verbose", job.verbose, "print a summary of every decomposition");
            try {
                app.parse(argc, argv);
            } catch (const CLI::ParseError& e) {
                // --help prints and succeeds; a bad option gets the one-message form
                // every program uses (CLI11's own "Run with --help" line names no program)
                if (e.get_exit_code() == 0) return app.exit(e);
                std::fprintf(stderr, "dat2nc: error: %s\n  hint: see dat2nc --help\n", e.what());
                return 2;
            }
        }
        if (job.output.empty()) throw iok::Error("no output file given", "use -o out.nc");
        if (job.inputs.empty())
            throw iok::Error("no input .dat files given", "name them with -1 ... -6 or as arguments");

        iok::e3sm::DecompMap m;
        m.path = job.output;
        std::vector<iok::e3sm::RawOffsets> raw;
        for (std::size_t k = 0; k < job.inputs.size(); ++k) {
            iok::PioDecompDat dat = iok::read_pio_decomp_dat(job.inputs[k]);
            if (k == 0)
                m.nprocs = static_cast<int>(dat.offsets.size());
            else if (static_cast<int>(dat.offsets.size()) != m.nprocs)
                throw iok::Error(job.inputs[k] + ": has " + std::to_string(dat.offsets.size()) + " processes but " +
                                     job.inputs[0] + " has " + std::to_string(m.nprocs),
                                 "all decompositions of a map come from the same run");
            raw.emplace_back();
            iok::e3sm::Decomp d = iok::e3sm::decomp_from_pio(dat, job.sort, &raw.back());
            d.name = "D" + std::to_string(k + 1);
            if (job.verbose) {
                std::printf("%s: %s dims", d.name.c_str(), job.inputs[k].c_str());
                for (auto x : d.dims) std::printf(" %lld", static_cast<long long>(x));
                std::printf(", %zu runs over %d processes, %lld elements covered%s\n", d.offsets.size(), m.nprocs,
                            static_cast<long long>(d.covered_elements()),
                            iok::e3sm::fully_covered(d) ? " (fully covered)" : "");
            }
            m.decomps.push_back(std::move(d));
        }
        iok::e3sm::MapWriteOptions opt;
        opt.format = iok::formats::parse_file_format(job.format);
        opt.command_line = command_line(argc, argv);
        iok::e3sm::write_decomp_map(job.output, m, opt, &raw);
        if (job.verbose) std::printf("wrote %s (%s)\n", job.output.c_str(), job.sort ? "sorted" : "file order");
        return 0;
    } catch (const iok::Error& e) {
        std::fprintf(stderr, "dat2nc: error: %s\n", e.what());
        if (!e.hint().empty()) std::fprintf(stderr, "  hint: %s\n", e.hint().c_str());
        return 1;
    }
}
