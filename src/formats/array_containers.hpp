#pragma once
// The container implementations behind array_file.hpp, one file each:
// cdf_arrays.cpp (always built), hdf5_arrays.cpp, netcdf4_arrays.cpp and
// adios2_arrays.cpp (built only when their library was found:
// IOK_HAVE_HDF5 / IOK_HAVE_NETCDF4 / IOK_HAVE_ADIOS2).  Only array_file.cpp
// includes this header.
#include <memory>
#include <string>

#include "formats/array_file.hpp"
#include "formats/container_probe.hpp"

namespace iok::formats {

std::unique_ptr<ArrayReader> open_cdf_arrays(const std::string& path);
void write_cdf_arrays(const std::string& path, const ArrayFile& f, int cdf_version);

// True when the HDF5 file carries NetCDF-4's _NCProperties root attribute
// (as E3SM-IO decides).  Throws iok::Error when HDF5 cannot open the file.
bool hdf5_is_netcdf4(const std::string& path);
std::unique_ptr<ArrayReader> open_hdf5_arrays(const std::string& path);
void write_hdf5_arrays(const std::string& path, const ArrayFile& f);

std::unique_ptr<ArrayReader> open_netcdf4_arrays(const std::string& path);
void write_netcdf4_arrays(const std::string& path, const ArrayFile& f);

// `kind` is Bp3, Bp4 or Bp5 (the engine to read/write with).
std::unique_ptr<ArrayReader> open_adios2_arrays(const std::string& path, Container kind);
void write_adios2_arrays(const std::string& path, const ArrayFile& f, Container kind);

}  // namespace iok::formats
