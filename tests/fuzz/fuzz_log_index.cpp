// The log layout's per-writer index (a sequence of 64-bit integers written
// by the log strategy, read by -i/--verify and log_replay).
#include <cstring>
#include <vector>

#include "backends/strategy_log_layout.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::int64_t> v(size / 8);
    if (!v.empty()) std::memcpy(v.data(), data, v.size() * 8);
    return iok_fuzz::expect_error_or_success([&] { (void)iok::log_parse(v, "fuzz/log.idx"); });
}
