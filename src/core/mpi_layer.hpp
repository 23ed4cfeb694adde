#pragma once
// Which MPI-IO implementation runs underneath (OpenMPI ships OMPIO and ROMIO),
// and choosing it.  Results must always say which one ran: on the E3SM F case
// the two differ by 3-8x.
#include <mpi.h>

#include <string>

namespace iok {

// Sets the environment so that MPI_Init picks `layer` ("romio" or "ompio").
// Returns an error message, empty on success.  Must run before MPI_Init.
std::string select_mpiio_layer(const std::string& layer);

// MPI_Init for this project's programs.  A process started without a
// launcher (a singleton: `iokernels backends`, a tool run on its own) runs
// without Open MPI's shared-memory transport (taken out of OMPI_MCA_btl): it
// has no peer to share memory with, and Open MPI 5 leaves a singleton's
// btl/sm segment (/dev/shm/sm_segment.*) behind at exit, one per process.
void init_mpi(int* argc, char*** argv);
// An OMPI_MCA_btl value without the shared-memory transport ("sm", once
// "vader"): an exclusion list gains it ("^tcp" -> "^tcp,sm"), an inclusion
// list loses it ("self,sm" -> "self"); unset ("") -> "^sm".
std::string btl_without_sm(const std::string& btl);

// "ROMIO", "OMPIO" or "unknown", judged from the hints of an open file
// (ROMIO reports romio_* / cb_* keys) and the MPI library in use.
std::string mpiio_layer_from_info(MPI_Info info);

// The MPI library's version string (first line of MPI_Get_library_version).
std::string mpi_library_version();

// MPI's text for an error code (MPI_Error_string), "MPI error N" if it has none.
std::string mpi_error_text(int code);

// The one check of an MPI return code.  Nothing on MPI_SUCCESS; otherwise
// throws iok::Error "cannot <action>: <MPI's text> (<call>)", e.g.
//   check_mpi(MPI_File_open(...), "MPI_File_open", "create " + path);
// The hint is what the error class says to do (a full disk or quota, a
// permission, an existing file), else `hint`, else for a missing file or
// directory "check the path and that its directory exists".
void check_mpi(int rc, const char* call, const std::string& action, const std::string& hint = {});

}  // namespace iok
