// E3SM decomposition maps in every container E3SM-IO reads (NetCDF classic
// CDF-1/2/5, HDF5, NetCDF-4, ADIOS2 BP3): the container is recognised by
// content (container_probe), read through its library, then validated
// (offsets, lengths, fill_starts).  The libraries themselves are not
// instrumented: coverage guides the fuzzer through our probe, readers and
// validation; a crash inside a library on a mutated file is a finding too.
// BP4/BP5 maps are directories: fuzz_decomp_map_bpdir.cpp.
#include "formats/decomp_map.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = iok_fuzz::as_file(data, size, ".map");
    return iok_fuzz::expect_error_or_success([&] {
        const iok::e3sm::DecompMap m = iok::e3sm::read_decomp_map(path);
        for (const auto& d : m.decomps) (void)iok::e3sm::rank_runs(d, 0, 2, true);
    });
}
