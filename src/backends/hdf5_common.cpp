#include "backends/hdf5_common.hpp"

#include <algorithm>
#include <cstring>
#include <map>

#include "core/error.hpp"
#include "core/library_modules.hpp"

namespace iok::h5 {

hid_t mem_type(DType t) {
    switch (t) {
        case DType::Char: return H5T_NATIVE_CHAR;
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
    // Copies so that every result can be closed the same way.  char is an
    // 8-bit integer, as E3SM-IO's HDF5 driver stores NC_CHAR (H5T_NATIVE_CHAR).
    hid_t base = H5T_IEEE_F64LE;
    switch (t) {
        case DType::Char: base = H5T_STD_I8LE; break;
        case DType::Byte: base = H5T_STD_I8LE; break;
        case DType::Short: base = H5T_STD_I16LE; break;
        case DType::Int: base = H5T_STD_I32LE; break;
        case DType::Int64: base = H5T_STD_I64LE; break;
        case DType::Float: base = H5T_IEEE_F32LE; break;
        case DType::Double: base = H5T_IEEE_F64LE; break;
    }
    return Handle(check(H5Tcopy(base), "H5Tcopy"), H5Tclose);
}

namespace {

// Union of blocks [first, last) of `sel` as a selection on `space`.
// HDF5 1.14's span-tree OR is linear in the existing selection, so adding
// 10^5 blocks one by one is quadratic (6.4 s for 190k blocks here); OR-ing
// groups of 64 and merging the groups pairwise (H5Scombine_select, a linear
// merge) is O(n log n): 0.3 s.
Handle union_of_blocks(hid_t extent, const Selection& sel, std::size_t first, std::size_t last, std::int64_t record,
                       const std::string& what) {
    constexpr std::size_t kGroup = 64;
    const int nd = sel.ndims(), off = record >= 0 ? 1 : 0;
    if (last - first > kGroup) {
        std::vector<Handle> parts;
        for (std::size_t g = first; g < last; g += kGroup)
            parts.push_back(union_of_blocks(extent, sel, g, std::min(last, g + kGroup), record, what));
        while (parts.size() > 1) {
            std::vector<Handle> next;
            for (std::size_t i = 0; i + 1 < parts.size(); i += 2)
                next.emplace_back(
                    check(H5Scombine_select(parts[i], H5S_SELECT_OR, parts[i + 1]), "H5Scombine_select " + what),
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
        check(H5Sselect_hyperslab(space, any ? H5S_SELECT_OR : H5S_SELECT_SET, start.data(), nullptr, count.data(),
                                  nullptr),
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
    return Handle(
        check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), "H5Screate_simple " + what),
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

Hdf5Base::Hdf5Base(const BackendConfig& cfg)
    : cfg_(cfg),
      collective_metadata_(cfg.flag("hdf5.collective_metadata")),
      subfiling_(cfg.flag("hdf5.subfiling")),
      async_(cfg.flag("hdf5.async")),
      libver_latest_(cfg.param("hdf5.libver") == "latest") {
    // Errors are turned into iok::Error with the stack text; HDF5's own
    // printing would only duplicate them on every rank.
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

Hdf5Base::~Hdf5Base() {
    try {
        if (file_.get() >= 0) close();
    } catch (...) {}
}

BackendInfo describe_common() {
    BackendInfo b;
    b.library_version = library_version;
    b.extension = ".h5";
    b.caps.self_describing = true;
    b.caps.struct_memory = true;   // compound memory types (put_struct/get_struct)
    b.caps.compound_files = true;  // compound datasets
    b.caps.chunking = true;
    b.caps.alignment = true;       // H5Pset_alignment
    b.caps.aligns_objects = true;  // FileSpec::align_bytes -> H5Pset_alignment
    b.caps.groups = true;          // FileSpec::groups, '/' in names
    b.caps.slash_names = true;     // step=0/array=1: the groups are created on the way
    b.caps.group_attrs = true;
    b.options = {{"hdf5.collective_metadata", "1", "collective metadata reads and writes", {"0", "1"}},
                 {"hdf5.subfiling", "0", "HDF5 subfiling VFD (needs an HDF5 built with it)", {"0", "1"}},
                 {"hdf5.async", "0", "asynchronous VOL connector (hdf5-vol-async on HDF5_PLUGIN_PATH)", {"0", "1"}},
                 {"hdf5.libver", "earliest", "file format bounds", {"earliest", "latest"}}};
    return b;
}

Handle Hdf5Base::make_fapl(MPI_Comm comm) const {
    Handle fapl(check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate(fapl)"), H5Pclose);
    check(H5Pset_fapl_mpio(fapl, comm, cfg_.hints), "H5Pset_fapl_mpio");
    // Metadata reads by one rank and broadcast; metadata writes collective.
    // hdf5.collective_metadata=0 turns this off (h5bench's COLLECTIVE_METADATA=NO).
    const bool coll_md = collective_metadata_;
    check(H5Pset_all_coll_metadata_ops(fapl, coll_md), "H5Pset_all_coll_metadata_ops");
    check(H5Pset_coll_metadata_write(fapl, coll_md), "H5Pset_coll_metadata_write");
    if (spec_.align_bytes > 0)
        check(H5Pset_alignment(fapl, spec_.align_threshold, spec_.align_bytes), "H5Pset_alignment");
    if (spec_.meta_block_bytes > 0)
        check(H5Pset_meta_block_size(fapl, spec_.meta_block_bytes), "H5Pset_meta_block_size");
    if (subfiling_) {
#ifdef H5_HAVE_SUBFILING_VFD
        check(H5Pset_fapl_subfiling(fapl, nullptr), "H5Pset_fapl_subfiling");
#else
        throw Error("HDF5 subfiling requested, but this HDF5 (" + library_version() +
                        ") was built without the subfiling VFD (H5_HAVE_SUBFILING_VFD is not defined)",
                    "use an HDF5 >= 1.14 configured with -DHDF5_ENABLE_SUBFILING_VFD=ON, or run without subfiling");
#endif
    }
    if (async_) {
        // The asynchronous VOL connector is a plugin (hdf5-vol-async); HDF5
        // loads it by name from HDF5_PLUGIN_PATH.
        hid_t vol = H5VLregister_connector_by_name("async", H5P_DEFAULT);
        if (vol < 0) {
            const std::string why = error_stack();
            throw Error(
                "HDF5 asynchronous I/O requested, but the async VOL connector could not be loaded (" + why + ")",
                "install hdf5-vol-async, set HDF5_PLUGIN_PATH to the directory of libh5async.so "
                "(it needs MPI_THREAD_MULTIPLE), or run synchronously");
        }
        const herr_t rc = H5Pset_vol(fapl, vol, nullptr);
        H5VLclose(vol);
        check(rc, "H5Pset_vol(async)");
    }
    if (libver_latest_) check(H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST), "H5Pset_libver_bounds");
    return fapl;
}

void Hdf5Base::sole_accessor(int var, int rank) {
    if (var < 0) return;
    if (sole_.size() <= static_cast<std::size_t>(var)) sole_.resize(static_cast<std::size_t>(var) + 1, -1);
    sole_[static_cast<std::size_t>(var)] = rank;
}

hid_t Hdf5Base::xfer_for(int var) {
    if (!cfg_.collective || sole_of(var) < 0) return dxpl_;
    // Parallel HDF5 writes filtered (deflated) chunks collectively only.
    if (spec_.vars[static_cast<std::size_t>(var)].storage.deflate != 0) return dxpl_;
    if (dxpl_independent_.get() < 0) {
        dxpl_independent_ = Handle(check(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate(dxpl)"), H5Pclose);
        check(H5Pset_dxpl_mpio(dxpl_independent_, H5FD_MPIO_INDEPENDENT), "H5Pset_dxpl_mpio");
    }
    return dxpl_independent_;
}

void Hdf5Base::create(const std::string& path, const FileSpec& spec, MPI_Comm comm) {
    path_ = path;
    spec_ = spec;
    MPI_Comm_rank(comm, &rank_);
    sole_.clear();
    Handle fapl = make_fapl(comm);
    file_ = Handle(check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl), "creating file '" + path + "'",
                         "check that the directory exists and is writable by every rank"),
                   H5Fclose);
    dxpl_ = Handle(check(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate(dxpl)"), H5Pclose);
    check(H5Pset_dxpl_mpio(dxpl_, cfg_.collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT), "H5Pset_dxpl_mpio");
}

namespace {

void write_attr(hid_t obj, const Attr& a, const std::string& what) {
    const std::string w = "attribute '" + a.name + "' of " + what;
    if (a.type == DType::Char && a.texts.empty()) return write_text_attr(obj, a.name, a.text, what);
    if (a.type == DType::Char) {
        // An array of fixed-length strings, each padded to the longest (as
        // openPMD-api stores axisLabels).
        std::size_t len = 1;
        for (const auto& t : a.texts) len = std::max(len, t.size() + 1);
        std::vector<char> buf(len * a.texts.size(), '\0');
        for (std::size_t i = 0; i < a.texts.size(); ++i)
            std::memcpy(&buf[i * len], a.texts[i].data(), a.texts[i].size());
        Handle type(check(H5Tcopy(H5T_C_S1), "H5Tcopy " + w), H5Tclose);
        check(H5Tset_size(type, len), "H5Tset_size " + w);
        check(H5Tset_strpad(type, H5T_STR_NULLTERM), "H5Tset_strpad " + w);
        hsize_t n = a.texts.size();
        Handle space(check(H5Screate_simple(1, &n, nullptr), "H5Screate " + w), H5Sclose);
        Handle attr(check(H5Acreate2(obj, a.name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), "creating " + w),
                    H5Aclose);
        check(H5Awrite(attr, type, buf.data()), "writing " + w);
        return;
    }
    if (!a.fields.empty()) {
        // One compound value, a member of a.type per field (AMReX's prob_domain).
        if (a.fields.size() != a.values.size())
            throw Error("HDF5: " + w + " names " + std::to_string(a.fields.size()) + " fields for " +
                        std::to_string(a.values.size()) + " values");
        Handle member = file_type(a.type);
        const std::size_t size = H5Tget_size(member);
        Handle type(check(H5Tcreate(H5T_COMPOUND, size * a.fields.size()), "H5Tcreate " + w), H5Tclose);
        Handle mem(check(H5Tcreate(H5T_COMPOUND, sizeof(double) * a.fields.size()), "H5Tcreate " + w), H5Tclose);
        for (std::size_t i = 0; i < a.fields.size(); ++i) {
            check(H5Tinsert(type, a.fields[i].c_str(), i * size, member), "H5Tinsert " + w);
            check(H5Tinsert(mem, a.fields[i].c_str(), i * sizeof(double), H5T_NATIVE_DOUBLE), "H5Tinsert " + w);
        }
        Handle space(check(H5Screate(H5S_SCALAR), "H5Screate " + w), H5Sclose);
        Handle attr(check(H5Acreate2(obj, a.name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), "creating " + w),
                    H5Aclose);
        check(H5Awrite(attr, mem, a.values.data()), "writing " + w);
        return;
    }
    if (a.scalar && a.values.size() != 1)
        throw Error("HDF5: scalar " + w + " has " + std::to_string(a.values.size()) + " values",
                    "a scalar attribute holds exactly one value");
    hsize_t n = a.values.size();
    Handle space(check(a.scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), "H5Screate " + w),
                 H5Sclose);
    Handle type = file_type(a.type);
    if (a.is_unsigned && H5Tget_class(type) == H5T_INTEGER) check(H5Tset_sign(type, H5T_SGN_NONE), "H5Tset_sign " + w);
    Handle attr(check(H5Acreate2(obj, a.name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), "creating " + w),
                H5Aclose);
    // HDF5 converts the doubles to the attribute's stored type.
    check(H5Awrite(attr, H5T_NATIVE_DOUBLE, a.values.data()), "writing " + w);
}

// The group at absolute `path`, made with its missing parents ("/" is the root).
Handle make_group(hid_t file, const std::string& path, const std::string& file_what) {
    if (path.empty() || path[0] != '/')
        throw Error("HDF5: group path '" + path + "' of " + file_what + " is not absolute",
                    "name groups from the root: /data/1");
    std::string at;
    Handle g(check(H5Gopen2(file, "/", H5P_DEFAULT), "opening the root group of " + file_what), H5Gclose);
    for (std::size_t pos = 1; pos < path.size();) {
        std::size_t end = path.find('/', pos);
        if (end == std::string::npos) end = path.size();
        at += "/" + path.substr(pos, end - pos);
        pos = end + 1;
        const htri_t exists = H5Lexists(file, at.c_str(), H5P_DEFAULT);
        g = Handle(exists > 0 ? check(H5Gopen2(file, at.c_str(), H5P_DEFAULT), "opening group '" + at + "'")
                              : check(H5Gcreate2(file, at.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                                      "creating group '" + at + "' in " + file_what),
                   H5Gclose);
    }
    return g;
}

}  // namespace

namespace {

// Dataset creation properties: layout (contiguous, one record per chunk, or
// the variable's chunk hint), deflate, fill.
Handle make_dcpl(const VarSpec& var, const std::vector<hsize_t>& dims, bool record_axis, bool fill,
                 const std::string& what) {
    Handle dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate(dcpl)"), H5Pclose);
    const auto& hint = var.storage;
    const std::size_t off = record_axis ? 1 : 0;
    if (!hint.chunk.empty()) {
        if (hint.chunk.size() + off != dims.size())
            throw Error("HDF5: chunk shape of " + what + " has " + std::to_string(hint.chunk.size()) +
                            " dimension(s), the variable " + std::to_string(dims.size() - off),
                        "give one chunk length per dimension of the variable");
        std::vector<hsize_t> chunk(dims.size(), 1);
        for (std::size_t d = 0; d < hint.chunk.size(); ++d) {
            if (hint.chunk[d] == 0 || hint.chunk[d] > dims[d + off])
                throw Error("HDF5: chunk length " + std::to_string(hint.chunk[d]) + " along dimension " +
                                std::to_string(d + 1) + " of " + what + " is not in 1.." +
                                std::to_string(dims[d + off]),
                            "a chunk may not be empty or larger than the dataset");
            chunk[d + off] = hint.chunk[d];
        }
        check(H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data()), "H5Pset_chunk " + what);
    } else if (record_axis) {
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
            if (chunk[d] > 1)
                chunk[d] = (chunk[d] + 1) / 2;
            else
                ++d;
        }
        check(H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data()), "H5Pset_chunk " + what);
    } else if (hint.deflate == 0) {
        check(H5Pset_layout(dcpl, H5D_CONTIGUOUS), "H5Pset_layout " + what);
    }
    if (hint.deflate != 0) {
        if (hint.deflate < 1 || hint.deflate > 9)
            throw Error("HDF5: deflate level " + std::to_string(hint.deflate) + " of " + what + " is not in 1..9");
        if (hint.chunk.empty() && !record_axis)
            throw Error("HDF5: deflate on " + what + " needs a chunk shape", "give the variable a chunk hint");
        check(H5Pset_deflate(dcpl, static_cast<unsigned>(hint.deflate)), "H5Pset_deflate " + what);
    }
    if (fill) {
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
        // no fill value defined at all, as E3SM-IO's HDF5 driver (h5dump -p: H5D_FILL_VALUE_UNDEFINED)
        check(H5Pset_fill_value(dcpl, mem_type(var.type), nullptr), "H5Pset_fill_value " + what);
        check(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "H5Pset_fill_time " + what);
    }
    return dcpl;
}

// Variables that are members of compound `name`, in declaration order.
std::vector<int> compound_members(const FileSpec& spec, const std::string& name) {
    std::vector<int> m;
    for (std::size_t v = 0; v < spec.vars.size(); ++v)
        if (spec.vars[v].compound == name) m.push_back(static_cast<int>(v));
    return m;
}

std::string group_name(const FileSpec& spec, std::int64_t record) { return spec.record_group + std::to_string(record); }

// For each variable `wanted(v)` selects: the object `make(v)` creates or
// opens, made once per compound; later members reuse it (`reuse(object, v)`
// may check them), so every field of a compound maps to one dataset handle
// (hdf5_md must not pass HDF5 two handles to one dataset).  -1 elsewhere.
template <class Wanted, class Make, class Reuse>
std::vector<int> one_object_per_compound(const FileSpec& spec, Wanted wanted, Make make, Reuse reuse) {
    std::vector<int> place(spec.vars.size(), -1);
    std::map<std::string, int> compounds;
    for (std::size_t v = 0; v < spec.vars.size(); ++v) {
        if (!wanted(static_cast<int>(v))) continue;
        const std::string& c = spec.vars[v].compound;
        auto it = c.empty() ? compounds.end() : compounds.find(c);
        if (it != compounds.end()) {
            place[v] = it->second;
            reuse(it->second, static_cast<int>(v));
            continue;
        }
        place[v] = make(static_cast<int>(v));
        if (!c.empty()) compounds[c] = place[v];
    }
    return place;
}

}  // namespace

bool Hdf5Base::grouped(int var) const {
    return !spec_.record_group.empty() && spec_.vars[static_cast<std::size_t>(var)].is_record(spec_);
}

bool Hdf5Base::member(int var) const {
    const auto v = static_cast<std::size_t>(var);
    return !spec_.vars[v].compound.empty() || (v < stored_as_member_.size() && stored_as_member_[v]);
}

void Hdf5Base::build_member_types() {
    member_types_.clear();
    for (std::size_t i = 0; i < spec_.vars.size(); ++i) {
        const VarSpec& var = spec_.vars[i];
        if (!member(static_cast<int>(i))) {
            member_types_.emplace_back();
            continue;
        }
        // The user buffer holds this field only: a compound of one member,
        // which HDF5 matches by name against the file's compound type.
        const std::size_t size = dtype_size(var.type);
        Handle t(check(H5Tcreate(H5T_COMPOUND, size), "H5Tcreate compound member " + var.name), H5Tclose);
        check(H5Tinsert(t, var.name.c_str(), 0, mem_type(var.type)), "H5Tinsert " + var.name);
        member_types_.push_back(std::move(t));
    }
}

int Hdf5Base::create_object(hid_t loc, int var, bool record_axis, const std::string& where) {
    const VarSpec& v = spec_.vars[static_cast<std::size_t>(var)];
    const std::string what = var_what(var);
    std::vector<hsize_t> dims, maxdims;
    if (record_axis) {
        dims.push_back(0);
        maxdims.push_back(H5S_UNLIMITED);
    }
    const auto& ext = v.storage.extendible;
    for (auto d : spec_.fixed_shape(v)) {
        const std::size_t i = dims.size() - (record_axis ? 1 : 0);
        dims.push_back(d);
        maxdims.push_back(i < ext.size() && ext[i] ? H5S_UNLIMITED : d);
    }
    Handle space(dims.empty() ? check(H5Screate(H5S_SCALAR), "H5Screate " + what)
                              : check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), maxdims.data()),
                                      "H5Screate_simple " + what),
                 H5Sclose);
    Handle dcpl = make_dcpl(v, dims, record_axis, cfg_.fill, what);
    Handle ftype;
    std::string name = v.name;
    if (!v.compound.empty()) {
        // Packed compound of every member, in declaration order.
        name = v.compound;
        const auto members = compound_members(spec_, v.compound);
        std::size_t size = 0;
        for (int m : members) size += dtype_size(spec_.vars[static_cast<std::size_t>(m)].type);
        ftype = Handle(check(H5Tcreate(H5T_COMPOUND, size), "H5Tcreate compound " + name), H5Tclose);
        std::size_t offset = 0;
        for (int m : members) {
            const VarSpec& mv = spec_.vars[static_cast<std::size_t>(m)];
            if (mv.dims != v.dims)
                throw Error("HDF5: compound '" + name + "' members '" + v.name + "' and '" + mv.name +
                                "' have different dimensions",
                            "all members of a compound must have the same shape");
            Handle mt = file_type(mv.type);
            check(H5Tinsert(ftype, mv.name.c_str(), offset, mt), "H5Tinsert " + mv.name);
            offset += dtype_size(mv.type);
        }
    } else {
        ftype = file_type(v.type);
    }
    // A name with '/' is a path: its groups are created on the way.
    Handle lcpl(check(H5Pcreate(H5P_LINK_CREATE), "H5Pcreate(lcpl)"), H5Pclose);
    check(H5Pset_create_intermediate_group(lcpl, 1), "H5Pset_create_intermediate_group");
    Handle ds(check(H5Dcreate2(loc, name.c_str(), ftype, space, lcpl, dcpl, H5P_DEFAULT), "creating " + what + where),
              H5Dclose);
    if (v.compound.empty()) {
        for (const auto& a : v.attrs) write_attr(ds, a, what);
    } else {
        for (int m : compound_members(spec_, v.compound))
            for (auto a : spec_.vars[static_cast<std::size_t>(m)].attrs) {
                a.name = spec_.vars[static_cast<std::size_t>(m)].name + "." + a.name;
                write_attr(ds, a, what);
            }
    }
    objects_.push_back(std::move(ds));
    object_dims_.push_back(dims);
    return static_cast<int>(objects_.size()) - 1;
}

void Hdf5Base::require_member(hid_t ds, int var, const std::string& where) const {
    const VarSpec& v = spec_.vars[static_cast<std::size_t>(var)];
    if (v.compound.empty()) return;
    Handle t(check(H5Dget_type(ds), "H5Dget_type " + var_what(var)), H5Tclose);
    if (H5Tget_class(t) != H5T_COMPOUND || H5Tget_member_index(t, v.name.c_str()) < 0) {
        error_stack();
        throw Error("HDF5: dataset '" + v.compound + where + "' has no compound member '" + v.name + "'",
                    "the file was written with another layout (a dataset per variable?)");
    }
}

int Hdf5Base::open_object(hid_t loc, int var, const std::string& where) {
    const VarSpec& v = spec_.vars[static_cast<std::size_t>(var)];
    const std::string what = var_what(var);
    const std::string name = v.compound.empty() ? v.name : v.compound;
    Handle ds(
        check(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "opening " + what + where,
              "the file lacks this " + std::string(v.compound.empty() ? "dataset" : "compound dataset '" + name + "'") +
                  "; was it written by the same kernel with the same layout?"),
        H5Dclose);
    require_member(ds, var, where);
    if (v.compound.empty()) {
        // A dataset of a one-member compound named like the variable (h5bench
        // INTERLEAVED->CONTIG files): read it as that member, whatever the
        // memory layout of the reader.
        Handle t(check(H5Dget_type(ds), "H5Dget_type " + what), H5Tclose);
        if (H5Tget_class(t) == H5T_COMPOUND && H5Tget_member_index(t, v.name.c_str()) >= 0) {
            stored_as_member_.resize(spec_.vars.size(), false);
            stored_as_member_[static_cast<std::size_t>(var)] = true;
        }
        error_stack();  // H5Tget_member_index of a missing name leaves an error behind
    }
    Handle space(check(H5Dget_space(ds), "H5Dget_space " + what), H5Sclose);
    int nd = check(H5Sget_simple_extent_ndims(space), "H5Sget_simple_extent_ndims " + what);
    std::vector<hsize_t> dims(static_cast<std::size_t>(nd));
    if (nd > 0) check(H5Sget_simple_extent_dims(space, dims.data(), nullptr), "extent of " + what);
    if (update_) {
        // Writing with other sizes would fail inside H5Dwrite with a selection
        // error, or quietly leave part of the dataset as it was: say so here.
        const std::vector<std::uint64_t> want = spec_.fixed_shape(v);
        const bool record_axis = v.is_record(spec_) && !grouped(var);
        std::vector<std::uint64_t> have(dims.begin() + (record_axis && !dims.empty() ? 1 : 0), dims.end());
        if (have != want || (record_axis && dims.empty())) {
            auto text = [](const std::vector<std::uint64_t>& d) {
                std::string t = "[";
                for (std::size_t i = 0; i < d.size(); ++i) t += (i ? " x " : "") + std::to_string(d[i]);
                return t + "]";
            };
            throw Error("HDF5: " + what + where + " has shape " + text(have) + (record_axis ? " per record" : "") +
                            " but this run writes " + text(want),
                        "update a file with the sizes and rank count it was written with (h5dump -H shows them)");
        }
    }
    objects_.push_back(std::move(ds));
    object_dims_.push_back(dims);
    return static_cast<int>(objects_.size()) - 1;
}

void Hdf5Base::create_record_group(std::int64_t record) {
    const std::string gname = group_name(spec_, record);
    Handle g(check(H5Gcreate2(file_, gname.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   "creating group '" + gname + "' in '" + path_ + "'"),
             H5Gclose);
    auto row = one_object_per_compound(
        spec_, [&](int v) { return grouped(v); },
        [&](int v) { return create_object(g, v, false, " (group " + gname + ")"); }, [](int, int) {});
    groups_.push_back(std::move(g));
    group_objects_.push_back(std::move(row));
}

void Hdf5Base::define(const FileSpec& spec) {
    spec_ = spec;
    const std::string fw = "file '" + path_ + "'";
    if (spec.named_dims)  // the record dimension's length is H5S_UNLIMITED, as E3SM-IO stores it
        for (const Dim& d : spec.dims) write_dim_attr(file_, d.name, d.unlimited ? H5S_UNLIMITED : d.length, fw);
    for (const auto& a : spec.global_attrs) write_attr(file_, a, fw);
    for (const auto& g : spec.group_attrs) {
        const std::string gw = "group '" + g.group + "' in " + fw;
        Handle lcpl(check(H5Pcreate(H5P_LINK_CREATE), "H5Pcreate(lcpl)"), H5Pclose);
        check(H5Pset_create_intermediate_group(lcpl, 1), "H5Pset_create_intermediate_group");
        Handle grp(check(H5Gcreate2(file_, g.group.c_str(), lcpl, H5P_DEFAULT, H5P_DEFAULT), "creating " + gw),
                   H5Gclose);
        for (const auto& a : g.attrs) write_attr(grp, a, gw);
    }
    for (const GroupSpec& g : spec.groups) {
        Handle h = make_group(file_, g.path, fw);
        for (const auto& a : g.attrs) write_attr(h, a, "group '" + g.path + "' of " + fw);
    }
    objects_.clear();
    object_dims_.clear();
    groups_.clear();
    group_objects_.clear();
    stored_as_member_.assign(spec.vars.size(), false);
    place_ = one_object_per_compound(
        spec, [&](int v) { return !grouped(v); },
        [&](int v) { return create_object(file_, v, spec.vars[static_cast<std::size_t>(v)].is_record(spec), ""); },
        [](int, int) {});
    for (int r = 0; r < spec.expected_records && !spec.record_group.empty(); ++r) create_record_group(r);
    build_member_types();
}

// Update (H5F_ACC_RDWR): writes go into the datasets found here, extending
// record datasets and adding record groups past the last one; the datasets'
// shapes must be the run's (checked in open_object).
void Hdf5Base::open(const std::string& path, const FileSpec& spec, MPI_Comm comm, Access access) {
    path_ = path;
    spec_ = spec;
    MPI_Comm_rank(comm, &rank_);
    sole_.clear();
    update_ = access == Access::Update;
    Handle fapl = make_fapl(comm);
    file_ = Handle(
        check(H5Fopen(path.c_str(), update_ ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl), "opening file '" + path + "'",
              "check the file exists, is an HDF5 file, and was written by this kernel"),
        H5Fclose);
    dxpl_ = Handle(check(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate(dxpl)"), H5Pclose);
    check(H5Pset_dxpl_mpio(dxpl_, cfg_.collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT), "H5Pset_dxpl_mpio");
    objects_.clear();
    object_dims_.clear();
    groups_.clear();
    group_objects_.clear();
    stored_as_member_.assign(spec.vars.size(), false);
    auto check_member = [&](const std::string& where) {
        return
            [this, where](int object, int v) { require_member(objects_[static_cast<std::size_t>(object)], v, where); };
    };
    place_ = one_object_per_compound(
        spec, [&](int v) { return !grouped(v); }, [&](int v) { return open_object(file_, v, ""); }, check_member(""));
    bool any_grouped = false;
    for (std::size_t v = 0; v < spec.vars.size(); ++v) any_grouped = any_grouped || grouped(static_cast<int>(v));
    // Record groups: as many as the file holds, counted from 0.
    for (std::int64_t r = 0; any_grouped; ++r) {
        const std::string gname = group_name(spec, r);
        htri_t exists = H5Lexists(file_, gname.c_str(), H5P_DEFAULT);
        if (exists <= 0) {
            error_stack();
            if (r == 0)
                throw Error("HDF5: file '" + path + "' has no group '" + gname + "'",
                            "the file was written with another layout; h5dump -H shows what it holds");
            break;
        }
        Handle g(check(H5Gopen2(file_, gname.c_str(), H5P_DEFAULT), "opening group '" + gname + "'"), H5Gclose);
        const std::string where = " (group " + gname + ")";
        auto row = one_object_per_compound(
            spec, [&](int v) { return grouped(v); }, [&](int v) { return open_object(g, v, where); },
            check_member(where));
        groups_.push_back(std::move(g));
        group_objects_.push_back(std::move(row));
    }
    build_member_types();
}

std::int64_t Hdf5Base::records() const {
    if (!spec_.record_group.empty() && !groups_.empty()) return static_cast<std::int64_t>(groups_.size());
    for (std::size_t v = 0; v < spec_.vars.size() && v < place_.size(); ++v)
        if (spec_.vars[v].is_record(spec_) && place_[v] >= 0) {
            const auto& d = object_dims_[static_cast<std::size_t>(place_[v])];
            return d.empty() ? -1 : static_cast<std::int64_t>(d[0]);
        }
    return spec_.record_dim() < 0 ? 0 : static_cast<std::int64_t>(groups_.size());
}

void Hdf5Base::ensure_record(int object, std::int64_t record, int var) {
    auto& dims = object_dims_[static_cast<std::size_t>(object)];
    if (dims[0] > static_cast<hsize_t>(record)) return;
    dims[0] = static_cast<hsize_t>(record) + 1;
    check(H5Dset_extent(objects_[static_cast<std::size_t>(object)], dims.data()),
          "extending " + var_what(var) + " to record " + std::to_string(record),
          "all ranks must write the same records of a record variable in the same order");
}

Hdf5Base::Target Hdf5Base::target(int var, std::int64_t record, bool writing) {
    if (var < 0 || var >= static_cast<int>(spec_.vars.size()) || place_.size() != spec_.vars.size())
        throw Error("HDF5: variable index " + std::to_string(var) + " out of range in '" + path_ + "'",
                    "define() or open() the file with the spec the plan uses");
    const VarSpec& v = spec_.vars[static_cast<std::size_t>(var)];
    const hid_t mt = member(var) ? member_types_[static_cast<std::size_t>(var)].get() : mem_type(v.type);
    const bool rec = v.is_record(spec_);
    if (rec && record < 0) throw Error("HDF5: " + var_what(var) + " is a record variable but no record was given");
    if (grouped(var)) {
        if (writing)
            while (static_cast<std::int64_t>(group_objects_.size()) <= record)
                create_record_group(static_cast<std::int64_t>(group_objects_.size()));
        else if (record >= static_cast<std::int64_t>(group_objects_.size()))
            throw Error("HDF5: record " + std::to_string(record) + " of " + var_what(var) +
                            " is not in the file (it has groups " + group_name(spec_, 0) + ".." +
                            std::to_string(static_cast<std::int64_t>(group_objects_.size()) - 1) + ")",
                        "read only the time steps the file was written with");
        const int obj = group_objects_[static_cast<std::size_t>(record)][static_cast<std::size_t>(var)];
        return {objects_[static_cast<std::size_t>(obj)], mt, object_dims_[static_cast<std::size_t>(obj)], -1};
    }
    const int obj = place_[static_cast<std::size_t>(var)];
    if (rec) {
        if (writing)
            ensure_record(obj, record, var);
        else if (static_cast<hsize_t>(record) >= object_dims_[static_cast<std::size_t>(obj)][0])
            throw Error("HDF5: record " + std::to_string(record) + " of " + var_what(var) +
                            " is not in the file (it has " +
                            std::to_string(object_dims_[static_cast<std::size_t>(obj)][0]) + ")",
                        "read only records the file was written with");
    }
    return {objects_[static_cast<std::size_t>(obj)], mt, object_dims_[static_cast<std::size_t>(obj)],
            rec ? record : -1};
}

std::vector<Hdf5Base::StructTransfer> Hdf5Base::struct_transfers(const StructBuffer& b, const Selection& sel,
                                                                 std::int64_t record, bool writing) {
    std::vector<StructTransfer> out;
    if (b.vars.empty() || b.vars.size() != b.offsets.size()) return out;
    auto var_of = [&](int v) -> const VarSpec& { return spec_.vars[static_cast<std::size_t>(v)]; };
    auto shared_type = [](hid_t t, const std::string& what) {
        return std::make_shared<Handle>(check(t, what), H5Tclose);
    };
    // target() is idempotent (a record extended or group created once), so
    // answering "cannot" after it leaves put()/get() of packed fields correct.
    const std::uint64_t n = sel.elements();
    const std::string& whole = var_of(b.vars[0]).compound;
    bool one_compound = !whole.empty();
    if (one_compound) {
        std::vector<int> fields = b.vars, members = compound_members(spec_, whole);
        std::sort(fields.begin(), fields.end());
        one_compound = fields == members;
    }
    if (one_compound) {
        Target tg = target(b.vars[0], record, writing);
        Transfer t = transfers_.get(tg.dims, sel, tg.record, var_what(b.vars[0]));
        if (t.permuted()) return out;
        auto mt = shared_type(H5Tcreate(H5T_COMPOUND, b.stride), "H5Tcreate struct of " + whole);
        std::uint64_t bytes = 0;
        for (std::size_t k = 0; k < b.vars.size(); ++k) {
            const VarSpec& v = var_of(b.vars[k]);
            check(H5Tinsert(*mt, v.name.c_str(), b.offsets[k], mem_type(v.type)), "H5Tinsert " + v.name);
            bytes += n * dtype_size(v.type);
        }
        out.push_back({b.vars[0], tg.dset, mt->get(), mt, t.mem_space, t.file_space, b.base, bytes});
        return out;
    }
    for (std::size_t k = 0; k < b.vars.size(); ++k) {
        const VarSpec& v = var_of(b.vars[k]);
        const std::size_t elem = dtype_size(v.type);
        if (!member(b.vars[k]) && (b.stride % elem != 0 || b.offsets[k] % elem != 0)) return {};
    }
    for (std::size_t k = 0; k < b.vars.size(); ++k) {
        const int var = b.vars[k];
        const VarSpec& v = var_of(var);
        const std::size_t elem = dtype_size(v.type);
        Target tg = target(var, record, writing);
        Transfer t = transfers_.get(tg.dims, sel, tg.record, var_what(var));
        if (t.permuted()) return {};
        StructTransfer st{var, tg.dset, mem_type(v.type), nullptr, t.mem_space, t.file_space, b.base, n * elem};
        if (member(var)) {
            // One member of a struct-sized element: HDF5 matches it by name.
            st.type_owner = shared_type(H5Tcreate(H5T_COMPOUND, b.stride), "H5Tcreate struct member " + v.name);
            check(H5Tinsert(*st.type_owner, v.name.c_str(), b.offsets[k], mem_type(v.type)), "H5Tinsert " + v.name);
            st.mem_type = st.type_owner->get();
        } else {
            // The struct array seen as elements of the field's size; the
            // field is every (stride/elem)-th of them, from offset/elem.
            const hsize_t per = b.stride / elem;
            hsize_t extent = n * per;
            Handle m(check(H5Screate_simple(1, &extent, nullptr), "H5Screate_simple struct " + v.name), H5Sclose);
            if (n == 0) {
                check(H5Sselect_none(m), "H5Sselect_none " + v.name);
            } else {
                hsize_t start = b.offsets[k] / elem, stride = per, count = n, block = 1;
                check(H5Sselect_hyperslab(m, H5S_SELECT_SET, &start, &stride, &count, &block),
                      "H5Sselect_hyperslab struct " + v.name);
            }
            st.mem_space = std::make_shared<Handle>(std::move(m));
        }
        out.push_back(std::move(st));
    }
    return out;
}

std::string Hdf5Base::var_what(int var) const {
    return "variable '" + spec_.vars[static_cast<std::size_t>(var)].name + "' in file '" + path_ + "'";
}

void Hdf5Base::close() {
    if (file_.get() < 0) return;
    transfers_.clear();
    objects_.clear();
    groups_.clear();
    member_types_.clear();
    dxpl_.reset();
    dxpl_independent_.reset();
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

IOK_LIBRARY_MODULE(hdf5, "hdf5")
