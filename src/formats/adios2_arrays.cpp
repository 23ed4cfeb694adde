// ADIOS2 BP files in E3SM-IO's layout (its ADIOS2 driver, used by dat2decomp
// -a bp): one step; a dimension is a single uint64 value
// "/__pio__/dim/<name>"; a variable is a global 1-D int32 array, written as
// one block per map process; variable attributes are "<var>/<attr>".
// E3SM-IO writes BP3 (one file); BP4 and BP5 (directories) read the same.
// Serial ADIOS2 (no communicator): only the calling process touches the file.
#include <adios2.h>

#include <filesystem>

#include "core/error.hpp"
#include "formats/array_containers.hpp"

namespace iok::formats {

namespace {

namespace fs = std::filesystem;

const char* kDimPrefix = "/__pio__/dim/";

const char* engine_of(Container kind) {
    switch (kind) {
        case Container::Bp3: return "BP3";
        case Container::Bp4: return "BP4";
        case Container::Bp5: return "BP5";
        default: throw Error("ADIOS2 engine asked for a container that is not BP");
    }
}

// ADIOS2's exception texts carry terminal colour codes: drop them.
std::string plain(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
            i += 2;
            while (i < s.size() && !(s[i] >= '@' && s[i] <= '~')) ++i;  // to the final byte
            continue;
        }
        out += s[i];
    }
    return out;
}

template <class T>
std::vector<std::int64_t> widen(const std::vector<T>& v) {
    return std::vector<std::int64_t>(v.begin(), v.end());
}

class Adios2Arrays : public ArrayReader {
public:
    Adios2Arrays(const std::string& path, Container kind) : path_(path), engine_name_(engine_of(kind)) {
        guard("opening", [&] {
            io_ = adios_.DeclareIO("iok_map_reader");
            io_.SetEngine(engine_name_);
            // A map is a finished file, never a stream: do not wait for a
            // writer (in streaming mode an incomplete BP4/BP5 directory
            // blocks the open or the step forever).
            random_access_ = kind != Container::Bp3;
            if (random_access_) {
                io_.SetParameter("OpenTimeoutSecs", "0");
                engine_ = io_.Open(path, adios2::Mode::ReadRandomAccess);
            } else {
                engine_ = io_.Open(path, adios2::Mode::Read);
                if (engine_.BeginStep(adios2::StepMode::Read, 0.0f) != adios2::StepStatus::OK)
                    throw Error(path + ": the ADIOS2 " + engine_name_ + " file has no complete step to read",
                                "the file is empty or was not closed by its writer; write it again");
            }
        });
        check_not_truncated(kind);
    }
    ~Adios2Arrays() override {
        try {
            if (!random_access_) engine_.EndStep();
            engine_.Close();
        } catch (...) {}
    }
    std::string format() const override { return "ADIOS2 " + engine_name_; }

    std::optional<std::uint64_t> dim(const std::string& name) override {
        const std::string v = kDimPrefix + name;
        if (io_.VariableType(v).empty()) return std::nullopt;
        auto all = read_ints(v);
        if (all.size() != 1 || all[0] < 0)
            throw Error(path_ + ": " + v + " is not one non-negative integer",
                        "the file is not in E3SM-IO's BP map layout");
        return static_cast<std::uint64_t>(all[0]);
    }

    bool has_array(const std::string& name) override { return !io_.VariableType(name).empty(); }

    std::vector<std::int64_t> read_ints(const std::string& name) override {
        const std::string t = io_.VariableType(name);
        if (t.empty()) throw Error(path_ + ": has no variable '" + name + "'", "is this a decomposition map file?");
        std::vector<std::int64_t> out;
        guard("reading variable " + name, [&] {
            if (t == "int32_t")
                out = widen(get<std::int32_t>(name));
            else if (t == "int64_t")
                out = widen(get<std::int64_t>(name));
            else if (t == "uint64_t")
                out = widen(get<std::uint64_t>(name));
            else if (t == "uint32_t")
                out = widen(get<std::uint32_t>(name));
            else
                throw Error(path_ + ": variable '" + name + "' is " + t + ", not an integer array",
                            "is this a decomposition map file?");
        });
        return out;
    }

