// PnetCDF backend: one CDF-5 file per FileSpec (CDF-1 or CDF-2 on request).
//
// Parameters (BackendConfig::params):
//   format=cdf5  (default) CDF-5 (NC_64BIT_DATA): 64-bit sizes and offsets,
//                 every type; format=cdf2 CDF-2 (NC_64BIT_OFFSET) and
//                 format=cdf1 the classic CDF-1, as applications that ask for
//                 them write (GCRM-IO: CDF-2 unless a variable passes 2 GiB).
//                 Their headers are shorter (32-bit counts), so the data start
//                 earlier; they refuse 64-bit integers and, past their limits,
//                 large variables (enddef fails and says to use cdf5).
//   api=varn      (default) nonblocking ncmpi_iput_varn/iget_varn per put/get,
//                 completed by one ncmpi_wait_all per flush (ncmpi_wait when
//                 independent) -- the E3SM reference's canonical form;
//   api=blocking  ncmpi_put_varn_all/get_varn_all inside put/get (the
//                 independent ncmpi_put_varn/get_varn when collective=false);
//   api=vard      one MPI derived datatype per selection (hindexed of the
//                 variable's element type at byte displacements, sorted by
//                 offset) and ncmpi_put_vard_all/get_vard_all.
//
// Fill mode (cfg.fill) turns on ncmpi_set_fill(NC_FILL): PnetCDF then fills
// fixed-size variables at enddef.  It never fills record variables by itself;
// the runner writes fill runs explicitly, as it does for every backend.
// With collective=false the file is put in independent data mode right after
// enddef/open and left at close.
#include <pnetcdf.h>

#include <map>
#include <tuple>

#include "backends/backend.hpp"
#include "backends/mpiio_datatypes.hpp"
#include "backends/pnetcdf_varn.hpp"
#include "core/error.hpp"

namespace iok {
namespace {

nc_type nc_type_of(DType t) {
    switch (t) {
        case DType::Char: return NC_CHAR;
        case DType::Byte: return NC_BYTE;
        case DType::Short: return NC_SHORT;
        case DType::Int: return NC_INT;
        case DType::Int64: return NC_INT64;
        case DType::Float: return NC_FLOAT;
        case DType::Double: return NC_DOUBLE;
    }
    return NC_NAT;
}

MPI_Datatype mpi_type_of(DType t) {
    switch (t) {
        case DType::Char: return MPI_CHAR;
        case DType::Byte: return MPI_SIGNED_CHAR;
        case DType::Short: return MPI_SHORT;
        case DType::Int: return MPI_INT;
        case DType::Int64: return MPI_LONG_LONG;
        case DType::Float: return MPI_FLOAT;
        case DType::Double: return MPI_DOUBLE;
    }
    return MPI_DATATYPE_NULL;
}

template <class T>
std::vector<T> convert(const std::vector<double>& v) {
    return std::vector<T>(v.begin(), v.end());
}

std::string pnetcdf_version() {
    std::string v = ncmpi_inq_libvers();
    auto sp = v.find(' ');
    return "PnetCDF " + (sp == std::string::npos ? v : v.substr(0, sp));
}

enum class Api { Varn, Blocking, Vard };

// The create mode of a file format name (pnetcdf.format, one of its
// choices: BackendConfig::param held it against them); reading opens any.
int create_mode_of(const std::string& format) {
    if (format == "cdf2") return NC_CLOBBER | NC_64BIT_OFFSET;
    if (format == "cdf1") return NC_CLOBBER;
    return NC_CLOBBER | NC_64BIT_DATA;  // cdf5
}

// pnetcdf.api, one of its choices.
Api parse_api(const std::string& s) {
    if (s == "blocking") return Api::Blocking;
    if (s == "vard") return Api::Vard;
    return Api::Varn;
}

class PnetcdfFile : public File {
public:
    explicit PnetcdfFile(const BackendConfig& cfg)
        : cfg_(cfg),
          api_(parse_api(cfg.param("pnetcdf.api"))),
          create_mode_(create_mode_of(cfg.param("pnetcdf.format"))) {}
    ~PnetcdfFile() override {
        if (ncid_ >= 0) ncmpi_abort(ncid_);  // only on an error path
        if (empty_ != MPI_DATATYPE_NULL) MPI_Type_free(&empty_);
    }

