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
//   sync=0|1       flush() calls MPI_File_sync (default 0: flush does nothing).
//   aggregate=0|1  1: put/get only record the request; flush() moves every
//                  pending variable in ONE collective call (a struct of the
//                  per-variable filetypes at their absolute offsets, memory
//                  addressed from MPI_BOTTOM, or plain bytes when the
//                  buffers lie back to back in file order) -- what PnetCDF's
//                  wait_all does, so the two can be compared like for like,
//                  and what the noncontig reference calls (its tile 0 from
//                  one contiguous buffer, tile 1 from one with gaps: a
//                  derived memory type).  Default 0: one blocking call per
//                  put/get.
//
// Derived datatypes are cached by Selection::id() and element size (a
// decomposition's selection is shared by every variable): built once, reused.
// put()/get() are collective even with collective=false, because
// MPI_File_set_view is: every rank calls them for every variable (an empty
// selection means zero bytes).
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "backends/backend.hpp"
#include "backends/mpiio_calls.hpp"
#include "backends/mpiio_datatypes.hpp"
#include "backends/raw_layout.hpp"
#include "core/error.hpp"
#include "core/mpi_layer.hpp"

namespace iok {
namespace {

class MpiioFile : public File {
public:
    explicit MpiioFile(const BackendConfig& cfg)
        : cfg_(cfg),
          sync_(cfg.flag("mpiio.sync")),
          aggregate_(cfg.flag("mpiio.aggregate")) {}
    ~MpiioFile() override {
        if (fh_ != MPI_FILE_NULL) MPI_File_close(&fh_);  // only on an error path
    }

    std::string library() const override {
        return mpi_library_version() + (layer_.empty() ? "" : " (MPI-IO layer " + layer_ + ")");
    }

    void create(const std::string& path, const FileSpec& spec, MPI_Comm comm) {
        open_file(path, spec, comm, MPI_MODE_CREATE | MPI_MODE_RDWR, "create");
        fh_mode_write_ = true;
        // The runner has already applied the overwrite policy: clobber like NC_CLOBBER.
        check(MPI_File_set_size(fh_, 0), "MPI_File_set_size", -1);
    }
    void define(const FileSpec&) override {}  // nothing to define: no header
    // Update: MPI_MODE_RDWR, no truncation; a raw file has no header, so the
    // spec alone places the variables (the size check below is the only
    // sign of a file written with other sizes).
    void open(const std::string& path, const FileSpec& spec, MPI_Comm comm, Access access) {
        const bool update = access == Access::Update;
        open_file(path, spec, comm, update ? MPI_MODE_RDWR : MPI_MODE_RDONLY, "open");
        fh_mode_write_ = update;
        if (update && spec_.record_dim() < 0 && layout_.file_bytes(0) != file_size_)
            throw Error("mpiio: '" + path + "' has " + std::to_string(file_size_) +
                            " bytes but the run's variables need " + std::to_string(layout_.file_bytes(0)),
                        "update a file with the sizes it was written with (same kernel options and rank count)");
        if (update && spec_.record_dim() >= 0 &&
            (file_size_ < layout_.fixed_bytes ||
             (layout_.record_bytes > 0 && (file_size_ - layout_.fixed_bytes) % layout_.record_bytes != 0)))
            throw Error("mpiio: '" + path + "' (" + std::to_string(file_size_) +
                            " bytes) is not a whole number of the run's records (" +
                            std::to_string(layout_.record_bytes) + " bytes each after " +
                            std::to_string(layout_.fixed_bytes) + " fixed bytes)",
                        "update a file with the sizes it was written with (same kernel options and rank count)");
    }

    // A raw file's records: whatever whole records its size holds (at open,
    // or since as far as this rank wrote; a record written in part counts).
    std::int64_t records() const override {
        if (fh_ == MPI_FILE_NULL || layout_.record_bytes == 0 || file_size_ < layout_.fixed_bytes) return -1;
        const std::uint64_t whole = (file_size_ - layout_.fixed_bytes) / layout_.record_bytes;
        const std::uint64_t touched =
            written_end_ > layout_.fixed_bytes
                ? (written_end_ - layout_.fixed_bytes + layout_.record_bytes - 1) / layout_.record_bytes
                : 0;
        return static_cast<std::int64_t>(std::max(whole, touched));
    }

