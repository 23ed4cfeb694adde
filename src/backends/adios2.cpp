// `adios` backend: ADIOS2 with MPI, BP5 engine by default.
//
// Layout (canonical): one ADIOS2 global array per variable with the
// variable's fixed shape; each block of a selection is one SetSelection+Put
// (Deferred).  The record dimension becomes ADIOS2 steps: record r is step r.
// Fixed variables go into the step that is open when they are put (step 0
// when, as in every kernel here, they are written before the records).
// Attributes are ADIOS2 attributes; variable attributes use the
// variable-attribute API, so they appear as `var/attr` (bpls -la).
//
// Steps and flush: a step is begun by the first put of its record and ended
// when a put for a later record arrives or at close; flush() completes the
// deferred puts (PerformPuts) and, on BP5, pushes the data to storage
// (PerformDataWrite), so the flush phase measures the data movement while
// steps still follow records however often the runner flushes.
//
// Options: every param "adios.<Name>" becomes the engine/IO parameter <Name>
// (e.g. adios.NumAggregators=4, adios.AggregationType=TwoLevelShm);
// adios.engine overrides the engine type (BP5, BP4, HDF5, ...).
//
// Reading uses ReadRandomAccess and selects record r as step r of the
// variable (SetStepSelection), every block with SetSelection+Get, and
// flush() runs PerformGets.
#include <adios2.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/library_modules.hpp"

namespace iok {
namespace {

std::string version() { return std::string("ADIOS2 ") + ADIOS2_VERSION_STR; }

// Calls f(T{}) with the C++ type ADIOS2 stores for t.
template <class F>
void dispatch(DType t, F&& f) {
    switch (t) {
        case DType::Char: f(char{}); break;
        case DType::Byte: f(std::int8_t{}); break;
        case DType::Short: f(std::int16_t{}); break;
        case DType::Int: f(std::int32_t{}); break;
        case DType::Int64: f(std::int64_t{}); break;
        case DType::Float: f(float{}); break;
        case DType::Double: f(double{}); break;
    }
}

class Adios2File : public File {
public:
    explicit Adios2File(const BackendConfig& cfg) : cfg_(cfg) {}
    ~Adios2File() override {
        try {
            if (engine_) engine_.Close();
        } catch (...) {}
    }

    std::string library() const override { return version(); }

    void create(const std::string& path, const FileSpec& spec, MPI_Comm comm) {
        guard("creating '" + path + "'", [&] {
            start(path, spec, comm, "iok_write");
            engine_ = io_.Open(path, adios2::Mode::Write);
        });
        step_ = -1;
        in_step_ = false;
    }

    void define(const FileSpec& spec) override {
        spec_ = spec.layout();  // the attributes are the file's once defined
        guard("defining variables and attributes of '" + path_ + "'", [&] {
            for (const auto& a : spec.global_attrs) put_attr(a, "");
            // Flat names: a group's attribute is "<path>/<name>" ("/" + name at the root).
            for (const GroupSpec& g : spec.groups)
                for (const auto& a : g.attrs) {
                    Attr named = a;
                    named.name = (g.path == "/" ? "" : g.path) + "/" + a.name;
                    put_attr(named, "");
                }
            define_variables(spec, true);
        });
    }

    // Update is ADIOS2's Append mode: a BP file is a sequence of steps written
    // once, so new records (steps) go after the ones it holds and a step
    // already there cannot be changed (put() says so).  The steps are counted
    // first with a read-only open.  Variables are declared again (Append
    // starts from an empty IO); the file keeps its attributes.
    void open(const std::string& path, const FileSpec& spec, MPI_Comm comm, Access access) {
        guard("opening '" + path + "'" + (access == Access::Update ? " for update" : ""), [&] {
            start(path, spec, comm, "iok_read");
            engine_ = io_.Open(path, adios2::Mode::ReadRandomAccess);
            records_at_open_ = static_cast<std::int64_t>(engine_.Steps());
            if (access == Access::Read) return;
            require_shapes(spec);
            engine_.Close();
            engine_ = adios2::Engine();
            start(path, spec, comm, "iok_write");
            engine_ = io_.Open(path, adios2::Mode::Append);
            define_variables(spec, false);
        });
        step_ = records_at_open_ - 1;
        in_step_ = false;
    }

    std::int64_t records() const override { return std::max(records_at_open_, step_ + 1); }

    // Appending steps of another shape would make a file no reader of this
    // run's shape can read: refuse before writing.
    void require_shapes(const FileSpec& spec) {
        for (const auto& v : spec.vars) {
            const auto want = spec.fixed_shape(v);
            dispatch(v.type, [&](auto tag) {
                using T = decltype(tag);
                auto var = io_.InquireVariable<T>(v.name);
                if (!var)
                    throw Error(
                        "ADIOS2: variable '" + v.name + "' (" + dtype_name(v.type) + ") is not in '" + path_ + "'",
                        "update a file written by the same kernel and options (bpls -la lists it)");
                const adios2::Dims have = var.Shape();
                if (std::vector<std::uint64_t>(have.begin(), have.end()) != want)
                    throw Error(
                        "ADIOS2: variable '" + v.name + "' in '" + path_ + "' has another shape than this run writes",
                        "update a file with the sizes and rank count it was written with (bpls -la shows them)");
            });
        }
    }

