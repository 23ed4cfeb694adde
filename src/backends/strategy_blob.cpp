// The blob strategy: ranks are split into groups (one per compute node, or
// `subfiles` groups of consecutive ranks); each group writes one subfile in
// which every rank's data of a variable is stored contiguously, so each rank
// hands the library one contiguous piece per variable and record instead of
// thousands of small runs.  The blocks each rank owned are stored beside the
// data, so blob_replay can rebuild the canonical file with any process count.
// Layout: see strategy_blob_layout.hpp.
//
// put() happens after define(), and the subfile's variable lengths depend on
// every rank's element counts, so the subfile is created and defined at the
// first flush, when the selections of the first record group are known (one
// allgather within the group).  Later records must reuse those selections
// (the runner's plans do); a change is reported, not silently mis-stored.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <vector>

#include "backends/strategy.hpp"
#include "backends/strategy_blob_layout.hpp"
#include "core/collective.hpp"
#include "core/command_line.hpp"
#include "core/error.hpp"

namespace iok {
namespace {

struct Pending {
    int var;
    const Selection* sel;
    std::int64_t record;
    void* buf;
};

using Seq = std::vector<const Selection*>;  // the selections one variable was put with in one record

// One blob output open: this rank's group, its subfile (a File of the
// library, opened at the first flush when writing) and the blocks to record.
class BlobFile final : public File {
public:
    BlobFile(Backend& library, int subfiles) : lib_(library), requested_(subfiles) {}
    ~BlobFile() override {
        if (group_ != MPI_COMM_NULL) MPI_Comm_free(&group_);
    }

    std::string library() const override {
        return subfile_ ? subfile_->library() : backend_info(lib_.name()).library_version();
    }

    void create(const std::string& path, const FileSpec& spec, MPI_Comm comm) {
        start(path, spec, comm, true);
        bind(path, spec, true);
        make_groups();
        collective_step(comm_, [&] {
            if (rank_ == 0) make_output_directory(dir_, kBlobIndexName);
        });
    }

    void define(const FileSpec& spec) override { spec_ = spec; }

    void open(const std::string& path, const FileSpec& spec, MPI_Comm comm) {
        start(path, spec, comm, false);
        bind(path, spec, false);
        BlobIndex x = read_blob_index(path, comm);
        if (x.writers != size_)
            throw Error(path + " was written by " + std::to_string(x.writers) + " processes, read with " +
                            std::to_string(size_),
                        "read it with " + std::to_string(x.writers) +
                            " processes, or rebuild the canonical file with blob_replay and read that");
        if (x.library != lib_.name())
            throw Error(path + " holds " + x.library + " subfiles, not " + lib_.name(), "use -a " + x.library);
        if (x.spec.vars.size() != spec.vars.size())
            throw Error(path + " holds " + std::to_string(x.spec.vars.size()) + " variables, the plan " +
                            std::to_string(spec.vars.size()),
                        "read it with the case it was written with");
        for (std::size_t v = 0; v < spec.vars.size(); ++v)
            if (x.spec.vars[v].name != spec.vars[v].name)
                throw Error(path + ": variable " + std::to_string(v) + " is " + x.spec.vars[v].name + ", expected " +
                                spec.vars[v].name,
                            "read it with the case it was written with");
        std::size_t k = 0, pos = 0;
        bool found = false;
        for (std::size_t s = 0; s < x.subfiles.size() && !found; ++s)
            for (std::size_t i = 0; i < x.subfiles[s].ranks.size(); ++i)
                if (x.subfiles[s].ranks[i] == rank_) k = s, pos = i, found = true;
        MPI_Comm_split(comm_, static_cast<int>(k), static_cast<int>(pos), &group_);
        MPI_Comm_rank(group_, &grank_);
        nsubfiles_ = x.subfiles.size();
        sub_ = x.subfiles[k];
        gindex_ = k;
        layout_ = blob_subfile_spec(spec_, sub_, k, nsubfiles_);
        subfile_ = lib_.open(blob_subfile_path(dir_, k, x.extension), layout_.spec, group_);
        make_slices();
        // this rank's blocks, to check that reads ask for what was written
        my_blocks_.assign(sub_.sels.size(), {});
        for (std::size_t s = 0; s < sub_.sels.size(); ++s) {
            const BlobSel& b = sub_.sels[s];
            my_blocks_[s].resize(static_cast<std::size_t>(b.nblocks[grank_] * 2 * b.ndims));
            if (layout_.blocks_index[s] >= 0)
                subfile_->get(layout_.blocks_index[s], *block_slices_[s], 0, my_blocks_[s].data());
        }
        subfile_->flush();
        defined_ = true;
    }

