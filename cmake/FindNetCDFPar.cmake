# FindNetCDFPar: NetCDF-C built with parallel I/O (nc_create_par).
#   NetCDFPar_FOUND, NetCDFPar_VERSION, imported target NetCDF::NetCDFPar
# Debian installs the MPI flavour under .../hdf5/openmpi; prefer it.
find_path(NetCDFPar_INCLUDE_DIR netcdf_par.h
  HINTS ENV NETCDF_DIR ENV NETCDF_ROOT
  PATHS /usr/include/netcdf-mpi /usr/lib/x86_64-linux-gnu/netcdf/mpi/include
  PATH_SUFFIXES include)
find_library(NetCDFPar_LIBRARY NAMES netcdf_mpi netcdf
  HINTS ENV NETCDF_DIR ENV NETCDF_ROOT
  PATHS /usr/lib/x86_64-linux-gnu/netcdf/mpi/lib
  PATH_SUFFIXES lib lib64)
if(NetCDFPar_INCLUDE_DIR AND EXISTS "${NetCDFPar_INCLUDE_DIR}/netcdf_meta.h")
  file(STRINGS "${NetCDFPar_INCLUDE_DIR}/netcdf_meta.h" _v REGEX "^#define NC_VERSION +\"")
  string(REGEX REPLACE ".*\"([^\"]+)\".*" "\\1" NetCDFPar_VERSION "${_v}")
  file(STRINGS "${NetCDFPar_INCLUDE_DIR}/netcdf_meta.h" _p REGEX "^#define NC_HAS_PARALLEL4? +1")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NetCDFPar
  REQUIRED_VARS NetCDFPar_LIBRARY NetCDFPar_INCLUDE_DIR _p VERSION_VAR NetCDFPar_VERSION)
if(NetCDFPar_FOUND AND NOT TARGET NetCDF::NetCDFPar)
  add_library(NetCDF::NetCDFPar UNKNOWN IMPORTED)
  set_target_properties(NetCDF::NetCDFPar PROPERTIES
    IMPORTED_LOCATION "${NetCDFPar_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NetCDFPar_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES MPI::MPI_C)
endif()
mark_as_advanced(NetCDFPar_INCLUDE_DIR NetCDFPar_LIBRARY)
