// iokernels e3sm: E3SM climate-model history output (F, G, I cases) replayed
// from decomposition maps on any backend and strategy.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "core/collective.hpp"
#include "core/kernel_registry.hpp"
#include "core/output_files.hpp"
#include "core/resource_check.hpp"
#include "core/stats.hpp"
#include "driver/driver.hpp"
#include "kernels/e3sm/case_spec.hpp"
#include "kernels/e3sm/decomp_map.hpp"
#include "kernels/e3sm/e3sm_dry_run.hpp"
#include "kernels/e3sm/e3sm_options.hpp"
#include "kernels/e3sm/e3sm_plan.hpp"
#include "kernels/e3sm/e3sm_report.hpp"
#include "kernels/e3sm/e3sm_seed_cli.hpp"
#include "kernels/e3sm/e3sm_storage.hpp"
#include "model/plan_size.hpp"
#include "runner/runner.hpp"

namespace iok::e3sm {
namespace {

std::string history_path(const std::string& stem, const std::string& label, std::size_t nfiles) {
    return nfiles > 1 ? insert_suffix(stem, label) : stem;
}

void run(int argc, char** argv, MPI_Comm world) {
    CLI::App app{"E3SM climate-model history output (F, G and I cases) from decomposition maps.\n"
                 "Accepts the E3SM-IO command line: e3sm [-k] [-r n] [-f h] [-s n] [-m] [-t] [-i path] [-o path]\n"
                 "[-a api] [-x strategy] [-g n] [-v] MAP",
                 "iokernels e3sm"};
    Options o;
    o.add_to(app);
    SeedCommandLine seed(argc, argv);  // E3SM-IO's -a hdf5_ra / hdf5_log, its environment variables
    Driver d("e3sm", world, app, seed.argc(), seed.argv());
    if (!d.parse([&] { o.validate(); })) return;
    d.check(seed.error().empty(), seed.error(), seed.hint());
    if (d.rank() == 0 && !d.options().quiet)
        for (const auto& n : seed.notes()) std::printf("note: %s\n", n.c_str());
    const int rank = d.rank(), nprocs = d.size();
    const CommonOptions& c = d.options();
    d.outputs().require_readable(o.map_path);

    // Prepare: read the map, pick the case, build this rank's plans.
    MPI_Barrier(world);
    const double t_prepare = MPI_Wtime();
    // I/O ranks: every stride-th rank; the others sit out of the I/O.  Each
    // receives the runs of its own map processes only (a dry run computes
    // every rank's requests on one process, and E3SM-IO's map reading takes
    // runs across processes' blocks: both read the whole map).
    const bool io_rank = rank % o.stride == 0;
    const int io_size = (nprocs + o.stride - 1) / o.stride;
    DecompMap map;
    collective_step(world, [&] {
        map = o.dry_run || o.map_reading == "e3sm-io" ? read_decomp_map_collective(o.map_path, world)
                        : read_decomp_map_share(o.map_path, world, io_rank ? rank / o.stride : -1, io_size);
    });
    const double t_map = MPI_Wtime();
    CaseOptions copt;
    copt.float_vars = o.use_float;
    copt.listing_order = o.define_order == "listing";
    std::string case_label;
    std::vector<FileSpec> all_files;
    collective_step(world, [&] {
        const CaseKind kind = o.case_name == "auto" ? case_for_map(map) : case_from_name(o.case_name);
        case_label = case_name(kind);
        all_files = case_files(kind, map, copt);
    });

    std::vector<FileSpec> specs;  // moved out: all_files is only counted below
    for (auto& f : all_files)
        if (o.hist < 0 || (o.hist == 0 && f.label != "h1") || (o.hist == 1 && f.label == "h1")) specs.push_back(std::move(f));
    PlanSettings ps;
    ps.sort = !o.no_sort;
    ps.fill = o.fill;
    ps.reading = o.map_reading == "e3sm-io" ? MapReading::E3smIo : MapReading::Map;
    ps.flush_every = o.flush_every;
    ps.two_d_first = o.two_d_first;
    if (!o.dry_run) configure_storage(d, o.chunk_bytes, o.filter, specs);  // -c / -z
    if (o.dry_run) return dry_run(o, map, case_label, specs, ps, d);

    MPI_Comm io;
    MPI_Comm_split(world, io_rank ? 0 : MPI_UNDEFINED, rank, &io);
    if (io_rank) MPI_Comm_rank(io, &ps.io_rank);
    ps.io_size = io_size;
    std::vector<FilePlan> plans;
    collective_step(world, [&] {
        if (!io_rank) return;
        for (const auto& s : specs) {
            plans.push_back(make_file_plan(s, map, settings_for(s, case_label, o.records, ps)));
            // E3SM-IO's buffers hold the writing rank (of the I/O ranks): 'a' + rank in text
            if (o.data == "rank") plans.back().constant_data = FilePlan::ConstantData{double(ps.io_rank), 'a' + double(ps.io_rank)};
        }
    });
    const double t_end = MPI_Wtime();
    // Preparation as a whole, and its parts: the map's reading and sharing,
    // then the case and this rank's plans (redistribution, sort/coalesce).
    const auto prep = reduce_over_ranks(world, {t_end - t_prepare, t_map - t_prepare, t_end - t_map});

    d.set_fill(o.fill);
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
    if (o.vard) d.default_param("pnetcdf.api", "vard");
    if (o.blocking) d.default_param("pnetcdf.api", "blocking");
    std::unique_ptr<Backend> backend = d.make_stack();
    if (rank == 0 && !c.quiet) print_header(o, map, case_label, nprocs, io_size, d);

    Result& result = d.result();
    result.add_input("map", o.map_path);
    result.params().update(result_params(o, case_label, io_size));
    if (rank == 0) {
        result.summary()["prepare_seconds"] = {{"min", prep[0].min}, {"max", prep[0].max}};
        result.summary()["prepare_map_seconds"] = {{"min", prep[1].min}, {"max", prep[1].max}};
        result.summary()["prepare_plan_seconds"] = {{"min", prep[2].min}, {"max", prep[2].max}};
    }

    RunOptions ro = d.run_options();
    ro.noncontig_buffer = o.noncontig_buf;
    double write_seconds = 0;
    auto take = [&](FileOutcome out) {
        if (rank == 0) out.text.print();
        if (out.metrics.writing) write_seconds += out.metrics.max_seconds(Phase::EndToEnd);
        d.record(out);
    };

    // Claim every output first, on all ranks (OutputFiles is collective over
    // the world communicator; the I/O below runs on the I/O ranks only).
    std::vector<std::string> out_paths;
    for (const auto& s : specs) out_paths.push_back(o.output.empty() ? "" : history_path(o.output, s.label, all_files.size()));
    for (const auto& p : out_paths)
        if (!p.empty()) d.outputs().claim(p);
    for (const auto& s : specs)
        if (!o.input.empty()) d.outputs().require_readable(history_path(o.input, s.label, all_files.size()));

    // Before any buffer exists: the files are written one after the other
    // (the largest one's flush in memory), all of them on disk.
    ResourceNeeds need;
    for (const auto& p : plans) {
        need.memory_bytes = std::max(need.memory_bytes, plan_buffer_bytes(p));
        if (!o.output.empty()) need.file_bytes = saturating_add(need.file_bytes, plan_file_bytes(p));
    }
    need.output_path = o.output;
    d.check_resources(need, "-r/--records, or use a smaller map");

    if (io_rank) {
        Runner runner(io, *backend, ro);
        for (std::size_t i = 0; i < plans.size(); ++i) {
            const FilePlan& p = plans[i];
            if (rank == 0 && !c.quiet) print_var_counts(p.spec, static_cast<int>(map.decomps.size()));
            if (!o.input.empty()) take(runner.read(p, history_path(o.input, p.spec.label, all_files.size())));
            if (!o.output.empty()) {
                take(runner.write(p, out_paths[i]));
                if (c.verify) take(runner.read(p, out_paths[i]));
            }
        }
    }
    if (rank == 0) {
        if (write_seconds > 0) result.summary()["prepare_fraction_of_write"] = prep[0].max / write_seconds;
        if (!c.quiet) print_summary(prep[0].max, prep[1].max, prep[2].max, write_seconds, !o.input.empty() || c.verify, d.mismatches());
    }
    if (io_rank) MPI_Comm_free(&io);
    d.finish("the file does not hold what was written");
}

}  // namespace

int e3sm_main(int argc, char** argv) {
    return run_kernel_main("e3sm", MPI_COMM_WORLD, [&] { run(argc, argv, MPI_COMM_WORLD); });
}

}  // namespace iok::e3sm

IOK_REGISTER_KERNEL(e3sm, "e3sm", "E3SM climate history output (F, G, I cases) from decomposition maps",
                    iok::e3sm::e3sm_main)
