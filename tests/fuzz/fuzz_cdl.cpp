// CDL headers (ncdump -h listings): the E3SM case descriptions.
#include "formats/cdl_header.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return iok_fuzz::expect_error_or_success(
        [&] { (void)iok::parse_cdl_header(iok_fuzz::as_text(data, size), "fuzz.cdl"); });
}