    bool do_put(int var, const Selection& sel, std::int64_t record, const void* buf) override {
        pending_.push_back({var, &sel, record, const_cast<void*>(buf)});
        max_record_ =
            std::max(max_record_, spec_.vars[static_cast<std::size_t>(var)].is_record(spec_) ? record + 1 : 0);
        return true;
    }

    void do_get(int var, const Selection& sel, std::int64_t record, void* buf) override {
        pending_.push_back({var, &sel, record, buf});
    }

    void flush() override {
        if (writing_) {
            if (!defined_) define_subfile();
            write_pending();
            subfile_->flush();
        } else {
            read_pending();
        }
        pending_.clear();
        keep_.clear();
        blocks_out_.clear();
    }

    void close() override {
        if (writing_ && !defined_) define_subfile();
        subfile_->close();
        if (writing_) write_index();
        MPI_Comm_free(&group_);
        group_ = MPI_COMM_NULL;
        slices_.clear();
        block_slices_.clear();
        pending_.clear();
        keep_.clear();
    }

    MPI_Info info_in_effect() override { return subfile_ ? subfile_->info_in_effect() : MPI_INFO_NULL; }
    // The library's subfile's counts (its put/get calls), not the requests given here.
    BackendStats stats() const override { return subfile_ ? subfile_->stats() : BackendStats{}; }

private:
    void start(const std::string& path, const FileSpec& spec, MPI_Comm comm, bool writing) {
        comm_ = comm;
        MPI_Comm_rank(comm, &rank_);
        MPI_Comm_size(comm, &size_);
        dir_ = path;
        spec_ = spec.layout();  // a writer's attributes come with define()
        writing_ = writing;
        defined_ = false;
        max_record_ = 0;
        seq_.assign(spec.vars.size(), {});
        validated_.assign(spec.vars.size(), {});
    }

    void make_groups() {
        ProcessGroups g = split_into_groups(comm_, requested_);
        group_ = g.comm;
        gindex_ = g.index;
        nsubfiles_ = g.count;
        MPI_Comm_rank(group_, &grank_);
        MPI_Comm_size(group_, &gsize_);
    }

    // The pending requests cut into runs of one variable and record (a
    // variable may be put with several selections per record, e.g. data and
    // fill).
    template <class F>
    void for_each_request(F&& fn) {
        for (std::size_t i = 0; i < pending_.size();) {
            std::size_t j = i + 1;
            while (j < pending_.size() && pending_[j].var == pending_[i].var &&
                   pending_[j].record == pending_[i].record)
                ++j;
            fn(i, j);
            i = j;
        }
    }

    Seq seq_of(std::size_t i, std::size_t j) const {
        Seq s;
        for (std::size_t k = i; k < j; ++k) s.push_back(pending_[k].sel);
        return s;
    }

    static std::vector<std::int64_t> seq_ints(const Seq& s) {
        std::vector<std::int64_t> v;
        std::size_t n = 0;
        for (const Selection* x : s) n += x->nblocks() * 2 * static_cast<std::size_t>(x->ndims());
        v.reserve(n);
        for (const Selection* x : s) append_blocks_as_ints(*x, v);
        return v;
    }

    static std::uint64_t seq_elements(const Seq& s) {
        std::uint64_t n = 0;
        for (const Selection* x : s) n += x->elements();
        return n;
    }

