// iokernels e3sm: E3SM climate-model history output (F, G, I cases) replayed
// from decomposition maps on any backend and strategy.  The kernel reads the
// map, builds each history file's plan and describes the steps (read an
// input, write, read back); the driver runs them (driver/kernel.hpp).
#include <mpi.h>

#include <cstdio>
#include <optional>

#include "core/collective.hpp"
#include "core/stats.hpp"
#include "driver/kernel.hpp"
#include "formats/decomp_map.hpp"
#include "kernels/e3sm/case_spec.hpp"
#include "kernels/e3sm/e3sm_dry_run.hpp"
#include "kernels/e3sm/e3sm_options.hpp"
#include "kernels/e3sm/e3sm_plan.hpp"
#include "kernels/e3sm/e3sm_report.hpp"
#include "kernels/e3sm/e3sm_seed_cli.hpp"
#include "kernels/e3sm/e3sm_storage.hpp"

namespace iok::e3sm {
namespace {

class E3sm final : public Kernel {
public:
    ~E3sm() override {
        if (io_ != MPI_COMM_NULL) MPI_Comm_free(&io_);
    }
    const char* name() const override { return "e3sm"; }
    std::string description() const override {
        return "E3SM climate-model history output (F, G and I cases) from decomposition maps.\n"
               "Accepts the E3SM-IO command line: e3sm [-k] [-r n] [-f h] [-s n] [-m] [-t] [-i path] [-o path]\n"
               "[-a api] [-x strategy] [-g n] [-v] MAP";
    }
    // E3SM-IO's -a hdf5_ra / hdf5_log, its environment variables.
    void adapt_command_line(int& argc, char**& argv) override {
        seed_.emplace(argc, argv);
        argc = seed_->argc();
        argv = seed_->argv();
    }
    void add_options(CLI::App& app, DriverDefaults&) override { o_.add_to(app); }
    void validate(Driver& d) override {
        o_.dry_run = d.options().dry_run;
        o_.validate();
    }
    void configure(Driver& d) override;
    void dry_run(Driver& d) override { e3sm::dry_run(o_, map_, case_label_, specs_, ps_, d); }
    KernelPlan plan(Driver& d) override;
    void begin(Driver& d) override {
        if (d.rank() == 0 && !d.options().quiet) print_header(o_, map_, case_label_, d.size(), ps_.io_size, d);
    }
    void step_start(Driver& d, const Step& s) override {
        // Once per history file, before its first step.
        if (d.rank() != 0 || d.options().quiet || s.plan->spec.label == last_label_) return;
        last_label_ = s.plan->spec.label;
        print_var_counts(s.plan->spec, static_cast<int>(map_.decomps.size()));
    }
    void step_done(Driver& d, const StepOutcome& o) override {
        if (d.rank() == 0) o.out.text.print();
        if (o.out.metrics.writing) write_seconds_ += o.out.metrics.max_seconds(Phase::EndToEnd);
    }
    void report(Driver& d, const std::vector<StepOutcome>&, const std::vector<GroupOutcome>&) override {
        if (d.rank() != 0) return;
        if (write_seconds_ > 0) d.result().summary()["prepare_fraction_of_write"] = prep_[0].max / write_seconds_;
        if (!d.options().quiet)
            print_summary(prep_[0].max, prep_[1].max, prep_[2].max, write_seconds_,
                          !o_.input.empty() || d.options().verify, d.mismatches());
    }

private:
    std::string history_path(const std::string& stem, const std::string& label) const {
        return nfiles_ > 1 ? insert_suffix(stem, label) : stem;
    }

