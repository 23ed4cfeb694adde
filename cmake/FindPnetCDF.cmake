# FindPnetCDF: locate PnetCDF by header and library (Debian's pnetcdf.pc names a
# non-existent include directory, so pkg-config is not trusted).
#   PnetCDF_FOUND, PnetCDF_VERSION, imported target PnetCDF::PnetCDF
find_path(PnetCDF_INCLUDE_DIR pnetcdf.h
  HINTS ENV PNETCDF_DIR ENV PNETCDF_ROOT
  PATH_SUFFIXES include include/pnetcdf)
find_library(PnetCDF_LIBRARY NAMES pnetcdf
  HINTS ENV PNETCDF_DIR ENV PNETCDF_ROOT
  PATH_SUFFIXES lib lib64)
if(PnetCDF_INCLUDE_DIR AND EXISTS "${PnetCDF_INCLUDE_DIR}/pnetcdf.h")
  file(STRINGS "${PnetCDF_INCLUDE_DIR}/pnetcdf.h" _v REGEX "^#define PNETCDF_VERSION +\"")
  string(REGEX REPLACE ".*\"([^\"]+)\".*" "\\1" PnetCDF_VERSION "${_v}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(PnetCDF
  REQUIRED_VARS PnetCDF_LIBRARY PnetCDF_INCLUDE_DIR VERSION_VAR PnetCDF_VERSION)
if(PnetCDF_FOUND AND NOT TARGET PnetCDF::PnetCDF)
  add_library(PnetCDF::PnetCDF UNKNOWN IMPORTED)
  set_target_properties(PnetCDF::PnetCDF PROPERTIES
    IMPORTED_LOCATION "${PnetCDF_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${PnetCDF_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES MPI::MPI_C)
endif()
mark_as_advanced(PnetCDF_INCLUDE_DIR PnetCDF_LIBRARY)
