#pragma once
// The one interface every I/O library implements, in two parts:
//
//   Backend  a library with its settings (BackendConfig); it opens files and
//            holds no per-file state, so one backend may have many files open
//            at once (GCRM writes several, blob a subfile per group).
//   File     one open file, returned by Backend::create()/open(); it owns the
//            library handle and every cache derived from it, and dies with it.
//
// Call order, always collective over the communicator given at create/open:
//
//   write:  f = backend.create(...) -> f->define -> { f->put ... f->flush }* -> f->close
//   read:   f = backend.open(...)   ->              { f->get ... f->flush }* -> f->close
//   update: f = backend.open(..., Access::Update) -> { f->put/get ... f->flush }* -> f->close
//           (an existing file keeps its header; records may be rewritten or,
//           past records(), appended; nothing is defined again)
//
// put()/get() may only post a request (nonblocking libraries); the buffer and
// the selection must stay valid and untouched until the next flush(), which
// completes every pending request.  Work derived from a selection may be
// cached in the File across flushes under Selection::id() (never its address):
// the one rule for every selection cache.  Blocking backends do the work
// inside put()/get() and flush() is cheap.  Buffers hold the selection's
// elements packed in block order, in the variable's declared type.
#include <mpi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "model/file_spec.hpp"
#include "model/recorded_calls.hpp"
#include "model/selection.hpp"

namespace iok {

// How Backend::open() opens an existing file: read-only, or for update
// (h5bench's overwrite and append: write into the file's variables, extend
// its record dimension).  create() is the only way to make a new file.
enum class Access { Read, Update };
const char* access_name(Access a);  // "read", "update"

// Settings shared by all backends.  Library-specific switches are in `params`
// under prefixed keys ("pnetcdf.api" = "varn"), already validated against the
// backend's and strategy's option tables (see io_stack.hpp) when they arrive.
struct BackendConfig {
    bool collective = true;          // collective vs independent data access
    bool fill = false;               // library fill mode (prefill with _FillValue)
    MPI_Info hints = MPI_INFO_NULL;  // MPI-IO hints passed at create/open
    std::map<std::string, std::string> params;

    // Option `key` of the backend or strategy that owns it: its value in
    // `params`, else the default in the owner's option table (OptionSpec),
    // the one place a default is written.  The value is held against the
    // row's choices there too, with the message io_stack gives, so a backend
    // made without io_stack (unit tests, replay tools) obeys the same table.
    // A key no registered table has is an internal error.
    std::string param(const std::string& key) const;
    // A "0"/"1" option: true for "1".
    bool flag(const std::string& key) const;
    // A whole number >= 0 and <= max; zero_means says what 0 asks for (in
    // the message refusing anything else).
    std::uint64_t count(const std::string& key, const std::string& zero_means,
                        std::uint64_t max = std::uint64_t{1} << 62) const;
};

// An array of structs in the user's memory (h5bench MEM_PATTERN=INTERLEAVED):
// one selection, and for element i of it field k (variable vars[k]) sits at
// base + i*stride + offsets[k].
struct StructBuffer {
    std::vector<int> vars;
    std::vector<std::size_t> offsets;
    std::size_t stride = 0;
    void* base = nullptr;  // read into (get_struct) or written from (put_struct)
};

struct BackendStats {
    std::uint64_t bytes_put = 0;  // user data bytes handed to put()
    std::uint64_t bytes_get = 0;
    std::uint64_t calls_put = 0;  // put()/get() calls (per rank)
    std::uint64_t calls_get = 0;
    std::uint64_t library_memory_hwm = 0;  // library's own malloc high-water, when reported; 0 = n/a
};

// One open file.  Destroying a File that was not closed releases its handle
// without completing pending requests (error paths only).
//
// put()/get() (and put_struct()/get_struct()) are the same for every library:
// they check the request against the variables the file was opened with (the
// index, the selection's shape, a record for a record variable) and its
// access mode (a put into a file opened read-only is refused), hand it to the
// library's do_put()/do_get(), and count it in stats() once it was accepted.
// A library implements only the do_ functions.
class File {
public:
    virtual ~File() = default;

    virtual void define(const FileSpec& spec) = 0;  // dims, variables, attributes (after create)
    void put(int var, const Selection& sel, std::int64_t record, const void* buf);
    void get(int var, const Selection& sel, std::int64_t record, void* buf);
    virtual void flush() = 0;
    virtual void close() = 0;

    // put()/get() of every field of an array of structs, handing the library
    // the strided memory as it is (HDF5: compound memory types) instead of a
    // packed copy per field.  Same rules as put()/get().  Returns false, having
    // done nothing, when the backend cannot describe this layout; the caller
    // then packs each field and uses put()/get().
    bool put_struct(const StructBuffer& b, const Selection& sel, std::int64_t record);
    bool get_struct(const StructBuffer& b, const Selection& sel, std::int64_t record);