    void define_subfile() {
        const std::size_t nvars = spec_.vars.size();
        for_each_request([&](std::size_t i, std::size_t j) {
            auto& s = seq_[static_cast<std::size_t>(pending_[i].var)];
            if (s.empty()) s = seq_of(i, j);
        });
        // Variables put with the same selections share one entry; a group
        // entry needs the same on every rank of the group.
        std::map<Seq, int> first;
        std::vector<int> key(nvars);
        for (std::size_t v = 0; v < nvars; ++v) {
            Seq k = seq_[v];  // empty selections are all alike, whichever object stands for them
            for (auto& x : k)
                if (x->empty()) x = nullptr;
            key[v] = first.emplace(k, static_cast<int>(v)).first->second;
        }
        std::vector<int> keys(nvars * static_cast<std::size_t>(gsize_));
        MPI_Allgather(key.data(), static_cast<int>(nvars), MPI_INT, keys.data(), static_cast<int>(nvars), MPI_INT,
                      group_);
        std::map<std::vector<int>, int> sel_id;
        std::vector<std::size_t> representative;
        sub_ = BlobSubfile{};
        sub_.var_sel.assign(nvars, 0);
        for (std::size_t v = 0; v < nvars; ++v) {
            std::vector<int> column(static_cast<std::size_t>(gsize_));
            for (int r = 0; r < gsize_; ++r)
                column[static_cast<std::size_t>(r)] = keys[static_cast<std::size_t>(r) * nvars + v];
            auto it = sel_id.emplace(column, static_cast<int>(representative.size()));
            if (it.second) representative.push_back(v);
            sub_.var_sel[v] = it.first->second;
        }
        const std::size_t nsel = representative.size();
        std::vector<std::int64_t> mine(2 * nsel), all(2 * nsel * static_cast<std::size_t>(gsize_));
        std::vector<std::vector<std::int64_t>> ints(nsel);
        for (std::size_t s = 0; s < nsel; ++s) {
            const Seq& q = seq_[representative[s]];
            ints[s] = seq_ints(q);
            std::int64_t nb = 0;
            for (const Selection* x : q) nb += static_cast<std::int64_t>(x->nblocks());
            mine[2 * s] = nb;
            mine[2 * s + 1] = static_cast<std::int64_t>(seq_elements(q));
        }
        MPI_Allgather(mine.data(), static_cast<int>(2 * nsel), MPI_INT64_T, all.data(), static_cast<int>(2 * nsel),
                      MPI_INT64_T, group_);
        sub_.ranks.resize(static_cast<std::size_t>(gsize_));
        MPI_Allgather(&rank_, 1, MPI_INT, sub_.ranks.data(), 1, MPI_INT, group_);
        for (std::size_t s = 0; s < nsel; ++s) {
            BlobSel b;
            b.ndims = static_cast<int>(spec_.fixed_shape(spec_.vars[representative[s]]).size());
            for (int r = 0; r < gsize_; ++r) {
                b.nblocks.push_back(all[static_cast<std::size_t>(r) * 2 * nsel + 2 * s]);
                b.nelems.push_back(all[static_cast<std::size_t>(r) * 2 * nsel + 2 * s + 1]);
            }
            sub_.sels.push_back(std::move(b));
        }
        layout_ = blob_subfile_spec(spec_, sub_, gindex_, nsubfiles_);
        subfile_ = lib_.create(blob_subfile_path(dir_, gindex_, lib_.extension()), layout_.spec, group_);
        subfile_->define(layout_.spec);
        make_slices();
        // the library may byte-swap a put buffer in place until the flush
        // (PnetCDF does): write a copy, keep my_blocks_ for the checks
        my_blocks_ = ints;
        blocks_out_ = std::move(ints);
        // The first record's selections are what the subfile describes: no
        // need to re-encode them to check them (a selection shared by 323 of
        // the F case's variables was encoded 323 times: 4% of a rank's CPU).
        validated_ = seq_;
        for (std::size_t s = 0; s < nsel; ++s)
            if (layout_.blocks_index[s] >= 0)
                subfile_->put(layout_.blocks_index[s], *block_slices_[s], 0, blocks_out_[s].data());
        defined_ = true;
    }

    // This rank's contiguous piece of every subfile variable.
    void make_slices() {
        slices_.assign(spec_.vars.size(), nullptr);
        for (std::size_t v = 0; v < spec_.vars.size(); ++v) {
            if (layout_.var_index[v] < 0) continue;
            const BlobSel& b = sub_.sels[static_cast<std::size_t>(sub_.var_sel[v])];
            slices_[v] = slice({layout_.var_length[v]}, blob_elem_offset(b, static_cast<std::size_t>(grank_)),
                               b.nelems[static_cast<std::size_t>(grank_)]);
        }
        block_slices_.assign(sub_.sels.size(), nullptr);
        for (std::size_t s = 0; s < sub_.sels.size(); ++s) {
            const BlobSel& b = sub_.sels[s];
            if (layout_.blocks_index[s] < 0) continue;
            block_slices_[s] = slice({static_cast<std::uint64_t>(blob_block_offset(b, b.nblocks.size()))},
                                     blob_block_offset(b, static_cast<std::size_t>(grank_)),
                                     b.nblocks[static_cast<std::size_t>(grank_)] * 2 * b.ndims);
        }
    }

