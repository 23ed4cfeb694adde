#pragma once
// Did the MPI-IO hints a run asked for take effect?  An MPI library may drop
// them without a word: Open MPI 5.0's ROMIO drops every hint given to
// MPI_File_open (docs/compatibility.md), and ROMIO takes some keys only at
// open.  A figure measured with a hint that was not in effect must say so.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace iok {

// The requested hints ({key: value}) that the file's hints in effect report
// with another value: {key: {"requested": v, "in_effect": w}}.  A key the
// layer does not report at all (not one of its hints) is not judged, nor are
// PnetCDF's nc_* (they read back as what PnetCDF derived from them).  Empty when `in_effect` is empty (no file, or a layer that
// reports nothing).
nlohmann::json hints_not_in_effect(const nlohmann::json& requested, const nlohmann::json& in_effect);

// "key=value (in effect: w), ..." of hints_not_in_effect's result.
std::string describe_hints_not_in_effect(const nlohmann::json& not_in_effect);

// Gives libiok_open_hints.so the hints ("key=value") before the process's
// first MPI_File_open, so that the keys ROMIO takes only at open (cb_nodes,
// cb_buffer_size, ...) reach it on Open MPI 5.0's ROMIO, which drops them from
// the info (src/open_hints).  Every rank, before any file is opened; nothing
// without the library.
void give_open_time_hints(const std::vector<std::string>& hints);

// Whether the program opens its files through libiok_open_hints.so
// (src/open_hints/): "reapply" (it gives dropped hints again after open),
// "as-mpi" (IOK_OPEN_HINTS=as-mpi: it does nothing) or "absent".
std::string open_hints_state();

}  // namespace iok
