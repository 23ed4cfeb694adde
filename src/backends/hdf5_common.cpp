#include "backends/hdf5_common.hpp"

#include <algorithm>
#include <cstring>

#include "core/error.hpp"

namespace iok::h5 {

namespace {

herr_t collect_error(unsigned n, const H5E_error2_t* e, void* out) {
    auto* s = static_cast<std::string*>(out);
    if (n > 0) *s += "; ";
    *s += std::string(e->func_name ? e->func_name : "?") + "(): " + (e->desc ? e->desc : "");
    return 0;
}

std::string default_hint() {
    return "check the path is writable/readable and on a parallel file system reachable by all "
           "ranks; HDF5_DEBUG or `h5dump -H` on the file may tell more";
}

}  // namespace

std::string error_stack() {
    std::string s;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_error, &s);
    H5Eclear2(H5E_DEFAULT);
    return s.empty() ? "no HDF5 error message" : s;
}

template <class T>
T check(T status, const std::string& what, const std::string& hint) {
    if (status < 0)
        throw Error("HDF5: " + what + " failed: " + error_stack(), hint.empty() ? default_hint() : hint);
    return status;
}
template hid_t check<hid_t>(hid_t, const std::string&, const std::string&);
template herr_t check<herr_t>(herr_t, const std::string&, const std::string&);

Handle& Handle::operator=(Handle&& o) noexcept {
    if (this != &o) {
        reset();
        id_ = o.id_;
        close_ = o.close_;
        o.id_ = H5I_INVALID_HID;
    }
    return *this;
}

void Handle::reset() {
    if (id_ >= 0 && close_) close_(id_);
    id_ = H5I_INVALID_HID;
}

hid_t mem_type(DType t) {
    switch (t) {
        case DType::Char: return H5T_C_S1;  // 1-byte string, the file type of char data
        case DType::Byte: return H5T_NATIVE_SCHAR;
        case DType::Short: return H5T_NATIVE_SHORT;
        case DType::Int: return H5T_NATIVE_INT;
        case DType::Int64: return H5T_NATIVE_INT64;
        case DType::Float: return H5T_NATIVE_FLOAT;
        case DType::Double: return H5T_NATIVE_DOUBLE;
    }
    return H5T_NATIVE_DOUBLE;
}

Handle file_type(DType t) {
    // Copies so that every result can be closed the same way; char is a
    // 1-byte string like NetCDF-4's NC_CHAR, so h5dump shows text.
    hid_t base = H5T_IEEE_F64LE;
    switch (t) {
        case DType::Char: base = H5T_C_S1; break;
        case DType::Byte: base = H5T_STD_I8LE; break;
        case DType::Short: base = H5T_STD_I16LE; break;
        case DType::Int: base = H5T_STD_I32LE; break;
        case DType::Int64: base = H5T_STD_I64LE; break;
        case DType::Float: base = H5T_IEEE_F32LE; break;
        case DType::Double: base = H5T_IEEE_F64LE; break;
    }
    Handle h(check(H5Tcopy(base), "H5Tcopy"), H5Tclose);
    if (t == DType::Char) {
        check(H5Tset_size(h, 1), "H5Tset_size");
        check(H5Tset_strpad(h, H5T_STR_NULLTERM), "H5Tset_strpad");
    }
    return h;
}

