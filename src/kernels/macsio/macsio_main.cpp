// iokernels macsio: MACSio (LLNL's Multi-purpose, Application-Centric,
// Scalable I/O proxy) with its HDF5 plugin's layout, as h5bench runs it
// (h5bench_macsio --interface hdf5 --parallel_file_mode MIF 8 --part_size 1M
// ...).  num_dumps dumps of every rank's mesh parts: in MIF mode a file per
// group of ranks per dump (each part a domain_<n> group of its variables),
// in SIF mode one shared file per dump (a dataset per variable of the whole
// mesh); compute_time seconds of sleep between dumps; then every file read
// back and verified.  macsio_plan.hpp says what is written.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/report.hpp"
#include "driver/kernel.hpp"
#include "kernels/macsio/macsio_config.hpp"
#include "kernels/macsio/macsio_plan.hpp"

namespace iok::macsio {
namespace {

class Macsio final : public Kernel {
public:
    ~Macsio() override {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (!finalized && group_comm_ != MPI_COMM_NULL) MPI_Comm_free(&group_comm_);
    }
    const char* name() const override { return "macsio"; }
    std::string description() const override {
        return "MACSio with its HDF5 plugin's layout (h5bench_macsio): num_dumps dumps of ranks x avg_num_parts "
               "mesh parts of part_size bytes, vars_per_part variables each; MIF <n>: a file per group of ranks "
               "per dump, a domain_<chunk> group per part; SIF: one shared file per dump, a dataset per variable "
               "of the whole mesh. Read back and verified. MACSio's own command-line options.";
    }
    void add_options(CLI::App& app, DriverDefaults& defaults) override {
        opt_.add_to(app);
        app.add_flag("--read-only", read_only_,
                     "only read: verify the files an earlier run with these options and rank count wrote");
        defaults.backend = "hdf5";
        defaults.verify = true;
    }
    void validate(Driver& d) override {
        mesh_ = resolve(opt_, d.size());
        d.options().keep = d.options().overwrite = true;  // MACSio leaves its files, truncating old ones
    }
    void configure(Driver& d) override {
        if (!mesh_.sif) {
            groups_ = d.library().caps.groups || d.library().caps.slash_names;
            d.require(groups_, "MACSio's MIF files (a group domain_<chunk> per part)", "groups");
        }
        d.set_collective(mesh_.sif && !opt_.no_collective);
        ext_ = opt_.fileext.empty() ? d.extension().substr(1) : opt_.fileext;
        if (!mesh_.sif) {
            my_group_ = group_of(d.rank(), d.size(), mesh_.files);
            MPI_Comm_split(d.comm(), my_group_, d.rank(), &group_comm_);
        }
    }
    KernelPlan plan(Driver& d) override {
        KernelPlan k;
        k.shrink_hint = "--part_size, --avg_num_parts, --vars_per_part or --num_dumps";
        k.mismatch_hint = "the file does not hold what this MACSio configuration writes: was it modified?";
        k.runner_progress = false;
        StepGroup writes, reads;
        writes.ticks = opt_.num_dumps;
        writes.comm = reads.comm = mesh_.sif ? MPI_COMM_NULL : group_comm_;
        const std::vector<int> ranks = mesh_.sif ? std::vector<int>{} : group_ranks(my_group_, d.size(), mesh_.files);
        int me = 0;
        for (std::size_t i = 0; i < ranks.size(); ++i)
            if (ranks[i] == d.rank()) me = static_cast<int>(i);
        for (int dump = 0; dump < opt_.num_dumps; ++dump) {
            auto p = share(mesh_.sif ? sif_plan(mesh_, d.rank(), dump) : mif_plan(mesh_, ranks, me, dump, groups_));
            const std::string path =
                mesh_.sif ? sif_path(opt_.filebase, dump, ext_) : mif_path(opt_.filebase, my_group_, dump, ext_);
            Step s{StepKind::Write, p, path, PathUse::Output, {{"role", "dump"}, {"dump", dump}}};
            s.ticks = {dump};
            writes.steps.push_back(s);
            if (d.options().verify || read_only_)
                reads.steps.push_back({StepKind::Read,
                                       p,
                                       path,
                                       read_only_ ? PathUse::Input : PathUse::Written,
                                       {{"role", "verify"}, {"dump", dump}}});
        }
        const double pause = opt_.compute_time;
        writes.before_tick = [pause](int t) {
            if (t > 0 && pause > 0) std::this_thread::sleep_for(std::chrono::duration<double>(pause));
        };
        if (!read_only_) k.groups.push_back(std::move(writes));
        if (!reads.steps.empty()) k.groups.push_back(std::move(reads));
        return k;
    }
    void report(Driver& d, const std::vector<StepOutcome>& done, const std::vector<GroupOutcome>& groups) override;

private:
    Options opt_;
    Mesh mesh_;
    bool groups_ = true;
    std::string ext_;
    int my_group_ = 0;
    MPI_Comm group_comm_ = MPI_COMM_NULL;
    bool read_only_ = false;
};

void Macsio::report(Driver& d, const std::vector<StepOutcome>& done, const std::vector<GroupOutcome>& groups) {
    // Each file's figures are its group's; sum them over the groups (a
    // group's rank 0 counts its files).
    int group_rank = d.rank();  // SIF: one file of every rank
    if (group_comm_ != MPI_COMM_NULL) MPI_Comm_rank(group_comm_, &group_rank);
    double mine[4] = {0, 0, 0, 0};  // bytes, files written, files read, mismatches
    std::string first;
    for (const auto& o : done) {
        if (o.step->kind == StepKind::Write) {
            if (group_rank == 0) {
                mine[0] += o.out.metrics.bytes.sum;
                mine[1] += 1;
            }
        } else {
            if (group_rank == 0) mine[2] += 1;
            mine[3] += static_cast<double>(o.out.mismatches);
            if (o.out.mismatches && first.empty()) first = o.step->path + ": " + o.out.first_mismatch;
        }
    }
    double all[4];
    MPI_Allreduce(mine, all, 4, MPI_DOUBLE, MPI_SUM, d.comm());
    const auto bad = static_cast<std::uint64_t>(all[3]);
    d.result().params().update({{"parallel_file_mode", mesh_.sif ? "SIF" : "MIF"},
                                {"files_per_dump", mesh_.sif ? 1 : mesh_.files},
                                {"avg_num_parts", mesh_.parts_per_rank},
                                {"part_size", opt_.part_size},
                                {"part_dim", mesh_.dim},
                                {"part_nodes", {mesh_.part[0], mesh_.part[1], mesh_.part[2]}},
                                {"parts_layout", {mesh_.layout[0], mesh_.layout[1], mesh_.layout[2]}},
                                {"vars_per_part", mesh_.vars},
                                {"num_dumps", opt_.num_dumps},
                                {"compute_time", opt_.compute_time},
                                {"filebase", opt_.filebase}});
    d.result().summary() = {{"files_written", static_cast<std::uint64_t>(all[1])},
                            {"bytes_written", static_cast<std::uint64_t>(all[0])},
                            {"files_read_back", static_cast<std::uint64_t>(all[2])},
                            {"wall_seconds", groups.empty() ? 0.0 : groups[0].seconds},
                            {"mismatches", bad}};
    // Every rank's first mismatch: rank 0 reports one if any rank has one.
    if (d.rank() != 0) return;
    TextReport t;
    t.section("MACSio (HDF5 plugin layout)");
    t.line("I/O library", d.stack_label() + " / " + d.library_label());
    t.line("Parallel file mode", mesh_.sif ? std::string("SIF") : "MIF " + std::to_string(mesh_.files));
    t.line("Parts", std::to_string(d.size() * mesh_.parts_per_rank) + " of " + std::to_string(mesh_.part[0]) + " x " +
                        std::to_string(mesh_.part[1]) + " x " + std::to_string(mesh_.part[2]) + " nodes, " +
                        std::to_string(mesh_.vars) + " variables each");
    t.count("Dumps", static_cast<std::uint64_t>(opt_.num_dumps));
    t.count("Files written", static_cast<std::uint64_t>(all[1]));
    t.line("Bytes written", format_bytes(all[0]));
    t.line("Wall clock (first phase, sleeps included)", groups.empty() ? 0.0 : groups[0].seconds, "s", 3);
    t.line(
        "Verification",
        all[2] == 0 ? std::string("not done (--no-verify)")
        : bad ? "FAILED: " + std::to_string(bad) + " element(s)" + (first.empty() ? std::string() : "; first: " + first)
              : "passed (" + std::to_string(static_cast<std::uint64_t>(all[2])) + " file(s) read back)");
    if (!d.options().quiet) t.print();
}

}  // namespace
}  // namespace iok::macsio

IOK_REGISTER_KERNEL(macsio, "macsio",
                    "MACSio (h5bench_macsio): MIF/SIF dumps of mesh parts in its HDF5 plugin's layout, verified",
                    iok::macsio::Macsio)
