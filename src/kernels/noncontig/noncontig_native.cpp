#include "kernels/noncontig/noncontig_native.hpp"

#include <cstdio>

#include "core/collective.hpp"
#include "core/command_line.hpp"
#include "core/error.hpp"
#include "core/output_files.hpp"
#include "core/resource_check.hpp"
#include "core/result.hpp"
#include "kernels/noncontig/noncontig_decomp.hpp"
#include "kernels/noncontig/noncontig_io.hpp"
#include "kernels/noncontig/noncontig_report.hpp"

namespace iok::noncontig {

void run_native(MPI_Comm comm, NativeSetup s, const std::vector<std::string>& argv) {
    int rank = 0, nranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    OutputFiles outputs(comm, s.keep, s.overwrite);
    outputs.require_readable(s.input);
    const Decomposition d = read_decomposition_collective(s.input, s.decomp, comm);
    if (s.verify_existing) {
        outputs.require_readable(s.output);
        s.verify = true;
    } else {
        outputs.claim(s.output);
    }
    const std::vector<Run> runs = rank_runs(d, rank, nranks);
    // Before any buffer exists: the contiguous and the noncontiguous buffer
    // and the packed copy of the latter in memory, two tiles on disk (rank 0
    // counts the file).
    {
        std::uint64_t mine = 0;
        for (const auto& r : runs) mine = saturating_add(mine, static_cast<std::uint64_t>(r.length));
        const std::uint64_t tile = saturating_mul(saturating_mul(mine, 4), static_cast<std::uint64_t>(s.nvars));
        ResourceNeeds need;
        need.memory_bytes = saturating_mul(tile, 3);
        if (!s.verify_existing && rank == 0)
            need.file_bytes = saturating_mul(saturating_mul(static_cast<std::uint64_t>(d.array_size), 8),
                                             static_cast<std::uint64_t>(s.nvars));
        need.output_path = s.verify_existing ? std::string() : s.output;
        check_resources(comm, need, s.no_size_check, "-n/--nvars");
    }

    MPI_Info info;
    MPI_Info_create(&info);
    struct InfoGuard {
        MPI_Info& i;
        ~InfoGuard() { if (i != MPI_INFO_NULL) MPI_Info_free(&i); }
    } g1{info};
    collective_step(comm, [&] {
        for (const auto& h : s.hints) {
            auto [k, v] = split_key_value(h, "--hint");
            MPI_Info_set(info, k.c_str(), v.c_str());
        }
    });
    set_default_hint(info, "romio_ds_write", "disable");
    set_default_hint(info, "romio_cb_write", "enable");
    if (!s.independent) set_default_hint(info, "romio_no_indep_rw", "true");

    if (rank == 0 && !s.quiet) {
        std::printf("input  file name = %s\noutput file name = %s\n", s.input.c_str(), s.output.c_str());
        std::fflush(stdout);
    }
    IoSetup setup{s.output, s.nvars, d.array_size, s.gap, !s.independent, info, !s.verify_existing};
    IoResult r = run_noncontig_io(comm, setup, runs, s.verify);
    InfoGuard g2{r.hints_used};

    const Figures f = reduce_figures(comm, s, d, runs, r);
    Result result("noncontig", argv);
    result.add_input("decomposition", s.input);
    if (rank == 0) {
        result.params() = {{"input", s.input}, {"output", s.output}, {"nvars", s.nvars}, {"format", d.format},
                           {"map_processes", d.nprocs}, {"array_size", d.array_size}, {"gap_floats", s.gap},
                           {"collective", !s.independent}, {"verify", s.verify},
                           {"backend", "mpiio"}, {"strategy", "canonical"}};
        result.summary() = summary_json(s, r, f, nranks);
        print_report(s, d, r, f, info, nranks);
    }
    result.write(comm, s.json, r.hints_used);
    collective_step(comm, [&] {
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
