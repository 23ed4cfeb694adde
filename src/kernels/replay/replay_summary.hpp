#pragma once
// `iokernels replay --dry-run TRACE`: what the captured application asked of
// the file system, per file — the facts to read first when asking why its I/O
// is slow: request counts and sizes, how contiguous they are in the file and
// in memory, how much is collective, which call flavours, and how the work
// is spread over the ranks.  Also as JSON (--json).
#include <nlohmann/json.hpp>

#include "kernels/replay/trace.hpp"

namespace iok::replay {

nlohmann::json summarize_trace(const Trace& t);
void print_summary(const nlohmann::json& summary, const std::string& source);

}  // namespace iok::replay