    std::string library() const override { return pnetcdf_version(); }

    void create(const std::string& path, const FileSpec& spec, MPI_Comm comm) {
        path_ = path;
        spec_ = spec.layout();  // the attributes are the file's once defined
        int err = ncmpi_create(comm, path.c_str(), create_mode_, cfg_.hints, &ncid_);
        if (err != NC_NOERR) {
            ncid_ = -1;
            fail(err, "create");
        }
    }

    void define(const FileSpec& spec) override {
        spec_ = spec.layout();  // the attributes are the file's once defined
        std::vector<int> dimids(spec.dims.size());
        for (std::size_t d = 0; d < spec.dims.size(); ++d) {
            const Dim& dim = spec.dims[d];
            const int err =
                ncmpi_def_dim(ncid_, dim.name.c_str(),
                              dim.unlimited ? NC_UNLIMITED : static_cast<MPI_Offset>(dim.length), &dimids[d]);
            if (err != NC_NOERR) check(err, "define dimension " + dim.name + " in");
        }
        varids_.assign(spec.vars.size(), -1);
        for (std::size_t v = 0; v < spec.vars.size(); ++v) {
            const VarSpec& var = spec.vars[v];
            std::vector<int> ids;
            for (int d : var.dims) ids.push_back(dimids.at(static_cast<std::size_t>(d)));
            const int err = ncmpi_def_var(ncid_, var.name.c_str(), nc_type_of(var.type), static_cast<int>(ids.size()),
                                          ids.data(), &varids_[v]);
            if (err != NC_NOERR) check(err, "define variable in", var.name);
            for (const Attr& a : var.attrs) put_attr(varids_[v], a, var.name);
        }
        for (const Attr& a : spec.global_attrs) put_attr(NC_GLOBAL, a, "");
        int old = 0;
        check(ncmpi_set_fill(ncid_, cfg_.fill ? NC_FILL : NC_NOFILL, &old), "set fill mode of");
        check(ncmpi_enddef(ncid_), "end define mode of");
        after_open();
    }

    // Update (NC_WRITE): the file stays in data mode, nothing is redefined;
    // writing past the last record extends the record dimension.
    void open(const std::string& path, const FileSpec& spec, MPI_Comm comm, iok::Access access) {
        path_ = path;
        spec_ = spec.layout();  // the attributes are the file's once defined
        int err =
            ncmpi_open(comm, path.c_str(), access == iok::Access::Update ? NC_WRITE : NC_NOWRITE, cfg_.hints, &ncid_);
        if (err != NC_NOERR) {
            ncid_ = -1;
            fail(err, "open");
        }
        int unlim = -1;
        check(ncmpi_inq_unlimdim(ncid_, &unlim), "inquire the record dimension of");
        varids_.assign(spec.vars.size(), -1);
        for (std::size_t v = 0; v < spec.vars.size(); ++v) varids_[v] = lookup(spec.vars[v], unlim);
        after_open();
    }

    std::int64_t records() const override {
        int unlim = -1;
        MPI_Offset n = 0;
        if (ncid_ < 0 || ncmpi_inq_unlimdim(ncid_, &unlim) != NC_NOERR || unlim < 0 ||
            ncmpi_inq_dimlen(ncid_, unlim, &n) != NC_NOERR)
            return -1;
        return static_cast<std::int64_t>(n);
    }

    bool do_put(int var, const Selection& sel, std::int64_t record, const void* buf) override {
        const Access a = access(var, sel, record);
        void* b = const_cast<void*>(buf);  // PnetCDF may byte-swap in place and swap back
        switch (api_) {
            case Api::Varn: post(var, a, b, true); break;
            case Api::Blocking: blocking(var, a, b, true); break;
            case Api::Vard: vard(var, sel, a, b, true); break;
        }
        return true;
    }

    void do_get(int var, const Selection& sel, std::int64_t record, void* buf) override {
        const Access a = access(var, sel, record);
        switch (api_) {
            case Api::Varn: post(var, a, buf, false); break;
            case Api::Blocking: blocking(var, a, buf, false); break;
            case Api::Vard: vard(var, sel, a, buf, false); break;
        }
    }

