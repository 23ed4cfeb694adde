// iokernels <kernel> [options]: dispatch to a registered kernel.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "backends/io_stack.hpp"
#include "core/build_info.hpp"
#include "core/mpi_layer.hpp"
#include "driver/kernel.hpp"

static void usage(FILE* out) {
    std::fprintf(out,
                 "iokernels %s: parallel I/O benchmarks built from real application I/O kernels\n\n"
                 "usage: mpiexec -n N iokernels <kernel> [options]   (iokernels <kernel> --help)\n\n"
                 "kernels:\n",
                 iok::iokernels_version());
    for (const auto& k : iok::registered_kernels())
        std::fprintf(out, "  %-10s %s\n", k.name.c_str(), k.description.c_str());
    std::fprintf(
        out,
        "\nother commands:\n"
        "  backends [--json]  every backend and strategy of this build: capabilities, --param keys, defaults\n"
        "\nglobal options (before the kernel name):\n"
        "  --io-layer romio|ompio   choose OpenMPI's MPI-IO layer (default: OpenMPI's own choice)\n"
        "  --open-hints reapply|as-mpi\n"
        "                           reapply (default): put the MPI-IO hints in effect where the MPI library drops\n"
        "                           those given to MPI_File_open (Open MPI 5.0's ROMIO drops all); as-mpi: leave\n"
        "                           them as the MPI library has them (environment IOK_OPEN_HINTS;\n"
        "                           docs/compatibility.md)\n"
        "  --version                print the version, the install prefix and the libraries built with, and exit\n");
}

int main(int argc, char** argv) {
    // Global options are read before MPI_Init: the MPI-IO layer is chosen
    // through the environment, which OpenMPI reads during initialisation.
    int first = 1;
    while (first < argc && argv[first][0] == '-') {
        std::string a = argv[first];
        if (a == "-h" || a == "--help") {
            usage(stdout);
            return 0;
        }
        if (a == "--version") {
            std::fputs(iok::version_text().c_str(), stdout);
            return 0;
        }
        if (a == "--open-hints" && first + 1 < argc) {
            const std::string mode = argv[first + 1];
            if (mode != "reapply" && mode != "as-mpi") {
                std::fprintf(stderr,
                             "iokernels: error: --open-hints %s: not a mode\n  hint: --open-hints reapply (the "
                             "default) or --open-hints as-mpi\n",
                             mode.c_str());
                return 2;
            }
            setenv("IOK_OPEN_HINTS", mode.c_str(), 1);  // read by libiok_open_hints.so at every open
            first += 2;
            continue;
        }
        if (a == "--io-layer" && first + 1 < argc) {
            std::string err = iok::select_mpiio_layer(argv[first + 1]);
            if (!err.empty()) {
                std::fprintf(stderr, "iokernels: error: %s\n", err.c_str());
                return 2;
            }
            first += 2;
            continue;
        }
        std::fprintf(stderr, "iokernels: error: unknown global option '%s'\n  hint: see iokernels --help\n", a.c_str());
        return 2;
    }
    if (first >= argc) {
        usage(stderr);
        return 2;
    }
    if (std::strcmp(argv[first], "backends") == 0) {
        const bool json = first + 1 < argc && std::strcmp(argv[first + 1], "--json") == 0;
        if (first + 1 < argc && !json) {
            std::fprintf(stderr,
                         "iokernels backends: error: unknown option '%s'\n  hint: iokernels backends [--json]\n",
                         argv[first + 1]);
            return 2;
        }
        iok::init_mpi(&argc, &argv);  // some libraries report their version only after MPI_Init
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            std::fputs((json ? iok::describe_io_stacks_json() : iok::describe_io_stacks_text()).c_str(), stdout);
        MPI_Finalize();
        return 0;
    }
    const iok::KernelInfo* kernel = nullptr;
    for (const auto& k : iok::registered_kernels())
        if (k.name == argv[first]) kernel = &k;
    if (!kernel) {
        std::fprintf(stderr, "iokernels: error: unknown kernel '%s'\n  hint: iokernels --help lists the kernels\n",
                     argv[first]);
        return 2;
    }
    iok::init_mpi(&argc, &argv);
    int rc = 0;
    {
        const std::unique_ptr<iok::Kernel> k = kernel->make();  // gone before MPI_Finalize: it may hold communicators
        rc = iok::run_kernel(*k, MPI_COMM_WORLD, argc - first, argv + first);
    }
    MPI_Finalize();
    return rc;
}