    bool do_put(int var, const Selection& sel, std::int64_t record, const void* buf) override {
        const SelectionTypes& t = types_for(var, sel);
        if (aggregate_) {
            queue(var, record, t, const_cast<void*>(buf), true);
        } else {
            set_view(layout_.offset(var, record), t.file(), var);
            MPI_Status st;
            int rc = cfg_.collective ? MPI_File_write_all(fh_, buf, t.memory_count(), t.memory(), &st)
                                     : MPI_File_write(fh_, buf, t.memory_count(), t.memory(), &st);
            check(rc, cfg_.collective ? "MPI_File_write_all" : "MPI_File_write", var);
        }
        note_written(layout_.offset(var, record) + t.file_end());
        return true;
    }

    void do_get(int var, const Selection& sel, std::int64_t record, void* buf) override {
        const SelectionTypes& t = types_for(var, sel);
        if (aggregate_) {
            queue(var, record, t, buf, false);
        } else {
            // set_view is collective even for independent reads: all ranks check together
            check_end_everywhere(var, record, t);
            set_view(layout_.offset(var, record), t.file(), var);
            MPI_Status st;
            int rc = cfg_.collective ? MPI_File_read_all(fh_, buf, t.memory_count(), t.memory(), &st)
                                     : MPI_File_read(fh_, buf, t.memory_count(), t.memory(), &st);
            check(rc, cfg_.collective ? "MPI_File_read_all" : "MPI_File_read", var);
        }
    }

    void flush() override {
        if (aggregate_ && fh_ != MPI_FILE_NULL) flush_pending();
        if (sync_ && fh_ != MPI_FILE_NULL) check(MPI_File_sync(fh_), "MPI_File_sync", -1);
    }

    void close() override {
        if (aggregate_ && fh_ != MPI_FILE_NULL) flush_pending();
        if (fh_ != MPI_FILE_NULL) check(MPI_File_close(&fh_), "MPI_File_close", -1);
        types_.clear();
    }

    // Capabilities::recorded_calls (mpiio_calls.hpp): the run's hints under the recorded ones.
    static CallTally replay_calls(const BackendConfig& cfg, const std::string& path, MPI_Comm comm,
                                  const RecordedCalls& calls, CallData& data) {
        return replay_mpiio_calls(cfg.hints, path, comm, calls, data);
    }

    MPI_Info info_in_effect() override {
        if (fh_ == MPI_FILE_NULL) return MPI_INFO_NULL;
        MPI_Info info = MPI_INFO_NULL;
        MPI_File_get_info(fh_, &info);
        return info;
    }

private:
    BackendConfig cfg_;
    MPI_Comm comm_ = MPI_COMM_NULL;  // the open file's communicator (the caller's)
    bool sync_ = false;              // mpiio.sync
    bool aggregate_ = false;         // mpiio.aggregate
    struct Pending {
        int var;
        std::int64_t record;
        std::uint64_t disp;  // absolute file offset of the variable (record)
        const SelectionTypes* types;
        void* buf;
        bool write;  // a batch is all writes or all reads (update mode has both)
    };
    std::vector<Pending> pending_;
    bool fh_mode_write_ = false;  // created or opened for update (put and get) or read-only (get)
    MPI_File fh_ = MPI_FILE_NULL;
    std::string path_;
    FileSpec spec_;
    RawLayout layout_;
    std::uint64_t file_size_ = 0;    // at open
    std::uint64_t written_end_ = 0;  // this rank's farthest byte written since (update: the file grows)
    std::string layer_;
    // (selection id, element size) -> datatypes
    std::map<std::tuple<std::uint64_t, std::size_t>, SelectionTypes> types_;