    void flush() override {
        if (api_ != Api::Varn || ncid_ < 0) return;
        std::vector<int> statuses(reqs_.size(), NC_NOERR);
        const int n = static_cast<int>(reqs_.size());
        int err = cfg_.collective ? ncmpi_wait_all(ncid_, n, reqs_.data(), statuses.data())
                                  : ncmpi_wait(ncid_, n, reqs_.data(), statuses.data());
        std::vector<int> vars;
        vars.swap(req_var_);
        reqs_.clear();
        check(err, cfg_.collective ? "ncmpi_wait_all on" : "ncmpi_wait on");
        for (std::size_t i = 0; i < statuses.size(); ++i)
            check(statuses[i], "complete a nonblocking request on", spec_.vars[vars[i]].name);
    }

    void close() override {
        if (ncid_ < 0) return;
        if (!reqs_.empty()) flush();
        if (indep_) check(ncmpi_end_indep_data(ncid_), "leave independent data mode of");
        indep_ = false;
        int id = ncid_;
        ncid_ = -1;
        varn_.clear();
        vard_.clear();
        check_id(ncmpi_close(id), "close", "");
    }

    MPI_Info info_in_effect() override {
        if (ncid_ < 0) return MPI_INFO_NULL;
        MPI_Info info = MPI_INFO_NULL;
        if (ncmpi_inq_file_info(ncid_, &info) != NC_NOERR) return MPI_INFO_NULL;
        return info;
    }

    BackendStats stats() const override {
        BackendStats s = stats_;
        MPI_Offset hwm = 0;
        // NC_ENOTENABLED when PnetCDF was built without malloc tracking.
        s.library_memory_hwm = ncmpi_inq_malloc_max_size(&hwm) == NC_NOERR ? static_cast<std::uint64_t>(hwm) : 0;
        return s;
    }

private:
    struct Access {
        VarnRequests* req;  // start/count arrays (record already patched)
        MPI_Offset* const* starts;
        std::uint64_t nelems;
        bool record;
    };

    BackendConfig cfg_;
    Api api_;
    int create_mode_;  // NC_CLOBBER | the format's flag (pnetcdf.format)
    int ncid_ = -1;
    bool indep_ = false;
    MPI_Offset recsize_ = 0;
    std::int64_t record_ = 0;
    std::string path_;
    FileSpec spec_;
    std::vector<int> varids_;
    std::vector<int> reqs_, req_var_;
    using Key = std::tuple<std::uint64_t, bool>;  // (selection id, record variable)
    std::map<Key, VarnRequests> varn_;
    std::map<std::tuple<std::uint64_t, DType>, SelectionTypes> vard_;  // (selection id, type)

    MPI_Datatype empty_ = MPI_DATATYPE_NULL;
    MPI_Datatype empty_type() {
        if (empty_ == MPI_DATATYPE_NULL) {
            MPI_Type_contiguous(0, MPI_BYTE, &empty_);
            MPI_Type_commit(&empty_);
        }
        return empty_;
    }

    void after_open() {
        if (!cfg_.collective) {
            check(ncmpi_begin_indep_data(ncid_), "enter independent data mode of");
            indep_ = true;
        }
        if (api_ == Api::Vard) check(ncmpi_inq_recsize(ncid_, &recsize_), "inquire the record size of");
    }

    int lookup(const VarSpec& v, int unlim) {
        int id = -1;
        int err = ncmpi_inq_varid(ncid_, v.name.c_str(), &id);
        if (err == NC_ENOTVAR)
            throw Error("variable " + v.name + " is missing from " + path_,
                        "was the file written by the same kernel with the same options?");
        check(err, "look up variable in", v.name);
        nc_type xt = NC_NAT;
        int nd = 0;
        check(ncmpi_inq_vartype(ncid_, id, &xt), "inquire type in", v.name);
        check(ncmpi_inq_varndims(ncid_, id, &nd), "inquire rank in", v.name);
        if (xt != nc_type_of(v.type))
            throw Error("variable " + v.name + " in " + path_ + " does not have type " + dtype_name(v.type),
                        "was the file written with the same type options (e.g. float vs double)?");
        std::vector<int> dimids(static_cast<std::size_t>(nd));
        if (nd > 0) check(ncmpi_inq_vardimid(ncid_, id, dimids.data()), "inquire dimensions in", v.name);
        bool ok = nd == static_cast<int>(v.dims.size());
        for (int d = 0; ok && d < nd; ++d) {
            const Dim& want = spec_.dims[static_cast<std::size_t>(v.dims[static_cast<std::size_t>(d)])];
            if (want.unlimited) {
                ok = dimids[static_cast<std::size_t>(d)] == unlim;
            } else {
                MPI_Offset len = 0;
                check(ncmpi_inq_dimlen(ncid_, dimids[static_cast<std::size_t>(d)], &len), "inquire a dimension in",
                      v.name);
                ok = dimids[static_cast<std::size_t>(d)] != unlim && static_cast<std::uint64_t>(len) == want.length;
            }
        }
        if (!ok)
            throw Error("variable " + v.name + " in " + path_ + " does not have the expected shape",
                        "was the file written from the same decomposition / map file?");
        return id;
    }

