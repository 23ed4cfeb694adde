#pragma once
// The openPMD file of the benchmark as a FileSpec, and each rank's plan to
// write or read it.  Group-based iteration encoding (openPMD 1.1.0): iteration
// i is the group /data/<i>/ with the meshes in fields/ (E and B with one
// component per axis, the scalar rho) and the particle species ion in
// particles/ (id, charge, position/x, and positionOffset/x as a constant
// record component: a group holding `value` and `shape`).  Every attribute
// the standard requires is written with the type the validator checks.
// Values are the suite's pattern (runner/pattern.hpp) per variable name,
// so any read is verified; h5bench's values (block number + step/100 +
// index/10^4) are not reproduced.
#include <string>
#include <vector>

#include "kernels/openpmd/openpmd_config.hpp"
#include "kernels/openpmd/openpmd_layout.hpp"
#include "model/plan.hpp"

namespace iok::openpmd {

// What the root attributes say that differs between runs: agreed by every
// rank (rank 0's) before define(), since a parallel library writes
// attributes collectively.
struct Provenance {
    std::string date;    // "2026-11-27 21:37:21 +0000"
    std::string author;  // the user who ran it
    std::string software_version;
};

// Iteration i's variable of one mesh component or particle record:
// "/data/<i>/fields/E/x", "/data/<i>/fields/rho", "/data/<i>/particles/ion/id".
std::string mesh_var(int step, const std::string& record, const std::string& component);
std::string particle_var(int step, const std::string& record);

FileSpec openpmd_spec(const Config& cfg, const Provenance& who);

// This rank's blocks at every step, with each variable's selection.
FilePlan write_plan(const Config& cfg, FileSpec spec, const Layout& layout, int rank);

// The read pattern for `rank` of `ranks` readers (h5bench_openpmd_read:
// each reader takes the slice at rank % extent; full splits every variable
// in slabs of the first axis).
FilePlan read_plan(const Config& cfg, FileSpec spec, int rank, int ranks);

}  // namespace iok::openpmd