    void define_variables(const FileSpec& spec, bool with_attrs) {
        for (const auto& v : spec.vars) {
            const auto shape = spec.fixed_shape(v);
            dispatch(v.type, [&](auto tag) {
                using T = decltype(tag);
                if (shape.empty())
                    io_.DefineVariable<T>(v.name);  // global single value (per step)
                else
                    io_.DefineVariable<T>(v.name, adios2::Dims(shape.begin(), shape.end()),
                                          adios2::Dims(shape.size(), 0), adios2::Dims(shape.size(), 0));
            });
            if (with_attrs)
                for (const auto& a : v.attrs) put_attr(a, v.name);
        }
    }

    bool do_put(int var, const Selection& sel, std::int64_t record, const void* buf) override {
        const VarSpec& vs = checked(var);
        const bool rec = vs.is_record(spec_);
        if (records_at_open_ > 0 && (!rec || record < records_at_open_))
            throw Error("ADIOS2: cannot change " + (rec ? "record " + std::to_string(record) + " of " : std::string()) +
                            var_what(var) + ": a BP file's steps are written once and it has " +
                            std::to_string(records_at_open_) + " already",
                        "append records " + std::to_string(records_at_open_) +
                            " and later (ADIOS2 Append mode), or overwrite with another library (-a hdf5, pnetcdf, "
                            "netcdf4, mpiio)");
        guard("writing " + var_what(var), [&] {
            goto_step(rec ? record : std::max<std::int64_t>(step_, 0), var);
            dispatch(vs.type, [&](auto tag) {
                using T = decltype(tag);
                auto v = io_.InquireVariable<T>(vs.name);
                if (!v) throw std::runtime_error("variable not defined (define() not called?)");
                const T* p = static_cast<const T*>(buf);
                each_block(sel, [&](const adios2::Dims& st, const adios2::Dims& ct, std::size_t n) {
                    if (!st.empty()) v.SetSelection({st, ct});
                    engine_.Put(v, p, adios2::Mode::Deferred);
                    p += n;
                });
            });
        });
        return true;
    }

    void do_get(int var, const Selection& sel, std::int64_t record, void* buf) override {
        const VarSpec& vs = checked(var);
        const bool rec = vs.is_record(spec_);
        guard("reading " + var_what(var), [&] {
            dispatch(vs.type, [&](auto tag) {
                using T = decltype(tag);
                auto v = io_.InquireVariable<T>(vs.name);
                if (!v)
                    throw Error("ADIOS2: " + var_what(var) + " is not in the file",
                                "was the file written by the same kernel and case? (bpls -la lists it)");
                const std::size_t steps = v.Steps();
                const std::size_t step = rec ? static_cast<std::size_t>(record) : 0;
                if (step >= steps)
                    throw Error("ADIOS2: record " + std::to_string(record) + " of " + var_what(var) +
                                    " is not in the file (it has " + std::to_string(steps) + " steps)",
                                "read only records the file was written with");
                v.SetStepSelection({step, 1});
                T* p = static_cast<T*>(buf);
                each_block(sel, [&](const adios2::Dims& st, const adios2::Dims& ct, std::size_t n) {
                    if (!st.empty()) v.SetSelection({st, ct});
                    engine_.Get(v, p, adios2::Mode::Deferred);
                    p += n;
                });
            });
        });
    }

    void flush() override {
        guard("flushing '" + path_ + "'", [&] {
            if (reading_) {
                engine_.PerformGets();
            } else if (in_step_) {
                // The caller's buffers are free once ADIOS2 holds the data;
                // BP5 writes a step's data when the step ends (the next
                // record's first put, or close).  PerformDataWrite here as
                // well aggregated and wrote every step twice over (a file of 5
                // steps, 51 variables, 16 ranks: 0.10 -> 0.06 s without it).
                engine_.PerformPuts();
            }
        });
    }

    void close() override {
        if (!engine_) return;
        guard("closing '" + path_ + "'", [&] {
            if (reading_) engine_.PerformGets();
            if (in_step_) engine_.EndStep();
            in_step_ = false;
            engine_.Close();
        });
        engine_ = adios2::Engine();
    }

private:
    // ADIOS2 colours its exception texts for terminals; our message is plain.
    static std::string plain_text(const std::string& s) {
        std::string out;
        for (std::size_t i = 0; i < s.size(); ++i) {
            if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
                while (i < s.size() && s[i] != 'm') ++i;
                continue;
            }
            out += s[i];
        }
        return out;
    }

    template <class F>
    void guard(const std::string& what, F&& f) {
        try {
            f();
        } catch (const Error&) {
            throw;
        } catch (const std::exception& e) {
            throw Error("ADIOS2: " + what + " failed: " + plain_text(e.what()),
                        "check the path is reachable by all ranks and the adios.* parameters are valid "
                        "for engine " +
                            engine_type_ + " (bpls -la shows what a file holds)");
        }
    }

