// `netcdf4` backend: parallel NetCDF-4 (HDF5 underneath) through the NetCDF-C
// API: nc_create_par, dims/vars/attributes like the CDF backends, record
// variables chunked one record at a time and fixed ones contiguous unless the
// kernel gives a chunk shape and deflate level (VarSpec::storage: e3sm -c/-z),
// NC_NOFILL unless --fill.
//
// How a selection is moved.  NetCDF-4 has no varn/union call: one
// nc_put_vara moves one hyper-rectangle, and each call costs library work
// (and, on reads of record variables, a record-count query over every
// variable of the file).  So the calls are few (netcdf4_calls.hpp): the
// blocks are merged into the boxes that are exactly their union (E3SM: one
// levels x columns box per column run instead of one call per level), staged
// through one buffer when the box is not one block of the user buffer; reads
// join neighbouring boxes into one bounding box of at most
// netcdf4.read_sieve bytes (data sieving, as ROMIO does).
//   * collective, netcdf4.collective=first (default, E3SM-IO's netcdf4
//     access): each put's first call is collective (each rank its first box,
//     or a zero-count call: the call that extends the record dimension), the
//     rest independent.  A collective H5Dwrite per box costs ~5x the whole
//     put on E3SM's F case;
//   * collective, netcdf4.collective=all: every call is a collective
//     H5Dwrite/H5Dread, so the ranks agree on the largest call count (one
//     MPI_Allreduce) and ranks with fewer calls pad with zero-count calls;
//   * independent: each rank makes its calls alone.  NetCDF-4 cannot extend
//     the record dimension in independent mode (NC_ECANTEXTEND), and a
//     zero-count call never extends, so the first put of a new record makes
//     its first call collectively (each rank its first box, or a zero-count
//     call; NetCDF agrees on the new length with an MPI_Allreduce), the rest
//     independently.
// Variables rest in independent mode and are switched to collective around
// their own collective calls: NetCDF's record-count query makes one
// MPI_Allreduce per *collective variable of the file* on every read call of
// a record variable.  Compressed variables are always collective (parallel
// HDF5 filters need it); when the file has any, reads of record variables
// use equal call counts in both modes.
// Scalars (no dimensions) are accessed independently by the ranks that own
// them: a zero-count call is impossible for them.  Record variables with no
// other dimension are always collective (one element per record; the
// zero-element extension call is impossible for them too).  Writes never
// touch an element outside the selection: other ranks own those.
#include <netcdf.h>
#include <netcdf_filter.h>
#include <netcdf_par.h>
#ifdef IOK_HAVE_HDF5
#include <hdf5.h>
#endif

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "backends/backend.hpp"
#include "backends/netcdf4_calls.hpp"
#include "core/error.hpp"
#include "core/library_modules.hpp"

namespace iok {
namespace {

std::string libvers() {
    std::string v = nc_inq_libvers();
    v = "NetCDF-C " + v.substr(0, v.find(' '));
#ifdef IOK_HAVE_HDF5
    unsigned maj = 0, min = 0, rel = 0;
    H5get_libversion(&maj, &min, &rel);
    v += " (HDF5 " + std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel) + ")";
#endif
    return v;
}

nc_type nctype(DType t) {
    switch (t) {
        case DType::Char: return NC_CHAR;
        case DType::Byte: return NC_BYTE;
        case DType::Short: return NC_SHORT;
        case DType::Int: return NC_INT;
        case DType::Int64: return NC_INT64;
        case DType::Float: return NC_FLOAT;
        case DType::Double: return NC_DOUBLE;
    }
    return NC_DOUBLE;
}

void check(int status, const std::string& what, const std::string& hint = {}) {
    if (status == NC_NOERR) return;
    throw Error("NetCDF-4: " + what + " failed: " + nc_strerror(status) + " (code " + std::to_string(status) + ")",
                hint.empty() ? "check the path is reachable by all ranks and the file is a NetCDF-4 file "
                               "(`ncdump -k` prints netCDF-4)"
                             : hint);
}

// ROMIO's default data-sieving buffer for independent reads (ind_rd_buffer_size).
constexpr const char* kSieveDefault = "4194304";

class Netcdf4File : public File {
public:
    explicit Netcdf4File(const BackendConfig& cfg)
        : cfg_(cfg),
          sieve_bytes_(cfg.count("netcdf4.read_sieve", "read only the selected boxes")),
          first_only_(cfg.param("netcdf4.collective") == "first"),
          flush_(cfg.flag("netcdf4.flush")) {}
    ~Netcdf4File() override {
        if (ncid_ >= 0) nc_close(ncid_);
    }