    void put_attr(int varid, const Attr& a, const std::string& owner) {
        const char* n = a.name.c_str();
        const MPI_Offset len = static_cast<MPI_Offset>(a.values.size());
        int err = NC_NOERR;
        switch (a.type) {
            case DType::Char:
                err = ncmpi_put_att_text(ncid_, varid, n, static_cast<MPI_Offset>(a.text.size()), a.text.data());
                break;
            case DType::Byte:
                err = ncmpi_put_att(ncid_, varid, n, NC_BYTE, len, convert<signed char>(a.values).data());
                break;
            case DType::Short:
                err = ncmpi_put_att(ncid_, varid, n, NC_SHORT, len, convert<short>(a.values).data());
                break;
            case DType::Int: err = ncmpi_put_att(ncid_, varid, n, NC_INT, len, convert<int>(a.values).data()); break;
            case DType::Int64:
                err = ncmpi_put_att(ncid_, varid, n, NC_INT64, len, convert<long long>(a.values).data());
                break;
            case DType::Float:
                err = ncmpi_put_att(ncid_, varid, n, NC_FLOAT, len, convert<float>(a.values).data());
                break;
            case DType::Double: err = ncmpi_put_att(ncid_, varid, n, NC_DOUBLE, len, a.values.data()); break;
        }
        // The message only on failure: building it for each of an E3SM
        // file's 1,563 attributes cost a fifth of defining them.
        if (err != NC_NOERR) check(err, "write attribute " + a.name + " in", owner);
    }

    Access access(int var, const Selection& sel, std::int64_t record) {
        if (ncid_ < 0) throw Error("pnetcdf: put/get with no open file");
        if (var < 0 || static_cast<std::size_t>(var) >= varids_.size())
            throw Error("pnetcdf: variable index " + std::to_string(var) + " is out of range for " + path_);
        const VarSpec& v = spec_.vars[static_cast<std::size_t>(var)];
        if (sel.shape() != spec_.fixed_shape(v))
            throw Error("selection shape does not match variable " + v.name + " of " + path_);
        const bool rec = v.is_record(spec_);
        if (rec && record < 0) throw Error("negative record index for variable " + v.name);
        Access a{};
        a.record = rec;
        a.nelems = sel.elements();
        if (api_ != Api::Vard) {
            Key key{sel.id(), rec};
            auto it = varn_.find(key);
            if (it == varn_.end()) it = varn_.emplace(key, VarnRequests(sel, rec)).first;
            a.req = &it->second;
            a.starts = a.req->starts(rec ? record : 0);
        }
        record_ = rec ? record : 0;
        return a;
    }

    // A scalar written whole: varn over zero dimensions is not meaningful, so
    // use the plain var API (one element).
    bool whole_scalar(int var, const Access& a) const {
        return spec_.vars[static_cast<std::size_t>(var)].dims.empty() && a.req->num() == 1;
    }

    void post(int var, const Access& a, void* buf, bool write) {
        const VarSpec& v = spec_.vars[static_cast<std::size_t>(var)];
        const int id = varids_[static_cast<std::size_t>(var)];
        const MPI_Datatype t = mpi_type_of(v.type);
        const auto n = static_cast<MPI_Offset>(a.nelems);
        int req = NC_REQ_NULL, err;
        if (whole_scalar(var, a))
            err = write ? ncmpi_iput_var(ncid_, id, buf, 1, t, &req) : ncmpi_iget_var(ncid_, id, buf, 1, t, &req);
        else if (write)
            err = ncmpi_iput_varn(ncid_, id, a.req->num(), a.starts, a.req->counts(), buf, n, t, &req);
        else
            err = ncmpi_iget_varn(ncid_, id, a.req->num(), a.starts, a.req->counts(), buf, n, t, &req);
        check(err, write ? "post a write (iput_varn) to" : "post a read (iget_varn) from", v.name);
        if (req != NC_REQ_NULL) {
            reqs_.push_back(req);
            req_var_.push_back(var);
        }
    }

