// NetCDF classic (CDF-1/2/5) reader: every E3SM map and mpi_io_test
// decomposition in that container goes through it.  Reads the header, then
// every variable as integers, reals and text.
#include "formats/cdf_classic.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = iok_fuzz::as_file(data, size, ".nc");
    return iok_fuzz::expect_error_or_success([&] {
        iok::cdf::Reader r(path);
        for (const auto& v : r.header().vars) {
            try {
                r.read_ints(v.name);
            } catch (const iok::Error&) {}
            try {
                r.read_reals(v.name);
            } catch (const iok::Error&) {}
            try {
                r.read_text(v.name);
            } catch (const iok::Error&) {}
        }
    });
}
