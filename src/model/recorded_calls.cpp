#include "model/recorded_calls.hpp"

#include <algorithm>

namespace iok {

void map_view_bytes(const TraceShape& s, std::int64_t disp, std::int64_t voff, std::int64_t bytes,
                    std::vector<Run>& out) {
    const auto emit = [&](std::int64_t off, std::int64_t len) {
        if (len <= 0) return;
        if (!out.empty() && out.back().offset + out.back().length == off)
            out.back().length += len;
        else
            out.push_back({off, len});
    };
    if (bytes <= 0) return;
    if (s.contiguous()) return emit(disp + voff / s.size * s.extent + voff % s.size, bytes);
    std::int64_t inst = voff / s.size, pos = voff % s.size;
    // the run holding data byte `pos` of an instance
    std::size_t r = static_cast<std::size_t>(std::upper_bound(s.data_before.begin(), s.data_before.end(), pos) -
                                             s.data_before.begin() - 1);
    std::int64_t within = pos - s.data_before[r];
    while (bytes > 0) {
        const Run& run = s.runs[r];
        const std::int64_t take = std::min(run.length - within, bytes);
        emit(disp + inst * s.extent + run.offset + within, take);
        bytes -= take;
        within = 0;
        if (++r == s.runs.size()) {
            r = 0;
            ++inst;
        }
    }
}

}  // namespace iok
