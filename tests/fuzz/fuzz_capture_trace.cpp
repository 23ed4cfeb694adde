// Capture traces (libiok_capture.so's JSON, docs/capture_trace.md) as the
// replay kernel reads them: parsed, then turned into per-file byte runs.
// Every shape that parses is also folded again as the capture library
// writes it (capture/run_groups.hpp) and unfolded: the runs must come back
// exactly (a difference is a finding).
#include <cstdio>
#include <cstdlib>

#include "capture/run_groups.hpp"
#include "fuzz_common.hpp"
#include "kernels/replay/replay_plan.hpp"
#include "kernels/replay/trace.hpp"

namespace {

void refold(const iok::replay::TraceShape& s) {
    std::vector<std::pair<std::int64_t, std::int64_t>> runs;
    for (const iok::Run& r : s.runs) runs.emplace_back(r.offset, r.length);
    const std::vector<std::int64_t> flat = iok_runs::fold_groups(iok_runs::group_runs(runs));
    std::size_t i = 0;
    bool same = true;
    const std::string err =
        iok_runs::unfold_runs(flat, static_cast<std::int64_t>(runs.size()), [&](std::int64_t o, std::int64_t l) {
            same = same && i < runs.size() && runs[i].first == o && runs[i].second == l;
            ++i;
        });
    if (!err.empty() || !same || i != runs.size()) {
        std::fprintf(stderr, "finding: a shape of %zu runs does not survive folding (%s)\n", runs.size(), err.c_str());
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return iok_fuzz::expect_error_or_success([&] {
        const iok::replay::Trace t = iok::replay::parse_trace(iok_fuzz::as_text(data, size), "fuzz.trace");
        for (const auto& rank : t.shapes)
            for (const auto& s : rank) refold(s);
        (void)iok::replay::captured_files(t);
    });
}