namespace {

// Union of blocks [first, last) of `sel` as a selection on `space`.
// HDF5 1.14's span-tree OR is linear in the existing selection, so adding
// 10^5 blocks one by one is quadratic (6.4 s for 190k blocks here); OR-ing
// groups of 64 and merging the groups pairwise (H5Scombine_select, a linear
// merge) is O(n log n): 0.3 s.
Handle union_of_blocks(hid_t extent, const Selection& sel, std::size_t first, std::size_t last,
                       std::int64_t record, const std::string& what) {
    constexpr std::size_t kGroup = 64;
    const int nd = sel.ndims(), off = record >= 0 ? 1 : 0;
    if (last - first > kGroup) {
        std::vector<Handle> parts;
        for (std::size_t g = first; g < last; g += kGroup)
            parts.push_back(union_of_blocks(extent, sel, g, std::min(last, g + kGroup), record, what));
        while (parts.size() > 1) {
            std::vector<Handle> next;
            for (std::size_t i = 0; i + 1 < parts.size(); i += 2)
                next.emplace_back(check(H5Scombine_select(parts[i], H5S_SELECT_OR, parts[i + 1]),
                                        "H5Scombine_select " + what),
                                  H5Sclose);
            if (parts.size() % 2) next.push_back(std::move(parts.back()));
            parts.swap(next);
        }
        return std::move(parts.front());
    }
    Handle space(check(H5Scopy(extent), "H5Scopy " + what), H5Sclose);
    check(H5Sselect_none(space), "H5Sselect_none " + what);
    std::vector<hsize_t> start(nd + off), count(nd + off);
    if (off) {
        start[0] = static_cast<hsize_t>(record);
        count[0] = 1;
    }
    bool any = false;
    for (std::size_t b = first; b < last; ++b) {
        if (sel.block_elements(b) == 0) continue;
        for (int d = 0; d < nd; ++d) {
            start[d + off] = static_cast<hsize_t>(sel.start(b)[d]);
            count[d + off] = static_cast<hsize_t>(sel.count(b)[d]);
        }
        check(H5Sselect_hyperslab(space, any ? H5S_SELECT_OR : H5S_SELECT_SET, start.data(), nullptr,
                                  count.data(), nullptr),
              "H5Sselect_hyperslab " + what);
        any = true;
    }
    return space;
}

std::shared_ptr<Handle> shared(Handle h) { return std::make_shared<Handle>(std::move(h)); }

// Buffer order vs file order.  The runs of one block come in C order, so only
// the sequence of runs across the buffer needs checking.
std::shared_ptr<const std::vector<Transfer::Piece>> file_order(const Selection& sel, const std::string& what) {
    struct Run3 {
        std::int64_t file, buf, len;
    };
    std::vector<Run3> runs;
    runs.reserve(sel.nblocks());
    std::int64_t pos = 0;
    bool sorted = true;
    sel.for_each_run([&](std::int64_t o, std::int64_t len) {
        if (!runs.empty() && o < runs.back().file + runs.back().len) sorted = false;
        runs.push_back({o, pos, len});
        pos += len;
    });
    auto order = std::make_shared<std::vector<Transfer::Piece>>();
    if (sorted) return order;
    std::sort(runs.begin(), runs.end(), [](const Run3& a, const Run3& b) { return a.file < b.file; });
    order->reserve(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (i > 0 && runs[i].file < runs[i - 1].file + runs[i - 1].len)
            throw Error("HDF5: the selection of " + what + " has overlapping blocks (element " +
                            std::to_string(runs[i].file) + " twice)",
                        "each element may be selected once per rank; fix the decomposition");
        // Neighbouring runs that stay neighbours in the buffer need one copy.
        if (!order->empty() && i > 0 && runs[i].file == runs[i - 1].file + runs[i - 1].len &&
            runs[i].buf == order->back().buf_offset + order->back().length)
            order->back().length += runs[i].len;
        else
            order->push_back({runs[i].buf, runs[i].len});
    }
    return order;
}

std::uint64_t fingerprint(const Selection& sel) {
    std::uint64_t h = sel.nblocks() * 1000003u + sel.elements();
    if (sel.nblocks() == 0) return h;
    for (std::size_t b : {std::size_t{0}, sel.nblocks() / 2, sel.nblocks() - 1})
        for (int d = 0; d < sel.ndims(); ++d)
            h = h * 31 + static_cast<std::uint64_t>(sel.start(b)[d]) * 7 + static_cast<std::uint64_t>(sel.count(b)[d]);
    return h;
}

Handle simple_space(const std::vector<hsize_t>& dims, const std::string& what) {
    if (dims.empty()) return Handle(check(H5Screate(H5S_SCALAR), "H5Screate " + what), H5Sclose);
    return Handle(check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                        "H5Screate_simple " + what),
                  H5Sclose);
}

Handle memory_space(std::uint64_t elements, const std::string& what) {
    hsize_t n = std::max<hsize_t>(elements, 1);
    Handle m(check(H5Screate_simple(1, &n, nullptr), "H5Screate_simple " + what), H5Sclose);
    if (elements == 0) check(H5Sselect_none(m), "H5Sselect_none " + what);
    return m;
}

}  // namespace

