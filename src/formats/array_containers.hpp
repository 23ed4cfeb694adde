#pragma once
// The container implementations behind array_file.hpp, one file each:
// cdf_arrays.cpp (always built, in the programs), hdf5_arrays.cpp,
// netcdf4_arrays.cpp and adios2_arrays.cpp (built only when their library
// was found: IOK_HAVE_HDF5 / IOK_HAVE_NETCDF4 / IOK_HAVE_ADIOS2, into the
// library modules of core/library_modules.hpp).  The programs reach the
// latter through register_container_library(), never by name: the module is
// loaded when a map in its format is first read or written.
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

// What a library module offers array_file.cpp (null: not offered).
struct ContainerLibrary {
    std::unique_ptr<ArrayReader> (*open)(const std::string& path, Container kind) = nullptr;
    void (*write)(const std::string& path, const ArrayFile& f, Container kind) = nullptr;
    bool (*is_netcdf4)(const std::string& path) = nullptr;  // the HDF5 module's probe
};
// Called by each module's container source at static-init time.
void register_container_library(const std::string& module, ContainerLibrary lib);

}  // namespace iok::formats

// In the module's container source: IOK_REGISTER_CONTAINER_LIBRARY(hdf5, "hdf5", lib).
#define IOK_REGISTER_CONTAINER_LIBRARY(ident, module, ...)               \
    namespace {                                                          \
    const bool iok_container_library_##ident = [] {                      \
        ::iok::formats::register_container_library(module, __VA_ARGS__); \
        return true;                                                     \
    }();                                                                 \
    }