    // Selections stay alive until close: backends may cache per selection.
    std::shared_ptr<Selection> slice(std::vector<std::uint64_t> shape, std::int64_t start, std::int64_t count) {
        auto s = std::make_shared<Selection>(count > 0 ? Selection::block(shape, {start}, {count}) : Selection(shape));
        return s;
    }

    // Checks that variable v's requests in one record use what the subfile
    // describes; throws naming the variable otherwise.
    void check_seq(int var, const Seq& s) {
        const auto v = static_cast<std::size_t>(var);
        if (s == validated_[v]) return;
        const VarSpec& vs = spec_.vars[v];
        const BlobSel& b = sub_.sels[static_cast<std::size_t>(sub_.var_sel[v])];
        bool same = seq_elements(s) == static_cast<std::uint64_t>(b.nelems[static_cast<std::size_t>(grank_)]);
        if (same) same = seq_ints(s) == my_blocks_[static_cast<std::size_t>(sub_.var_sel[v])];
        if (same) {
            validated_[v] = s;
            return;
        }
        std::string what = "blob: variable " + vs.name + " (" + std::to_string(seq_elements(s)) + " elements in " +
                           std::to_string(s.size()) + " selection(s), expected " +
                           std::to_string(b.nelems[static_cast<std::size_t>(grank_)]) +
                           ") is accessed with other blocks than " +
                           (writing_ ? "in its first record" : "were written");
        if (writing_) throw Error(what, "the blob strategy needs the same selection in every record");
        // Each rank's subfile holds the blocks that rank wrote: a read of
        // other blocks is not expressible in this layout (exit 2), not a fault.
        throw Unsupported(what + " (a blob file is read back by the blocks each process wrote)",
                          "read with the decomposition and process count it was written with, or rebuild the "
                          "canonical file with blob_replay");
    }

    void write_pending() {
        for_each_request([&](std::size_t i, std::size_t j) {
            const int var = pending_[i].var;
            const auto v = static_cast<std::size_t>(var);
            check_seq(var, seq_of(i, j));
            if (layout_.var_index[v] < 0) return;  // nobody in the group holds any of it
            const void* data = pending_[i].buf;
            if (j - i > 1) {  // several selections: one contiguous piece
                const std::size_t esz = dtype_size(spec_.vars[v].type);
                keep_.emplace_back(seq_elements(seq_of(i, j)) * esz + 1);
                unsigned char* at = keep_.back().data();
                for (std::size_t k = i; k < j; ++k) {
                    const std::size_t n = pending_[k].sel->elements() * esz;
                    std::memcpy(at, pending_[k].buf, n);
                    at += n;
                }
                data = keep_.back().data();
            }
            subfile_->put(layout_.var_index[v], *slices_[v], pending_[i].record, data);
        });
    }

    void read_pending() {
        struct Scatter {
            std::size_t i, j, temp;
        };
        std::vector<Scatter> scatter;
        for_each_request([&](std::size_t i, std::size_t j) {
            const int var = pending_[i].var;
            const auto v = static_cast<std::size_t>(var);
            check_seq(var, seq_of(i, j));
            if (layout_.var_index[v] < 0) return;
            void* into = pending_[i].buf;
            if (j - i > 1) {
                keep_.emplace_back(seq_elements(seq_of(i, j)) * dtype_size(spec_.vars[v].type) + 1);
                scatter.push_back({i, j, keep_.size() - 1});
                into = keep_.back().data();
            }
            subfile_->get(layout_.var_index[v], *slices_[v], pending_[i].record, into);
        });
        subfile_->flush();
        for (const Scatter& s : scatter) {
            const std::size_t esz = dtype_size(spec_.vars[static_cast<std::size_t>(pending_[s.i].var)].type);
            const unsigned char* at = keep_[s.temp].data();
            for (std::size_t k = s.i; k < s.j; ++k) {
                const std::size_t n = pending_[k].sel->elements() * esz;
                std::memcpy(pending_[k].buf, at, n);
                at += n;
            }
        }
    }

