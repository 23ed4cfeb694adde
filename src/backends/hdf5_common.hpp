#pragma once
// What the two HDF5 backends share: error conversion, type mapping, file and
// dataset creation, and the translation of a Selection into an HDF5 file
// dataspace.  `hdf5` (hdf5.cpp) writes each put() at once with one H5Dwrite;
// `hdf5_md` (hdf5_md.cpp) queues puts and issues one H5Dwrite_multi per flush.
#include <hdf5.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "formats/hdf5_handle.hpp"

namespace iok::h5 {

hid_t mem_type(DType t);    // native type of the user buffer (library-owned, do not close)
Handle file_type(DType t);  // type stored in the file (a copy)

// Dataspaces for one put/get.  HDF5 moves the elements of a hyperslab union
// in file (C) order, while our buffers are packed in block order; when the
// two differ (unsorted blocks, or multi-row blocks side by side) `order`
// lists the buffer runs in file order and the caller goes through a staging
// buffer (gather before writing, scatter after reading).
struct Transfer {
    // Shared: one selection serves every variable of a decomposition, and
    // hdf5_md keeps transfers queued until flush.
    std::shared_ptr<Handle> file_space;
    std::shared_ptr<Handle> mem_space;
    std::uint64_t elements = 0;
    struct Piece {
        std::int64_t buf_offset;  // elements into the user buffer
        std::int64_t length;
    };
    std::shared_ptr<const std::vector<Piece>> order;  // empty: buffer already in file order
    bool permuted() const { return order && !order->empty(); }
};

// `dims` is the dataset's current extent (record dimension included when
// `record` >= 0).  Throws iok::Error naming `what` on overlapping blocks.
Transfer make_transfer(const std::vector<hsize_t>& dims, const Selection& sel, std::int64_t record,
                       const std::string& what);

// Building a union of 10^5 hyperslabs costs ~0.3 s even done well, and E3SM
// uses one selection for hundreds of variables per record: remember recent
// transfers by selection identity, reuse them for the same record and derive
// them for another record by copying and shifting the selection (~100x cheaper).
class TransferCache {
public:
    Transfer get(const std::vector<hsize_t>& dims, const Selection& sel, std::int64_t record, const std::string& what);
    void clear() { entries_.clear(); }

private:
    struct Entry {
        const Selection* sel;
        std::uint64_t fingerprint;
        std::vector<hsize_t> dims;  // record dimension excluded
        std::int64_t record;
        std::vector<hsize_t> full_dims;
        Transfer t;
    };
    std::vector<Entry> entries_;  // most recent last
};

// Copies between the user buffer (block order) and a staging buffer (file order).
void gather(const Transfer& t, std::size_t elem, const void* user, void* staged);
void scatter(const Transfer& t, std::size_t elem, const void* staged, void* user);

std::string library_version();  // "HDF5 1.14.5"

// The descriptor fields both HDF5 backends share (capabilities, extension,
// the hdf5.* options); each adds its name, factory and own options.
BackendInfo describe_common();

// The state and the define/open/close logic both HDF5 backends share; the
// subclasses decide when data moves.
class Hdf5Base : public File {
public:
    explicit Hdf5Base(const BackendConfig& cfg);
    ~Hdf5Base() override;

    std::string library() const override { return library_version(); }

    void create(const std::string& path, const FileSpec& spec, MPI_Comm comm);
    void define(const FileSpec& spec) override;
    void open(const std::string& path, const FileSpec& spec, MPI_Comm comm, Access access);
    void close() override;
    std::int64_t records() const override;
    MPI_Info info_in_effect() override;

protected:
    // Where a put/get of (var, record) goes: the dataset, the memory type of
    // the user buffer (a one-member compound for a field of a compound
    // dataset), the dataset's current extent and the index along its record
    // axis (-1: the dataset has none, e.g. a dataset inside a record group).
    // Writing extends record datasets and creates record groups on demand
    // (collective: every rank makes the same put() calls); reading a record
    // that is not in the file throws.
    struct Target {
        hid_t dset;
        hid_t mem_type;
        std::vector<hsize_t> dims;
        std::int64_t record;
    };
    Target target(int var, std::int64_t record, bool writing);

