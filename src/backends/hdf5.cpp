// `hdf5` backend: one file per history file, a dataset per variable, and every
// put() written at once with one H5Dwrite of the whole selection (collective
// unless --independent; a variable with a sole accessor, independent on that
// rank and no call elsewhere, as E3SM-IO writes its unpartitioned variables).  flush() has nothing pending; with params
// flush=1 it calls H5Fflush so the flush phase includes HDF5's own cache.
#include <vector>

#include "backends/hdf5_common.hpp"
#include "core/error.hpp"

namespace iok {
namespace {

class Hdf5File : public h5::Hdf5Base {
public:
    explicit Hdf5File(const BackendConfig& cfg) : Hdf5Base(cfg), flush_(cfg.flag("hdf5.flush")) {}

    bool do_put(int var, const Selection& sel, std::int64_t record, const void* buf) override {
        Target tg = target(var, record, true);  // every rank: extending a record dataset is collective
        if (!moves_data(var, sel)) return false;
        const std::string what = var_what(var);
        h5::Transfer t = transfers_.get(tg.dims, sel, tg.record, what);
        const DType type = spec_.vars[var].type;
        const void* data = buf;
        std::vector<char> staged;
        if (t.permuted()) {
            staged.resize(t.elements * dtype_size(type));
            h5::gather(t, dtype_size(type), buf, staged.data());
            data = staged.data();
        }
        static const char dummy = 0;  // HDF5 rejects a null buffer even for empty selections
        h5::check(H5Dwrite(tg.dset, tg.mem_type, *t.mem_space, *t.file_space, xfer_for(var), data ? data : &dummy),
                  "writing " + what, "see the HDF5 message; with many ranks check the file system quota");
        return true;
    }

    void do_get(int var, const Selection& sel, std::int64_t record, void* buf) override {
        // Every rank reads (collectively), sole accessor or not: the file's
        // metadata reads are collective (coll_metadata_ops), so one rank's
        // first look at a dataset's chunk index cannot be its own.
        Target tg = target(var, record, false);
        const std::string what = var_what(var);
        h5::Transfer t = transfers_.get(tg.dims, sel, tg.record, what);
        const DType type = spec_.vars[var].type;
        std::vector<char> staged;
        void* data = buf;
        if (t.permuted()) {
            staged.resize(t.elements * dtype_size(type));
            data = staged.data();
        }
        char dummy = 0;
        h5::check(H5Dread(tg.dset, tg.mem_type, *t.mem_space, *t.file_space, dxpl_, data ? data : &dummy),
                  "reading " + what, "check the file was written completely (h5dump -H)");
        if (t.permuted()) h5::scatter(t, dtype_size(type), staged.data(), buf);
    }

    // An array of structs: one H5Dwrite per dataset touched, HDF5 gathering
    // the fields from the strided memory itself.
    std::size_t do_put_struct(const StructBuffer& b, const Selection& sel, std::int64_t record) override {
        return move_struct(b, sel, record, true);
    }
    std::size_t do_get_struct(const StructBuffer& b, const Selection& sel, std::int64_t record) override {
        return move_struct(b, sel, record, false);
    }

    void flush() override {
        if (flush_ && file_.get() >= 0) h5::check(H5Fflush(file_, H5F_SCOPE_LOCAL), "H5Fflush '" + path_ + "'");
    }

private:
    bool flush_;  // hdf5.flush: H5Fflush at each flush

    // False on the ranks that leave a sole accessor's variable to it (no
    // H5Dwrite at all there: E3SM-IO's root-only writes, 87 fewer collective
    // writes of the F case's h1 at 16 ranks).  Writes only: see get().
    bool moves_data(int var, const Selection& sel) {
        const int sole = sole_of(var);
        if (sole < 0 || sole == rank_ || xfer_for(var) == dxpl_.get()) return true;  // collective: everyone calls
        if (!sel.empty())
            throw Error(var_what(var) + ": rank " + std::to_string(rank_) +
                            " accesses elements of a variable that rank " + std::to_string(sole) +
                            " was said to access alone",
                        "internal: the plan's sole_rank does not match its selections");
        return false;
    }

    // The number of H5Dwrite/H5Dread calls made (0: cannot, nothing done).
    std::size_t move_struct(const StructBuffer& b, const Selection& sel, std::int64_t record, bool write) {
        const auto transfers = struct_transfers(b, sel, record, write);
        if (transfers.empty()) return 0;
        static char dummy = 0;  // HDF5 rejects a null buffer even for empty selections
        for (const auto& t : transfers) {
            void* buf = t.buf ? t.buf : &dummy;
            const std::string what = var_what(t.var) + " (array of structs)";
            if (write) {
                h5::check(H5Dwrite(t.dset, t.mem_type, *t.mem_space, *t.file_space, dxpl_, buf), "writing " + what);
            } else {
                h5::check(H5Dread(t.dset, t.mem_type, *t.mem_space, *t.file_space, dxpl_, buf), "reading " + what,
                          "check the file was written completely (h5dump -H)");
            }
        }
        return transfers.size();
    }
};

std::unique_ptr<Backend> make(const BackendConfig& cfg) {
    return std::make_unique<LibraryBackend<Hdf5File>>("hdf5", ".h5", cfg);
}

}  // namespace

static BackendInfo describe() {
    BackendInfo b = h5::describe_common();
    b.name = "hdf5";
    b.description = "HDF5: a dataset per variable, one H5Dwrite per variable and record";
    b.factory = make;
    b.options.push_back({"hdf5.flush", "0", "H5Fflush after every flush of records", {"0", "1"}});
    return b;
}

IOK_REGISTER_BACKEND(hdf5, describe)

}  // namespace iok
