#pragma once
// What a file or directory is, judged by its content alone (magic bytes and
// trailers, never the name), without any I/O library: the first step of
// reading a map, and the words of the message when it is nothing we read.
#include <string>

namespace iok::formats {

enum class Container {
    Missing,     // the path does not exist or cannot be opened
    CdfClassic,  // "CDF" + 1, 2 or 5
    Hdf5,        // the HDF5 signature at 0, 512, 1024, ... (NetCDF-4 files are HDF5 files)
    Bp3,         // one file ending in an ADIOS BP3 mini-footer
    Bp4,         // a directory whose md.idx says BP version 4
    Bp5,         // ... version 5
    Unknown,
};

struct ProbeResult {
    Container kind = Container::Unknown;
    int cdf_version = 0;     // CdfClassic: 1, 2 or 5
    std::string looks_like;  // Unknown/Missing: "an empty file", "a text file starting 'version 2001 npes 16'", ...
    std::string hint;        // Unknown: what to do (e.g. convert PIO .dat text with dat2nc)
};

ProbeResult probe_container(const std::string& path);

// The one sentence listing what we read, for messages.
const char* accepted_containers();

}  // namespace iok::formats