    // A hint, after create/open and before any put/get: only `rank` (of the
    // file's communicator) accesses variable `var`; every other rank's
    // put()/get() of it has an empty selection.  A library whose calls are
    // collective one by one may then move it with independent I/O on that
    // rank and make no data call on the others -- what E3SM-IO does for its
    // variables that are not partitioned (the root writes them alone).  The
    // calls keep their order and any collective metadata they imply; the
    // file's bytes are the same.  Ignoring the hint is always correct.
    virtual void sole_accessor(int /*var*/, int /*rank*/) {}

    // The library that moves this file's bytes, as it was opened: "PnetCDF
    // 1.14.0", "Open MPI v5.0.7 (MPI-IO layer romio)".
    virtual std::string library() const = 0;
    // MPI-IO hints in effect on the open file (MPI_File_get_info); call before
    // close.  MPI_INFO_NULL when the library does not expose it.  The caller
    // frees a returned info.
    virtual MPI_Info info_in_effect() { return MPI_INFO_NULL; }
    // What put()/get() counted; a strategy reports the library's file instead.
    virtual BackendStats stats() const { return stats_; }
    // Records the file holds now (the length of its record dimension, the
    // number of record groups or steps); -1 when the library cannot tell.
    // Append starts here.
    virtual std::int64_t records() const { return -1; }

protected:
    // The library's side of put()/get(), called with a checked request.
    // do_put returns false when this rank handed the library nothing for it
    // (a sole accessor's variable on another rank): not counted as a call.
    virtual bool do_put(int var, const Selection& sel, std::int64_t record, const void* buf) = 0;
    virtual void do_get(int var, const Selection& sel, std::int64_t record, void* buf) = 0;
    // The library's side of put_struct()/get_struct(): the number of library
    // requests made (one per dataset touched), 0 = cannot, nothing done.
    virtual std::size_t do_put_struct(const StructBuffer&, const Selection&, std::int64_t /*record*/) { return 0; }
    virtual std::size_t do_get_struct(const StructBuffer&, const Selection&, std::int64_t /*record*/) { return 0; }

    // What put()/get() check against: the file's variables (`spec`) and
    // whether it may be written (created, or opened for update).  Called by
    // the Backend once the file is created or opened (LibraryBackend does it
    // for every library; a strategy's File for itself).  A File never bound
    // (a test double) is checked for nothing and counts calls, not bytes.
    void bind(const std::string& path, const FileSpec& spec, bool writable);

    BackendStats stats_;

private:
    template <class F>
    friend class LibraryBackend;

    struct VarFacts {
        std::string name;
        std::vector<std::uint64_t> shape;  // without the record dimension
        std::size_t elem = 0;              // bytes per element
        bool record = false;
    };
    // Throws iok::Error unless (var, sel, record) names a request on this
    // file; `what` is "put" or "get".
    void check_request(int var, const Selection& sel, std::int64_t record, const char* what) const;
    std::uint64_t request_bytes(int var, const Selection& sel) const;

    bool bound_ = false;  // bind() was called
    bool writable_ = true;
    std::string path_of_file_;
    std::vector<VarFacts> var_facts_;
};

class Backend {
public:
    virtual ~Backend() = default;

    virtual std::string name() const = 0;       // "pnetcdf", "mpiio", ...
    virtual std::string extension() const = 0;  // default file extension, ".nc"

    // Collective over comm.  create() clobbers (the runner has applied the
    // overwrite policy); the File then needs define().  open() finds the
    // spec's variables in an existing file, read-only or for update; a
    // backend that cannot update throws iok::Error saying so.  Each File is
    // independent of every other this backend returned.
    virtual std::unique_ptr<File> create(const std::string& path, const FileSpec& spec, MPI_Comm comm) = 0;
    virtual std::unique_ptr<File> open(const std::string& path, const FileSpec& spec, MPI_Comm comm,
                                       Access access = Access::Read) = 0;

