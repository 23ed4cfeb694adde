#pragma once
// "Named integer arrays plus attributes" in any container E3SM-IO keeps its
// decomposition maps in: NetCDF classic (CDF-1/2/5), HDF5 (E3SM-IO's layout:
// dimensions as root attributes "-DIM_<name>"), NetCDF-4, and ADIOS2 BP
// (dimensions as scalars "/__pio__/dim/<name>").  A map is a handful of
// dimensions, 1-D integer arrays over them and attributes, so one small
// interface serves all of them; the kernels see only this header.
//
// The container is chosen by content (probe_container), never by the file
// name.  All access is serial, by the calling process alone.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace iok::formats {

// The containers files can be written in (and read from).
enum class FileFormat { Cdf1, Cdf2, Cdf5, Hdf5, NetCdf4, Bp3, Bp4, Bp5 };

// Command-line names, in the order a --help should list them:
// cdf1 cdf2 cdf5 hdf5 netcdf4 bp (BP3, E3SM-IO's choice) bp4 bp5.
const std::vector<std::string>& file_format_names();
FileFormat parse_file_format(const std::string& name);  // throws iok::Error
const char* file_format_name(FileFormat f);             // the command-line name
std::string file_format_title(FileFormat f);            // "NetCDF classic CDF-5", "ADIOS2 BP3", ...
// Whether this build links the library the format needs (classic: always).
bool file_format_available(FileFormat f);

// Reads named 1-D integer arrays, dimension lengths and global attributes.
class ArrayReader {
public:
    virtual ~ArrayReader() = default;
    // What the file is, for messages: "HDF5", "NetCDF-4", "ADIOS2 BP3", ...
    virtual std::string format() const = 0;
    // Length of dimension `name`; nullopt when the file has none.
    virtual std::optional<std::uint64_t> dim(const std::string& name) = 0;
    virtual bool has_array(const std::string& name) = 0;
    // The whole array as int64.  Throws iok::Error naming the file and the
    // array when it is absent, not 1-D, not integer, or cannot be read.
    virtual std::vector<std::int64_t> read_ints(const std::string& name) = 0;
    // A numeric global attribute; nullopt when absent or text.
    virtual std::optional<std::vector<std::int64_t>> global_ints(const std::string& name) = 0;

    // Readers that read part of an array without the rest (NetCDF classic:
    // one pread) say so; ranks then read their own part of a map each
    // instead of rank 0 reading all of it.  The others read the whole array
    // here and cut it.  Errors as read_ints.
    virtual bool reads_slices() const { return false; }
    // Entries of a 1-D integer array, its data checked to be in the file.
    virtual std::uint64_t array_length(const std::string& name) { return read_ints(name).size(); }
    // Entries [start, start + count) of a 1-D integer array as int64.
    virtual std::vector<std::int64_t> read_int_slice(const std::string& name, std::uint64_t start, std::uint64_t count);
};

// Opens `path` with the reader its content calls for.  Throws iok::Error:
// "cannot open" for a missing path; for content that is none of the formats,
// one message naming the file, what it looks like and the formats accepted.
std::unique_ptr<ArrayReader> open_array_file(const std::string& path);

// ---- writing ----------------------------------------------------------------
struct Attribute {
    std::string name;
    bool is_text = false;
    std::string text;
    std::vector<std::int64_t> ints;  // stored as 32-bit integers
    static Attribute Text(std::string name, std::string text);
    static Attribute Ints(std::string name, std::vector<std::int64_t> values);
};

// One 1-D array of 32-bit integers along dimension `dim`.
struct IntArray {
    std::string name;
    std::string dim;
    std::vector<std::int64_t> values;
    std::vector<Attribute> attrs;
    // Optional split into consecutive blocks (lengths summing to the array's
    // size): ADIOS BP stores one block per map process, as E3SM-IO does.
    // The other containers ignore it.
    std::vector<std::int64_t> blocks;
};

// A whole file, in definition order.
struct ArrayFile {
    std::vector<std::pair<std::string, std::uint64_t>> dims;  // lengths >= 1
    std::vector<IntArray> arrays;
    std::vector<Attribute> attrs;  // global
};

// Writes `f` to `path` in format `fmt`, replacing what is there (a BP4/BP5
// directory included).  Throws iok::Error naming the file on any failure, or
// when this build lacks the library the format needs.
void write_array_file(const std::string& path, const ArrayFile& f, FileFormat fmt);

}  // namespace iok::formats
