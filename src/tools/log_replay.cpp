// log_replay: rebuild the canonical file from a log output (written with
// `-x log`), with any number of processes.
//
//   mpiexec -n P log_replay [-a pnetcdf] [-o out.nc] LOG_DIR
//
// The writer processes in LOG_DIR/log.json are split evenly over the P
// replay processes.  Each reads its writers' indexes, then per flush group
// (the fixed-size variables, then each record) reads every logged put of its
// writers from the logs and puts it at its canonical place through the
// Backend interface (one put per variable, one flush per group).
#include <mpi.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/strategy_blob_layout.hpp"
#include "backends/strategy_log_layout.hpp"
#include "core/collective.hpp"
#include "core/mpi_layer.hpp"
#include "core/report.hpp"
#include "driver/canonical_rebuild.hpp"

namespace {

using namespace iok;

struct Writer {
    std::size_t group;
    LogWriterIndex index;
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::size_t>> entries;  // (var, record) -> puts
};

void replay(int argc, char** argv, MPI_Comm comm) {
    CanonicalRebuild rb("log", "the log output directory (holds log.json, log_* and index_*)", comm, argc, argv);
    if (!rb.parse()) return;
    const std::string& input = rb.input();
    const LogIndex x = read_log_index(input, comm);

    std::vector<std::pair<std::size_t, std::size_t>> all;  // (group, position)
    for (std::size_t g = 0; g < x.groups.size(); ++g)
        for (std::size_t i = 0; i < x.groups[g].ranks.size(); ++i) all.push_back({g, i});
    const auto [lo, hi] = rb.share(all.size());

    std::map<std::size_t, MPI_File> logs;
    std::vector<Writer> writers;
    collective_step(comm, [&] {
        for (std::size_t w = lo; w < hi; ++w) {
            const auto [g, pos] = all[w];
            MPI_File ih;
            check_mpi(
                MPI_File_open(MPI_COMM_SELF, log_index_path(input, g).c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &ih),
                "MPI_File_open", "open " + log_index_path(input, g), "the log output is incomplete");
            std::vector<std::int64_t> raw(static_cast<std::size_t>(x.groups[g].index_length[pos]));
            MPI_File_read_at(ih, static_cast<MPI_Offset>(x.groups[g].index_offset[pos]) * 8, raw.data(),
                             static_cast<int>(raw.size()), MPI_INT64_T, MPI_STATUS_IGNORE);
            MPI_File_close(&ih);
            Writer wr{g, log_parse(raw, log_index_path(input, g)), {}};
            for (std::size_t e = 0; e < wr.index.entries.size(); ++e) {
                const LogEntry& en = wr.index.entries[e];
                if (en.var < 0 || static_cast<std::size_t>(en.var) >= x.spec.vars.size())
                    throw Error(log_index_path(input, g) + ": entry names variable " + std::to_string(en.var));
                wr.entries[{en.var, en.record}].push_back(e);
            }
            writers.push_back(std::move(wr));
            if (!logs.count(g)) {
                MPI_File fh;
                check_mpi(
                    MPI_File_open(MPI_COMM_SELF, log_data_path(input, g).c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                    "MPI_File_open", "open " + log_data_path(input, g), "the log output is incomplete");
                logs[g] = fh;
            }
        }
    });

    // Selections shared by every (variable, record) whose puts used the same
    // writer selections (one id, so the backends' caches hit).
    std::map<std::vector<std::int64_t>, std::shared_ptr<Selection>> shared;
    // Per variable and record: every logged put of my writers, read from the
    // logs in order, at the place its blocks say.
    auto fill = [&](int var_index, std::int64_t rec, std::vector<unsigned char>& buf) -> const Selection& {
        const auto v = static_cast<std::size_t>(var_index);
        const VarSpec& var = x.spec.vars[v];
        const auto shape = x.spec.fixed_shape(var);
        std::vector<std::int64_t> key{static_cast<std::int64_t>(v)};
        std::int64_t n = 0;
        std::vector<const LogEntry*> puts;
        for (std::size_t w = 0; w < writers.size(); ++w) {
            auto it = writers[w].entries.find({static_cast<std::int64_t>(v), rec});
            if (it == writers[w].entries.end()) continue;
            for (std::size_t e : it->second) {
                const LogEntry& en = writers[w].index.entries[e];
                key.insert(key.end(), {static_cast<std::int64_t>(w), en.sel});
                puts.push_back(&en);
                n += en.nbytes;
            }
        }
        auto& sel = shared[key];
        if (!sel) {
            sel = std::make_shared<Selection>(shape);
            for (std::size_t i = 1; i < key.size(); i += 2) {
                const LogSel& s =
                    writers[static_cast<std::size_t>(key[i])].index.sels[static_cast<std::size_t>(key[i + 1])];
                if (s.ndims != static_cast<std::int64_t>(shape.size()))
                    throw Error(
                        "log index: a put of variable " + var.name + " has " + std::to_string(s.ndims) + " dimensions",
                        "the log output is corrupt");
                add_blocks_from_ints(*sel, s.ints.data(), s.nblocks);
            }
        }
        if (static_cast<std::uint64_t>(n) != sel->elements() * dtype_size(var.type))
            throw Error("log index: the puts of variable " + var.name + " hold " + std::to_string(n) +
                            " bytes, their blocks " + std::to_string(sel->elements() * dtype_size(var.type)),
                        "the log output is corrupt");
        buf.resize(static_cast<std::size_t>(n) + 1);
        std::size_t at = 0;
        std::size_t k = 1;
        for (const LogEntry* en : puts) {
            const std::size_t g = writers[static_cast<std::size_t>(key[k])].group;
            MPI_Status st;
            MPI_File_read_at(logs.at(g), static_cast<MPI_Offset>(en->offset), buf.data() + at,
                             static_cast<int>(en->nbytes), MPI_BYTE, &st);
            int got = 0;
            MPI_Get_count(&st, MPI_BYTE, &got);
            if (got != en->nbytes)
                throw Error(log_data_path(input, g) + " ends before a logged put of " + var.name,
                            "the log output is truncated");
            at += static_cast<std::size_t>(en->nbytes);
            k += 2;
        }
        return *sel;
    };
    rb.write(x.spec, x.nrecords, fill, {}, [&] {
        for (auto& kv : logs) MPI_File_close(&kv.second);
    });
    rb.report({{"Writer processes", with_commas(static_cast<std::uint64_t>(x.writers))},
               {"Process groups (logs)", with_commas(static_cast<std::uint64_t>(x.groups.size()))}});
}

}  // namespace

int main(int argc, char** argv) {
    iok::init_mpi(&argc, &argv);
    int rc = iok::run_kernel_main("log_replay", MPI_COMM_WORLD, [&] { replay(argc, argv, MPI_COMM_WORLD); });
    MPI_Finalize();
    return rc;
}
