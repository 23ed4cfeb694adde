#pragma once
// Kernels register themselves (one folder each); main.cpp only dispatches.
#include <string>
#include <vector>

namespace iok {

struct KernelInfo {
    std::string name;         // "e3sm"
    std::string description;  // one line for `iokernels --help`
    // Runs the kernel with argv[0] = kernel name.  Called between MPI_Init and
    // MPI_Finalize on every rank; returns the process exit code.
    int (*main)(int argc, char** argv);
};

void register_kernel(KernelInfo info);
const std::vector<KernelInfo>& registered_kernels();

#define IOK_REGISTER_KERNEL(ident, name, description, fn)                        \
    namespace {                                                                  \
    const bool iok_kernel_registered_##ident = [] {                              \
        ::iok::register_kernel({name, description, fn});                         \
        return true;                                                             \
    }();                                                                         \
    }

}  // namespace iok
