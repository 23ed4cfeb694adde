// `hdf5_md` backend: HDF5's multi-dataset I/O (H5Dwrite_multi/H5Dread_multi,
// HDF5 >= 1.14).  put()/get() only queue (dataset, memory space, file space,
// buffer); flush() moves every queued variable with one call, so HDF5 can
// merge all of them into one collective MPI-IO operation.  A dataset may
// appear once per call, so a flush holding several records of a variable
// issues one call per record "layer" (deterministic, the same on all ranks).
#include <set>
#include <vector>

#include "backends/hdf5_common.hpp"
#include "core/error.hpp"

namespace iok {
namespace {

#if H5_VERSION_GE(1, 14, 0)

class Hdf5MdFile : public h5::Hdf5Base {
public:
    using Hdf5Base::Hdf5Base;

    bool do_put(int var, const Selection& sel, std::int64_t record, const void* buf) override {
        enqueue(var, sel, record, const_cast<void*>(buf), true);
        return true;
    }
    void do_get(int var, const Selection& sel, std::int64_t record, void* buf) override {
        enqueue(var, sel, record, buf, false);
    }

    std::size_t do_put_struct(const StructBuffer& b, const Selection& sel, std::int64_t record) override {
        return enqueue_struct(b, sel, record, true);
    }
    std::size_t do_get_struct(const StructBuffer& b, const Selection& sel, std::int64_t record) override {
        return enqueue_struct(b, sel, record, false);
    }

    void flush() override {
        std::size_t begin = 0;
        while (begin < queue_.size()) {
            // [begin, end): the longest run of requests with distinct datasets.
            // Fields of one compound dataset are one dataset: one per call too.
            std::set<hid_t> seen;
            std::size_t end = begin;
            while (end < queue_.size() && seen.insert(queue_[end].dset).second) ++end;
            issue(begin, end);
            begin = end;
        }
        queue_.clear();
    }

    void close() override {
        if (!queue_.empty()) flush();
        Hdf5Base::close();
    }

private:
    struct Pending {
        int var;
        bool write;
        hid_t dset;      // owned by Hdf5Base until close
        hid_t mem_type;  // idem (or a library type)
        h5::Transfer t;
        void* user;
        std::vector<char> staged;                // file-ordered copy when the blocks are not
        std::shared_ptr<h5::Handle> type_owner;  // array-of-structs memory type
    };

    // The number of transfers queued (0: cannot, nothing queued).
    std::size_t enqueue_struct(const StructBuffer& b, const Selection& sel, std::int64_t record, bool write) {
        auto transfers = struct_transfers(b, sel, record, write);
        // HDF5 1.14.5's H5Dread_multi leaves the user buffer untouched when
        // several datasets are read into parts of one struct through compound
        // memory types (H5Dread of each is right; the unit test shows both):
        // such reads take the packed path instead.
        if (!write && transfers.size() > 1)
            for (const auto& t : transfers)
                if (t.type_owner) return 0;
        for (auto& t : transfers) {
            h5::Transfer tr;
            tr.file_space = t.file_space;
            tr.mem_space = t.mem_space;
            queue_.push_back({t.var, write, t.dset, t.mem_type, tr, t.buf, {}, t.type_owner});
        }
        return transfers.size();
    }

    void enqueue(int var, const Selection& sel, std::int64_t record, void* buf, bool write) {
        Target tg = target(var, record, write);  // extends record datasets now (collective)
        Pending p{var, write, tg.dset, tg.mem_type, transfers_.get(tg.dims, sel, tg.record, var_what(var)),
                  buf, {},    {}};
        const std::size_t elem = dtype_size(spec_.vars[var].type);
        if (p.t.permuted()) {
            p.staged.resize(p.t.elements * elem);
            if (write) h5::gather(p.t, elem, buf, p.staged.data());
        }
        queue_.push_back(std::move(p));
    }

    void issue(std::size_t begin, std::size_t end) {
        static char dummy = 0;  // HDF5 rejects null buffers even for empty selections
        std::vector<hid_t> ds, mt, ms, fs;
        std::vector<void*> bufs;
        bool write = queue_[begin].write;
        for (std::size_t i = begin; i < end; ++i) {
            Pending& p = queue_[i];
            if (p.write != write)
                throw Error("hdf5_md: reads and writes queued before one flush", "flush() between writing and reading");
            ds.push_back(p.dset);
            mt.push_back(p.mem_type);
            ms.push_back(*p.t.mem_space);
            fs.push_back(*p.t.file_space);
            void* b = p.staged.empty() ? p.user : p.staged.data();
            bufs.push_back(b ? b : &dummy);
        }
        const std::string what = std::to_string(end - begin) + " variables of file '" + path_ + "'";
        if (write) {
            std::vector<const void*> cb(bufs.begin(), bufs.end());
            h5::check(H5Dwrite_multi(ds.size(), ds.data(), mt.data(), ms.data(), fs.data(), dxpl_, cb.data()),
                      "H5Dwrite_multi of " + what, "try the `hdf5` backend to see which variable fails");
        } else {
            h5::check(H5Dread_multi(ds.size(), ds.data(), mt.data(), ms.data(), fs.data(), dxpl_, bufs.data()),
                      "H5Dread_multi of " + what, "try the `hdf5` backend to see which variable fails");
            for (std::size_t i = begin; i < end; ++i) {
                Pending& p = queue_[i];
                if (!p.staged.empty()) h5::scatter(p.t, dtype_size(spec_.vars[p.var].type), p.staged.data(), p.user);
            }
        }
    }

    std::vector<Pending> queue_;
};

std::unique_ptr<Backend> make(const BackendConfig& cfg) {
    return std::make_unique<LibraryBackend<Hdf5MdFile>>("hdf5_md", ".h5", cfg);
}

#else

std::unique_ptr<Backend> make(const BackendConfig&) {
    throw Error("hdf5_md needs HDF5 >= 1.14 (this build has " H5_VERS_STR ")",
                "H5Dwrite_multi appeared in HDF5 1.14.0; rebuild against a newer parallel HDF5 or "
                "use the `hdf5` backend");
}

#endif

}  // namespace

static BackendInfo describe() {
    BackendInfo b = h5::describe_common();
    b.name = "hdf5_md";
    b.description = H5_VERSION_GE(1, 14, 0)
                        ? "HDF5 multi-dataset I/O: one H5Dwrite_multi over all variables per flush"
                        : "HDF5 multi-dataset I/O (unavailable: needs HDF5 >= 1.14, this build has " H5_VERS_STR ")";
    b.factory = make;
    b.caps.nonblocking = true;  // requests are gathered until flush
    return b;
}

IOK_REGISTER_BACKEND(hdf5_md, describe)

}  // namespace iok
