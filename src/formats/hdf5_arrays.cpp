// HDF5 files in E3SM-IO's layout (its HDF5 driver, used by dat2decomp -a hdf5):
// every object in the root group; a dimension is a scalar unsigned 64-bit root
// attribute "-DIM_<name>"; a variable is a contiguous 32-bit integer dataset;
// text attributes are scalar fixed-length strings including their NUL,
// numeric ones 1-D 32-bit integer arrays.  Serial HDF5 calls only.
#include <hdf5.h>

#include <map>

#include "core/error.hpp"
#include "formats/array_containers.hpp"
#include "formats/hdf5_handle.hpp"

namespace iok::formats {

namespace {

using h5::Handle;

const char* kDimPrefix = "-DIM_";

// HDF5 prints its error stack by itself unless told not to; we turn every
// failure into one iok::Error instead.
void quiet() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

Handle open_file(const std::string& path) {
    quiet();
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        throw Error(path + ": has the HDF5 signature but HDF5 cannot open it (" + h5::error_stack() + ")",
                    "the file is truncated or damaged; write or copy it again");
    return Handle(f, H5Fclose);
}

bool root_attr_exists(hid_t file, const std::string& name) { return H5Aexists(file, name.c_str()) > 0; }

// Whole integer attribute or dataset contents as int64, converted by HDF5.
std::vector<std::int64_t> read_int_attr(hid_t file, const std::string& name, const std::string& path) {
    Handle a(h5::check(H5Aopen(file, name.c_str(), H5P_DEFAULT), path + ": attribute " + name), H5Aclose);
    Handle space(H5Aget_space(a), H5Sclose);
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    std::vector<std::int64_t> v(n > 0 ? static_cast<std::size_t>(n) : 0);
    if (!v.empty()) h5::check(H5Aread(a, H5T_NATIVE_INT64, v.data()), path + ": reading attribute " + name);
    return v;
}

H5T_class_t attr_class(hid_t file, const std::string& name) {
    Handle a(H5Aopen(file, name.c_str(), H5P_DEFAULT), H5Aclose);
    if (a.get() < 0) return H5T_NO_CLASS;
    Handle t(H5Aget_type(a), H5Tclose);
    return H5Tget_class(t);
}

class Hdf5Arrays : public ArrayReader {
public:
    explicit Hdf5Arrays(const std::string& path) : path_(path), file_(open_file(path)) {}
    std::string format() const override { return "HDF5"; }

    std::optional<std::uint64_t> dim(const std::string& name) override {
        const std::string a = kDimPrefix + name;
        if (!root_attr_exists(file_, a)) return std::nullopt;
        auto v = read_int_attr(file_, a, path_);
        if (v.size() != 1 || v[0] < 0)
            throw Error(path_ + ": dimension attribute " + a + " is not one non-negative integer",
                        "the file is not in E3SM-IO's HDF5 map layout");
        return static_cast<std::uint64_t>(v[0]);
    }

    bool has_array(const std::string& name) override {
        if (H5Lexists(file_, name.c_str(), H5P_DEFAULT) <= 0) return false;
        H5O_info2_t info;
        return H5Oget_info_by_name3(file_, name.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) >= 0 &&
               info.type == H5O_TYPE_DATASET;
    }

    std::vector<std::int64_t> read_ints(const std::string& name) override {
        if (!has_array(name))
            throw Error(path_ + ": has no dataset '" + name + "'", "is this a decomposition map file?");
        Handle d(h5::check(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), path_ + ": opening " + name), H5Dclose);
        Handle t(H5Dget_type(d), H5Tclose);
        Handle space(H5Dget_space(d), H5Sclose);
        if (H5Tget_class(t) != H5T_INTEGER || H5Sget_simple_extent_ndims(space) > 1)
            throw Error(path_ + ": dataset '" + name + "' is not a 1-D integer array",
                        "is this a decomposition map file?");
        std::vector<std::int64_t> v(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
        if (!v.empty())
            h5::check(H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()),
                      path_ + ": reading dataset " + name, "the file is truncated or damaged; write or copy it again");
        return v;
    }

