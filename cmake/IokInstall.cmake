# Installation: `cmake --install BUILD --prefix P` lays out an HPC-centre
# install that needs nothing from the source or build tree:
#
#   P/bin/                          iokernels, every tool, iokernels-suite
#   P/lib/                          shared libraries built here (e.g. a capture library)
#   P/share/iokernels/python/       the suite runner package (+ pyproject.toml: pip install P/share/iokernels/python)
#   P/share/iokernels/suites/       example suites
#   P/share/iokernels/bench/        bench scripts
#   P/share/doc/iokernels/          README and docs/
#   P/share/modulefiles/iokernels/<version>       module file, Tcl (Environment Modules, Lmod)
#   P/share/lmod/iokernels/<version>.lua          module file, Lua (Lmod)
#
# Programs: every executable and shared/module library defined in src/ (and
# its subdirectories) is installed, so a new tool or library is installed by
# adding it there.  To keep one out, set its target property IOK_NO_INSTALL.
#
# Included before the targets exist (the RPATH settings apply to them);
# iok_install_everything() is called once at the end of the top-level file.
include(GNUInstallDirs)

# Installed programs find the libraries they were linked with (a centre's
# MPI/HDF5/... outside the system paths) and our own libraries in P/lib.
set(CMAKE_INSTALL_RPATH_USE_LINK_PATH ON)
set(CMAKE_INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")

set(IOK_INSTALL_DATADIR "${CMAKE_INSTALL_DATADIR}/iokernels")

# The libraries this build found, for `iokernels --version`, every manifest
# (src/core/build_config.cpp.in) and the module files: IOK_BUILD_LIBRARY_LIST
# ("MPI Open MPI v5.0.7;PnetCDF 1.14.0;...") and IOK_BUILD_LIBRARY_ROWS (C++).
macro(iok_describe_build)
  string(REGEX REPLACE "[,\n].*" "" _mpi "${MPI_C_LIBRARY_VERSION_STRING}")
  if(NOT _mpi)
    set(_mpi "MPI-${MPI_C_VERSION} (library version not determined)")
  endif()
  set(_names "MPI" "CLI11" "nlohmann_json")
  set(_versions "${_mpi}" "${CLI11_VERSION}" "${nlohmann_json_VERSION}")
  foreach(pair "PNETCDF PnetCDF" "HDF5 HDF5" "NETCDF4 NetCDF-4" "ADIOS2 ADIOS2")
    string(REPLACE " " ";" pair "${pair}")
    list(GET pair 0 _key)
    list(GET pair 1 _name)
    if(IOK_HAVE_${_key})
      list(APPEND _names "${_name}")
      list(APPEND _versions "${IOK_${_key}_VERSION}")
    endif()
  endforeach()
  set(IOK_BUILD_LIBRARY_LIST "")
  set(IOK_BUILD_LIBRARY_ROWS "")
  list(LENGTH _names _n)
  math(EXPR _last "${_n} - 1")
  foreach(i RANGE ${_last})
    list(GET _names ${i} _name)
    list(GET _versions ${i} _version)
    string(STRIP "${_version}" _version)
    if(_version STREQUAL "")
      set(_version "unknown")
    endif()
    list(APPEND IOK_BUILD_LIBRARY_LIST "${_name} ${_version}")
    string(REPLACE "\\" "\\\\" _version "${_version}")
    string(REPLACE "\"" "\\\"" _version "${_version}")
    string(APPEND IOK_BUILD_LIBRARY_ROWS "        {\"${_name}\", \"${_version}\"},\n")
  endforeach()
  set(IOK_BUILD_DESCRIPTION "${CMAKE_BUILD_TYPE}, ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
endmacro()

function(_iok_targets_below dir out)
  get_property(found DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    _iok_targets_below(${sub} more)
    list(APPEND found ${more})
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# The programs and libraries of src/ that are installed (for the summary and
# for tests/integration/test_install.py, which checks them against the build).
function(iok_installable_targets out)
  _iok_targets_below(${PROJECT_SOURCE_DIR}/src all)
  set(keep "")
  foreach(t ${all})
    get_target_property(type ${t} TYPE)
    get_target_property(skip ${t} IOK_NO_INSTALL)
    if(type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|MODULE_LIBRARY)$" AND NOT skip)
      list(APPEND keep ${t})
    endif()
  endforeach()
  set(${out} ${keep} PARENT_SCOPE)
endfunction()

function(iok_install_everything)
  iok_installable_targets(programs)
  install(TARGETS ${programs}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set(_list "")
  foreach(t ${programs})
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "EXECUTABLE")
      string(APPEND _list "${t} ")
    endif()
  endforeach()

  # The suite runner: the package, its pyproject.toml, and a command that
  # finds the package relative to itself (the prefix can move).
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/iokernels
    DESTINATION ${IOK_INSTALL_DATADIR}/python
    PATTERN __pycache__ EXCLUDE PATTERN "*.pyc" EXCLUDE)
  install(FILES ${PROJECT_SOURCE_DIR}/python/pyproject.toml DESTINATION ${IOK_INSTALL_DATADIR}/python)
  file(RELATIVE_PATH IOK_SUITE_PYTHONDIR "/root/${CMAKE_INSTALL_BINDIR}" "/root/${IOK_INSTALL_DATADIR}/python")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/iokernels-suite.in ${PROJECT_BINARY_DIR}/iokernels-suite @ONLY)
  install(PROGRAMS ${PROJECT_BINARY_DIR}/iokernels-suite DESTINATION ${CMAKE_INSTALL_BINDIR})
  # The Darshan converter (docs/darshan.md): beside the programs, the package relative to it.
  set(IOK_DARSHAN_PYTHONDIR "${IOK_SUITE_PYTHONDIR}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/iokernels-darshan.in ${PROJECT_BINARY_DIR}/install/iokernels-darshan @ONLY)
  install(PROGRAMS ${PROJECT_BINARY_DIR}/install/iokernels-darshan DESTINATION ${CMAKE_INSTALL_BINDIR})

  install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/iokernels/suites/
    DESTINATION ${IOK_INSTALL_DATADIR}/suites FILES_MATCHING PATTERN "*.toml")
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/bench/
    DESTINATION ${IOK_INSTALL_DATADIR}/bench USE_SOURCE_PERMISSIONS
    PATTERN __pycache__ EXCLUDE PATTERN "*.pyc" EXCLUDE)

  # Documentation: the README, docs/ (when present), the runner's README.
  install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
  install(FILES ${PROJECT_SOURCE_DIR}/python/iokernels/README.md
    DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME suite-runner.md)
  install(CODE "
    if(IS_DIRECTORY \"${PROJECT_SOURCE_DIR}/docs\")
      file(INSTALL \"${PROJECT_SOURCE_DIR}/docs/\" DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DOCDIR}\")
    endif()")

  # Module files: build-time facts (version, libraries, MPI launcher) are
  # filled in now; the prefix when installing, since `--prefix` decides it.
  set(IOK_MODULE_LIBRARIES "")
  foreach(row ${IOK_BUILD_LIBRARY_LIST})
    string(APPEND IOK_MODULE_LIBRARIES "${row}, ")
  endforeach()
  string(REGEX REPLACE ", $" "" IOK_MODULE_LIBRARIES "${IOK_MODULE_LIBRARIES}")
  set(IOK_MODULE_PROGRAMS "${_list}iokernels-suite")
  set(IOK_MODULE_PREFIX "@IOK_MODULE_PREFIX@")   # left for install time
  foreach(kind lua tcl)
    configure_file(${PROJECT_SOURCE_DIR}/cmake/iokernels-module.${kind}.in
                   ${PROJECT_BINARY_DIR}/module/iokernels.${kind}.in @ONLY)
  endforeach()
  install(CODE "
    set(IOK_MODULE_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    set(_root \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}\")
    configure_file(\"${PROJECT_BINARY_DIR}/module/iokernels.lua.in\"
                   \"\${_root}/lmod/iokernels/${PROJECT_VERSION}.lua\" @ONLY)
    configure_file(\"${PROJECT_BINARY_DIR}/module/iokernels.tcl.in\"
                   \"\${_root}/modulefiles/iokernels/${PROJECT_VERSION}\" @ONLY)
    message(STATUS \"Module files: \${_root}/lmod (Lua) and \${_root}/modulefiles (Tcl); \"
                   \"use: module use \${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/modulefiles; module load iokernels\")")
endfunction()