    // The HDF5 transfers that move an array-of-structs user buffer without a
    // packed copy: one per dataset touched.  A compound dataset whose members
    // are exactly the buffer's fields takes one transfer with a memory compound
    // type of the struct's size; a field of another compound dataset takes a
    // one-member compound at its offset; a field stored as its own dataset
    // takes a strided memory dataspace over the struct array (the field's size
    // must divide the stride and its offset).  Empty when the layout cannot be
    // described (blocks out of file order, odd offsets): the caller packs.
    struct StructTransfer {
        int var;  // first field moved (for messages)
        hid_t dset;
        hid_t mem_type;  // owned by type_owner, or a native type
        std::shared_ptr<Handle> type_owner;
        std::shared_ptr<Handle> mem_space;
        std::shared_ptr<Handle> file_space;
        void* buf;
        std::uint64_t bytes;
    };
    std::vector<StructTransfer> struct_transfers(const StructBuffer& b, const Selection& sel, std::int64_t record,
                                                 bool writing);
    std::string var_what(int var) const;  // "variable 'T' in file 'x.h5'"
    Handle make_fapl(MPI_Comm comm) const;

    // File::sole_accessor: the rank that alone moves `var`'s data, or -1.
    void sole_accessor(int var, int rank) override;
    int sole_of(int var) const {
        return static_cast<std::size_t>(var) < sole_.size() ? sole_[static_cast<std::size_t>(var)] : -1;
    }
    // The transfer list for var: independent for a sole accessor when the
    // file's transfers are collective (the others make no call), else dxpl_.
    hid_t xfer_for(int var);

    BackendConfig cfg_;
    // The hdf5.* options, read once (their defaults: describe_common()).
    bool collective_metadata_;  // hdf5.collective_metadata
    bool subfiling_;            // hdf5.subfiling
    bool async_;                // hdf5.async
    bool libver_latest_;        // hdf5.libver=latest
    FileSpec spec_;
    std::string path_;
    Handle file_;
    Handle dxpl_;
    Handle dxpl_independent_;  // made on first use
    int rank_ = 0;             // in the file's communicator
    std::vector<int> sole_;
    TransferCache transfers_;

private:
    // A variable stored in a group per record (FileSpec::record_group).
    bool grouped(int var) const;
    // Creates (define) or opens (open) the dataset of `var` under `loc`;
    // variables of one compound share a dataset.  Returns its index in objects_.
    int create_object(hid_t loc, int var, bool record_axis, const std::string& where);
    int open_object(hid_t loc, int var, const std::string& where);
    // Throws unless `var` (a compound member) is a member of dataset `ds`'s type.
    void require_member(hid_t ds, int var, const std::string& where) const;
    void create_record_group(std::int64_t record);
    void build_member_types();
    void ensure_record(int object, std::int64_t record, int var);

    std::vector<Handle> objects_;                    // datasets (a compound one once)
    std::vector<std::vector<hsize_t>> object_dims_;  // their current extents
    std::vector<Handle> groups_;                     // record groups, by record
    std::vector<int> place_;                         // per variable: object, or -1 when grouped
    std::vector<std::vector<int>> group_objects_;    // [record][var]: object in that record's group
    std::vector<Handle> member_types_;               // per variable: one-member compound, or none
    std::vector<bool> stored_as_member_;             // per variable: found as a one-member compound on open
    bool update_ = false;                            // opened with Access::Update (H5F_ACC_RDWR)
    // Moved as a compound member: declared so (VarSpec::compound) or found so.
    bool member(int var) const;
};

}  // namespace iok::h5
