// GCRM-IO's parameter file (zgrd.in), variable description (.desc) and file
// configuration (.fcfg): the first byte picks the parser, the rest is the text.
#include "fuzz_common.hpp"
#include "kernels/gcrm/gcrm_inputs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string text = iok_fuzz::as_text(data + 1, size - 1);
    return iok_fuzz::expect_error_or_success([&] {
        switch (data[0] % 3) {
            case 0: (void)iok::gcrm::parse_params(text, "fuzz.in"); break;
            case 1: (void)iok::gcrm::parse_desc(text, "fuzz.desc"); break;
            default: (void)iok::gcrm::parse_fcfg(text, "fuzz.fcfg"); break;
        }
    });
}
