// The log strategy (E3SM-IO's hdf5_log, built natively: the reference needs
// the external HDF5 Log VOL plug-in).  Each process group (one per node, or
// `subfiles` groups) appends every put's bytes, in arrival order, to one log
// file; each flush is one collective MPI_File_write_at_all in which the
// group's ranks lie back to back.  An index records, per put, the variable,
// record, selection blocks and log offset.  Writing costs one contiguous
// append per rank and flush whatever the decomposition; log_replay rebuilds
// the canonical file (any process count), and a run with the writer's process
// count can read the log back directly.  Layout: strategy_log_layout.hpp.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <vector>

#include "backends/strategy.hpp"
#include "backends/strategy_blob_layout.hpp"
#include "backends/strategy_log_layout.hpp"
#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/mpi_layer.hpp"

namespace iok {
namespace {

struct Pending {
    int var;
    const Selection* sel;
    std::int64_t record;
    void* buf;
    std::size_t bytes;
};

std::string mpi_library() {
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(v, &n);
    std::string s(v, static_cast<std::size_t>(n));
    return "MPI-IO, " + s.substr(0, s.find_first_of(",\n"));
}

// What to check when an MPI call on the log output fails (core's check_mpi).
const char* const kLogHint = "check the log output directory";

// One log output open: this rank's group, its log file and the index.
class LogFile final : public File {
public:
    LogFile(int subfiles, MPI_Info hints) : requested_(subfiles), hints_(hints) {}
    ~LogFile() override {
        if (fh_ != MPI_FILE_NULL) MPI_File_close(&fh_);
        if (group_ != MPI_COMM_NULL) MPI_Comm_free(&group_);
    }

    std::string library() const override { return mpi_library() + " (native log layout)"; }

    void create(const std::string& path, const FileSpec& spec, MPI_Comm comm) {
        start(path, spec, comm, true);
        bind(path, spec, true);
        ProcessGroups g = split_into_groups(comm_, requested_);
        group_ = g.comm;
        gindex_ = g.index;
        ngroups_ = g.count;
        MPI_Comm_rank(group_, &grank_);
        collective_step(comm_, [&] {
            if (rank_ == 0) make_output_directory(dir_, kLogIndexName);
        });
        check_mpi(MPI_File_open(group_, log_data_path(dir_, gindex_).c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, hints_,
                                &fh_),
                  "MPI_File_open", "create " + log_data_path(dir_, gindex_), kLogHint);
    }

    void define(const FileSpec& spec) override { spec_ = spec; }

    void open(const std::string& path, const FileSpec& spec, MPI_Comm comm) {
        start(path, spec, comm, false);
        bind(path, spec, false);
        LogIndex x = read_log_index(path, comm);
        if (x.writers != size_)
            throw Error(path + " was written by " + std::to_string(x.writers) + " processes, read with " +
                            std::to_string(size_),
                        "read it with " + std::to_string(x.writers) +
                            " processes, or rebuild the canonical file with log_replay and read that");
        if (x.spec.vars.size() != spec.vars.size())
            throw Error(path + " holds another file's variables", "read it with the case it was written with");
        std::size_t k = 0, pos = 0;
        for (std::size_t g = 0; g < x.groups.size(); ++g)
            for (std::size_t i = 0; i < x.groups[g].ranks.size(); ++i)
                if (x.groups[g].ranks[i] == rank_) k = g, pos = i;
        MPI_Comm_split(comm_, static_cast<int>(k), static_cast<int>(pos), &group_);
        gindex_ = k;
        check_mpi(MPI_File_open(group_, log_data_path(dir_, k).c_str(), MPI_MODE_RDONLY, hints_, &fh_), "MPI_File_open",
                  "open " + log_data_path(dir_, k), kLogHint);
        MPI_File ih;
        check_mpi(MPI_File_open(group_, log_index_path(dir_, k).c_str(), MPI_MODE_RDONLY, hints_, &ih), "MPI_File_open",
                  "open " + log_index_path(dir_, k), kLogHint);
        std::vector<std::int64_t> raw(static_cast<std::size_t>(x.groups[k].index_length[pos]));
        MPI_File_read_at_all(ih, static_cast<MPI_Offset>(x.groups[k].index_offset[pos]) * 8, raw.data(),
                             static_cast<int>(raw.size()), MPI_INT64_T, MPI_STATUS_IGNORE);
        MPI_File_close(&ih);
        index_ = log_parse(raw, log_index_path(dir_, k));
        for (std::size_t e = 0; e < index_.entries.size(); ++e)
            lookup_[{index_.entries[e].var, index_.entries[e].record}].push_back(e);
    }

    bool do_put(int var, const Selection& sel, std::int64_t record, const void* buf) override {
        const std::size_t n = sel.elements() * dtype_size(spec_.vars[static_cast<std::size_t>(var)].type);
        pending_.push_back({var, &sel, record, const_cast<void*>(buf), n});
        if (spec_.vars[static_cast<std::size_t>(var)].is_record(spec_)) max_record_ = std::max(max_record_, record + 1);
        return true;
    }

