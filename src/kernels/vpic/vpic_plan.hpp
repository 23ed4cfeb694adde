#pragma once
// The VPIC particle file as a plan: 8 variables x y z px py pz (float),
// id_1 (int), id_2 (float) -- 32 bytes per particle -- one record per time
// step.  HDF5 stores a time step as group /Timestep_<i> (FileSpec::record_group);
// other libraries keep the record dimension (one variable per field, time
// step as record).  FILE_PATTERN=INTERLEAVED makes the 8 variables the
// members of one compound dataset "particles".
#include <cstdint>

#include "kernels/vpic/vpic_config.hpp"
#include "kernels/vpic/vpic_geometry.hpp"
#include "model/plan.hpp"

namespace iok::vpic {

inline constexpr int kFields = 8;
inline constexpr std::uint64_t kBytesPerParticle = 32;
const char* field_name(int f);
DType field_type(int f);

// The plan of one particle file: geometry `g`, this rank's selection `sel`.
FilePlan particle_plan(const Config& cfg, const Geometry& g, Selection sel);

}  // namespace iok::vpic
