#pragma once
// What a kernel writes: files, dimensions, variables, attributes.
// Nothing here knows about any I/O library.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/dtype.hpp"

namespace iok {

struct Dim {
    std::string name;
    std::uint64_t length = 0;  // for the unlimited (record) dimension: 0
    bool unlimited = false;
};

// An attribute holds either text (type Char) or numbers stored as double
// (exact for every integer and float value the kernels use) plus the type
// they are written with.
struct Attr {
    std::string name;
    DType type = DType::Char;
    std::string text;
    std::vector<double> values;
    // Type Char with `texts` non-empty: an array of strings (openPMD's
    // axisLabels), `text` unused.  HDF5 stores fixed-length strings, ADIOS2 a
    // string array; backends without string arrays refuse it.
    std::vector<std::string> texts;
    // One number stored as a scalar rather than an array of one (HDF5 scalar
    // dataspace, ADIOS2 single-value attribute): formats that tell the two
    // apart and readers that check it (the openPMD validator) see a scalar.
    bool scalar = false;
    // Integer types stored unsigned where the library has unsigned types
    // (HDF5, ADIOS2): openPMD's openPMDextension is a uint32.
    bool is_unsigned = false;
    // Non-empty: one compound (struct) value whose members, all of `type`,
    // are named here, one per value (AMReX's prob_domain {lo_i, ..., hi_k}).
    // HDF5 stores it as a scalar of a compound type; libraries without
    // compound attributes store the values as an array.
    std::vector<std::string> fields;

    static Attr Text(std::string name, std::string text);
    static Attr Number(std::string name, DType type, std::vector<double> values);
    static Attr Scalar(std::string name, DType type, double value);       // scalar = true
    static Attr Texts(std::string name, std::vector<std::string> texts);  // an array of strings
    static Attr Struct(std::string name, DType type, std::vector<std::string> fields, std::vector<double> values);
};

// A group of a hierarchical file and its attributes.  `path` is absolute,
// '/'-separated ("/" is the root, "/data/1/fields/E" a group in it).
// Backends with groups (HDF5) create each group and its missing parents in
// define(), before the variables; ADIOS2, whose names are flat, names each
// attribute "<path>/<name>" ("/basePath", "/data/1/dt").  A variable whose
// name has '/' in it ("/data/1/fields/E/x") lives in that group on HDF5 (its
// parents created as needed).  Backends without groups (Capabilities::groups
// false) refuse a spec with groups.
struct GroupSpec {
    std::string path;
    std::vector<Attr> attrs;
};

// How a variable would like to be stored.  A hint: backends that can honour
// it do (HDF5: chunked layout with the deflate filter), the others ignore it;
// it never changes the values stored.
struct StorageHint {
    // Chunk shape over the variable's stored dimensions without the record
    // dimension (slowest first); empty = the backend's own choice.
    std::vector<std::uint64_t> chunk;
    int deflate = 0;  // zlib level 1..9, 0 = none; needs `chunk`
    // Per stored dimension (same order as `chunk`; empty = none): the
    // dimensions whose maximum is unlimited though the variable is written
    // at its full size (hdf5_iotest's chunked datasets: HDF5 maxdims
    // H5S_UNLIMITED there, so the file could grow).  Needs `chunk`; backends
    // without maximum sizes ignore it.
    std::vector<bool> extendible;
};

struct VarSpec {
    // A '/' in the name is a path of groups on libraries with groups (HDF5
    // creates the intermediate groups: hdf5_iotest's step=0/array=1); the
    // netCDF libraries refuse such a name.
    std::string name;
    DType type = DType::Double;
    std::vector<int> dims;  // indices into FileSpec::dims, slowest first
    std::vector<Attr> attrs;
    // Index of the decomposition this variable is partitioned by, or -1 when
    // it is written whole by rank 0 ("not partitioned").
    int decomp = -1;
    // Fill value written in fill mode / expected in uncovered elements.
    std::optional<double> fill_value;
    StorageHint storage;
    // Non-empty: this variable is one member of a compound (struct) object of
    // that name, e.g. h5bench's interleaved particle file.  Backends with
    // compound types (HDF5) store all variables naming the same compound as
    // the fields of one dataset, in declaration order, and put()/get() of one
    // variable moves that field only; those variables must have identical
    // dims.  Backends without compound types store each variable on its own,
    // so a kernel that promises a compound layout must refuse them itself.
    std::string compound;

    bool is_record(const struct FileSpec& f) const;
    // (A new member must be copied by FileSpec::layout() too.)
};

// Attributes of a group (HDF5): h5bench_exerciser's 64 on /Data.
struct GroupAttrs {
    std::string group;  // path from the root, without a leading '/': "Data"
    std::vector<Attr> attrs;
};

struct FileSpec {
    std::string path;   // full output path chosen by the runner
    std::string label;  // "h0", "h1", "hist", "ckpt0001", ...
    std::vector<Dim> dims;
    std::vector<VarSpec> vars;
    std::vector<Attr> global_attrs;
    // Groups with attributes, parents before children (see GroupSpec).
    std::vector<GroupSpec> groups;
    // Backends with Capabilities::group_attrs create each group (before the
    // variables, which may live in it) and write its attributes there; the
    // others ignore them (a kernel moves them to global_attrs for those).
    std::vector<GroupAttrs> group_attrs;
    // Non-empty: backends with groups store record r of every record variable
    // as "<record_group><r>/<name>" without the record dimension (h5bench's
    // /Timestep_<i>/x); the others keep the record dimension.
    std::string record_group;
    // Records the writer will write, when known (0 = unknown): lets a backend
    // create per-record objects (record groups) in define(), so their cost is
    // metadata time, not data time.
    int expected_records = 0;
    // File-space alignment hint (HDF5 H5Pset_alignment): objects of at least
    // `align_threshold` bytes start at multiples of `align_bytes`; 0 = none.
    std::uint64_t align_threshold = 0, align_bytes = 0;
    // File-space metadata block size hint (HDF5 H5Pset_meta_block_size:
    // AMReX's 4 MiB); 0 = the library's default.  Others ignore it.
    std::uint64_t meta_block_bytes = 0;
    // The dimensions' names and lengths belong in the file (netCDF's data
    // model).  False where the application's files name none (h5bench's
    // particle files): a library without dimension objects (HDF5) then
    // stores nothing for them.
    bool named_dims = true;

    int record_dim() const;                       // index of the unlimited dim, or -1
    int find_dim(const std::string& name) const;  // -1 when absent
    int find_var(const std::string& name) const;  // -1 when absent
    // Shape of a variable without its record dimension (C order).
    std::vector<std::uint64_t> fixed_shape(const VarSpec& v) const;
    std::uint64_t fixed_elements(const VarSpec& v) const;
    std::size_t attribute_count() const;  // variable + global + group attributes
    // This spec without its attributes: what a backend keeps of it once
    // define() has written them (shapes, types, names).  An E3SM h0 spec
    // holds 1,563 attributes; each full copy touched 50-75 pages per rank.
    FileSpec layout() const;
};

}  // namespace iok