    std::optional<std::vector<std::int64_t>> global_ints(const std::string& name) override {
        if (!root_attr_exists(file_, name) || attr_class(file_, name) != H5T_INTEGER) return std::nullopt;
        return read_int_attr(file_, name, path_);
    }

private:
    std::string path_;
    Handle file_;
};

void put_attr(hid_t obj, const Attribute& a, const std::string& path) {
    const std::string what = path + ": attribute " + a.name;
    if (a.is_text) {
        h5::write_text_attr(obj, a.name, a.text, path);
    } else {
        const hsize_t n = a.ints.size();
        Handle s(H5Screate_simple(1, &n, nullptr), H5Sclose);
        Handle at(h5::check(H5Acreate2(obj, a.name.c_str(), H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT), what),
                  H5Aclose);
        h5::check(H5Awrite(at, H5T_NATIVE_INT64, a.ints.data()), what);
    }
}

}  // namespace

bool hdf5_is_netcdf4(const std::string& path) {
    Handle f = open_file(path);
    if (root_attr_exists(f, "_NCProperties")) return true;
    // NetCDF-4 files of old libraries lack _NCProperties: E3SM-IO's layout
    // has its dimensions as attributes, NetCDF-4 as dimension-scale datasets.
    return !root_attr_exists(f, std::string(kDimPrefix) + "num_decomp") && H5Lexists(f, "num_decomp", H5P_DEFAULT) > 0;
}

std::unique_ptr<ArrayReader> open_hdf5_arrays(const std::string& path) { return std::make_unique<Hdf5Arrays>(path); }

void write_hdf5_arrays(const std::string& path, const ArrayFile& f) {
    quiet();
    const std::string hint = "check the directory exists and is writable, and there is free space";
    Handle file(h5::check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), path + ": creating", hint),
                H5Fclose);
    std::map<std::string, std::uint64_t> dims;
    for (const auto& [name, len] : f.dims) {
        dims[name] = len;
        h5::write_dim_attr(file, name, len, path);
    }
    for (const auto& a : f.attrs) put_attr(file, a, path);
    // Contiguous, allocated at creation and never filled, like E3SM-IO's maps.
    Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_layout(dcpl, H5D_CONTIGUOUS);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    H5Pset_fill_value(dcpl, H5T_NATIVE_INT, nullptr);  // no fill value defined at all
    for (const auto& arr : f.arrays) {
        auto d = dims.find(arr.dim);
        if (d == dims.end())
            throw Error(path + ": array '" + arr.name + "' uses undefined dimension '" + arr.dim + "'");
        if (d->second != arr.values.size())
            throw Error(path + ": array '" + arr.name + "' has " + std::to_string(arr.values.size()) +
                        " values but dimension '" + arr.dim + "' is " + std::to_string(d->second));
        const hsize_t n = arr.values.size();
        Handle s(H5Screate_simple(1, &n, nullptr), H5Sclose);
        const std::string what = path + ": dataset " + arr.name;
        Handle ds(h5::check(H5Dcreate2(file, arr.name.c_str(), H5T_STD_I32LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT), what),
                  H5Dclose);
        for (const auto& a : arr.attrs) put_attr(ds, a, path);
        if (n) h5::check(H5Dwrite(ds, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, arr.values.data()), what, hint);
    }
    h5::check(H5Fflush(file, H5F_SCOPE_GLOBAL), path + ": flushing", hint);
}

}  // namespace iok::formats

IOK_REGISTER_CONTAINER_LIBRARY(hdf5, "hdf5",
                               {[](const std::string& path, iok::formats::Container) {
                                    return iok::formats::open_hdf5_arrays(path);
                                },
                                [](const std::string& path, const iok::formats::ArrayFile& f, iok::formats::Container) {
                                    iok::formats::write_hdf5_arrays(path, f);
                                },
                                iok::formats::hdf5_is_netcdf4})
