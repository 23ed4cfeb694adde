#pragma once
// One S3D checkpoint as a plan: the file name, the CDF-5 data model of the
// S3D-IO reference (dimensions x y z nsc three; double yspecies(nsc,z,y,x),
// u(three,z,y,x), pressure(z,y,x), temp(z,y,x); global attributes time,
// tstep, time_save) and this rank's block of every array.
#include <cstdint>
#include <string>

#include "kernels/s3d/s3d_decomp.hpp"
#include "model/plan.hpp"

namespace iok::s3d {

constexpr int kSpecies = 11;                     // nsc: chemical species (mass fractions)
constexpr int kComponents = 3;                   // three: velocity components
constexpr double kTimeStep = 0.076988811077757;  // the reference's tstep
constexpr double kTimeSave = 100000.0;           // the reference's time_save
// Bytes of all four arrays per grid point: (11 + 3 + 1 + 1) doubles.
constexpr std::uint64_t kBytesPerPoint = (kSpecies + kComponents + 1 + 1) * sizeof(double);

// Simulation time in the file name of checkpoint k (k * 1e-6), printed like
// Fortran's 1pe10.3 without the leading blank: "0.000E+00", "1.000E-06".
std::string time_label(int checkpoint);

// "pressure_wave_test.<T>.field" + extension (".nc" for PnetCDF).
std::string checkpoint_name(int checkpoint, const std::string& extension);

// Joins a directory and a file name ("dir" + "/" + name; "." stays explicit).
std::string join_path(const std::string& dir, const std::string& name);

// Data bytes of one checkpoint (all ranks): 128 bytes per grid point.
std::uint64_t checkpoint_bytes(const Grid& g);

// The plan of checkpoint k for `rank`: four requests, one block each.
FilePlan checkpoint_plan(const Grid& g, int rank, int checkpoint);

}  // namespace iok::s3d
