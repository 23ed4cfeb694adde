// E3SM decomposition maps as ADIOS2 BP4/BP5 directories, read through the
// real ADIOS2 like any map (container_probe, the BP4/BP5 readers, then the
// map validation).  A directory is several files whose offsets refer to each
// other, so one fuzz input carries them all, in the order of kFiles: each
// file as a 4-byte little-endian length and its bytes (a length beyond the
// end of the input takes what is left).  A file whose length is 0, or that
// the input ends before, is absent.  bench/fuzz.sh packs real BP4 and BP5 maps
// written by e3sm_mapgen this way as seeds.
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "formats/decomp_map.hpp"
#include "fuzz_common.hpp"

namespace {

const char* const kFiles[] = {"md.idx", "md.0", "mmd.0", "data.0"};

void write_file(const std::string& path, const std::uint8_t* data, std::size_t size) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) std::abort();
    if (size && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::string dir = "fuzz_input_" + std::to_string(getpid()) + ".bpdir";
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    if (mkdir(dir.c_str(), 0755) != 0) std::abort();
    std::size_t at = 0;
    for (const char* name : kFiles) {
        if (at + 4 > size) break;
        std::uint32_t n = 0;
        std::memcpy(&n, data + at, 4);  // little-endian hosts only (x86-64, aarch64)
        at += 4;
        const std::size_t take = std::min<std::size_t>(n, size - at);
        if (take) write_file(dir + "/" + name, data + at, take);
        at += take;
    }
    return iok_fuzz::expect_error_or_success([&] {
        const iok::e3sm::DecompMap m = iok::e3sm::read_decomp_map(dir);
        for (const auto& d : m.decomps) (void)iok::e3sm::rank_runs(d, 0, 2, true);
    });
}