    std::optional<SeedCommandLine> seed_;
    Options o_;
    DecompMap map_;
    std::string case_label_;
    std::vector<FileSpec> specs_;  // the history files this run writes (-f)
    std::size_t nfiles_ = 0;       // the case's history files (paths get _h0/_h1 when several)
    PlanSettings ps_;
    double t_prepare_ = 0, t_map_ = 0;
    std::vector<Stat> prep_;
    MPI_Comm io_ = MPI_COMM_NULL;
    std::string last_label_;
    double write_seconds_ = 0;
};

void E3sm::configure(Driver& d) {
    d.check(seed_->error().empty(), seed_->error(), seed_->hint());
    if (d.rank() == 0 && !d.options().quiet)
        for (const auto& n : seed_->notes()) std::printf("note: %s\n", n.c_str());
    d.outputs().require_readable(o_.map_path);

    // Prepare: read the map, pick the case.  I/O ranks: every stride-th
    // rank; the others sit out of the I/O.  Each receives the runs of its
    // own map processes only (a dry run computes every rank's requests on
    // one process, and E3SM-IO's map reading takes runs across processes'
    // blocks: both read the whole map).
    MPI_Barrier(d.comm());
    t_prepare_ = MPI_Wtime();
    const bool io_rank = d.rank() % o_.stride == 0;
    ps_.io_size = (d.size() + o_.stride - 1) / o_.stride;
    collective_step(d.comm(), [&] {
        map_ = o_.dry_run || o_.map_reading == "e3sm-io"
                   ? read_decomp_map_collective(o_.map_path, d.comm())
                   : read_decomp_map_share(o_.map_path, d.comm(), io_rank ? d.rank() / o_.stride : -1, ps_.io_size);
    });
    t_map_ = MPI_Wtime();
    CaseOptions copt;
    copt.float_vars = o_.use_float;
    copt.listing_order = o_.define_order == "listing";
    std::vector<FileSpec> all_files;
    collective_step(d.comm(), [&] {
        const CaseKind kind = o_.case_name == "auto" ? case_for_map(map_) : case_from_name(o_.case_name);
        case_label_ = case_name(kind);
        all_files = case_files(kind, map_, copt);
    });
    nfiles_ = all_files.size();
    for (auto& f : all_files)  // moved out: all_files is only counted
        if (o_.hist < 0 || (o_.hist == 0 && f.label != "h1") || (o_.hist == 1 && f.label == "h1"))
            specs_.push_back(std::move(f));
    ps_.sort = !o_.no_sort;
    ps_.fill = o_.fill;
    ps_.reading = o_.map_reading == "e3sm-io" ? MapReading::E3smIo : MapReading::Map;
    ps_.flush_every = o_.flush_every;
    ps_.two_d_first = o_.two_d_first;
    if (o_.dry_run) return;
    configure_storage(d, o_.chunk_bytes, o_.filter, specs_);  // -c / -z
    d.set_fill(o_.fill);
    // E3SM-IO's PnetCDF hint: no gap between variables, and so (PnetCDF >=
    // 1.13) none after the header either: its files' offsets and sizes.
    // Other MPI-IO layers ignore the key; --hint overrides it.
    d.default_hint("nc_var_align_size", "1");
    // E3SM-IO's other hints (e3sm_io.c), so both run the same MPI-IO: always
    // collective buffering (ROMIO's "automatic" turns a rank's
    // non-interleaved requests into independent data-sieving writes,
    // read-modify-write of 512 KiB blocks: +20% CPU on the F case), and
    // PnetCDF's byte swap in place (no second buffer).
    d.default_hint("romio_cb_write", "enable");
    d.default_hint("nc_in_place_swap", "enable");
    // E3SM-IO's HDF5 driver creates its files with the newest format
    // (H5Pset_libver_bounds LATEST): its B-trees, chunk indexes and object
    // headers; with the earliest format the F case h0 file is 1 MB larger.
    d.default_param("hdf5.libver", "latest");
    if (o_.vard) d.default_param("pnetcdf.api", "vard");
    if (o_.blocking) d.default_param("pnetcdf.api", "blocking");
}

KernelPlan E3sm::plan(Driver& d) {
    const bool io_rank = d.rank() % o_.stride == 0;
    MPI_Comm_split(d.comm(), io_rank ? 0 : MPI_UNDEFINED, d.rank(), &io_);
    if (io_rank) MPI_Comm_rank(io_, &ps_.io_rank);
    std::vector<FilePlan> plans;
    collective_step(d.comm(), [&] {
        if (!io_rank) return;
        for (const auto& s : specs_) {
            plans.push_back(make_file_plan(s, map_, settings_for(s, case_label_, o_.records, ps_)));
            // E3SM-IO's buffers hold the writing rank (of the I/O ranks): 'a' + rank in text
            if (o_.data == "rank")
                plans.back().constant_data = FilePlan::ConstantData{double(ps_.io_rank), 'a' + double(ps_.io_rank)};
        }
    });
    // Preparation as a whole, and its parts: the map's reading and sharing,
    // then the case and this rank's plans (redistribution, sort/coalesce).
    const double t_end = MPI_Wtime();
    prep_ = reduce_over_ranks(d.comm(), {t_end - t_prepare_, t_map_ - t_prepare_, t_end - t_map_});
    Result& result = d.result();
    result.add_input("map", o_.map_path);
    result.params().update(result_params(o_, case_label_, ps_.io_size));
    if (d.rank() == 0) {
        result.summary()["prepare_seconds"] = {{"min", prep_[0].min}, {"max", prep_[0].max}};
        result.summary()["prepare_map_seconds"] = {{"min", prep_[1].min}, {"max", prep_[1].max}};
        result.summary()["prepare_plan_seconds"] = {{"min", prep_[2].min}, {"max", prep_[2].max}};
    }

    KernelPlan p;
    p.shrink_hint = "-r/--records, or use a smaller map";
    p.mismatch_hint = "the file does not hold what was written";
    p.noncontig_buffer = o_.noncontig_buf;
    StepGroup g;
    g.comm = io_;
    g.this_rank = io_rank;
    // Every rank lists every step: the claims are collective over all ranks.
    for (std::size_t i = 0; i < specs_.size(); ++i) {
        FilePlan mine = io_rank ? std::move(plans[i]) : FilePlan{};
        mine.spec.label = specs_[i].label;
        const auto fp = share(std::move(mine));
        if (!o_.input.empty())
            g.steps.push_back({StepKind::Read, fp, history_path(o_.input, specs_[i].label), PathUse::Input});
        if (o_.output.empty()) continue;
        const std::string out = history_path(o_.output, specs_[i].label);
        g.steps.push_back({StepKind::Write, fp, out, PathUse::Output});
        if (d.options().verify) g.steps.push_back({StepKind::Read, fp, out, PathUse::Written});
    }
    p.groups.push_back(std::move(g));
    return p;
}

}  // namespace
}  // namespace iok::e3sm

IOK_REGISTER_KERNEL(e3sm, "e3sm", "E3SM climate history output (F, G, I cases) from decomposition maps",
                    iok::e3sm::E3sm)
