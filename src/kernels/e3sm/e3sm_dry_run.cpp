#include "kernels/e3sm/e3sm_dry_run.hpp"

#include <cstdio>

#include "core/collective.hpp"
#include "kernels/e3sm/e3sm_report.hpp"
#include "runner/plan_census.hpp"

namespace iok::e3sm {

void dry_run(const Options& o, const DecompMap& map, const std::string& case_label, const std::vector<FileSpec>& specs,
             const PlanSettings& settings, Driver& d) {
    const int nranks = o.ranks > 0 ? o.ranks : d.size();
    const int io_size = (nranks + o.stride - 1) / o.stride;  // every stride-th rank does I/O
    const bool talk = d.rank() == 0 && !d.options().quiet;
    std::vector<PlannedFile> files;
    collective_step(d.comm(), [&] {
        if (d.rank() != 0) return;
        if (talk) print_header(o, map, case_label, nranks, io_size, d);
        const double t0 = MPI_Wtime();
        files = plan_census(
            io_size,
            [&](int r) {
                std::vector<FilePlan> plans;
                PlanSettings ps = settings;
                ps.io_rank = r;
                ps.io_size = io_size;
                for (const auto& s : specs)
                    plans.push_back(make_file_plan(s, map, settings_for(s, case_label, o.records, ps)));
                return plans;
            },
            [&](int done, int total) {
                if (talk && total >= 1000)
                    std::printf("  planned %d of %d I/O ranks (%.1f s)\n", done, total, MPI_Wtime() - t0),
                        std::fflush(stdout);
            });
        for (std::size_t i = 0; i < files.size(); ++i) {
            if (talk) {
                print_var_counts(specs[i], static_cast<int>(map.decomps.size()));
                std::fputs(census_text(files[i], io_size).c_str(), stdout);
            }
            d.result().add_file(census_json(files[i], io_size));
        }
        if (talk) std::printf("Dry run: planned in %.2f s; no file was opened.\n", MPI_Wtime() - t0);
    });
    d.result().add_input("map", o.map_path);
    d.result().params().update(result_params(o, case_label, io_size));
    d.result().params().update({{"dry_run", true}, {"ranks", nranks}});
}

}  // namespace iok::e3sm
