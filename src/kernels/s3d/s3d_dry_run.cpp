#include "kernels/s3d/s3d_dry_run.hpp"

#include <cstdio>

#include "core/collective.hpp"
#include "core/report.hpp"
#include "kernels/s3d/s3d_plan.hpp"
#include "runner/plan_census.hpp"

namespace iok::s3d {

void dry_run(Driver& d, const Options& opt, const Grid& grid) {
    const int nranks = grid.npx * grid.npy * grid.npz;
    const bool talk = d.rank() == 0 && !d.options().quiet;
    collective_step(d.comm(), [&] {
        if (d.rank() != 0) return;
        if (talk) {
            TextReport t;
            t.section("iokernels s3d: dry run");
            t.line("Global grid X x Y x Z",
                   std::to_string(grid.nx_g) + " x " + std::to_string(grid.ny_g) + " x " + std::to_string(grid.nz_g));
            t.line("Process grid X x Y x Z",
                   std::to_string(grid.npx) + " x " + std::to_string(grid.npy) + " x " + std::to_string(grid.npz));
            t.line("I/O stack", d.stack_label());
            t.line("Method", opt.method);
            t.count("Checkpoints", static_cast<std::uint64_t>(opt.checkpoints));
            t.print();
        }
        const auto files = plan_census(nranks, [&](int r) {
            std::vector<FilePlan> plans;
            for (int k = 0; k < opt.checkpoints; ++k) plans.push_back(checkpoint_plan(grid, r, k));
            return plans;
        });
        for (const auto& f : files) {
            if (talk) std::fputs(census_text(f, nranks).c_str(), stdout);
            d.result().add_file(census_json(f, nranks));
        }
        if (talk) std::printf("Dry run: no file was opened.\n");
    });
    d.result().params().update({{"grid", {grid.nx_g, grid.ny_g, grid.nz_g}},
                                {"procs", {grid.npx, grid.npy, grid.npz}},
                                {"method", opt.method},
                                {"checkpoints", opt.checkpoints},
                                {"dry_run", true},
                                {"ranks", nranks}});
}

}  // namespace iok::s3d