    void blocking(int var, const Access& a, void* buf, bool write) {
        const VarSpec& v = spec_.vars[static_cast<std::size_t>(var)];
        const int id = varids_[static_cast<std::size_t>(var)];
        const MPI_Datatype t = mpi_type_of(v.type);
        const auto n = static_cast<MPI_Offset>(a.nelems);
        const int num = a.req->num();
        int err;
        if (cfg_.collective && spec_.vars[static_cast<std::size_t>(var)].dims.empty()) {
            // PnetCDF 1.14 hangs when one rank calls put_varn_all/put_var_all
            // on a scalar and another calls put_varn_all with no request
            // (their collective sequences differ).  A nonblocking request
            // completed at once by wait_all is symmetric for every rank.
            int req = NC_REQ_NULL;
            err = NC_NOERR;
            if (num > 0)
                err = write ? ncmpi_iput_var(ncid_, id, buf, 1, t, &req) : ncmpi_iget_var(ncid_, id, buf, 1, t, &req);
            int st = NC_NOERR;
            const int werr = ncmpi_wait_all(ncid_, req == NC_REQ_NULL ? 0 : 1, &req, &st);
            if (err == NC_NOERR) err = werr != NC_NOERR ? werr : st;
        } else if (cfg_.collective) {
            err = write ? ncmpi_put_varn_all(ncid_, id, num, a.starts, a.req->counts(), buf, n, t)
                        : ncmpi_get_varn_all(ncid_, id, num, a.starts, a.req->counts(), buf, n, t);
        } else {
            if (num == 0) return;  // independent: nothing to do, nobody to wait for
            if (whole_scalar(var, a))
                err = write ? ncmpi_put_var(ncid_, id, buf, 1, t) : ncmpi_get_var(ncid_, id, buf, 1, t);
            else
                err = write ? ncmpi_put_varn(ncid_, id, num, a.starts, a.req->counts(), buf, n, t)
                            : ncmpi_get_varn(ncid_, id, num, a.starts, a.req->counts(), buf, n, t);
        }
        check(err, write ? "write (put_varn) to" : "read (get_varn) from", v.name);
    }

    void vard(int var, const Selection& sel, const Access& a, void* buf, bool write) {
        const VarSpec& v = spec_.vars[static_cast<std::size_t>(var)];
        const int id = varids_[static_cast<std::size_t>(var)];
        const MPI_Datatype elem = mpi_type_of(v.type);
        const std::size_t esize = dtype_size(v.type);
        auto key = std::make_tuple(sel.id(), v.type);
        auto it = vard_.find(key);
        if (it == vard_.end()) it = vard_.emplace(key, SelectionTypes::build(sel, esize, elem, esize)).first;
        const SelectionTypes& st = it->second;

        // vard's filetype is relative to the variable's first byte; record r
        // of a record variable starts r * recsize further on.
        MPI_Datatype ftype = st.file();
        MPI_Datatype shifted = MPI_DATATYPE_NULL;
        if (ftype != MPI_DATATYPE_NULL && a.record && record_ > 0) {
            int one = 1;
            MPI_Aint disp = static_cast<MPI_Aint>(record_) * static_cast<MPI_Aint>(recsize_);
            MPI_Type_create_hindexed(1, &one, &disp, ftype, &shifted);
            MPI_Type_commit(&shifted);
            ftype = shifted;
        }
        const MPI_Offset count = ftype == MPI_DATATYPE_NULL ? 0 : st.memory_count();
        // PnetCDF 1.14.0 reads an uninitialised upper bound when a collective
        // vard on a record variable gets MPI_DATATYPE_NULL, and writes that
        // garbage as the record count.  A committed zero-size type takes the
        // well-behaved zero-length path.
        if (ftype == MPI_DATATYPE_NULL) ftype = empty_type();
        int err;
        if (cfg_.collective)
            err = write ? ncmpi_put_vard_all(ncid_, id, ftype, buf, count, st.memory())
                        : ncmpi_get_vard_all(ncid_, id, ftype, buf, count, st.memory());
        else if (count == 0)
            err = NC_NOERR;
        else
            err = write ? ncmpi_put_vard(ncid_, id, ftype, buf, count, st.memory())
                        : ncmpi_get_vard(ncid_, id, ftype, buf, count, st.memory());
        if (shifted != MPI_DATATYPE_NULL) MPI_Type_free(&shifted);
        check(err, write ? "write (put_vard) to" : "read (get_vard) from", v.name);
    }

