#pragma once
// What a plan will cost a rank before the runner allocates anything: the
// input of core/resource_check.  Counting follows the runner: one user
// buffer per (variable, record) request of a write/read call, all of a call's
// requests allocated at once (core/buffer_arena.hpp).
#include <cstdint>

#include "model/plan.hpp"

namespace iok {

// Bytes of user buffers this rank holds during one call that moves
// `records_per_call` records (with the fixed-size variables, which go with
// the first call); 0 = the plan's own flush grouping (flush_every, 0 = all
// records at once).  Saturates instead of wrapping around.
std::uint64_t plan_buffer_bytes(const FilePlan& plan, int records_per_call = 0);

// Bytes this rank moves for the whole file (FilePlan::bytes(), saturating).
std::uint64_t plan_file_bytes(const FilePlan& plan);

}  // namespace iok
