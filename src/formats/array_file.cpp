#include "formats/array_file.hpp"

#include <map>

#include "core/error.hpp"
#include "core/library_modules.hpp"
#include "formats/array_containers.hpp"

namespace iok::formats {

namespace {

std::map<std::string, ContainerLibrary>& container_libraries() {
    static std::map<std::string, ContainerLibrary> m;  // function-local: filled from static initialisers
    return m;
}

// The module's container functions, loading the module on first use.
const ContainerLibrary& container_library(const std::string& module) {
    auto it = container_libraries().find(module);
    if (it == container_libraries().end()) {
        load_library_module(module);
        it = container_libraries().find(module);
        if (it == container_libraries().end())
            throw Error("internal: module " + module + " was loaded but registered no map container functions");
    }
    return it->second;
}

struct FormatRow {
    FileFormat f;
    const char* name;
    const char* title;
};
const FormatRow kFormats[] = {
    {FileFormat::Cdf1, "cdf1", "NetCDF classic CDF-1"},
    {FileFormat::Cdf2, "cdf2", "NetCDF classic CDF-2"},
    {FileFormat::Cdf5, "cdf5", "NetCDF classic CDF-5"},
    {FileFormat::Hdf5, "hdf5", "HDF5"},
    {FileFormat::NetCdf4, "netcdf4", "NetCDF-4"},
    {FileFormat::Bp3, "bp", "ADIOS2 BP3"},
    {FileFormat::Bp4, "bp4", "ADIOS2 BP4"},
    {FileFormat::Bp5, "bp5", "ADIOS2 BP5"},
};

const FormatRow& row(FileFormat f) {
    for (const auto& r : kFormats)
        if (r.f == f) return r;
    throw Error("unknown file format code " + std::to_string(static_cast<int>(f)));
}

// The library a format needs and whether this build has it.
struct Need {
    const char* library;
    bool built;
};
Need need(FileFormat f) {
    switch (f) {
        case FileFormat::Hdf5:
#ifdef IOK_HAVE_HDF5
            return {"HDF5", true};
#else
            return {"HDF5", false};
#endif
        case FileFormat::NetCdf4:
#ifdef IOK_HAVE_NETCDF4
            return {"NetCDF-4", true};
#else
            return {"NetCDF-4", false};
#endif
        case FileFormat::Bp3:
        case FileFormat::Bp4:
        case FileFormat::Bp5:
#ifdef IOK_HAVE_ADIOS2
            return {"ADIOS2", true};
#else
            return {"ADIOS2", false};
#endif
        default: return {"", true};
    }
}

void require_built(FileFormat f, const std::string& path, const std::string& doing) {
    const Need n = need(f);
    if (!n.built)
        throw Error(path + ": " + doing + " needs " + n.library + ", which this build of iokernels does not include",
                    std::string("rebuild with ") + n.library + " found (see scripts/iok build), or use NetCDF classic");
}

}  // namespace

const std::vector<std::string>& file_format_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const auto& r : kFormats) v.push_back(r.name);
        return v;
    }();
    return names;
}

FileFormat parse_file_format(const std::string& name) {
    for (const auto& r : kFormats)
        if (name == r.name) return r.f;
    std::string all;
    for (const auto& n : file_format_names()) all += (all.empty() ? "" : ", ") + n;
    throw Error("unknown map format '" + name + "'", "use one of " + all);
}

const char* file_format_name(FileFormat f) { return row(f).name; }
std::string file_format_title(FileFormat f) { return row(f).title; }
bool file_format_available(FileFormat f) { return need(f).built; }

Attribute Attribute::Text(std::string name, std::string text) {
    Attribute a;
    a.name = std::move(name);
    a.is_text = true;
    a.text = std::move(text);
    return a;
}

Attribute Attribute::Ints(std::string name, std::vector<std::int64_t> values) {
    Attribute a;
    a.name = std::move(name);
    a.ints = std::move(values);
    return a;
}

std::vector<std::int64_t> ArrayReader::read_int_slice(const std::string& name, std::uint64_t start,
                                                      std::uint64_t count) {
    std::vector<std::int64_t> all = read_ints(name);
    if (start > all.size() || count > all.size() - start)
        throw Error(format() + " array " + name + ": entries [" + std::to_string(start) + ", +" +
                        std::to_string(count) + ") lie outside its " + std::to_string(all.size()) + " entries",
                    "the map file is inconsistent; regenerate it");
    return std::vector<std::int64_t>(all.begin() + static_cast<std::ptrdiff_t>(start),
                                     all.begin() + static_cast<std::ptrdiff_t>(start + count));
}

std::unique_ptr<ArrayReader> open_array_file(const std::string& path) {
    const ProbeResult p = probe_container(path);
    switch (p.kind) {
        case Container::Missing: throw Error(path + ": cannot open: " + p.looks_like, "check the path");
        case Container::CdfClassic: return open_cdf_arrays(path);
        case Container::Hdf5: {
            require_built(FileFormat::Hdf5, path, "is an HDF5 or NetCDF-4 file; reading it");
            // A copy (three function pointers): a reference from a call with a
            // temporary argument is -Wdangling-reference to GCC 14.
            const ContainerLibrary h5 = container_library("hdf5");
            if (h5.is_netcdf4(path)) {
                require_built(FileFormat::NetCdf4, path, "is a NetCDF-4 file; reading it");
                return container_library("netcdf4").open(path, p.kind);
            }
            return h5.open(path, p.kind);
        }
        case Container::Bp3:
        case Container::Bp4:
        case Container::Bp5:
            require_built(FileFormat::Bp3, path, "is an ADIOS2 BP file; reading it");
            return container_library("adios2").open(path, p.kind);
        case Container::Unknown: break;
    }
    throw Error(
        path + ": not a decomposition map file: it looks like " + p.looks_like + "; maps are " + accepted_containers(),
        p.hint);
}

void write_array_file(const std::string& path, const ArrayFile& f, FileFormat fmt) {
    require_built(fmt, path, "writing " + file_format_title(fmt));
    switch (fmt) {
        case FileFormat::Cdf1: return write_cdf_arrays(path, f, 1);
        case FileFormat::Cdf2: return write_cdf_arrays(path, f, 2);
        case FileFormat::Cdf5: return write_cdf_arrays(path, f, 5);
        case FileFormat::Hdf5: return container_library("hdf5").write(path, f, Container::Hdf5);
        case FileFormat::NetCdf4: return container_library("netcdf4").write(path, f, Container::Hdf5);
        case FileFormat::Bp3: return container_library("adios2").write(path, f, Container::Bp3);
        case FileFormat::Bp4: return container_library("adios2").write(path, f, Container::Bp4);
        case FileFormat::Bp5: return container_library("adios2").write(path, f, Container::Bp5);
        default: break;
    }
    throw Error(path + ": cannot write " + file_format_title(fmt) + " in this build");
}

void register_container_library(const std::string& module, ContainerLibrary lib) {
    container_libraries()[module] = lib;
}

}  // namespace iok::formats
