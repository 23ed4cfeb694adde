// NetCDF-4 files through the netCDF library's serial API: dimensions,
// NC_INT variables (contiguous, no fill, as E3SM-IO's dat2decomp -a netcdf4
// writes them), text and NC_INT attributes.
#include <netcdf.h>

#include "core/error.hpp"
#include "formats/array_containers.hpp"

namespace iok::formats {

namespace {

void check(int status, const std::string& what, const std::string& hint = {}) {
    if (status != NC_NOERR)
        throw Error(what + " failed: " + nc_strerror(status),
                    hint.empty() ? "is this a decomposition map file?" : hint);
}

bool is_integer(nc_type t) {
    switch (t) {
        case NC_BYTE:
        case NC_SHORT:
        case NC_INT:
        case NC_INT64:
        case NC_UBYTE:
        case NC_USHORT:
        case NC_UINT:
        case NC_UINT64: return true;
        default: return false;
    }
}

class NetCdf4Arrays : public ArrayReader {
public:
    explicit NetCdf4Arrays(const std::string& path) : path_(path) {
        check(nc_open(path.c_str(), NC_NOWRITE, &ncid_), path + ": opening as NetCDF-4",
              "the file is truncated or damaged; write or copy it again");
    }
    ~NetCdf4Arrays() override { nc_close(ncid_); }
    std::string format() const override { return "NetCDF-4"; }

    std::optional<std::uint64_t> dim(const std::string& name) override {
        int id = -1;
        if (nc_inq_dimid(ncid_, name.c_str(), &id) != NC_NOERR) return std::nullopt;
        size_t len = 0;
        check(nc_inq_dimlen(ncid_, id, &len), path_ + ": dimension " + name);
        return len;
    }

    bool has_array(const std::string& name) override {
        int id = -1;
        return nc_inq_varid(ncid_, name.c_str(), &id) == NC_NOERR;
    }

    std::vector<std::int64_t> read_ints(const std::string& name) override {
        int id = -1, ndims = 0;
        if (nc_inq_varid(ncid_, name.c_str(), &id) != NC_NOERR)
            throw Error(path_ + ": has no variable '" + name + "'", "is this a decomposition map file?");
        nc_type t = NC_NAT;
        check(nc_inq_vartype(ncid_, id, &t), path_ + ": variable " + name);
        check(nc_inq_varndims(ncid_, id, &ndims), path_ + ": variable " + name);
        if (!is_integer(t) || ndims != 1)
            throw Error(path_ + ": variable '" + name + "' is not a 1-D integer array",
                        "is this a decomposition map file?");
        int dimid = -1;
        size_t n = 0;
        check(nc_inq_vardimid(ncid_, id, &dimid), path_ + ": variable " + name);
        check(nc_inq_dimlen(ncid_, dimid, &n), path_ + ": variable " + name);
        std::vector<long long> v(n);
        if (n)
            check(nc_get_var_longlong(ncid_, id, v.data()), path_ + ": reading variable " + name,
                  "the file is truncated or damaged; write or copy it again");
        return std::vector<std::int64_t>(v.begin(), v.end());
    }

    std::optional<std::vector<std::int64_t>> global_ints(const std::string& name) override {
        nc_type t = NC_NAT;
        size_t n = 0;
        if (nc_inq_att(ncid_, NC_GLOBAL, name.c_str(), &t, &n) != NC_NOERR || !is_integer(t)) return std::nullopt;
        std::vector<long long> v(n);
        if (n) check(nc_get_att_longlong(ncid_, NC_GLOBAL, name.c_str(), v.data()), path_ + ": attribute " + name);
        return std::vector<std::int64_t>(v.begin(), v.end());
    }

private:
    std::string path_;
    int ncid_ = -1;
};

void put_attr(int ncid, int varid, const Attribute& a, const std::string& what) {
    if (a.is_text) {
        check(nc_put_att_text(ncid, varid, a.name.c_str(), a.text.size(), a.text.data()),
              what + " attribute " + a.name);
    } else {
        std::vector<long long> v(a.ints.begin(), a.ints.end());
        check(nc_put_att_longlong(ncid, varid, a.name.c_str(), NC_INT, v.size(), v.data()),
              what + " attribute " + a.name);
    }
}

}  // namespace

std::unique_ptr<ArrayReader> open_netcdf4_arrays(const std::string& path) {
    return std::make_unique<NetCdf4Arrays>(path);
}

void write_netcdf4_arrays(const std::string& path, const ArrayFile& f) {
    const std::string hint = "check the directory exists and is writable, and there is free space";
    int ncid = -1;
    check(nc_create(path.c_str(), NC_CLOBBER | NC_NETCDF4, &ncid), path + ": creating a NetCDF-4 file", hint);
    try {
        std::vector<std::pair<std::string, int>> dimids;
        for (const auto& [name, len] : f.dims) {
            int id = -1;
            check(nc_def_dim(ncid, name.c_str(), len, &id), path + ": defining dimension " + name, hint);
            dimids.emplace_back(name, id);
        }
        for (const auto& a : f.attrs) put_attr(ncid, NC_GLOBAL, a, path + ":");
        std::vector<int> varids;
        for (const auto& arr : f.arrays) {
            int dim = -1;
            for (const auto& [n, id] : dimids)
                if (n == arr.dim) dim = id;
            if (dim < 0) throw Error(path + ": array '" + arr.name + "' uses undefined dimension '" + arr.dim + "'");
            int v = -1;
            const std::string what = path + ": variable " + arr.name;
            check(nc_def_var(ncid, arr.name.c_str(), NC_INT, 1, &dim, &v), what, hint);
            check(nc_def_var_chunking(ncid, v, NC_CONTIGUOUS, nullptr), what + " (contiguous storage)", hint);
            check(nc_def_var_fill(ncid, v, NC_NOFILL, nullptr), what + " (no fill)", hint);
            for (const auto& a : arr.attrs) put_attr(ncid, v, a, what);
            varids.push_back(v);
        }
        check(nc_enddef(ncid), path + ": ending the definitions", hint);
        for (std::size_t i = 0; i < f.arrays.size(); ++i) {
            std::vector<long long> v(f.arrays[i].values.begin(), f.arrays[i].values.end());
            if (!v.empty())
                check(nc_put_var_longlong(ncid, varids[i], v.data()), path + ": writing " + f.arrays[i].name, hint);
        }
        check(nc_close(ncid), path + ": closing", hint);
    } catch (...) {
        nc_close(ncid);
        throw;
    }
}

}  // namespace iok::formats

IOK_REGISTER_CONTAINER_LIBRARY(netcdf4, "netcdf4",
                               {[](const std::string& path, iok::formats::Container) {
                                    return iok::formats::open_netcdf4_arrays(path);
                                },
                                [](const std::string& path, const iok::formats::ArrayFile& f, iok::formats::Container) {
                                    iok::formats::write_netcdf4_arrays(path, f);
                                },
                                nullptr})