    void start(const std::string& path, const FileSpec& spec, MPI_Comm comm, const char* ioname) {
        path_ = path;
        spec_ = spec.layout();  // the attributes are the file's once defined
        reading_ = std::string(ioname) == "iok_read";
        adios_ = std::make_unique<adios2::ADIOS>(comm);
        io_ = adios_->DeclareIO(ioname);
        engine_type_ = cfg_.param("adios.engine");
        io_.SetEngine(engine_type_);
        for (const auto& [k, v] : cfg_.params)
            if (k.rfind("adios.", 0) == 0 && k != "adios.engine") io_.SetParameter(k.substr(6), v);
    }

    void put_attr(const Attr& a, const std::string& var) {
        if (a.type == DType::Char) {
            if (!a.texts.empty())  // a string array
                io_.DefineAttribute<std::string>(a.name, a.texts.data(), a.texts.size(), var, "/");
            else if (var.empty())
                io_.DefineAttribute<std::string>(a.name, a.text);
            else
                io_.DefineAttribute<std::string>(a.name, a.text, var, "/");
            return;
        }
        auto define = [&](auto tag) {
            using T = decltype(tag);
            std::vector<T> vals(a.values.begin(), a.values.end());
            if (a.scalar && vals.size() == 1)  // a single value, not an array of one
                io_.DefineAttribute<T>(a.name, vals[0], var, "/");
            else
                io_.DefineAttribute<T>(a.name, vals.data(), vals.size(), var, "/");
        };
        if (a.is_unsigned) {
            switch (a.type) {
                case DType::Byte: define(std::uint8_t{}); return;
                case DType::Short: define(std::uint16_t{}); return;
                case DType::Int: define(std::uint32_t{}); return;
                case DType::Int64: define(std::uint64_t{}); return;
                default: break;
            }
        }
        dispatch(a.type, define);
    }

    // Steps only move forward: record r is step r.
    void goto_step(std::int64_t target, int var) {
        if (target < step_ || (target == step_ && !in_step_))
            throw Error("ADIOS2: " + var_what(var) + " written for step " + std::to_string(target) + " after step " +
                            std::to_string(step_) + " (ADIOS2 steps only advance)",
                        "write fixed variables before or with the first record, and records in order");
        while (step_ < target) {
            if (in_step_) engine_.EndStep();
            engine_.BeginStep();
            in_step_ = true;
            ++step_;
        }
    }

    // fn(start, count, elements) per non-empty block; scalars get empty dims.
    template <class F>
    static void each_block(const Selection& sel, F&& fn) {
        const int nd = sel.ndims();
        adios2::Dims st(nd), ct(nd);
        for (std::size_t b = 0; b < sel.nblocks(); ++b) {
            const std::size_t n = sel.block_elements(b);
            if (n == 0) continue;
            for (int d = 0; d < nd; ++d) {
                st[d] = static_cast<std::size_t>(sel.start(b)[d]);
                ct[d] = static_cast<std::size_t>(sel.count(b)[d]);
            }
            fn(st, ct, n);
        }
    }

    const VarSpec& checked(int var) const {
        if (var < 0 || var >= static_cast<int>(spec_.vars.size()))
            throw Error("ADIOS2: variable index " + std::to_string(var) + " out of range in '" + path_ + "'");
        return spec_.vars[var];
    }
    std::string var_what(int var) const { return "variable '" + spec_.vars[var].name + "' in '" + path_ + "'"; }

    BackendConfig cfg_;
    FileSpec spec_;
    std::string path_;
    std::string engine_type_ = "BP5";
    std::unique_ptr<adios2::ADIOS> adios_;
    adios2::IO io_;
    adios2::Engine engine_;
    bool reading_ = false;
    std::int64_t step_ = -1;            // last step begun
    std::int64_t records_at_open_ = 0;  // steps the file held when opened (0 after create)
    bool in_step_ = false;
};

std::unique_ptr<Backend> make(const BackendConfig& cfg) {
    return std::make_unique<LibraryBackend<Adios2File>>("adios", ".bp", cfg);
}

}  // namespace

static BackendInfo describe() {
    BackendInfo b;
    b.name = "adios";
    b.description = "ADIOS2 (BP5 by default): a global array per variable, a Put per block, records as steps";
    b.factory = make;
    b.library_version = version;
    b.extension = ".bp";
    b.caps.self_describing = true;
    b.caps.nonblocking = true;  // Put is deferred until EndStep
    b.caps.groups = true;       // hierarchical names: "/data/1/fields/E/x", attributes "<path>/<name>"
    b.caps.slash_names = true;  // ADIOS2's names are paths already
    b.options = {{"adios.engine", "BP5", "ADIOS2 engine type", {}}};
    b.passthrough_prefix = "adios.";
    b.passthrough_help = "engine parameter, passed to IO::SetParameter (e.g. adios.NumAggregators=2)";
    return b;
}

IOK_REGISTER_BACKEND(adios, describe)

}  // namespace iok

IOK_LIBRARY_MODULE(adios2, "adios2")
