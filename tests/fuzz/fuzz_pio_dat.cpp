// PIO decomposition text files (.dat), as E3SM writes them (dat2nc's input).
#include "formats/pio_dat.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = iok_fuzz::as_file(data, size, ".dat");
    return iok_fuzz::expect_error_or_success([&] {
        const iok::PioDecompDat d = iok::read_pio_decomp_dat(path);
        (void)d.dims_c();
    });
}