    void open_file(const std::string& path, const FileSpec& spec, MPI_Comm comm, int amode, const std::string& verb) {
        if (fh_ != MPI_FILE_NULL) throw Error("mpiio: " + verb + " " + path + " while " + path_ + " is open");
        int rc = MPI_File_open(comm, path.c_str(), amode, cfg_.hints, &fh_);
        if (rc != MPI_SUCCESS) fh_ = MPI_FILE_NULL;
        check_mpi(rc, "MPI_File_open", verb + " " + path,
                  verb == "create" ? "does the output directory exist?"
                                   : "check the path; was the file written by an mpiio run?");
        path_ = path;
        comm_ = comm;
        spec_ = spec.layout();  // the attributes are the file's once defined
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

    // The selection's datatypes, built once per selection and element size.
    const SelectionTypes& types_for(int var, const Selection& sel) {
        if (fh_ == MPI_FILE_NULL) throw Error("mpiio: put/get with no open file");
        layout_.offset(var, 0);  // range check of var
        const VarSpec& v = spec_.vars[var];
        if (sel.shape() != spec_.fixed_shape(v))
            throw Error("selection shape does not match variable " + v.name + " of " + path_);
        const std::size_t esize = dtype_size(v.type);
        auto key = std::make_tuple(sel.id(), esize);
        auto it = types_.find(key);
        if (it == types_.end()) it = types_.emplace(key, SelectionTypes::build(sel, esize, MPI_BYTE, 1)).first;
        return it->second;
    }

    void set_view(std::uint64_t disp, MPI_Datatype ftype, int var) {
        char native[] = "native";
        check(MPI_File_set_view(fh_, static_cast<MPI_Offset>(disp), MPI_BYTE,
                                ftype == MPI_DATATYPE_NULL ? MPI_BYTE : ftype, native, MPI_INFO_NULL),
              "MPI_File_set_view", var);
    }

    // A read past the end of file "succeeds" with stale buffer contents (both
    // ROMIO and OMPIO report the full count), so compare with the file size.
    // Before a read (each get sets a view, a collective call): the farthest byte any rank's selection needs,
    // agreed by all, so that every rank refuses a short file together with
    // the same message (a rank that found it alone, after the read, failed
    // while the others waited in their next collective call).
    void check_end_everywhere(int var, std::int64_t record, const SelectionTypes& t) {
        std::uint64_t mine[2] = {t.bytes() > 0 ? layout_.offset(var, record) + t.file_end() : 0, written_end_},
                      all[2] = {0, 0};
        MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MAX, comm_);
        file_size_ = std::max(file_size_, all[1]);  // what any rank wrote since open is there now
        if (all[0] > file_size_) throw short_file(var, record, all[0]);
    }

    void note_written(std::uint64_t end) { written_end_ = std::max(written_end_, end); }

    Error short_file(int var, std::int64_t record, std::uint64_t end) const {
        return Error("cannot read variable " + spec_.vars[var].name +
                         (spec_.vars[var].is_record(spec_) ? " record " + std::to_string(record) : "") + " from " +
                         path_ + ": it needs " + std::to_string(end) + " bytes but the file has " +
                         std::to_string(file_size_),
                     "was the file written completely, with the same kernel options?");
    }

    void check_end(int var, std::int64_t record, const SelectionTypes& t) const {
        const std::uint64_t end = layout_.offset(var, record) + t.file_end();
        if (t.bytes() > 0 && end > std::max(file_size_, written_end_)) throw short_file(var, record, end);
    }

    // Aggregate mode.  A view needs non-decreasing displacements, so the same
    // (variable, record) twice in one batch (e.g. data and fill runs) first
    // flushes the batch; every rank calls put/get in the same order, so they
    // all decide alike.
    void queue(int var, std::int64_t record, const SelectionTypes& t, void* buf, bool write) {
        const std::int64_t rec = layout_.is_record[var] ? record : 0;
        if (!pending_.empty() && pending_.front().write != write) flush_pending();
        for (const Pending& p : pending_)
            if (p.var == var && p.record == rec) {
                flush_pending();
                break;
            }
        pending_.push_back({var, rec, layout_.offset(var, record), &t, buf, write});
        if (write) note_written(layout_.offset(var, record) + t.file_end());
    }