    std::optional<std::vector<std::int64_t>> global_ints(const std::string& name) override {
        const std::string t = io_.AttributeType(name);
        if (t == "int32_t") return widen(io_.InquireAttribute<std::int32_t>(name).Data());
        if (t == "int64_t") return widen(io_.InquireAttribute<std::int64_t>(name).Data());
        if (t == "uint64_t") return widen(io_.InquireAttribute<std::uint64_t>(name).Data());
        return std::nullopt;
    }

private:
    // ADIOS2 2.10 reads a truncated data file forever (its POSIX reader
    // retries a read that returns 0 bytes at the end of the file: a map cut
    // short hung every rank, found by fuzzing).  So before any data is
    // read: the data files must hold at least the bytes the metadata says
    // the integer arrays have (a lower bound: other variables are not
    // counted, and nothing is checked when an array is compressed).
    void check_not_truncated(Container kind) {
        std::uint64_t need = 0;
        bool compressed = false;
        for (const auto& [name, params] : io_.AvailableVariables()) {
            auto type = params.find("Type");
            auto shape = params.find("Shape");
            // Only global arrays: BP5 keeps single values (the dimensions) in its metadata.
            if (type == params.end() || shape == params.end() || shape->second.empty()) continue;
            std::uint64_t size = type->second == "int32_t" || type->second == "uint32_t"   ? 4
                                 : type->second == "int64_t" || type->second == "uint64_t" ? 8
                                                                                           : 0;
            if (size == 0) continue;
            if (type->second == "int32_t")
                compressed = compressed || !io_.InquireVariable<std::int32_t>(name).Operations().empty();
            if (type->second == "int64_t")
                compressed = compressed || !io_.InquireVariable<std::int64_t>(name).Operations().empty();
            std::uint64_t elements = 1;
            for (std::size_t at = 0; at < shape->second.size();) {  // "N" or "N, M"
                std::size_t end = shape->second.find(',', at);
                if (end == std::string::npos) end = shape->second.size();
                elements *= std::stoull(shape->second.substr(at, end - at));
                at = end + 1;
            }
            need += elements * size;
        }
        if (compressed) return;
        std::uint64_t have = 0;
        std::error_code ec;
        const fs::path dir = kind == Container::Bp3 ? fs::path(path_ + ".dir") : fs::path(path_);
        if (fs::is_directory(dir, ec)) {
            for (const auto& e : fs::directory_iterator(dir, ec))
                if (kind == Container::Bp3 || e.path().filename().string().rfind("data.", 0) == 0)
                    have += e.is_regular_file(ec) ? e.file_size(ec) : 0;
        } else {
            have = fs::file_size(path_, ec);  // BP3 without subfiles: data and metadata in one file
        }
        if (have < need)
            throw Error(path_ + ": truncated: its data files hold " + std::to_string(have) +
                            " bytes, its arrays need " + std::to_string(need),
                        "the map was cut short (an interrupted copy?); copy or write it again");
    }

    // The whole variable (a scalar, or a 1-D global array).
    template <class T>
    std::vector<T> get(const std::string& name) {
        adios2::Variable<T> v = io_.InquireVariable<T>(name);
        const adios2::Dims shape = v.Shape();
        if (shape.size() > 1)
            throw Error(path_ + ": variable '" + name + "' has " + std::to_string(shape.size()) + " dimensions, not 1",
                        "is this a decomposition map file?");
        std::vector<T> data;
        if (random_access_) v.SetStepSelection({0, 1});  // maps have one step
        if (shape.size() == 1) {
            if (shape[0] == 0) return data;
            v.SetSelection({{0}, {shape[0]}});
        }
        engine_.Get(v, data, adios2::Mode::Sync);
        return data;
    }

    // ADIOS2 reports failures as standard exceptions: name the file.
    template <class F>
    void guard(const std::string& doing, F&& f) {
        try {
            f();
        } catch (const Error&) {
            throw;
        } catch (const std::exception& e) {
            throw Error(path_ + ": ADIOS2 " + engine_name_ + " " + doing + " failed: " + plain(e.what()),
                        "the file is truncated or damaged; write or copy it again");
        }
    }