    std::string library() const override { return libvers(); }

    void create(const std::string& path, const FileSpec& spec, MPI_Comm comm) {
        path_ = path;
        spec_ = spec.layout();  // the attributes are the file's once defined
        comm_ = comm;
        // NC_NODIMSCALE_ATTACH (NetCDF >= 4.9.0): nc_enddef attaches HDF5
        // dimension scales with the HL DS API, which is not safe in parallel;
        // with E3SM's hundreds of variables it fails on some ranks ("Problem
        // with HDF5 dimscales", Unidata/netcdf-c#2251; E3SM-IO sets it too).
        int mode = NC_NETCDF4 | NC_CLOBBER;
#ifdef NC_NODIMSCALE_ATTACH
        mode |= NC_NODIMSCALE_ATTACH;
#endif
        check(nc_create_par(path.c_str(), mode, comm, cfg_.hints, &ncid_), "creating '" + path + "'",
              "check that the directory exists and is writable by every rank");
        writing_ = true;
    }

    void define(const FileSpec& spec) override {
        spec_ = spec.layout();  // the attributes are the file's once defined
        int old = 0;
        check(nc_set_fill(ncid_, cfg_.fill ? NC_FILL : NC_NOFILL, &old), "nc_set_fill " + file_what());
        std::vector<int> dimids;
        for (const auto& d : spec.dims) {
            int id = -1;
            check(nc_def_dim(ncid_, d.name.c_str(), d.unlimited ? NC_UNLIMITED : d.length, &id),
                  "defining dimension '" + d.name + "' in " + file_what());
            dimids.push_back(id);
        }
        for (const auto& a : spec.global_attrs) put_attr(NC_GLOBAL, a, file_what());
        varids_.clear();
        for (std::size_t v = 0; v < spec.vars.size(); ++v) {
            const VarSpec& var = spec.vars[v];
            const std::string what = var_what(static_cast<int>(v));
            std::vector<int> ids;
            for (int d : var.dims) ids.push_back(dimids.at(d));
            int id = -1;
            check(nc_def_var(ncid_, var.name.c_str(), nctype(var.type), static_cast<int>(ids.size()), ids.data(), &id),
                  "defining " + what);
            const bool has_fill_attr =
                std::any_of(var.attrs.begin(), var.attrs.end(), [](const Attr& a) { return a.name == "_FillValue"; });
            if (!cfg_.fill) {
                check(nc_def_var_fill(ncid_, id, NC_NOFILL, nullptr), "nc_def_var_fill " + what);
            } else if (var.fill_value && !has_fill_attr) {
                // A text variable's fill value is one character, written as text
                // (nc_put_att_double refuses NC_CHAR).
                put_attr(id,
                         var.type == DType::Char
                             ? Attr::Text("_FillValue", std::string(1, static_cast<char>(*var.fill_value)))
                             : Attr::Number("_FillValue", var.type, {*var.fill_value}),
                         what);
            }
            for (const auto& a : var.attrs) put_attr(id, a, what);
            // After _FillValue: NetCDF refuses a _FillValue on a variable
            // that already has a filter (NC_EINVAL).
            define_storage(spec, var, id, what);
            varids_.push_back(id);
        }
        check(nc_enddef(ncid_), "nc_enddef " + file_what(), "the header may be too large or the file system full");
        set_access();
        nrec_.assign(spec.vars.size(), 0);
    }

    void open(const std::string& path, const FileSpec& spec, MPI_Comm comm, Access access) {
        path_ = path;
        spec_ = spec.layout();  // the attributes are the file's once defined
        comm_ = comm;
        writing_ = access == Access::Update;  // NC_WRITE: data mode, records extend on write
        check(nc_open_par(path.c_str(), writing_ ? NC_WRITE : NC_NOWRITE, comm, cfg_.hints, &ncid_),
              "opening '" + path + "'", "check the file exists and is a NetCDF-4 file written by this kernel");
        varids_.clear();
        for (std::size_t v = 0; v < spec.vars.size(); ++v) {
            int id = -1;
            check(nc_inq_varid(ncid_, spec.vars[v].name.c_str(), &id), "looking up " + var_what(static_cast<int>(v)),
                  "the file lacks this variable; was it written by the same kernel and case?");
            varids_.push_back(id);
        }
        set_access();
        nrec_.assign(spec.vars.size(), 0);
        const int rd = spec.record_dim();
        if (rd >= 0) {
            int dimid = -1;
            size_t len = 0;
            check(nc_inq_dimid(ncid_, spec.dims[rd].name.c_str(), &dimid), "record dimension of " + file_what());
            check(nc_inq_dimlen(ncid_, dimid, &len), "record count of " + file_what());
            for (std::size_t v = 0; v < spec.vars.size(); ++v)
                if (spec.vars[v].is_record(spec)) nrec_[v] = len;
        }
    }

