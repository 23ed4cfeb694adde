#pragma once
// Memory high-water marks of this process.
#include <cstdint>

namespace iok {

// Peak resident set size (VmHWM), bytes; 0 if unknown.
std::uint64_t peak_rss_bytes();
// Current resident set size (VmRSS), bytes; 0 if unknown.
std::uint64_t current_rss_bytes();

}  // namespace iok
