#pragma once
// What MACSio's HDF5 plugin (plugins/macsio_hdf5.c) writes per dump, as
// FileSpecs and each rank's plans.  The plugin skips the mesh coordinates
// ("SKIPPING MESH") and writes the parts' variables only:
//
//   MIF: <filebase>_hdf5_<group %05d>_<dump %03d>.<ext>, one per group of
//        ranks; each part a group domain_<chunk %07d> of its variables'
//        datasets (shape of the part's nodes, one less per axis for zone
//        variables), written by the part's rank.
//   SIF: <filebase>_hdf5_<dump %03d>.<ext>, one dataset per variable of the
//        whole mesh (axes reversed, slowest first; zone variables one less per
//        part and axis), each part one hyperslab, one write per part.
//
// Values are the suite's pattern (per variable name and dump), not MACSio's
// generated fields; names, shapes, types and order are the plugin's.
#include <string>
#include <vector>

#include "kernels/macsio/macsio_config.hpp"
#include "model/plan.hpp"

namespace iok::macsio {

// The chunks (parts) of `rank`: K consecutive chunk ids, chunk c at
// (c / (ny*nz), c / nz % ny, c % nz) of the part layout (MACSio's loop order).
std::vector<int> chunks_of(const Mesh& m, int rank);

// MIF file of `ranks` (the group, in rank order); `me` is the index of this
// rank among them, or -1 when it is not in the group.
FilePlan mif_plan(const Mesh& m, const std::vector<int>& ranks, int me, int dump, bool groups);
FilePlan sif_plan(const Mesh& m, int rank, int dump);

std::string mif_path(const std::string& base, int group, int dump, const std::string& ext);
std::string sif_path(const std::string& base, int dump, const std::string& ext);

}  // namespace iok::macsio