Transfer make_transfer(const std::vector<hsize_t>& dims, const Selection& sel, std::int64_t record,
                       const std::string& what) {
    Transfer t;
    const int nd = sel.ndims();
    const int off = record >= 0 ? 1 : 0;
    if (static_cast<int>(dims.size()) != nd + off)
        throw Error("HDF5: selection rank " + std::to_string(nd) + " does not match " + what,
                    "the plan's selection must cover the variable's fixed dimensions");
    t.elements = sel.elements();
    Handle extent = simple_space(dims, what);
    if (dims.empty()) {
        // Scalar dataset: the whole of it or nothing.
        if (t.elements == 0) check(H5Sselect_none(extent), "H5Sselect_none " + what);
        t.file_space = shared(std::move(extent));
    } else if (t.elements == 0) {
        check(H5Sselect_none(extent), "H5Sselect_none " + what);
        t.file_space = shared(std::move(extent));
    } else {
        t.file_space = shared(union_of_blocks(extent, sel, 0, sel.nblocks(), record, what));
    }
    t.mem_space = shared(memory_space(t.elements, what));
    t.order = file_order(sel, what);
    return t;
}

Transfer TransferCache::get(const std::vector<hsize_t>& dims, const Selection& sel, std::int64_t record,
                            const std::string& what) {
    const std::uint64_t fp = fingerprint(sel);
    std::vector<hsize_t> fixed(dims.begin() + (record >= 0 ? 1 : 0), dims.end());
    Entry* same_sel = nullptr;
    for (auto& e : entries_) {
        if (e.sel != &sel || e.fingerprint != fp || e.dims != fixed || (e.record >= 0) != (record >= 0)) continue;
        if (e.record == record && e.full_dims == dims) return e.t;
        same_sel = &e;
    }
    Transfer t;
    if (same_sel && record >= 0 && sel.elements() > 0) {
        // Same blocks, another record or extent: copy the selection into a
        // space of the current extent and shift it along the record axis.
        t = same_sel->t;
        Handle space = simple_space(dims, what);
        check(H5Sselect_copy(space, *same_sel->t.file_space), "H5Sselect_copy " + what);
        std::vector<hssize_t> shift(dims.size(), 0);
        shift[0] = static_cast<hssize_t>(same_sel->record) - record;
        check(H5Sselect_adjust(space, shift.data()), "H5Sselect_adjust " + what);
        t.file_space = shared(std::move(space));
    } else {
        t = make_transfer(dims, sel, record, what);
    }
    constexpr std::size_t kKeep = 16;
    if (entries_.size() >= kKeep) entries_.erase(entries_.begin());
    entries_.push_back({&sel, fp, fixed, record, dims, t});
    return t;
}

void gather(const Transfer& t, std::size_t elem, const void* user, void* staged) {
    auto* out = static_cast<char*>(staged);
    const auto* in = static_cast<const char*>(user);
    for (const auto& p : *t.order) {
        std::memcpy(out, in + p.buf_offset * elem, p.length * elem);
        out += p.length * elem;
    }
}

void scatter(const Transfer& t, std::size_t elem, const void* staged, void* user) {
    const auto* in = static_cast<const char*>(staged);
    auto* out = static_cast<char*>(user);
    for (const auto& p : *t.order) {
        std::memcpy(out + p.buf_offset * elem, in, p.length * elem);
        in += p.length * elem;
    }
}

std::string library_version() {
    unsigned maj = 0, min = 0, rel = 0;
    H5get_libversion(&maj, &min, &rel);
    return "HDF5 " + std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel);
}

// ---------------------------------------------------------------------------

