#include "kernels/s3d/s3d_summary.hpp"

#include "core/manifest.hpp"

namespace iok::s3d {

void summarize(Driver& d, const Options& opt, const Grid& grid, const Block& blk, const Totals& totals,
               const RestartNote& restart) {
    const CommonOptions& c = d.options();
    d.result().params().update({{"grid", {grid.nx_g, grid.ny_g, grid.nz_g}},
                                {"procs", {grid.npx, grid.npy, grid.npz}},
                                {"local", {blk.nx, blk.ny, blk.nz}},
                                {"method", opt.method},
                                {"restart", opt.restart},
                                {"checkpoints", opt.checkpoints},
                                {"dir", opt.dir},
                                {"verify", c.verify},
                                {"reference_form", opt.reference_form()}});
    const std::string factor = info_value(d.hints_in_effect(), "striping_factor", "0");
    const std::string unit = info_value(d.hints_in_effect(), "striping_unit", "0");
    nlohmann::json s = totals.to_json();
    s.update({{"restart_read", restart.read},
              {"restart_time_in_total", true},
              {"striping_factor", factor},
              {"striping_unit", unit},
              {"verified_checkpoints", c.verify ? opt.checkpoints : 0}});
    d.result().summary() = s;
    // The read-back is not part of the reference's figures, only its verdict.
    const std::string verify_note = !c.verify        ? "skipped (--no-verify)"
                                    : d.mismatches() ? "FAILED"
                                                     : "passed: " + std::to_string(opt.checkpoints) +
                                                           " checkpoint(s) read back, every element matches";
    const ReportContext ctx{d.stack_label(),
                            d.library_label(),
                            opt.method,
                            d.writing_library() == "pnetcdf" ? d.config().param("pnetcdf.api") : "",
                            restart.text,
                            verify_note,
                            d.size(),
                            factor,
                            unit};
    print_s3d_report(ctx, grid, blk, opt.checkpoints, opt.dir, totals);
}

}  // namespace iok::s3d
