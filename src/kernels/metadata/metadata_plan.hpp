#pragma once
// hdf5_iotest's file as a plan: the datasets of the configuration's
// dataset-rank and slowest dimension, the way create_dataset() makes them
// (shapes, maximum sizes, chunks), and this rank's tiles in each, in the
// order the original writes them (steps outer, arrays inner).
//
//   rank 4  one dataset "dataset": [step][array][row][col] (slowest-dimension
//           step) or [array][step][row][col]; chunked: chunks of one step
//           and every array (one array and every step), that axis unlimited
//   rank 3  step first: "step=<s>" [array][row][col] per step; array
//           first: "array=<a>" [step][row][col] per array (chunked: the
//           step axis unlimited); chunks of one 2-D tile
//   rank 2  "step=<s>/array=<a>" (or "array=<a>/step=<s>") [row][col]: a
//           group per step (array) of 2-D datasets; chunks of one tile
//
// Every element a rank writes holds process-row + process-column, the
// original's buffer, so both programs' files hold the same bytes.
#include <cstdint>

#include "kernels/metadata/metadata_config.hpp"
#include "model/plan.hpp"

namespace iok::metadata {

// This rank's place in the process grid (row-major over the ranks).
struct Place {
    std::uint64_t row = 0, col = 0;
};
Place place_of(const Config& c, int rank);

// The file's datasets and this rank's tiles.
FilePlan iotest_plan(const Config& c, int rank);

// Datasets in the file (the original's create count).
std::uint64_t dataset_count(const Config& c);

}  // namespace iok::metadata