    std::string path_;
    std::string engine_name_;
    bool random_access_ = false;
    adios2::ADIOS adios_;
    adios2::IO io_;
    adios2::Engine engine_;
};

void define_attr(adios2::IO& io, const Attribute& a, const std::string& var) {
    if (a.is_text) {
        if (var.empty())
            io.DefineAttribute<std::string>(a.name, a.text);
        else
            io.DefineAttribute<std::string>(a.name, a.text, var, "/");
    } else {
        std::vector<std::int32_t> v(a.ints.begin(), a.ints.end());
        if (var.empty())
            io.DefineAttribute<std::int32_t>(a.name, v.data(), v.size());
        else
            io.DefineAttribute<std::int32_t>(a.name, v.data(), v.size(), var, "/");
    }
}

// A previous map of another BP version may sit at `path` (a file or a
// directory); BP3 keeps data in "<path>.dir" when it uses subfiles.
void remove_previous(const std::string& path) {
    std::error_code ec;
    fs::remove_all(path, ec);
    fs::remove_all(path + ".dir", ec);
}

}  // namespace

std::unique_ptr<ArrayReader> open_adios2_arrays(const std::string& path, Container kind) {
    return std::make_unique<Adios2Arrays>(path, kind);
}

void write_adios2_arrays(const std::string& path, const ArrayFile& f, Container kind) {
    const std::string engine_name = engine_of(kind);
    // BP3 appends ".bp" to any other name, and its data subfile is named
    // after that: a renamed copy would not read.  Refuse rather than write
    // somewhere else than asked.
    if (kind == Container::Bp3 && (path.size() < 3 || path.compare(path.size() - 3, 3, ".bp") != 0))
        throw Error(
            path + ": ADIOS2 writes BP3 files only under names ending in .bp (this one would become " + path + ".bp)",
            "name the map <something>.bp, or use --format bp4 or bp5, which keep any name");
    remove_previous(path);
    try {
        adios2::ADIOS adios;
        adios2::IO io = adios.DeclareIO("iok_map_writer");
        io.SetEngine(engine_name);
        std::vector<std::pair<adios2::Variable<std::uint64_t>, std::uint64_t>> dims;
        for (const auto& [name, len] : f.dims)
            dims.emplace_back(io.DefineVariable<std::uint64_t>(kDimPrefix + name), len);
        for (const auto& a : f.attrs) define_attr(io, a, "");
        std::vector<adios2::Variable<std::int32_t>> vars;
        for (const auto& arr : f.arrays) {
            const std::size_t n = arr.values.size();
            vars.push_back(io.DefineVariable<std::int32_t>(arr.name, {n}, {0}, {n}));
            for (const auto& a : arr.attrs) define_attr(io, a, arr.name);
        }
        adios2::Engine w = io.Open(path, adios2::Mode::Write);
        w.BeginStep();
        for (auto& [v, len] : dims) w.Put(v, len, adios2::Mode::Sync);
        for (std::size_t i = 0; i < f.arrays.size(); ++i) {
            const IntArray& arr = f.arrays[i];
            const std::vector<std::int32_t> data(arr.values.begin(), arr.values.end());
            std::vector<std::int64_t> blocks = arr.blocks;
            if (blocks.empty()) blocks.push_back(static_cast<std::int64_t>(data.size()));
            std::size_t start = 0;
            for (std::int64_t b : blocks) {
                if (b <= 0) continue;  // a map process without entries writes no block
                vars[i].SetSelection({{start}, {static_cast<std::size_t>(b)}});
                w.Put(vars[i], data.data() + start, adios2::Mode::Sync);
                start += static_cast<std::size_t>(b);
            }
            if (start != data.size())
                throw Error(path + ": the blocks of '" + arr.name + "' cover " + std::to_string(start) + " of " +
                            std::to_string(data.size()) + " values");
        }
        w.EndStep();
        w.Close();
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw Error(path + ": writing ADIOS2 " + engine_name + " failed: " + plain(e.what()),
                    "check the directory exists and is writable, and there is free space");
    }
}

}  // namespace iok::formats

IOK_REGISTER_CONTAINER_LIBRARY(adios2, "adios2",
                               {iok::formats::open_adios2_arrays, iok::formats::write_adios2_arrays, nullptr})