    // Records known to exist (the record dimension's length at open, grown by puts).
    std::int64_t records() const override {
        std::size_t n = 0;
        for (std::size_t v : nrec_) n = std::max(n, v);
        return static_cast<std::int64_t>(n);
    }

    bool do_put(int var, const Selection& sel, std::int64_t record, const void* buf) override {
        access(var, sel, record, const_cast<void*>(buf), true);
        return true;
    }

    void do_get(int var, const Selection& sel, std::int64_t record, void* buf) override {
        access(var, sel, record, buf, false);
    }

    void flush() override {
        if (writing_ && flush_) check(nc_sync(ncid_), "nc_sync " + file_what());
    }

    void close() override {
        if (ncid_ < 0) return;
        int id = ncid_;
        ncid_ = -1;
        check(nc_close(id), "closing " + file_what(), "the file system may be full or unreachable");
    }

private:
    std::string file_what() const { return "file '" + path_ + "'"; }
    std::string var_what(int v) const { return "variable '" + spec_.vars[v].name + "' in " + file_what(); }

    void put_attr(int varid, const Attr& a, const std::string& what) {
        const std::string w = "attribute '" + a.name + "' of " + what;
        if (a.type == DType::Char)
            check(nc_put_att_text(ncid_, varid, a.name.c_str(), a.text.size(), a.text.c_str()), "writing " + w);
        else  // NetCDF converts the doubles to the attribute's type
            check(nc_put_att_double(ncid_, varid, a.name.c_str(), nctype(a.type), a.values.size(), a.values.data()),
                  "writing " + w);
    }

    // Layout and filter of one variable: the kernel's chunk shape and
    // deflate level when it gives them (VarSpec::storage, e3sm -c/-z), else
    // record variables one record per chunk and fixed ones contiguous.
    void define_storage(const FileSpec& spec, const VarSpec& var, int id, const std::string& what) {
        if (var.dims.empty()) return;  // scalars: nothing to lay out
        const StorageHint& hint = var.storage;
        const bool rec = var.is_record(spec);
        const auto shape = spec.fixed_shape(var);
        if (!hint.chunk.empty()) {
            if (hint.chunk.size() != shape.size())
                throw Error("NetCDF-4: chunk shape of " + what + " has " + std::to_string(hint.chunk.size()) +
                                " lengths for " + std::to_string(shape.size()) + " fixed dimensions",
                            "give one chunk length per dimension of the variable (the record dimension excluded)");
            std::vector<size_t> chunk;
            if (rec) chunk.push_back(1);
            for (std::size_t d = 0; d < shape.size(); ++d) {
                if (hint.chunk[d] == 0 || hint.chunk[d] > std::max<std::uint64_t>(shape[d], 1))
                    throw Error("NetCDF-4: chunk length " + std::to_string(hint.chunk[d]) + " along dimension " +
                                    std::to_string(d) + " of " + what + " is not in 1.." +
                                    std::to_string(std::max<std::uint64_t>(shape[d], 1)),
                                "a chunk may not be empty or larger than the variable");
                chunk.push_back(static_cast<size_t>(hint.chunk[d]));
            }
            check(nc_def_var_chunking(ncid_, id, NC_CHUNKED, chunk.data()), "chunking " + what);
        } else if (rec) {
            std::vector<size_t> chunk{1};
            for (auto n : shape) chunk.push_back(std::max<std::uint64_t>(n, 1));
            check(nc_def_var_chunking(ncid_, id, NC_CHUNKED, chunk.data()), "chunking " + what);
        } else if (hint.deflate == 0) {
            check(nc_def_var_chunking(ncid_, id, NC_CONTIGUOUS, nullptr), "contiguous layout of " + what);
        }
        if (hint.deflate == 0) return;
        if (hint.deflate < 1 || hint.deflate > 9)
            throw Error("NetCDF-4: deflate level " + std::to_string(hint.deflate) + " of " + what + " is not in 1..9",
                        "give a zlib level from 1 to 9");
        if (hint.chunk.empty() && !rec)
            throw Error("NetCDF-4: deflate on " + what + " needs a chunk shape",
                        "give the variable a chunk hint (e3sm: -c BYTES)");
        if (nc_inq_filter_avail(ncid_, H5Z_FILTER_DEFLATE) != NC_NOERR)
            throw Error("NetCDF-4: this NetCDF-C has no deflate (zlib) filter, needed by " + what,
                        "build NetCDF-C with zlib, or drop the compression option");
        // No shuffle: E3SM-IO's HDF5 path sets deflate alone (H5Pset_deflate).
        check(nc_def_var_deflate(ncid_, id, 0, 1, hint.deflate), "deflate filter of " + what);
    }