    // blob.json: rank 0 gathers every group's description and writes it last,
    // so its presence marks a complete output.
    void write_index() {
        std::string mine = grank_ == 0 ? blob_subfile_to_json(sub_) : std::string();
        int len = static_cast<int>(mine.size());
        std::vector<int> lens(static_cast<std::size_t>(size_)), displs(static_cast<std::size_t>(size_));
        MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm_);
        int total = 0;
        for (int r = 0; r < size_; ++r)
            displs[static_cast<std::size_t>(r)] = total, total += lens[static_cast<std::size_t>(r)];
        std::string all(static_cast<std::size_t>(total), '\0');
        MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, comm_);
        std::vector<int> colors(static_cast<std::size_t>(size_));
        const int color = static_cast<int>(gindex_);
        MPI_Gather(&color, 1, MPI_INT, colors.data(), 1, MPI_INT, 0, comm_);
        long long nrec = max_record_, maxrec = 0;
        MPI_Reduce(&nrec, &maxrec, 1, MPI_LONG_LONG, MPI_MAX, 0, comm_);
        collective_step(comm_, [&] {
            if (rank_ != 0) return;
            BlobIndex x;
            x.spec = spec_;
            x.library = lib_.name();
            x.extension = lib_.extension();
            x.writers = size_;
            x.nrecords = maxrec;
            x.subfiles.resize(nsubfiles_);
            std::vector<bool> have(nsubfiles_, false);
            for (int r = 0; r < size_; ++r) {
                if (!lens[static_cast<std::size_t>(r)]) continue;
                BlobSubfile s =
                    blob_subfile_from_json(all.substr(static_cast<std::size_t>(displs[static_cast<std::size_t>(r)]),
                                                      static_cast<std::size_t>(lens[static_cast<std::size_t>(r)])));
                const std::size_t k = static_cast<std::size_t>(colors[static_cast<std::size_t>(r)]);
                if (k >= nsubfiles_ || have[k]) throw Error("blob: two groups claim subfile " + std::to_string(k));
                have[k] = true;
                x.subfiles[k] = std::move(s);
            }
            for (std::size_t k = 0; k < nsubfiles_; ++k)
                if (!have[k]) throw Error("blob: subfile " + std::to_string(k) + " has no description");
            const std::string path = dir_ + "/" + kBlobIndexName;
            std::ofstream out(path);
            out << blob_index_to_json(x) << "\n";
            if (!out) throw Error("cannot write " + path, "check free space and permissions");
        });
    }

private:
    Backend& lib_;                   // the library the subfiles are written with
    std::unique_ptr<File> subfile_;  // this group's subfile
    int requested_;
    MPI_Comm comm_ = MPI_COMM_NULL, group_ = MPI_COMM_NULL;
    int rank_ = 0, size_ = 1, grank_ = 0, gsize_ = 1;
    std::size_t gindex_ = 0, nsubfiles_ = 1;
    std::string dir_;
    FileSpec spec_;
    bool writing_ = true, defined_ = false;
    std::int64_t max_record_ = 0;
    BlobSubfile sub_;
    BlobSubfileSpec layout_;
    std::vector<Seq> seq_, validated_;
    std::vector<std::vector<std::int64_t>> my_blocks_, blocks_out_;
    std::vector<std::shared_ptr<Selection>> slices_, block_slices_;
    std::vector<Pending> pending_;
    std::vector<std::vector<unsigned char>> keep_;
};

class BlobBackend final : public Backend {
public:
    BlobBackend(std::unique_ptr<Backend> inner, int subfiles) : inner_(std::move(inner)), subfiles_(subfiles) {}

    std::string name() const override { return inner_->name(); }
    std::string extension() const override { return inner_->extension(); }
    std::unique_ptr<File> create(const std::string& path, const FileSpec& spec, MPI_Comm comm) override {
        auto f = std::make_unique<BlobFile>(*inner_, subfiles_);
        f->create(path, spec, comm);
        return f;
    }
    std::unique_ptr<File> open(const std::string& path, const FileSpec& spec, MPI_Comm comm,
                               Access access = Access::Read) override {
        if (access == Access::Update)
            throw Error("the blob strategy cannot update '" + path +
                            "': its subfiles hold each process group's blocks in the order they were written, indexed "
                            "once at close",
                        "write a new output with -x blob, or overwrite/append with -x canonical or -x rearrange");
        auto f = std::make_unique<BlobFile>(*inner_, subfiles_);
        f->open(path, spec, comm);
        return f;
    }

private:
    std::unique_ptr<Backend> inner_;
    int subfiles_;
};

}  // namespace

