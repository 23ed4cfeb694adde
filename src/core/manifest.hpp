#pragma once
// The manifest inside every result: what ran, where, with what.  Enough to
// reproduce a figure or to explain why two figures differ.
#include <mpi.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace iok {

struct InputFile {
    std::string role;  // "map", "config", ...
    std::string path;
};

// Collective (counts nodes, checksums rank 0's inputs in slices over the
// ranks: the other ranks' `inputs` are not read).  `hints` is the info in effect on an output file
// (may be MPI_INFO_NULL), `requested` the hints the run gave (its --hint and
// the kernel's defaults).  The manifest is complete on rank 0 only (the rank
// that writes the result); other ranks get an empty object.
nlohmann::json build_manifest(MPI_Comm comm, const std::vector<std::string>& argv, const std::vector<InputFile>& inputs,
                              MPI_Info hints, MPI_Info requested);

nlohmann::json info_to_json(MPI_Info info);
// One hint's value, or `dflt` when absent or info is MPI_INFO_NULL.
std::string info_value(MPI_Info info, const std::string& key, const std::string& dflt);
// zlib CRC-32 of the whole file, hex, on rank 0 ("" if unreadable; other ranks
// get "").  Collective: every rank checksums a slice.
std::string file_checksum_crc32(const std::string& path, MPI_Comm comm);
int count_nodes(MPI_Comm comm);

// Libraries register how to ask their version (backends do at static-init
// time); every manifest lists them, so core needs no backend header.
void register_library_version(const std::string& name, std::string (*version)());

}  // namespace iok