    // Collective unless --independent; scalars always independent, record
    // variables without other dimensions always collective (see top: their
    // record cannot be extended by a zero-element call), compressed ones
    // always collective (parallel HDF5 filters need it).
    bool collective(int v) const {
        const VarSpec& vs = spec_.vars[v];
        if (vs.dims.empty()) return false;
        return cfg_.collective || filtered_[v] || (vs.is_record(spec_) && vs.dims.size() == 1);
    }

    // Every variable rests in independent mode, switched to collective only
    // around its own collective calls: NetCDF's record-count query on each
    // read of a record variable makes one MPI_Allreduce per collective
    // variable of the file (hundreds in E3SM) -- the F-case read that never
    // finished.  Compressed variables cannot leave collective mode.
    void set_access() {
        filtered_.assign(varids_.size(), false);
        filtered_any_ = false;
        for (std::size_t v = 0; v < varids_.size(); ++v) {
            size_t nfilters = 0;
            if (!spec_.vars[v].dims.empty())
                check(nc_inq_var_filter_ids(ncid_, varids_[v], &nfilters, nullptr),
                      "nc_inq_var_filter_ids " + var_what(static_cast<int>(v)));
            filtered_[v] = nfilters > 0;
            filtered_any_ = filtered_any_ || filtered_[v];
            if (!filtered_[v]) par_access(static_cast<int>(v), NC_INDEPENDENT);
        }
    }

    void one_call(int var, bool write, const size_t* start, const size_t* count, void* data) {
        static char dummy[8];
        if (!data) data = dummy;
        const int rc = write ? nc_put_vara(ncid_, varids_[var], start, count, data)
                             : nc_get_vara(ncid_, varids_[var], start, count, data);
        check(rc, (write ? "writing " : "reading ") + var_what(var));
    }

    // The calls of `sel` (cached under its id, see backend.hpp): exact boxes
    // for writes, sieved windows for reads.
    const nc4::CallPlan& plan_for(const Selection& sel, bool write, std::size_t es) {
        const auto key = std::make_tuple(sel.id(), write, es);
        auto it = plans_.find(key);
        if (it == plans_.end())
            it = plans_.emplace(key, write ? nc4::boxes(sel) : nc4::windows(sel, sieve_bytes_ / es)).first;
        return it->second;
    }

    void par_access(int var, int mode) {
        check(nc_var_par_access(ncid_, varids_[var], mode), "nc_var_par_access " + var_what(var));
    }

