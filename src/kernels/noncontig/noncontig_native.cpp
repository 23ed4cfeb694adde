#include "kernels/noncontig/noncontig_native.hpp"

#include "core/collective.hpp"
#include "core/error.hpp"
#include "kernels/noncontig/noncontig_report.hpp"

namespace iok::noncontig {

void native_default_hints(Driver& d, bool independent) {
    d.default_hint("romio_ds_write", "disable");
    d.default_hint("romio_cb_write", "enable");
    if (!independent) d.default_hint("romio_no_indep_rw", "true");
}

IoResult run_native(MPI_Comm comm, const NativeSetup& s, const Decomposition& dc, MPI_Info hints) {
    int rank = 0, nranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    IoSetup setup{s.output, s.nvars, dc.array_size, s.gap, !s.independent, hints, !s.verify_existing};
    return run_noncontig_io(comm, setup, rank_runs(dc, rank, nranks), s.verify);
}

void report_native(Driver& d, const NativeSetup& s, const Decomposition& dc, const IoResult& r) {
    const std::vector<Run> runs = rank_runs(dc, d.rank(), d.size());
    const Figures f = reduce_figures(d.comm(), s, dc, runs, r);
    d.result().add_input("decomposition", s.input);
    if (d.rank() == 0) {
        d.result().params().update({{"input", s.input}, {"output", s.output}, {"nvars", s.nvars},
                                    {"format", dc.format}, {"map_processes", dc.nprocs},
                                    {"array_size", dc.array_size}, {"gap_floats", s.gap}, {"verify", s.verify}});
        d.result().summary() = summary_json(s, r, f, d.size());
        print_report(s, dc, r, f, d.config().hints, d.size());
    }
    collective_step(d.comm(), [&] {
        if (f.mismatches)
            throw Error(s.output + " failed verification: " + std::to_string(f.mismatches) +
                            " element(s) differ; first: " + f.first,
                        "the file does not hold what was written: check the file system, or whether another "
                        "program changed it");
        if (!f.pack_ok && !s.verify_existing)
            throw Error("MPI_Pack produced other bytes than the noncontiguous buffer holds",
                        "this is an MPI library problem; report it with the manifest");
        if (s.verify && r.file_size != f.expect_size)
            throw Error(s.output + " is " + std::to_string(r.file_size) + " bytes, expected " +
                        std::to_string(f.expect_size));
    });
}

}  // namespace iok::noncontig