    // Error helpers: every failure names the file, the variable and what to do.
    void check(int err, const std::string& what, const std::string& var = "") const {
        if (err != NC_NOERR) check_id(err, what, var);
    }
    void check_id(int err, const std::string& what, const std::string& var) const {
        if (err == NC_NOERR) return;
        std::string msg = "PnetCDF: cannot " + what + " " + path_;
        if (!var.empty()) msg += " (variable " + var + ")";
        msg += ": " + std::string(ncmpi_strerror(err));
        throw Error(msg, hint(err));
    }
    [[noreturn]] void fail(int err, const std::string& verb) const {
        std::string reason = ncmpi_strerror(err);
        if (err == NC_ENOENT) reason = "No such file or directory";
        if (err == NC_EACCESS) reason = "Permission denied";
        std::string h = hint(err);
        if (err == NC_ENOENT && verb == "create") h = "does the output directory exist?";
        if (err == NC_ENOENT && verb == "open") h = "check the path: was the file written by a pnetcdf run?";
        throw Error("cannot " + verb + " " + path_ + ": " + reason, h);
    }
    static std::string hint(int err) {
        switch (err) {
            case NC_ENOENT: return "check the path and that the directory exists";
            case NC_EACCESS:
            case NC_EPERM: return "check the permissions of the file and its directory";
            case NC_EEXIST: return "remove the file or allow overwriting";
            case NC_ENOTNC: return "the file is not a NetCDF classic/CDF-5 file: was it written by another backend?";
            case NC_EQUOTA: return "free space or write to another file system";
            case NC_EINVALCOORDS:
            case NC_EEDGE: return "the selection lies outside the variable: does the map match the file?";
            case NC_EINTOVERFLOW: return "a single request exceeds 2 GiB: use more processes";
            case NC_EVARSIZE: return "a variable is too large for this file format: use --param pnetcdf.format=cdf5";
            case NC_ESTRICTCDF2: return "CDF-1/CDF-2 files have no 64-bit integers: use --param pnetcdf.format=cdf5";
            default: return "";
        }
    }
};

std::unique_ptr<Backend> make_pnetcdf(const BackendConfig& cfg) {
    return std::make_unique<LibraryBackend<PnetcdfFile>>("pnetcdf", ".nc", cfg);
}

}  // namespace

static BackendInfo describe() {
    BackendInfo b;
    b.name = "pnetcdf";
    b.description = "PnetCDF, one CDF-5 file (CDF-2/CDF-1 with pnetcdf.format)";
    b.factory = make_pnetcdf;
    b.library_version = pnetcdf_version;
    b.extension = ".nc";
    b.caps.self_describing = true;
    b.caps.nonblocking = true;
    b.caps.alignment = true;  // nc_header_align_size / nc_var_align_size hints
    b.options = {{"pnetcdf.api",
                  "varn",
                  "varn: nonblocking ncmpi_iput_varn + wait_all; blocking: ncmpi_put_vara per "
                  "block; vard: one ncmpi_put_vard per variable",
                  {"varn", "blocking", "vard"}},
                 {"pnetcdf.format",
                  "cdf5",
                  "file format of created files: cdf5 (64-bit data, NC_64BIT_DATA); cdf2 "
                  "(64-bit offsets, NC_64BIT_OFFSET; GCRM-IO below 2 GiB variables); cdf1 "
                  "(classic)",
                  {"cdf5", "cdf2", "cdf1"}}};
    return b;
}

IOK_REGISTER_BACKEND(pnetcdf, describe)

}  // namespace iok
