#include "model/file_spec.hpp"

namespace iok {

Attr Attr::Text(std::string name, std::string text) {
    Attr a;
    a.name = std::move(name);
    a.type = DType::Char;
    a.text = std::move(text);
    return a;
}

Attr Attr::Number(std::string name, DType type, std::vector<double> values) {
    Attr a;
    a.name = std::move(name);
    a.type = type;
    a.values = std::move(values);
    return a;
}

Attr Attr::Scalar(std::string name, DType type, double value) {
    Attr a = Number(std::move(name), type, {value});
    a.scalar = true;
    return a;
}

Attr Attr::Texts(std::string name, std::vector<std::string> texts) {
    Attr a;
    a.name = std::move(name);
    a.type = DType::Char;
    a.texts = std::move(texts);
    return a;
}

Attr Attr::Struct(std::string name, DType type, std::vector<std::string> fields, std::vector<double> values) {
    Attr a = Number(std::move(name), type, std::move(values));
    a.fields = std::move(fields);
    return a;
}

bool VarSpec::is_record(const FileSpec& f) const {
    int r = f.record_dim();
    return r >= 0 && !dims.empty() && dims.front() == r;
}

int FileSpec::record_dim() const {
    for (std::size_t i = 0; i < dims.size(); ++i)
        if (dims[i].unlimited) return static_cast<int>(i);
    return -1;
}

int FileSpec::find_dim(const std::string& name) const {
    for (std::size_t i = 0; i < dims.size(); ++i)
        if (dims[i].name == name) return static_cast<int>(i);
    return -1;
}

int FileSpec::find_var(const std::string& name) const {
    for (std::size_t i = 0; i < vars.size(); ++i)
        if (vars[i].name == name) return static_cast<int>(i);
    return -1;
}

std::vector<std::uint64_t> FileSpec::fixed_shape(const VarSpec& v) const {
    std::vector<std::uint64_t> shape;
    for (std::size_t i = v.is_record(*this) ? 1 : 0; i < v.dims.size(); ++i) shape.push_back(dims[v.dims[i]].length);
    return shape;
}

std::uint64_t FileSpec::fixed_elements(const VarSpec& v) const {
    std::uint64_t n = 1;
    for (auto d : fixed_shape(v)) n *= d;
    return n;
}

FileSpec FileSpec::layout() const {
    FileSpec f;
    f.path = path;
    f.label = label;
    f.dims = dims;
    f.vars.reserve(vars.size());
    for (const VarSpec& v : vars) {
        VarSpec l;
        l.name = v.name;
        l.type = v.type;
        l.dims = v.dims;
        l.decomp = v.decomp;
        l.fill_value = v.fill_value;
        l.storage = v.storage;
        l.compound = v.compound;
        f.vars.push_back(std::move(l));
    }
    f.groups.reserve(groups.size());
    for (const GroupSpec& g : groups) f.groups.push_back({g.path, {}});
    f.record_group = record_group;
    f.expected_records = expected_records;
    f.align_threshold = align_threshold;
    f.align_bytes = align_bytes;
    f.meta_block_bytes = meta_block_bytes;
    f.named_dims = named_dims;
    return f;
}

std::size_t FileSpec::attribute_count() const {
    std::size_t n = global_attrs.size();
    for (const auto& g : group_attrs) n += g.attrs.size();
    for (const auto& v : vars) n += v.attrs.size();
    for (const auto& g : groups) n += g.attrs.size();
    return n;
}

}  // namespace iok
