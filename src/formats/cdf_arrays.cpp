// NetCDF classic behind the ArrayReader interface, on the library-free
// cdf_classic reader and writer (so classic maps never need an I/O library).
#include <map>

#include "core/error.hpp"
#include "formats/array_containers.hpp"
#include "formats/cdf_classic.hpp"

namespace iok::formats {

namespace {

class CdfArrays : public ArrayReader {
public:
    explicit CdfArrays(const std::string& path) : r_(path) {}
    std::string format() const override { return "NetCDF classic CDF-" + std::to_string(r_.header().version); }
    std::optional<std::uint64_t> dim(const std::string& name) override {
        const int id = r_.header().find_dim(name);
        if (id < 0) return std::nullopt;
        return r_.header().dims[id].length;
    }
    bool has_array(const std::string& name) override { return r_.header().find_var(name) >= 0; }
    std::vector<std::int64_t> read_ints(const std::string& name) override { return r_.read_ints(name); }
    bool reads_slices() const override { return true; }
    std::uint64_t array_length(const std::string& name) override { return r_.checked_length(name); }
    std::vector<std::int64_t> read_int_slice(const std::string& name, std::uint64_t start,
                                             std::uint64_t count) override {
        return r_.read_ints(name, start, count);
    }
    std::optional<std::vector<std::int64_t>> global_ints(const std::string& name) override {
        const cdf::Attr* a = r_.header().find_gatt(name);
        if (!a || a->type == cdf::NcType::Char) return std::nullopt;
        return a->as_ints();
    }

private:
    cdf::Reader r_;
};

cdf::Attr to_cdf(const Attribute& a) {
    return a.is_text ? cdf::Attr::Text(a.name, a.text) : cdf::Attr::Ints(a.name, cdf::NcType::Int, a.ints);
}

}  // namespace

std::unique_ptr<ArrayReader> open_cdf_arrays(const std::string& path) { return std::make_unique<CdfArrays>(path); }

void write_cdf_arrays(const std::string& path, const ArrayFile& f, int cdf_version) {
    cdf::Writer w(cdf_version);
    std::map<std::string, int> dimid;
    for (const auto& [name, len] : f.dims) {
        // A classic dimension of length 0 would be the record dimension.
        if (len == 0) throw Error(path + ": dimension '" + name + "' has length 0; every map array needs an entry");
        dimid[name] = w.def_dim(name, len);
    }
    for (const auto& a : f.attrs) w.put_att(-1, to_cdf(a));
    for (const auto& arr : f.arrays) {
        auto d = dimid.find(arr.dim);
        if (d == dimid.end())
            throw Error(path + ": array '" + arr.name + "' uses undefined dimension '" + arr.dim + "'");
        const int v = w.def_var(arr.name, cdf::NcType::Int, {d->second});
        for (const auto& a : arr.attrs) w.put_att(v, to_cdf(a));
        w.put_ints(v, arr.values);
    }
    w.write(path);
}

}  // namespace iok::formats
