// iokernels noncontig: MPI collective write through a file view of many
// small noncontiguous runs (a real E3SM decomposition), once from a
// contiguous user buffer and once from a noncontiguous one (gaps between
// variables), as the mpi_io_test/noncontig_buf reference; both tiles are
// read back and verified.  Reference command line: [-q] [-n nvars] [-o file] input_file.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/command_line.hpp"
#include "driver/driver.hpp"
#include "core/error.hpp"
#include "core/kernel_registry.hpp"
#include "core/manifest.hpp"
#include "core/output_files.hpp"
#include "core/report.hpp"
#include "core/result.hpp"
#include "kernels/noncontig/noncontig_decomp.hpp"
#include "kernels/noncontig/noncontig_io.hpp"
#include "kernels/noncontig/noncontig_stack.hpp"

namespace iok::noncontig {
namespace {

std::string mib(double bytes) {
    char b[64];
    std::snprintf(b, sizeof b, "%.2f MiB", bytes / (1024.0 * 1024.0));
    return b;
}

int noncontig_main(int argc, char** argv) {
    MPI_Comm comm = MPI_COMM_WORLD;
    return run_kernel_main("noncontig", comm, [&] {
        int rank = 0, nranks = 1;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &nranks);
        CLI::App app{"MPI-IO collective write of a noncontiguous file view (E3SM decomposition over nvars variables) "
                     "from a contiguous and from a noncontiguous user buffer; the reference's "
                     "[-q] [-n nvars] [-o file] input_file works as is.",
                     "iokernels noncontig"};
        std::string input, output = "testfile", decomp = "D1", json;
        int nvars = 1, gap = 10;
        bool quiet = false, keep = false, overwrite = false, independent = false, verify = true;
        std::vector<std::string> hints;
        app.add_option("input_file", input, "decomposition: mpi_io_test format (off_NNNNN/len_NNNNN) or an E3SM map")
            ->required();
        app.add_option("-n,--nvars", nvars, "number of variables")->capture_default_str();
        app.add_option("-o,--output", output, "output file")->capture_default_str();
        app.add_flag("-q,--quiet", quiet, "quiet: print only the report")->capture_default_str();
        app.add_option("--decomp", decomp, "decomposition of an E3SM map to use (D1, D2, ...)")->capture_default_str();
        app.add_option("--gap", gap, "floats between variables in the noncontiguous buffer")
            ->capture_default_str()->check(CLI::NonNegativeNumber);
        app.add_flag("--independent", independent, "MPI_File_write instead of MPI_File_write_all")->capture_default_str();
        app.add_option("--hint", hints,
                       "MPI-IO hint KEY=VALUE, repeatable; defaults romio_ds_write=disable, romio_cb_write=enable, "
                       "romio_no_indep_rw=true (collective only)");
        app.add_flag("--verify,!--no-verify", verify, "read both tiles back and verify every element")->capture_default_str();
        bool verify_existing = false;
        app.add_flag("--verify-existing", verify_existing,
                     "write nothing: read the existing output file (-o) back and verify both tiles")
            ->capture_default_str();
        app.add_flag("-k,--keep", keep, "keep the output file")->capture_default_str();
        app.add_flag("--overwrite", overwrite, "replace an existing output file")->capture_default_str();
        app.add_option("--json", json, "write the result (with manifest) as JSON to FILE");
        DriverDefaults defaults;
        defaults.backend = "mpiio";
        defaults.verify = true;
        Driver drv("noncontig", comm, app, argc, argv, defaults);
        if (!drv.parse([&] {
                if (nvars <= 0)
                    throw Error("number of variables (-n) is " + std::to_string(nvars) + ", must be positive", "e.g. -n 100");
            }))
            return;
        if (drv.options().backend != "mpiio" || drv.options().strategy != "canonical")
            return run_through_stack(drv, StackSetup{input, output, decomp, nvars, gap, verify, verify_existing, quiet});

        OutputFiles outputs(comm, keep, overwrite);
        outputs.require_readable(input);
        const Decomposition d = read_decomposition_collective(input, decomp, comm);
        if (verify_existing) {
            outputs.require_readable(output);
            verify = true;
        } else {
            outputs.claim(output);
        }
        const std::vector<Run> runs = rank_runs(d, rank, nranks);

        MPI_Info info;
        MPI_Info_create(&info);
        struct InfoGuard {
            MPI_Info& i;
            ~InfoGuard() { if (i != MPI_INFO_NULL) MPI_Info_free(&i); }
        } g1{info};
        collective_step(comm, [&] {
            for (const auto& h : hints) {
                auto [k, v] = split_key_value(h, "--hint");
                MPI_Info_set(info, k.c_str(), v.c_str());
            }
        });
        set_default_hint(info, "romio_ds_write", "disable");
        set_default_hint(info, "romio_cb_write", "enable");
        if (!independent) set_default_hint(info, "romio_no_indep_rw", "true");

        if (rank == 0 && !quiet) {
            std::printf("input  file name = %s\noutput file name = %s\n", input.c_str(), output.c_str());
            std::fflush(stdout);
        }
        IoSetup setup{output, nvars, d.array_size, gap, !independent, info, !verify_existing};
        IoResult r = run_noncontig_io(comm, setup, runs, verify);
        struct UsedGuard {
            MPI_Info& i;
            ~UsedGuard() { if (i != MPI_INFO_NULL) MPI_Info_free(&i); }
        } g2{r.hints_used};

        // Reduce: max times, per-rank counts, verification.
        std::uint64_t nel = 0, minlen = UINT64_MAX, maxlen = 0;
        for (const auto& x : runs) {
            nel += static_cast<std::uint64_t>(x.length);
            minlen = std::min<std::uint64_t>(minlen, static_cast<std::uint64_t>(x.length));
            maxlen = std::max<std::uint64_t>(maxlen, static_cast<std::uint64_t>(x.length));
        }
        double tmax[3], tloc[3] = {r.contig_s, r.noncontig_s, r.pack_s};
        MPI_Allreduce(tloc, tmax, 3, MPI_DOUBLE, MPI_MAX, comm);
        std::uint64_t mx[2], mn[2], lmx[2] = {runs.size(), nel}, lmn[2] = {runs.size(), nel};
        MPI_Allreduce(lmx, mx, 2, MPI_UINT64_T, MPI_MAX, comm);
        MPI_Allreduce(lmn, mn, 2, MPI_UINT64_T, MPI_MIN, comm);
        std::uint64_t total_elems = 0, bad = 0;
        MPI_Allreduce(&nel, &total_elems, 1, MPI_UINT64_T, MPI_SUM, comm);
        MPI_Allreduce(&r.mismatches, &bad, 1, MPI_UINT64_T, MPI_SUM, comm);
        int pack_ok = r.pack_ok ? 1 : 0, all_pack_ok = 0;
        MPI_Allreduce(&pack_ok, &all_pack_ok, 1, MPI_INT, MPI_MIN, comm);
        // first failing rank's message to everyone
        int mine = r.mismatches ? rank : nranks, first = nranks;
        MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
        std::string first_msg;
        if (first < nranks) {
            first_msg = r.first_mismatch;
            int len = static_cast<int>(first_msg.size());
            MPI_Bcast(&len, 1, MPI_INT, first, comm);
            first_msg.resize(static_cast<std::size_t>(len));
            MPI_Bcast(first_msg.data(), len, MPI_CHAR, first, comm);
            first_msg += " on rank " + std::to_string(first);
        }
        const std::uint64_t expect_size = 2ull * static_cast<std::uint64_t>(nvars) * static_cast<std::uint64_t>(d.array_size) * 4;
        const RunStats ms = map_process_stats(d);
        const double amount = static_cast<double>(total_elems) * 4.0 * nvars;
        const double ratio = tmax[0] > 0 ? tmax[1] / tmax[0] : 0.0;

        Result result("noncontig", argv_vector(argc, argv));
        result.add_input("decomposition", input);
        if (rank == 0) {
            result.params() = {{"input", input}, {"output", output}, {"nvars", nvars}, {"format", d.format},
                               {"map_processes", d.nprocs}, {"array_size", d.array_size}, {"gap_floats", gap},
                               {"collective", !independent}, {"verify", verify}};
            result.summary() = {
                {"processes", nranks},
                {"write_bytes", amount},
                {"requests_per_var", {{"map_process", {{"max", ms.max_runs}, {"min", ms.min_runs}}},
                                      {"rank", {{"max", mx[0]}, {"min", mn[0]}}}}},
                {"request_bytes", {{"max", ms.max_len * 4}, {"min", ms.min_len * 4}}},
                {"bytes_per_var", {{"map_process", {{"max", ms.max_elems * 4}, {"min", ms.min_elems * 4}}},
                                   {"rank", {{"max", mx[1] * 4}, {"min", mn[1] * 4}}}}},
                {"seconds", {{"write_contig", tmax[0]}, {"write_noncontig", tmax[1]}, {"pack", tmax[2]}}},
                {"bandwidth_mib_s", {{"contig", tmax[0] > 0 ? amount / MiB / tmax[0] : 0.0},
                                     {"noncontig", tmax[1] > 0 ? amount / MiB / tmax[1] : 0.0}}},
                {"noncontig_over_contig", ratio},
                {"mpiio_layer", r.layer},
                {"file_size", r.file_size},
                {"verify", {{"done", verify}, {"mismatches", bad}, {"first", first_msg}, {"pack_ok", all_pack_ok == 1}}}};
            // The reference's runs have one rank per map process; these
            // request figures are per map process, whatever the rank count.
            TextReport t;
            t.section("noncontig: MPI-IO write, contiguous vs noncontiguous buffer");
            t.line("Decomposition", d.format + ", " + std::to_string(d.nprocs) + " processes, array_size " +
                                        with_commas(static_cast<std::uint64_t>(d.array_size)) + ", " +
                                        with_commas(d.total_runs()) + " runs");
            t.line("MPI-IO layer", r.layer);
            t.line("Access", independent ? "independent (MPI_File_write)" : "collective (MPI_File_write_all)");
            {
                std::string req;
                int nkeys = 0;
                MPI_Info_get_nkeys(info, &nkeys);
                for (int i = 0; i < nkeys; ++i) {
                    char k[MPI_MAX_INFO_KEY + 1], v[MPI_MAX_INFO_VAL + 1];
                    int flag = 0;
                    MPI_Info_get_nthkey(info, i, k);
                    MPI_Info_get(info, k, MPI_MAX_INFO_VAL, v, &flag);
                    req += (req.empty() ? "" : ", ") + std::string(k) + "=" + v;
                }
                t.line("Hints requested", req);
            }
            // What MPI_File_get_info reports (OpenMPI 5 may not reflect the
            // requested hints: open-mpi/ompi#13367).
            for (const char* k : {"romio_cb_write", "romio_ds_write", "romio_no_indep_rw", "cb_nodes", "cb_buffer_size",
                                  "striping_factor", "striping_unit"}) {
                char v[MPI_MAX_INFO_VAL + 1];
                int flag = 0;
                if (r.hints_used != MPI_INFO_NULL) MPI_Info_get(r.hints_used, k, MPI_MAX_INFO_VAL, v, &flag);
                if (flag) t.line(std::string("Hint in effect ") + k, v);
            }
            t.count("Total number of MPI processes", static_cast<std::uint64_t>(nranks));
            t.line("Map processes per rank", std::to_string(d.nprocs / nranks) +
                                                 (d.nprocs % nranks ? " or " + std::to_string(d.nprocs / nranks + 1) : ""));
            t.count("Total number of variables", static_cast<std::uint64_t>(nvars));
            char amt[96];
            std::snprintf(amt, sizeof amt, "%.2f MiB = %.2f GiB (%s bytes)", amount / MiB, amount / MiB / 1024,
                          with_commas(static_cast<std::uint64_t>(amount)).c_str());
            t.line("Total write amount", amt);
            t.count("Max no. noncontig requests per var", ms.max_runs);
            t.count("Min no. noncontig requests per var", ms.min_runs);
            t.line("Max / min requests per var per rank", with_commas(mx[0]) + " / " + with_commas(mn[0]));
            t.line("Max length of contig request", std::to_string(ms.max_len * 4) + " bytes");
            t.line("Min length of contig request", std::to_string(ms.min_len * 4) + " bytes");
            t.line("Max write amount per variable", mib(static_cast<double>(ms.max_elems * 4)));
            t.line("Min write amount per variable", mib(static_cast<double>(ms.min_elems * 4)));
            t.line("Max / min write amount per var per rank",
                   mib(static_cast<double>(mx[1] * 4)) + " / " + mib(static_cast<double>(mn[1] * 4)));
            if (verify) {
                t.line("File size", with_commas(r.file_size) + " bytes (expected 2 x nvars x array_size x 4 = " +
                                        with_commas(expect_size) + ")");
                t.line("Verification", bad ? "FAILED: " + std::to_string(bad) + " element(s); first: " + first_msg
                                           : std::string("passed (tile 0 and tile 1, every element; MPI_Pack output ") +
                                                 (all_pack_ok ? "matches)" : "DIFFERS)"));
            }
            if (!verify_existing) {
                t.line("Max write time when buf is contig", tmax[0], "sec");
                t.line("Max write time when buf is noncontig", tmax[1], "sec");
                t.line("Max time of MPI_Pack()", tmax[2], "sec");
                t.line("Noncontig / contig write time", ratio, "x", 2);
            }
            t.print();
        }
        result.write(comm, json, r.hints_used);
        collective_step(comm, [&] {
            if (bad)
                throw Error(output + " failed verification: " + std::to_string(bad) + " element(s) differ; first: " + first_msg,
                            "the file does not hold what was written: check the file system, or whether another "
                            "program changed it");
            if (!all_pack_ok && !verify_existing) throw Error("MPI_Pack produced other bytes than the noncontiguous buffer holds",
                                          "this is an MPI library problem; report it with the manifest");
            if (verify && r.file_size != expect_size)
                throw Error(output + " is " + std::to_string(r.file_size) + " bytes, expected " + std::to_string(expect_size));
        });
    });
}

}  // namespace
}  // namespace iok::noncontig

IOK_REGISTER_KERNEL(noncontig, "noncontig",
                    "MPI-IO collective write of an E3SM noncontiguous view, contiguous vs noncontiguous buffer",
                    iok::noncontig::noncontig_main)
