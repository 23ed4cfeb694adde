// Plain MPI-IO backend: no header, no library format.  The file holds the
// "raw canonical" layout of backends/raw_layout.hpp: all fixed-size variables
// one after another in definition order, then per record all record variables
// in definition order (NetCDF classic's data section without header/padding,
// native byte order).  Every put/get sets a file view (etype MPI_BYTE, an
// hindexed filetype of the selection's runs sorted by offset) at the
// variable's offset and does one MPI_File_write_all/read_all (or the
// independent forms), so this is the floor any library on top of MPI-IO can
// reach for the same access pattern.
//
// Parameters (BackendConfig::params):
//   sync=0|1   flush() calls MPI_File_sync (default 0: flush does nothing).
//
// Selections are cached by address (they are immutable and shared by every
// variable of a decomposition, and live as long as the plan): the derived
// datatypes are built once per selection and element size and reused.
// put()/get() are collective even with collective=false, because
// MPI_File_set_view is: every rank calls them for every variable (an empty
// selection means zero bytes).
#include <mpi.h>

#include <climits>
#include <map>
#include <tuple>

#include "backends/backend.hpp"
#include "backends/mpiio_datatypes.hpp"
#include "backends/raw_layout.hpp"
#include "core/error.hpp"
#include "core/mpi_layer.hpp"

namespace iok {
namespace {

// What to tell a user about a failed MPI_File_open.
Error open_error(const std::string& verb, const std::string& path, int rc) {
    int cls = 0;
    MPI_Error_class(rc, &cls);
    std::string what = "cannot " + verb + " " + path + ": " + mpi_error_text(rc);
    if (cls == MPI_ERR_NO_SUCH_FILE)
        return Error(what, verb == "create" ? "does the output directory exist?"
                                            : "check the path; was the file written by an mpiio run?");
    if (cls == MPI_ERR_ACCESS || cls == MPI_ERR_READ_ONLY)
        return Error(what, "check the permissions of the file and its directory");
    if (cls == MPI_ERR_FILE_EXISTS) return Error(what, "remove the file or allow overwriting");
    if (cls == MPI_ERR_NO_SPACE || cls == MPI_ERR_QUOTA)
        return Error(what, "free space or write to another file system");
    return Error(what);
}

class MpiioBackend : public Backend {
public:
    explicit MpiioBackend(const BackendConfig& cfg) : cfg_(cfg) {
        const std::string sync = cfg.param("sync", "0");
        if (sync != "0" && sync != "1")
            throw Error("mpiio: parameter sync='" + sync + "' is not valid", "use sync=0 or sync=1");
        sync_ = sync == "1";
    }
    ~MpiioBackend() override {
        if (fh_ != MPI_FILE_NULL) MPI_File_close(&fh_);  // only on an error path
    }

    std::string name() const override { return "mpiio"; }
    std::string library() const override {
        return mpi_library_version() + (layer_.empty() ? "" : " (MPI-IO layer " + layer_ + ")");
    }
    std::string extension() const override { return ".bin"; }

    void create(const std::string& path, const FileSpec& spec, MPI_Comm comm) override {
        open_file(path, spec, comm, MPI_MODE_CREATE | MPI_MODE_RDWR, "create");
        // The runner has already applied the overwrite policy: clobber like NC_CLOBBER.
        check(MPI_File_set_size(fh_, 0), "MPI_File_set_size", -1);
    }
    void define(const FileSpec&) override {}  // nothing to define: no header
    void open(const std::string& path, const FileSpec& spec, MPI_Comm comm) override {
        open_file(path, spec, comm, MPI_MODE_RDONLY, "open");
    }

    void put(int var, const Selection& sel, std::int64_t record, const void* buf) override {
        const SelectionTypes& t = view(var, sel, record);
        MPI_Status st;
        int rc = cfg_.collective ? MPI_File_write_all(fh_, buf, t.memory_count(), t.memory(), &st)
                                 : MPI_File_write(fh_, buf, t.memory_count(), t.memory(), &st);
        check(rc, cfg_.collective ? "MPI_File_write_all" : "MPI_File_write", var);
        stats_.bytes_put += t.bytes();
        ++stats_.calls_put;
    }

    void get(int var, const Selection& sel, std::int64_t record, void* buf) override {
        const SelectionTypes& t = view(var, sel, record);
        MPI_Status st;
        int rc = cfg_.collective ? MPI_File_read_all(fh_, buf, t.memory_count(), t.memory(), &st)
                                 : MPI_File_read(fh_, buf, t.memory_count(), t.memory(), &st);
        check(rc, cfg_.collective ? "MPI_File_read_all" : "MPI_File_read", var);
        // A read past the end of file "succeeds" with stale buffer contents
        // (both ROMIO and OMPIO report the full count), so compare against
        // the file size instead.
        const std::uint64_t end = layout_.offset(var, record) + t.file_end();
        if (!sel.empty() && end > file_size_)
            throw Error("cannot read variable " + spec_.vars[var].name +
                            (spec_.vars[var].is_record(spec_) ? " record " + std::to_string(record) : "") +
                            " from " + path_ + ": it needs " + std::to_string(end) + " bytes but the file has " +
                            std::to_string(file_size_),
                        "was the file written completely, with the same kernel options?");
        stats_.bytes_get += t.bytes();
        ++stats_.calls_get;
    }

