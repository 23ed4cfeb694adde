#pragma once
// Reading back what a plan wrote, split by the file instead of by the writers.
//
// A kernel that verifies its own output (S3D) used to read it back with the
// writers' selections: a collective read of every rank's noncontiguous block
// (ROMIO two-phase: one aggregator reads the file, then sends 7/8 of it on).
// Since the pattern is a function of the global element, not of who wrote it,
// any rank can check any element: here each rank reads one contiguous range
// of every variable's flattened elements (its 1/P share), the cheapest read
// every library has, and the data are checked with another decomposition than
// the one that wrote them.
#include "model/plan.hpp"

namespace iok {

// Throws iok::Error (internal) for plans it cannot serve: constant data (the
// expected value is the writer's rank) and fill selections (elements not
// covered by the pattern).  The caller promises that the written selections
// together cover every element of every variable.
FilePlan contiguous_readback_plan(const FilePlan& written, int rank, int nranks);

}  // namespace iok
