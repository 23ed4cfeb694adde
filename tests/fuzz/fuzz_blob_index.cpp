// The blob layout's index and subfile descriptions (JSON written by the blob
// strategy, read by -i/--verify and blob_replay).
#include "backends/strategy_blob_layout.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = iok_fuzz::as_text(data, size);
    iok_fuzz::expect_error_or_success([&] { (void)iok::blob_index_from_json(text, "fuzz/blob.json"); });
    return iok_fuzz::expect_error_or_success([&] { (void)iok::blob_subfile_from_json(text); });
}
