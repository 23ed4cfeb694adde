#pragma once
// From a trace to plans: each captured file becomes one 1-D byte variable
// ("bytes", as long as the file's furthest byte touched) and each replay
// rank's selection is the set of bytes the captured ranks it stands for
// wrote (or read).  With the mpiio backend's raw layout (no header) the
// variable's byte i is the file's byte i, so the replayed file has the
// captured offsets.
//
// Redistribution (replay ranks M, captured ranks N):
//   M == N: replay rank r does what captured rank r did (a byte several
//           captured ranks wrote is written by the lowest of them only).
//   M != N: the captured ranks' byte sets, each sorted by offset, are laid end
//           to end in rank order (rank 0's, then rank 1's, ...); replay rank m
//           takes bytes [m*T/M, (m+1)*T/M) of that sequence (T = their total).
//           Every captured byte is replayed, locality within a rank's set is
//           kept, and the bytes are balanced over the replay ranks.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/replay/trace.hpp"
#include "model/plan.hpp"

namespace iok::replay {

struct CapturedFile {
    std::string name;
    std::vector<std::vector<Run>> writes, reads;  // per captured rank, normalized
    std::int64_t extent = 0;                      // one past the furthest byte touched
    bool collective = false;                      // any collective data access
    std::int64_t ops = 0, unknown_views = 0;
    bool written() const;
    bool read() const;
};

std::vector<CapturedFile> captured_files(const Trace& t);

// Each byte kept by the lowest rank listing it (lists normalized).
std::vector<std::vector<Run>> lowest_rank_owns(std::vector<std::vector<Run>> per_rank);

// This replay rank's runs of `per_rank` (one normalized run list per captured rank).
std::vector<Run> redistribute(const std::vector<std::vector<Run>>& per_rank, int nranks, int rank);

// The pattern key of replay file `index`'s variable "bytes" (the runner's
// pattern_key(var) ^ plan.pattern_seed): byte i of the file holds element i.
std::uint64_t replay_pattern_seed(int index);

// One replay file: variable "bytes" of the file's extent, this rank's `runs`.
FilePlan replay_plan(const CapturedFile& f, const std::vector<Run>& runs, int index);

// "out/replay3_h0.bin" for captured file "/x/y/h0.nc", index 3, extension ".bin".
std::string replay_file_name(const std::string& dir, const std::string& captured, int index,
                             const std::string& extension);

}  // namespace iok::replay