    // Re-issues this rank's recorded MPI-IO calls on `path` one by one
    // (model/recorded_calls.hpp), session after session; collective over
    // `comm`.  Only a library whose calls they are can
    // (Capabilities::recorded_calls); the others throw iok::Error.
    virtual CallTally replay_calls(const std::string& path, MPI_Comm comm, const RecordedCalls& calls, CallData& data);
};

// A library's File type that can re-issue recorded calls has
// `static CallTally replay_calls(const BackendConfig&, path, comm, calls, data)`.
template <class F, class = void>
struct replays_calls : std::false_type {};
template <class F>
struct replays_calls<F, std::void_t<decltype(&F::replay_calls)>> : std::true_type {};

// The backend of a library whose open file is an `F`: each create()/open()
// constructs an F from the backend's settings and calls F::create/F::open on
// it.  F's constructor validates the settings; one is built (and dropped) when
// the backend is made, so a bad --param fails before any file is touched.
template <class F>
class LibraryBackend final : public Backend {
public:
    LibraryBackend(std::string name, std::string extension, const BackendConfig& cfg)
        : name_(std::move(name)),
          extension_(std::move(extension)),
          cfg_(cfg) {
        F validate_settings(cfg_);
    }
    std::string name() const override { return name_; }
    std::string extension() const override { return extension_; }
    std::unique_ptr<File> create(const std::string& path, const FileSpec& spec, MPI_Comm comm) override {
        auto f = std::make_unique<F>(cfg_);
        f->create(path, spec, comm);
        static_cast<File&>(*f).bind(path, spec, true);
        return f;
    }
    std::unique_ptr<File> open(const std::string& path, const FileSpec& spec, MPI_Comm comm,
                               Access access = Access::Read) override {
        auto f = std::make_unique<F>(cfg_);
        f->open(path, spec, comm, access);
        static_cast<File&>(*f).bind(path, spec, access == Access::Update);
        return f;
    }
    CallTally replay_calls(const std::string& path, MPI_Comm comm, const RecordedCalls& calls,
                           CallData& data) override {
        if constexpr (replays_calls<F>::value)
            return F::replay_calls(cfg_, path, comm, calls, data);
        else
            return Backend::replay_calls(path, comm, calls, data);
    }

private:
    std::string name_, extension_;
    BackendConfig cfg_;
};

using BackendFactory = std::unique_ptr<Backend> (*)(const BackendConfig&);

// What a library can express; kernels state their needs as these flags and
// the driver refuses a combination with one line saying which is missing.
struct Capabilities {
    bool self_describing = false;  // a header with names, types, attributes (not raw bytes)
    bool nonblocking = false;      // put() only posts; flush() completes many requests at once
    bool struct_memory = false;    // put_struct/get_struct: arrays of structs handed as they are
    bool compound_files = false;   // a variable may be stored as a compound (struct) dataset
    bool chunking = false;         // chunked storage and compression filters
    bool alignment = false;        // object alignment on the file system
    bool independent = true;       // independent (non-collective) data access
    bool aligns_objects = false;   // FileSpec::align_bytes honoured: objects start on its boundaries (H5Pset_alignment)
    bool recorded_calls = false;   // Backend::replay_calls: an application's MPI-IO calls re-issued one by one
    // FileSpec::groups with their attributes, '/' in variable names as the
    // group a variable lives in, and the attribute forms Attr::texts,
    // Attr::scalar and Attr::is_unsigned (HDF5 groups; ADIOS2 path names).
    bool groups = false;
    bool slash_names = false;  // a variable name may hold '/' (HDF5: a path of groups; netCDF refuses it)
    bool group_attrs = false;  // FileSpec::group_attrs written on their groups
};

// One settable knob of a backend or strategy: `--param KEY=VALUE`.  Keys are
// prefixed with their owner ("pnetcdf.api", "rearrange.aggregators") so one
// command line can carry settings for a strategy and the library it wraps.
struct OptionSpec {
    std::string key;
    std::string default_value;
    std::string help;
    std::vector<std::string> choices;  // empty: any value (checked by the owner)
};
// Throws iok::Error unless `value` is one of o.choices (any value when empty).
void check_option_value(const OptionSpec& o, const std::string& value);

// A backend described as data: registry entry, `iokernels backends`, --help
// and central --param validation all read it.
struct BackendInfo {
    std::string name;
    std::string description;
    BackendFactory factory = nullptr;
    std::string (*library_version)() = nullptr;  // "PnetCDF 1.14.0", for the manifest
    std::string extension;                       // default file extension, ".nc"
    Capabilities caps;
    std::vector<OptionSpec> options;
    // Keys beginning with this prefix are handed to the library untouched
    // (ADIOS2 engine parameters: "adios.NumAggregators").  Empty: none.
    std::string passthrough_prefix;
    std::string passthrough_help;
};
void register_backend(BackendInfo info);
// Every backend of this build, with its description (loads the library modules).
const std::vector<BackendInfo>& registered_backends();
// Their names only, without loading any module (for -a checks and --help).
std::vector<std::string> backend_names();
// Throws iok::Error naming the backends of this build when `name` is not one.
const BackendInfo& backend_info(const std::string& name);
std::unique_ptr<Backend> make_backend(const std::string& name, const BackendConfig& cfg);

// Each backend source file registers itself at static-init time, so adding a
// library never touches the core: IOK_REGISTER_BACKEND(ident, describe) with
// `BackendInfo describe()`.
#define IOK_REGISTER_BACKEND(ident, describe)        \
    namespace {                                      \
    const bool iok_backend_registered_##ident = [] { \
        ::iok::register_backend(describe());         \
        return true;                                 \
    }();                                             \
    }

}  // namespace iok
