#include "core/memory.hpp"

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace iok {

static std::uint64_t status_field_kib(const char* field) {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    std::uint64_t kib = 0;
    const std::size_t n = std::strlen(field);
    while (std::fgets(line, sizeof line, f)) {
        if (std::strncmp(line, field, n) == 0 && line[n] == ':') {
            kib = std::strtoull(line + n + 1, nullptr, 10);
            break;
        }
    }
    std::fclose(f);
    return kib;
}

std::uint64_t peak_rss_bytes() {
    if (auto kib = status_field_kib("VmHWM")) return kib * 1024;
    struct rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;
}

std::uint64_t current_rss_bytes() { return status_field_kib("VmRSS") * 1024; }

}  // namespace iok
