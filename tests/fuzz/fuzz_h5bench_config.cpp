// h5bench KEY=VALUE configurations (vpic, bdcats), loaded and validated for
// writing and for reading.
#include "fuzz_common.hpp"
#include "kernels/vpic/vpic_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = iok_fuzz::as_text(data, size);
    return iok_fuzz::expect_error_or_success([&] {
        iok::vpic::Config w;
        w.load_text(text, "fuzz.cfg");
        try {
            w.validate_write();
        } catch (const iok::Error&) {}
        iok::vpic::Config r;
        r.load_text(text, "fuzz.cfg");
        r.validate_read();
    });
}