    void access(int var, const Selection& sel, std::int64_t record, void* buf, bool write) {
        if (var < 0 || var >= static_cast<int>(varids_.size()))
            throw Error("NetCDF-4: variable index " + std::to_string(var) + " out of range in " + file_what());
        const VarSpec& vs = spec_.vars[var];
        const bool rec = vs.is_record(spec_);
        const int nd = sel.ndims(), off = rec ? 1 : 0;
        if (rec && record < 0)
            throw Error("NetCDF-4: " + var_what(var) + " is a record variable but no record was given");
        if (rec && !write && static_cast<std::size_t>(record) >= nrec_[var])
            throw Error("NetCDF-4: record " + std::to_string(record) + " of " + var_what(var) +
                            " is not in the file (it has " + std::to_string(nrec_[var]) + ")",
                        "read only records the file was written with");
        std::vector<size_t> start(nd + off, 0), count(nd + off, 0);
        if (rec) start[0] = static_cast<size_t>(record);
        const bool coll = collective(var);
        const std::size_t es = dtype_size(vs.type);
        const nc4::CallPlan& plan = plan_for(sel, write, es);

        // Independent mode, first put of a new record: the first call is made
        // collectively (every rank its first box or a zero-count call) so
        // that NetCDF extends the record dimension, the rest independently.
        // netcdf4.collective=first does the same on every collective put.
        bool extend_first = false;
        if (rec && write && static_cast<std::size_t>(record) >= nrec_[var]) {
            extend_first = !coll;
            nrec_[var] = static_cast<std::size_t>(record) + 1;
        }
        const bool first_only = extend_first || (coll && first_only_ && !filtered_[var] && nd > 0);
        const bool all_collective = coll && !first_only;
        long long calls = static_cast<long long>(plan.calls.size());
        // Reading a record variable makes NetCDF query the record count over
        // every variable, with an MPI_Allreduce for each one in collective
        // mode (compressed ones always are): then all ranks make equal counts.
        const bool equal_counts = all_collective || (rec && !write && filtered_any_);
        if (equal_counts) MPI_Allreduce(MPI_IN_PLACE, &calls, 1, MPI_LONG_LONG, MPI_MAX, comm_);
        if (first_only) calls = std::max<long long>(calls, 1);
        if (stage_.size() < plan.staging * es) stage_.resize(plan.staging * es);

        // Variables rest in independent mode (see set_access); this one is
        // collective for the calls that must be.
        const bool switch_mode = (all_collective || first_only) && !filtered_[var];
        if (switch_mode) par_access(var, NC_COLLECTIVE);
        char* p = static_cast<char*>(buf);
        for (long long i = 0; i < calls; ++i) {
            if (first_only && i == 1) par_access(var, NC_INDEPENDENT);
            if (i < static_cast<long long>(plan.calls.size())) {
                const nc4::Call& c = plan.calls[i];
                if (rec) count[0] = 1;
                for (int d = 0; d < nd; ++d) {
                    start[d + off] = static_cast<size_t>(c.start[d]);
                    count[d + off] = static_cast<size_t>(c.count[d]);
                }
                char* data = c.direct >= 0 ? p + c.direct * es : stage_.data();
                if (write && c.direct < 0) nc4::gather(c, p, data, es);
                one_call(var, write, start.data(), count.data(), data);
                if (!write && c.direct < 0) nc4::scatter(c, data, p, es);
            } else {
                // Padding: nothing selected, but the same collective call.
                std::fill(count.begin(), count.end(), 0);
                for (int d = 0; d < nd; ++d) start[d + off] = 0;
                one_call(var, write, start.data(), count.data(), nullptr);
            }
        }
        if (switch_mode && !(first_only && calls > 1)) par_access(var, NC_INDEPENDENT);
    }

    BackendConfig cfg_;
    FileSpec spec_;
    std::string path_;
    MPI_Comm comm_ = MPI_COMM_NULL;
    int ncid_ = -1;
    bool writing_ = false;
    std::vector<int> varids_;
    std::vector<std::size_t> nrec_;  // records known to exist, per variable
    std::vector<bool> filtered_;     // compressed: NetCDF keeps it collective
    bool filtered_any_ = false;
    std::uint64_t sieve_bytes_ = 0;  // netcdf4.read_sieve
    bool first_only_ = false;        // netcdf4.collective=first
    bool flush_ = false;             // netcdf4.flush: nc_sync at each flush
    std::map<std::tuple<std::uint64_t, bool, std::size_t>, nc4::CallPlan> plans_;
    std::vector<char> stage_;  // staging buffer of calls that are not one block
};

std::unique_ptr<Backend> make(const BackendConfig& cfg) {
    return std::make_unique<LibraryBackend<Netcdf4File>>("netcdf4", ".nc", cfg);
}

}  // namespace

static BackendInfo describe() {
    BackendInfo b;
    b.name = "netcdf4";
    b.description =
        "parallel NetCDF-4 (nc_create_par): blocks merged into few nc_put_vara boxes, each put's "
        "first call collective (netcdf4.collective), reads sieved; chunking and deflate";
    b.factory = make;
    b.library_version = libvers;
    b.extension = ".nc";
    b.caps.self_describing = true;
    b.caps.chunking = true;
    b.options = {{"netcdf4.flush", "0", "nc_sync after every flush of records", {"0", "1"}},
                 {"netcdf4.read_sieve",
                  kSieveDefault,
                  "reads: neighbouring boxes of a selection are read as one bounding box of at most this many "
                  "bytes (data sieving; 0 = only the selected boxes)",
                  {}},
                 {"netcdf4.collective",
                  "first",
                  "collective mode: all = every call of a put is a collective H5Dwrite/H5Dread (padded to equal "
                  "counts); first = only each put's first call (it extends the record), the rest independent, as "
                  "E3SM-IO's netcdf4 driver",
                  {"all", "first"}}};
    return b;
}

IOK_REGISTER_BACKEND(netcdf4, describe)

}  // namespace iok

IOK_LIBRARY_MODULE(netcdf4, "netcdf4")
