#include "kernels/noncontig/noncontig_stack.hpp"

#include "core/collective.hpp"
#include "core/report.hpp"
#include "core/stats.hpp"

namespace iok::noncontig {

FilePlan tiles_plan(const Decomposition& dc, const std::vector<Run>& runs, int nvars) {
    FilePlan p;
    p.spec.label = "noncontig";
    p.spec.dims = {{"tile", 0, true}, {"array_size", static_cast<std::uint64_t>(dc.array_size), false}};
    auto sel = std::make_shared<Selection>(Selection::from_runs({static_cast<std::uint64_t>(dc.array_size)}, runs));
    for (int v = 0; v < nvars; ++v) {
        VarSpec var;
        var.name = "noncontig_var" + std::to_string(v);
        var.type = DType::Float;
        var.dims = {0, 1};
        var.decomp = 0;
        p.spec.vars.push_back(var);
        p.selection.push_back(sel);
    }
    p.spec.expected_records = 2;
    p.nrecords = 2;
    p.requests = sel->nblocks() * static_cast<std::uint64_t>(nvars);
    return p;
}

void report_stack(Driver& d, const StackSetup& s, const Decomposition& dc, const double tile_seconds[2]) {
    MPI_Comm comm = d.comm();
    const int rank = d.rank();
    auto red = reduce_over_ranks(comm, {tile_seconds[0], tile_seconds[1]});
    if (rank == 0) {
        const double amount = static_cast<double>(dc.covered_elements()) * 4.0 * s.nvars;
        d.result().add_input("decomposition", s.input);
        d.result().params().update({{"input", s.input},
                                    {"output", s.output},
                                    {"nvars", s.nvars},
                                    {"format", dc.format},
                                    {"array_size", dc.array_size},
                                    {"gap_floats", s.gap},
                                    {"verify", s.verify}});
        d.result().summary() = {{"processes", d.size()},
                                {"write_bytes", amount},
                                {"seconds", {{"write_contig", red[0].max}, {"write_noncontig", red[1].max}}},
                                {"noncontig_over_contig", red[0].max > 0 ? red[1].max / red[0].max : 0.0}};
        TextReport tr;
        tr.section("noncontig: contiguous vs noncontiguous user buffer, through " + d.stack_label());
        tr.line("I/O stack", d.stack_label() + " / " + d.library_label());
        tr.line("Decomposition", dc.format + ", " + dc.processes_text() + ", array_size " +
                                     with_commas(static_cast<std::uint64_t>(dc.array_size)));
        tr.count("Total number of MPI processes", static_cast<std::uint64_t>(d.size()));
        tr.count("Total number of variables", static_cast<std::uint64_t>(s.nvars));
        tr.line("Total write amount per tile", format_bytes(amount));
        tr.line("Noncontiguous buffer", std::to_string(s.gap) +
                                            " floats between variables; the library gets one "
                                            "put per variable from that memory");
        if (!s.verify_existing) {
            tr.line("Max write time when buf is contig", red[0].max, "sec");
            tr.line("Max write time when buf is noncontig", red[1].max, "sec");
            tr.line("Noncontig / contig write time", red[0].max > 0 ? red[1].max / red[0].max : 0.0, "x", 2);
        }
        if (s.verify || s.verify_existing)
            tr.line("Verification", d.mismatches() ? "FAILED" : "passed (both tiles, every element)");
        tr.print();
    }
}

}  // namespace iok::noncontig