    void do_get(int var, const Selection& sel, std::int64_t record, void* buf) override {
        const std::size_t n = sel.elements() * dtype_size(spec_.vars[static_cast<std::size_t>(var)].type);
        pending_.push_back({var, &sel, record, buf, n});
    }

    void flush() override {
        if (writing_)
            append();
        else
            read_back();
        pending_.clear();
    }

    void close() override {
        if (writing_) write_index();
        if (fh_ != MPI_FILE_NULL) MPI_File_close(&fh_);
        MPI_Comm_free(&group_);
        group_ = MPI_COMM_NULL;
        pending_.clear();
    }

    MPI_Info info_in_effect() override {
        MPI_Info info = MPI_INFO_NULL;
        if (fh_ != MPI_FILE_NULL) MPI_File_get_info(fh_, &info);
        return info;
    }

private:
    void start(const std::string& path, const FileSpec& spec, MPI_Comm comm, bool writing) {
        comm_ = comm;
        MPI_Comm_rank(comm, &rank_);
        MPI_Comm_size(comm, &size_);
        dir_ = path;
        spec_ = spec;
        writing_ = writing;
        end_ = 0;
        max_record_ = 0;
        index_ = LogWriterIndex{};
        sel_id_.clear();
        lookup_.clear();
        seen_.clear();
    }

    std::int64_t sel_id(const Selection* s) {
        auto it = sel_id_.find(s->id());
        if (it != sel_id_.end()) return it->second;
        LogSel ls;
        ls.ndims = s->ndims();
        ls.nblocks = static_cast<std::int64_t>(s->nblocks());
        ls.ints = blocks_to_ints(*s);
        index_.sels.push_back(std::move(ls));
        return sel_id_[s->id()] = static_cast<std::int64_t>(index_.sels.size() - 1);
    }

    // One collective append per flush: my bytes after the lower group ranks'.
    void append() {
        long long mine = 0;
        for (const Pending& p : pending_) mine += static_cast<long long>(p.bytes);
        if (mine > INT_MAX)
            throw Error("log: more than 2 GiB per rank in one flush", "flush more often (-f / flush_every)");
        long long before = 0, total = 0;
        MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, group_);
        if (grank_ == 0) before = 0;
        MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, group_);
        std::vector<unsigned char> buf(static_cast<std::size_t>(mine) + 1);
        std::int64_t at = end_ + before;
        std::size_t pos = 0;
        for (const Pending& p : pending_) {
            std::memcpy(buf.data() + pos, p.buf, p.bytes);
            index_.entries.push_back({p.var, p.record, sel_id(p.sel), at, static_cast<std::int64_t>(p.bytes)});
            at += static_cast<std::int64_t>(p.bytes);
            pos += p.bytes;
        }
        MPI_Status st;
        check_mpi(MPI_File_write_at_all(fh_, static_cast<MPI_Offset>(end_ + before), buf.data(), static_cast<int>(mine),
                                        MPI_BYTE, &st),
                  "MPI_File_write_at_all", "append to " + log_data_path(dir_, gindex_), kLogHint);
        end_ += total;
    }

    // Same-count read: each get is the n-th put of its variable and record.
    void read_back() {
        for (const Pending& p : pending_) {
            const VarSpec& v = spec_.vars[static_cast<std::size_t>(p.var)];
            auto& occ = seen_[{p.var, p.record}];
            auto it = lookup_.find({p.var, p.record});
            if (it == lookup_.end() || occ >= it->second.size())
                throw Unsupported("log: no logged write of variable " + v.name + " record " + std::to_string(p.record) +
                                      " by this process (a log is read back by the blocks each process wrote)",
                                  "read with the plan and process count the log was written with");
            const LogEntry& e = index_.entries[it->second[occ++]];
            const LogSel& s = index_.sels[static_cast<std::size_t>(e.sel)];
            if (e.nbytes != static_cast<std::int64_t>(p.bytes) || s.ints != blocks_to_ints(*p.sel))
                throw Unsupported("log: variable " + v.name +
                                      " is read with other blocks than were written (a log is read back by the blocks "
                                      "each process wrote)",
                                  "read with the decomposition and process count it was written with, or rebuild the "
                                  "canonical file with log_replay");
            check_mpi(MPI_File_read_at(fh_, static_cast<MPI_Offset>(e.offset), p.buf, static_cast<int>(p.bytes),
                                       MPI_BYTE, MPI_STATUS_IGNORE),
                      "MPI_File_read_at", "read " + log_data_path(dir_, gindex_), kLogHint);
        }
        seen_.clear();  // occurrences count within one flush (data and fill puts)
    }