std::unique_ptr<Backend> make_blob_backend(std::unique_ptr<Backend> inner, int subfiles) {
    return std::make_unique<BlobBackend>(std::move(inner), subfiles);
}

}  // namespace iok

namespace iok {
namespace {

// Each rank's data of a variable is one contiguous piece of the subfile, so
// collective buffering only adds copies: one aggregator per subfile (ROMIO's
// cb_nodes is one per node) gathers every piece through shared memory and
// writes them alone while the other ranks wait.  So unless blob.aggregate=1
// the library writes the subfiles independently, each rank its own pieces,
// and ROMIO is told not to sieve (romio_ds_write/romio_ds_read=disable unless
// given): with data sieving an independent access reads and locks the other
// ranks' pieces between a rank's own.  Measured: ne30 F, pnetcdf, 16 ranks on
// 2 cores, -r 5, whole process, back to back: ROMIO 4.8 s aggregated, 3.2 s
// not; OMPIO 4.9 s, 3.1 s (bench/README.md).
std::unique_ptr<Backend> make_registered(const std::string& library, const BackendConfig& cfg) {
    BackendConfig inner = cfg;
    inner.collective = cfg.collective && cfg.flag("blob.aggregate");
    return make_blob_backend(make_backend(library, inner), strategy_count_param(cfg, "blob.subfiles"));
}

// ADIOS2 takes its engine parameters in any case ("adios.aggregationtype").
bool has_param_any_case(const BackendConfig& cfg, const std::string& key) {
    return std::any_of(cfg.params.begin(), cfg.params.end(),
                       [&](const auto& kv) { return lowercase(kv.first) == lowercase(key); });
}

// The same for ADIOS2, whose calls have no independent form: BP5 by default
// gathers every rank's data of a step at one aggregator per node through
// shared memory (AggregationType=TwoLevelShm); with EveryoneWrites each rank
// writes its own pieces into the same data file, whose layout is otherwise
// the same.  Measured (bench/README.md): ne30 F, 16 ranks on 2 cores, -r 5,
// whole process, 9.3 s -> 4.9 s; the 16-process F map's h0 0.22 -> 0.17 s.
void library_settings(const std::string& library, BackendConfig& cfg) {
    if (cfg.flag("blob.aggregate")) return;
    set_default_hint(cfg.hints, "romio_ds_write", "disable");
    set_default_hint(cfg.hints, "romio_ds_read", "disable");
    if (library == "adios" && lowercase(cfg.param("adios.engine")) == "bp5" &&
        !has_param_any_case(cfg, "adios.AggregationType"))
        cfg.params["adios.AggregationType"] = "EveryoneWrites";
}

StrategyInfo describe() {
    StrategyInfo s;
    s.name = "blob";
    s.description =
        "per group of ranks one subfile of the library, each rank's data contiguous, plus the "
        "blocks to rebuild the canonical layout";
    s.options = {{"blob.subfiles", "0", "number of subfiles (0 = one per node; -g sets it)", {}},
                 {"blob.aggregate",
                  "0",
                  "0: each rank accesses its own contiguous pieces of the subfile (library I/O independent, "
                  "romio_ds_write/romio_ds_read=disable and ADIOS2 BP5 AggregationType=EveryoneWrites unless "
                  "given); 1: library I/O collective, as E3SM-IO's blob (the MPI-IO layer's collective buffering "
                  "or ADIOS2's aggregation gathers the pieces at an aggregator)",
                  {"0", "1"}}};
    s.make = make_registered;
    s.library_settings = library_settings;
    s.library_io_independent = true;  // unless blob.aggregate=1
    s.output_is_directory = true;
    s.read_needs_same_ranks = true;
    s.read_back = "-i / --verify with the writer's rank count; blob_replay rebuilds the canonical file";
    return s;
}

}  // namespace
}  // namespace iok

IOK_REGISTER_STRATEGY(blob, iok::describe)