    void flush_pending() {
        std::vector<Pending> batch;
        batch.swap(pending_);
        // Every rank takes part in the one collective call, writing or reading
        // alike (the runner posts the same requests on every rank, empty ones
        // included, so no batch is empty on one rank only).
        const bool write = batch.empty() ? fh_mode_write_ : batch.front().write;
        std::stable_sort(batch.begin(), batch.end(),
                         [](const Pending& a, const Pending& b) { return a.disp < b.disp; });
        std::vector<int> flens, mlens;
        std::vector<MPI_Aint> fdisps, mdisps;
        std::vector<MPI_Datatype> ftypes, mtypes;
        for (const Pending& p : batch) {
            if (p.types->bytes() == 0) continue;
            flens.push_back(1);
            fdisps.push_back(static_cast<MPI_Aint>(p.disp));
            ftypes.push_back(p.types->file());
            MPI_Aint addr = 0;
            MPI_Get_address(p.buf, &addr);
            mlens.push_back(p.types->memory_count());
            mdisps.push_back(addr);
            mtypes.push_back(p.types->memory());
        }
        MPI_Datatype ftype = MPI_BYTE, mtype = MPI_BYTE;
        const int n = static_cast<int>(ftypes.size());
        // Buffers back to back in file order are one contiguous buffer: pass
        // it as bytes, not as a struct the MPI-IO layer would treat as
        // noncontiguous memory (noncontig's tile 0 is the reference's
        // contiguous-buffer write_all exactly).
        const bool one_buffer = n > 0 && contiguous_memory(mtypes, mlens, mdisps);
        void* base = n > 0 ? MPI_BOTTOM : nullptr;
        int count = n > 0 ? 1 : 0;
        if (n > 0) {
            MPI_Type_create_struct(n, flens.data(), fdisps.data(), ftypes.data(), &ftype);
            MPI_Type_commit(&ftype);
            if (one_buffer) {
                base = batch_start(batch);
                count = static_cast<int>(mdisps.back() + mlens.back() - mdisps.front());
            } else {
                MPI_Type_create_struct(n, mlens.data(), mdisps.data(), mtypes.data(), &mtype);
                MPI_Type_commit(&mtype);
            }
        }
        set_view(0, ftype, -1);
        MPI_Status st;
        int rc;
        const char* op;
        if (write) {
            rc = cfg_.collective ? MPI_File_write_all(fh_, base, count, mtype, &st)
                                 : MPI_File_write(fh_, base, count, mtype, &st);
            op = cfg_.collective ? "MPI_File_write_all" : "MPI_File_write";
        } else {
            rc = cfg_.collective ? MPI_File_read_all(fh_, base, count, mtype, &st)
                                 : MPI_File_read(fh_, base, count, mtype, &st);
            op = cfg_.collective ? "MPI_File_read_all" : "MPI_File_read";
        }
        if (n > 0) {
            MPI_Type_free(&ftype);
            if (!one_buffer) MPI_Type_free(&mtype);
        }
        check(rc, op, -1);
        if (!write)
            for (const Pending& p : batch) check_end(p.var, p.record, *p.types);
    }

    // Every piece is plain bytes (a buffer already in file order), each
    // starting where the previous ends, and the whole fits an int count.
    static bool contiguous_memory(const std::vector<MPI_Datatype>& types, const std::vector<int>& lens,
                                  const std::vector<MPI_Aint>& addrs) {
        for (std::size_t i = 0; i < types.size(); ++i) {
            if (types[i] != MPI_BYTE) return false;
            if (i > 0 && addrs[i] != addrs[i - 1] + lens[i - 1]) return false;
        }
        return addrs.back() + lens.back() - addrs.front() <= INT_MAX;
    }
    static void* batch_start(const std::vector<Pending>& batch) {
        for (const Pending& p : batch)
            if (p.types->bytes() > 0) return p.buf;
        return nullptr;
    }

    void check(int rc, const char* op, int var) const {
        check_mpi(rc, op,
                  std::string(std::strstr(op, "read")    ? "read "
                              : std::strstr(op, "write") ? "write "
                                                         : "") +
                      (var >= 0 ? "variable " + spec_.vars[var].name + " of " : std::string()) + path_);
    }
};

std::unique_ptr<Backend> make_mpiio(const BackendConfig& cfg) {
    return std::make_unique<LibraryBackend<MpiioFile>>("mpiio", ".bin", cfg);
}
std::string mpiio_version() { return mpi_library_version() + " (MPI-IO)"; }

}  // namespace

static BackendInfo describe() {
    BackendInfo b;
    b.name = "mpiio";
    b.description = "plain MPI-IO, raw canonical layout (no header)";
    b.factory = make_mpiio;
    b.library_version = mpiio_version;
    b.extension = ".bin";
    b.caps.nonblocking = true;
    b.caps.recorded_calls = true;
    b.caps.slash_names = true;  // names are not stored: the file is the variables' bytes
    b.options = {{"mpiio.sync", "0", "MPI_File_sync after every flush", {"0", "1"}},
                 {"mpiio.aggregate", "0", "one write call per flush over all pending variables", {"0", "1"}}};
    return b;
}

IOK_REGISTER_BACKEND(mpiio, describe)

}  // namespace iok
