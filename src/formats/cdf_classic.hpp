#pragma once
// A small, self-contained reader and writer of the NetCDF classic file format
// (CDF-1, CDF-2 "64-bit offset", CDF-5 "64-bit data"), for serial use by one
// process.  The E3SM decomposition maps are classic files; reading them must
// not depend on any I/O library, because PnetCDF may be absent from a build.
//
// The format is the public "NetCDF Classic Format Specification".  All data
// on disk is big-endian.  Every malformed or truncated input raises
// iok::Error naming the file and what is missing; nothing here crashes or
// allocates more than the file can hold.
#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace iok::cdf {

// External type codes exactly as stored in the file.
enum class NcType : std::int32_t {
    Byte = 1,
    Char = 2,
    Short = 3,
    Int = 4,
    Float = 5,
    Double = 6,
    UByte = 7,
    UShort = 8,
    UInt = 9,
    Int64 = 10,
    UInt64 = 11,  // 7..11: CDF-5 only
};
std::size_t type_size(NcType t);
const char* type_name(NcType t);  // CDL spelling: "int", "double", "uint64", ...

struct Dim {
    std::string name;
    std::uint64_t length = 0;  // 0 for the record (unlimited) dimension
    bool is_record() const { return length == 0; }
};

// Text for NC_CHAR, integers (all integer types) or reals (float, double).
// UINT64 values above INT64_MAX come back wrapped; no map uses them.
struct Attr {
    std::string name;
    NcType type = NcType::Char;
    std::string text;
    std::vector<std::int64_t> ints;
    std::vector<double> reals;

    std::size_t nelems() const;
    // Numbers as int64 (reals truncated) / as double; throws for text.
    std::vector<std::int64_t> as_ints() const;
    std::vector<double> as_reals() const;

    static Attr Text(std::string name, std::string text);
    static Attr Ints(std::string name, NcType type, std::vector<std::int64_t> values);
    static Attr Reals(std::string name, NcType type, std::vector<double> values);
};

struct Var {
    std::string name;
    NcType type = NcType::Int;
    std::vector<int> dimids;  // slowest first; a record variable has the record dim first
    std::vector<Attr> attrs;
    std::uint64_t begin = 0;  // file offset of the first element (first record)

    const Attr* find_attr(const std::string& n) const;
};

struct Header {
    int version = 5;            // 1, 2 or 5
    std::uint64_t numrecs = 0;  // records currently in the file
    std::vector<Dim> dims;
    std::vector<Attr> gatts;
    std::vector<Var> vars;
    std::uint64_t header_size = 0;  // bytes taken by the header on disk

    int find_dim(const std::string& n) const;  // -1 when absent
    int find_var(const std::string& n) const;  // -1 when absent
    const Attr* find_gatt(const std::string& n) const;
    bool is_record(const Var& v) const;
    // Elements of one record (record vars) or of the whole variable (fixed).
    std::uint64_t slab_elements(const Var& v) const;
    // Bytes of one record of all record variables (the "recsize").
    std::uint64_t record_size() const;
};

// Reads a classic file's header on construction; variables are read on demand.
class Reader {
public:
    explicit Reader(const std::string& path);
    const Header& header() const { return h_; }
    const std::string& path() const { return path_; }
    std::uint64_t file_size() const { return size_; }

    // Whole variable (all records for a record variable), converted.
    // Throws iok::Error when the variable is absent or the file is truncated.
    std::vector<std::int64_t> read_ints(const std::string& var);
    // Entries [start, start + count) of a variable, converted: one read of
    // those bytes for a fixed-size variable.  Throws as read_ints, and when
    // the range lies outside the variable.
    std::vector<std::int64_t> read_ints(const std::string& var, std::uint64_t start, std::uint64_t count);
    // Elements of the whole variable, after checking the file holds them all
    // (the error read_ints would give otherwise).
    std::uint64_t checked_length(const std::string& var);
    std::vector<double> read_reals(const std::string& var);
    std::string read_text(const std::string& var);

private:
    std::vector<unsigned char> read_raw(const Var& v);
    // Checks that every slab of v lies in the file; returns the slab's bytes
    // and their count (records, 1 for a fixed-size variable).
    std::pair<std::uint64_t, std::uint64_t> checked_slabs(const Var& v) const;
    const Var& var_or_throw(const std::string& name) const;

    std::string path_;
    std::ifstream in_;
    std::uint64_t size_ = 0;
    Header h_;
};

// Collects a file's definition and data in memory and writes it in one go.
// Data are given per variable as values for the whole variable (for record
// variables: records concatenated; the record count is the largest any record
// variable supplies).  Variables without data are written as zeros.
class Writer {
public:
    explicit Writer(int version = 5);                            // 1, 2 or 5
    int def_dim(const std::string& name, std::uint64_t length);  // 0 = record dim
    int def_var(const std::string& name, NcType type, std::vector<int> dimids);
    void put_att(int varid, Attr a);  // varid -1: global attribute
    void put_ints(int varid, std::vector<std::int64_t> values);
    void put_reals(int varid, std::vector<double> values);
    void put_text(int varid, std::string text);
    // Computes the layout, checks the format's limits, writes the file.
    void write(const std::string& path);

private:
    struct Data {
        std::vector<std::int64_t> ints;
        std::vector<double> reals;
        std::string text;
        std::uint64_t n = 0;
        int kind = 0;  // 0 none, 1 ints, 2 reals, 3 text
    };
    Header h_;
    std::vector<Data> data_;
};

}  // namespace iok::cdf