    // index_<k>.bin by the group, then log.json by rank 0 (last: it marks a
    // complete output).
    void write_index() {
        std::vector<std::int64_t> mine = log_serialize(index_);
        long long n = static_cast<long long>(mine.size()), before = 0;
        MPI_Exscan(&n, &before, 1, MPI_LONG_LONG, MPI_SUM, group_);
        if (grank_ == 0) before = 0;
        MPI_File ih;
        check_mpi(MPI_File_open(group_, log_index_path(dir_, gindex_).c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                                hints_, &ih),
                  "MPI_File_open", "create " + log_index_path(dir_, gindex_), kLogHint);
        MPI_File_write_at_all(ih, static_cast<MPI_Offset>(before) * 8, mine.data(), static_cast<int>(n), MPI_INT64_T,
                              MPI_STATUS_IGNORE);
        MPI_File_close(&ih);
        long long me[4] = {static_cast<long long>(gindex_), rank_, before, n};
        std::vector<long long> all(4 * static_cast<std::size_t>(size_));
        MPI_Gather(me, 4, MPI_LONG_LONG, all.data(), 4, MPI_LONG_LONG, 0, comm_);
        long long nrec = max_record_, maxrec = 0;
        MPI_Reduce(&nrec, &maxrec, 1, MPI_LONG_LONG, MPI_MAX, 0, comm_);
        collective_step(comm_, [&] {
            if (rank_ != 0) return;
            LogIndex x;
            x.spec = spec_;
            x.writers = size_;
            x.nrecords = maxrec;
            x.groups.resize(ngroups_);
            for (int r = 0; r < size_; ++r) {  // ranks come in order, so each group's are in group order
                const long long* p = &all[4 * static_cast<std::size_t>(r)];
                LogGroup& g = x.groups.at(static_cast<std::size_t>(p[0]));
                g.ranks.push_back(static_cast<int>(p[1]));
                g.index_offset.push_back(p[2]);
                g.index_length.push_back(p[3]);
            }
            const std::string path = dir_ + "/" + kLogIndexName;
            std::ofstream out(path);
            out << log_index_to_json(x) << "\n";
            if (!out) throw Error("cannot write " + path, "check free space and permissions");
        });
    }

    int requested_;
    MPI_Info hints_;
    MPI_Comm comm_ = MPI_COMM_NULL, group_ = MPI_COMM_NULL;
    MPI_File fh_ = MPI_FILE_NULL;
    int rank_ = 0, size_ = 1, grank_ = 0;
    std::size_t gindex_ = 0, ngroups_ = 1;
    std::string dir_;
    FileSpec spec_;
    bool writing_ = true;
    std::int64_t end_ = 0, max_record_ = 0;
    LogWriterIndex index_;
    std::map<std::uint64_t, std::int64_t> sel_id_;  // selection id -> index entry
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::size_t>> lookup_;
    std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> seen_;
    std::vector<Pending> pending_;
};

class LogBackend final : public Backend {
public:
    LogBackend(int subfiles, MPI_Info hints) : subfiles_(subfiles), hints_(hints) {}

    std::string name() const override { return "log"; }
    std::string extension() const override { return ".log"; }
    std::unique_ptr<File> create(const std::string& path, const FileSpec& spec, MPI_Comm comm) override {
        auto f = std::make_unique<LogFile>(subfiles_, hints_);
        f->create(path, spec, comm);
        return f;
    }
    std::unique_ptr<File> open(const std::string& path, const FileSpec& spec, MPI_Comm comm,
                               Access access = Access::Read) override {
        if (access == Access::Update)
            throw Error("the log strategy cannot update '" + path +
                            "': its log files record the writes of one run, indexed once at close",
                        "write a new output with -x log, or overwrite/append with -x canonical or -x rearrange");
        auto f = std::make_unique<LogFile>(subfiles_, hints_);
        f->open(path, spec, comm);
        return f;
    }

private:
    int subfiles_;
    MPI_Info hints_;
};

}  // namespace

std::unique_ptr<Backend> make_log_backend(int subfiles, MPI_Info hints) {
    return std::make_unique<LogBackend>(subfiles, hints);
}

}  // namespace iok

namespace iok {
namespace {

std::unique_ptr<Backend> make_registered(const std::string& library, const BackendConfig& cfg) {
    make_backend(library, cfg);  // the name must still be a backend of this build (log_replay's target)
    return make_log_backend(strategy_count_param(cfg, "log.subfiles"), cfg.hints);
}

StrategyInfo describe() {
    StrategyInfo s;
    s.name = "log";
    s.description =
        "requests appended in arrival order to a per-group log plus an index, written natively "
        "with MPI-IO; -a names the library log_replay converts to";
    s.options = {{"log.subfiles", "0", "number of process groups, one log each (0 = one per node; -g sets it)", {}}};
    s.make = make_registered;
    s.output_is_directory = true;
    s.read_needs_same_ranks = true;
    s.writes_with = "mpiio";
    s.read_back = "-i / --verify with the writer's rank count; log_replay converts to any backend";
    return s;
}

}  // namespace
}  // namespace iok

IOK_REGISTER_STRATEGY(log, iok::describe)
