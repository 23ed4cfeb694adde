#include "kernels/noncontig/noncontig_stack.hpp"

#include "core/collective.hpp"
#include "core/report.hpp"
#include "core/stats.hpp"
#include "core/resource_check.hpp"
#include "kernels/noncontig/noncontig_decomp.hpp"
#include "model/plan_size.hpp"

namespace iok::noncontig {

namespace {

// nvars float variables over the decomposition's array, one record per tile.
FilePlan tiles_plan(const Decomposition& dc, const std::vector<Run>& runs, int nvars) {
    FilePlan p;
    p.spec.label = "noncontig";
    p.spec.dims = {{"tile", 0, true}, {"array_size", static_cast<std::uint64_t>(dc.array_size), false}};
    auto sel = std::make_shared<Selection>(Selection::from_runs({static_cast<std::uint64_t>(dc.array_size)}, runs));
    for (int v = 0; v < nvars; ++v) {
        VarSpec var;
        var.name = "var" + std::to_string(v);
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

}  // namespace

void run_through_stack(Driver& d, const StackSetup& s) {
    MPI_Comm comm = d.comm();
    const int rank = d.rank();
    d.outputs().require_readable(s.input);
    const Decomposition dc = read_decomposition_collective(s.input, s.decomp, comm);
    if (s.verify_existing) d.outputs().require_readable(s.output);
    else d.outputs().claim(s.output);
    FilePlan plan;
    collective_step(comm, [&] { plan = tiles_plan(dc, rank_runs(dc, rank, d.size()), s.nvars); });
    // Before any buffer exists: a tile in memory (with its gaps), both on disk.
    {
        ResourceNeeds need;
        need.memory_bytes = saturating_add(plan_buffer_bytes(plan, 1),
                                           static_cast<std::uint64_t>(s.nvars) * static_cast<std::uint64_t>(s.gap) * 4);
        need.file_bytes = s.verify_existing ? 0 : plan_file_bytes(plan);
        need.output_path = s.verify_existing ? std::string() : s.output;
        d.check_resources(need, "-n/--nvars");
    }
    RunOptions ro = d.run_options();
    ro.progress = false;
    ro.gap_bytes = static_cast<std::size_t>(s.gap) * 4;

    double t[2] = {0, 0};
    if (!s.verify_existing) {
        std::unique_ptr<Backend> be = d.make_stack();
        RecordWriter w(comm, *be, ro, plan, s.output);
        for (int tile = 0; tile < 2; ++tile) {
            w.set_noncontig_buffer(tile == 1);
            MPI_Barrier(comm);
            const double t0 = MPI_Wtime();
            w.write(tile, tile + 1);
            t[tile] = MPI_Wtime() - t0;
        }
        FileOutcome out = w.close();
        d.record(out, {{"role", "tiles"}});
    }
    if (s.verify || s.verify_existing) {
        std::unique_ptr<Backend> be = d.make_stack();
        Runner r(comm, *be, ro);
        FileOutcome out = r.read(plan, s.output);
        d.record(out, {{"role", "verify"}});
    }
    auto red = reduce_over_ranks(comm, {t[0], t[1]});
    if (rank == 0) {
        const double amount = static_cast<double>(dc.covered_elements()) * 4.0 * s.nvars;
        d.result().add_input("decomposition", s.input);
        d.result().params().update({{"input", s.input}, {"output", s.output}, {"nvars", s.nvars},
                                    {"format", dc.format}, {"array_size", dc.array_size}, {"gap_floats", s.gap},
                                    {"verify", s.verify}});
        d.result().summary() = {{"processes", d.size()},
                                {"write_bytes", amount},
                                {"seconds", {{"write_contig", red[0].max}, {"write_noncontig", red[1].max}}},
                                {"noncontig_over_contig", red[0].max > 0 ? red[1].max / red[0].max : 0.0}};
        TextReport tr;
        tr.section("noncontig: contiguous vs noncontiguous user buffer, through " + d.stack_label());
        tr.line("I/O stack", d.stack_label() + " / " + d.library_label());
        tr.line("Decomposition", dc.format + ", " + std::to_string(dc.nprocs) + " processes, array_size " +
                                     with_commas(static_cast<std::uint64_t>(dc.array_size)));
        tr.count("Total number of MPI processes", static_cast<std::uint64_t>(d.size()));
        tr.count("Total number of variables", static_cast<std::uint64_t>(s.nvars));
        tr.line("Total write amount per tile", format_bytes(amount));
        tr.line("Noncontiguous buffer", std::to_string(s.gap) + " floats between variables; the library gets one "
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
    d.finish();
}

}  // namespace iok::noncontig
