// Capture traces (libiok_capture.so's JSON, docs/capture_trace.md) as the
// replay kernel reads them: parsed, then turned into per-file byte runs.
#include "fuzz_common.hpp"
#include "kernels/replay/replay_plan.hpp"
#include "kernels/replay/trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return iok_fuzz::expect_error_or_success([&] {
        const iok::replay::Trace t = iok::replay::parse_trace(iok_fuzz::as_text(data, size), "fuzz.trace");
        (void)iok::replay::captured_files(t);
    });
}