Hdf5Base::Hdf5Base(const BackendConfig& cfg) : cfg_(cfg) {
    // Errors are turned into iok::Error with the stack text; HDF5's own
    // printing would only duplicate them on every rank.
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

Hdf5Base::~Hdf5Base() {
    try {
        if (file_.get() >= 0) close();
    } catch (...) {
    }
}

Handle Hdf5Base::make_fapl(MPI_Comm comm) const {
    Handle fapl(check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate(fapl)"), H5Pclose);
    check(H5Pset_fapl_mpio(fapl, comm, cfg_.hints), "H5Pset_fapl_mpio");
    // Metadata reads by one rank and broadcast; metadata writes collective.
    check(H5Pset_all_coll_metadata_ops(fapl, true), "H5Pset_all_coll_metadata_ops");
    check(H5Pset_coll_metadata_write(fapl, true), "H5Pset_coll_metadata_write");
    const std::string libver = cfg_.param("hdf5.libver", "");
    if (libver == "latest")
        check(H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST), "H5Pset_libver_bounds");
    else if (!libver.empty() && libver != "earliest")
        throw Error("hdf5.libver must be 'earliest' or 'latest', not '" + libver + "'",
                    "'latest' uses the newest file format (faster metadata, needs a recent reader)");
    return fapl;
}

void Hdf5Base::create(const std::string& path, const FileSpec& spec, MPI_Comm comm) {
    path_ = path;
    spec_ = spec;
    Handle fapl = make_fapl(comm);
    file_ = Handle(check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl),
                         "creating file '" + path + "'",
                         "check that the directory exists and is writable by every rank"),
                   H5Fclose);
    dxpl_ = Handle(check(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate(dxpl)"), H5Pclose);
    check(H5Pset_dxpl_mpio(dxpl_, cfg_.collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT),
          "H5Pset_dxpl_mpio");
}

namespace {

void write_attr(hid_t obj, const Attr& a, const std::string& what) {
    const std::string w = "attribute '" + a.name + "' of " + what;
    if (a.type == DType::Char) {
        Handle type(check(H5Tcopy(H5T_C_S1), "H5Tcopy " + w), H5Tclose);
        check(H5Tset_size(type, std::max<std::size_t>(a.text.size(), 1)), "H5Tset_size " + w);
        check(H5Tset_strpad(type, H5T_STR_NULLTERM), "H5Tset_strpad " + w);
        Handle space(check(H5Screate(H5S_SCALAR), "H5Screate " + w), H5Sclose);
        Handle attr(check(H5Acreate2(obj, a.name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT),
                          "creating " + w),
                    H5Aclose);
        std::string text = a.text;
        text.resize(std::max<std::size_t>(a.text.size(), 1), '\0');
        check(H5Awrite(attr, type, text.data()), "writing " + w);
        return;
    }
    hsize_t n = a.values.size();
    Handle space(check(H5Screate_simple(1, &n, nullptr), "H5Screate " + w), H5Sclose);
    Handle type = file_type(a.type);
    Handle attr(check(H5Acreate2(obj, a.name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT),
                      "creating " + w),
                H5Aclose);
    // HDF5 converts the doubles to the attribute's stored type.
    check(H5Awrite(attr, H5T_NATIVE_DOUBLE, a.values.data()), "writing " + w);
}

}  // namespace

void Hdf5Base::define(const FileSpec& spec) {
    spec_ = spec;
    const std::string fw = "file '" + path_ + "'";
    for (const auto& a : spec.global_attrs) write_attr(file_, a, fw);
    dsets_.clear();
    extent_.clear();
    for (std::size_t v = 0; v < spec.vars.size(); ++v) {
        const VarSpec& var = spec.vars[v];
        const bool rec = var.is_record(spec);
        const std::string what = var_what(static_cast<int>(v));
        std::vector<hsize_t> dims, maxdims;
        if (rec) {
            dims.push_back(0);
            maxdims.push_back(H5S_UNLIMITED);
        }
        for (auto d : spec.fixed_shape(var)) {
            dims.push_back(d);
            maxdims.push_back(d);
        }
        Handle space(dims.empty() ? check(H5Screate(H5S_SCALAR), "H5Screate " + what)
                                  : check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(),
                                                           maxdims.data()),
                                          "H5Screate_simple " + what),
                     H5Sclose);
        Handle dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate(dcpl)"), H5Pclose);
        if (rec) {
            // One record per chunk, kept under HDF5's 4 GiB chunk limit by
            // halving the slowest fixed dimensions when a record is huge.
            std::vector<hsize_t> chunk(dims.size());
            chunk[0] = 1;
            for (std::size_t d = 1; d < dims.size(); ++d) chunk[d] = std::max<hsize_t>(dims[d], 1);
            auto bytes = [&] {
                hsize_t n = dtype_size(var.type);
                for (auto c : chunk) n *= c;
                return n;
            };
            for (std::size_t d = 1; d < chunk.size() && bytes() >= (hsize_t{1} << 32);) {
                if (chunk[d] > 1) chunk[d] = (chunk[d] + 1) / 2; else ++d;
            }
            check(H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data()), "H5Pset_chunk " + what);
        } else {
            check(H5Pset_layout(dcpl, H5D_CONTIGUOUS), "H5Pset_layout " + what);
        }
        Handle ftype = file_type(var.type);
        if (cfg_.fill) {
            if (var.fill_value) {
                double fv = *var.fill_value;
                // Convert the fill value to the stored type through a memory copy.
                std::vector<char> buf(std::max<std::size_t>(dtype_size(var.type), 8));
                std::memcpy(buf.data(), &fv, sizeof fv);
                check(H5Tconvert(H5T_NATIVE_DOUBLE, mem_type(var.type), 1, buf.data(), nullptr, H5P_DEFAULT),
                      "converting the fill value of " + what);
                check(H5Pset_fill_value(dcpl, mem_type(var.type), buf.data()), "H5Pset_fill_value " + what);
            }
            check(H5Pset_fill_time(dcpl, H5D_FILL_TIME_IFSET), "H5Pset_fill_time " + what);
        } else {
            check(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "H5Pset_fill_time " + what);
        }
        Handle ds(check(H5Dcreate2(file_, var.name.c_str(), ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
                        "creating " + what),
                  H5Dclose);
        for (const auto& a : var.attrs) write_attr(ds, a, what);
        dsets_.push_back(std::move(ds));
        extent_.push_back(dims);
    }
}