    void flush() override {
        if (sync_ && fh_ != MPI_FILE_NULL) check(MPI_File_sync(fh_), "MPI_File_sync", -1);
    }

    void close() override {
        if (fh_ != MPI_FILE_NULL) check(MPI_File_close(&fh_), "MPI_File_close", -1);
        types_.clear();
    }

    MPI_Info info_in_effect() override {
        if (fh_ == MPI_FILE_NULL) return MPI_INFO_NULL;
        MPI_Info info = MPI_INFO_NULL;
        MPI_File_get_info(fh_, &info);
        return info;
    }

private:
    BackendConfig cfg_;
    bool sync_ = false;
    MPI_File fh_ = MPI_FILE_NULL;
    std::string path_;
    FileSpec spec_;
    RawLayout layout_;
    std::uint64_t file_size_ = 0;  // at open: the file is read-only then
    std::string layer_;
    // (selection address, blocks, elements, element size) -> datatypes
    std::map<std::tuple<const Selection*, std::size_t, std::uint64_t, std::size_t>, SelectionTypes> types_;

    void open_file(const std::string& path, const FileSpec& spec, MPI_Comm comm, int amode,
                   const std::string& verb) {
        if (fh_ != MPI_FILE_NULL) throw Error("mpiio: " + verb + " " + path + " while " + path_ + " is open");
        int rc = MPI_File_open(comm, path.c_str(), amode, cfg_.hints, &fh_);
        if (rc != MPI_SUCCESS) {
            fh_ = MPI_FILE_NULL;
            throw open_error(verb, path, rc);
        }
        path_ = path;
        spec_ = spec;
        layout_ = raw_layout(spec);
        MPI_Offset size = 0;
        MPI_File_get_size(fh_, &size);
        file_size_ = static_cast<std::uint64_t>(size);
        MPI_Info info = MPI_INFO_NULL;
        if (MPI_File_get_info(fh_, &info) == MPI_SUCCESS) {
            layer_ = mpiio_layer_from_info(info);
            MPI_Info_free(&info);
        }
    }

    // Sets the file view for (var, record) and returns the selection's types.
    const SelectionTypes& view(int var, const Selection& sel, std::int64_t record) {
        if (fh_ == MPI_FILE_NULL) throw Error("mpiio: put/get with no open file");
        const std::uint64_t disp = layout_.offset(var, record);
        const VarSpec& v = spec_.vars[var];
        if (sel.shape() != spec_.fixed_shape(v))
            throw Error("selection shape does not match variable " + v.name + " of " + path_);
        const std::size_t esize = dtype_size(v.type);
        auto key = std::make_tuple(&sel, sel.nblocks(), sel.elements(), esize);
        auto it = types_.find(key);
        if (it == types_.end())
            it = types_.emplace(key, SelectionTypes::build(sel, esize, MPI_BYTE, 1)).first;
        const SelectionTypes& t = it->second;
        MPI_Datatype ftype = t.file() == MPI_DATATYPE_NULL ? MPI_BYTE : t.file();
        char native[] = "native";
        check(MPI_File_set_view(fh_, static_cast<MPI_Offset>(disp), MPI_BYTE, ftype, native, MPI_INFO_NULL),
              "MPI_File_set_view", var);
        return t;
    }

    void check(int rc, const char* op, int var) const {
        if (rc == MPI_SUCCESS) return;
        std::string where = path_;
        if (var >= 0) where += " (variable " + spec_.vars[var].name + ")";
        int cls = 0;
        MPI_Error_class(rc, &cls);
        throw Error(std::string(op) + " failed on " + where + ": " + mpi_error_text(rc),
                    cls == MPI_ERR_NO_SPACE || cls == MPI_ERR_QUOTA ? "free space or write elsewhere" : "");
    }
};

std::unique_ptr<Backend> make_mpiio(const BackendConfig& cfg) { return std::make_unique<MpiioBackend>(cfg); }
std::string mpiio_version() { return mpi_library_version() + " (MPI-IO)"; }

}  // namespace

IOK_REGISTER_BACKEND(mpiio, "mpiio", "plain MPI-IO, raw canonical layout (no header)", make_mpiio,
                     mpiio_version)

}  // namespace iok