void Hdf5Base::open(const std::string& path, const FileSpec& spec, MPI_Comm comm) {
    path_ = path;
    spec_ = spec;
    Handle fapl = make_fapl(comm);
    file_ = Handle(check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl), "opening file '" + path + "'",
                         "check the file exists, is an HDF5 file, and was written by this kernel"),
                   H5Fclose);
    dxpl_ = Handle(check(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate(dxpl)"), H5Pclose);
    check(H5Pset_dxpl_mpio(dxpl_, cfg_.collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT),
          "H5Pset_dxpl_mpio");
    dsets_.clear();
    extent_.clear();
    for (std::size_t v = 0; v < spec.vars.size(); ++v) {
        const std::string what = var_what(static_cast<int>(v));
        Handle ds(check(H5Dopen2(file_, spec.vars[v].name.c_str(), H5P_DEFAULT), "opening " + what,
                        "the file lacks this variable; was it written by the same kernel and case?"),
                  H5Dclose);
        Handle space(check(H5Dget_space(ds), "H5Dget_space " + what), H5Sclose);
        int nd = check(H5Sget_simple_extent_ndims(space), "H5Sget_simple_extent_ndims " + what);
        std::vector<hsize_t> dims(nd);
        if (nd > 0) check(H5Sget_simple_extent_dims(space, dims.data(), nullptr), "extent of " + what);
        dsets_.push_back(std::move(ds));
        extent_.push_back(dims);
    }
}

void Hdf5Base::ensure_record(int var, std::int64_t record) {
    auto& dims = extent_[var];
    if (dims[0] > static_cast<hsize_t>(record)) return;
    dims[0] = static_cast<hsize_t>(record) + 1;
    check(H5Dset_extent(dsets_[var], dims.data()), "extending " + var_what(var) + " to record " +
                                                      std::to_string(record),
          "all ranks must write the same records of a record variable in the same order");
}

std::vector<hsize_t> Hdf5Base::extent_for(int var, std::int64_t record, bool writing) {
    if (var < 0 || var >= static_cast<int>(dsets_.size()))
        throw Error("HDF5: variable index " + std::to_string(var) + " out of range in '" + path_ + "'",
                    "define() or open() the file with the spec the plan uses");
    const bool rec = spec_.vars[var].is_record(spec_);
    if (rec) {
        if (record < 0) throw Error("HDF5: " + var_what(var) + " is a record variable but no record was given");
        if (writing)
            ensure_record(var, record);
        else if (static_cast<hsize_t>(record) >= extent_[var][0])
            throw Error("HDF5: record " + std::to_string(record) + " of " + var_what(var) +
                            " is not in the file (it has " + std::to_string(extent_[var][0]) + ")",
                        "read only records the file was written with");
    }
    return extent_[var];
}

std::string Hdf5Base::var_what(int var) const {
    return "variable '" + spec_.vars[var].name + "' in file '" + path_ + "'";
}

void Hdf5Base::close() {
    if (file_.get() < 0) return;
    transfers_.clear();
    dsets_.clear();
    dxpl_.reset();
    // Release the handle first so a failing close is not retried by the destructor.
    herr_t rc = H5Fclose(file_.release());
    check(rc, "closing file '" + path_ + "'", "the file system may be full or unreachable");
}

MPI_Info Hdf5Base::info_in_effect() {
    if (file_.get() < 0) return MPI_INFO_NULL;
    void* handle = nullptr;
    Handle fapl(check(H5Fget_access_plist(file_), "H5Fget_access_plist"), H5Pclose);
    if (H5Fget_vfd_handle(file_, fapl, &handle) < 0 || !handle) {
        error_stack();
        return MPI_INFO_NULL;
    }
    MPI_Info info = MPI_INFO_NULL;
    if (MPI_File_get_info(*static_cast<MPI_File*>(handle), &info) != MPI_SUCCESS) return MPI_INFO_NULL;
    return info;
}

}  // namespace iok::h5
