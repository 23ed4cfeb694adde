#include "kernels/noncontig/noncontig_report.hpp"

#include <cstdio>

#include "core/report.hpp"

namespace iok::noncontig {
namespace {

std::string mib(double bytes) {
    char b[64];
    std::snprintf(b, sizeof b, "%.2f MiB", bytes / (1024.0 * 1024.0));
    return b;
}

}  // namespace

Figures reduce_figures(MPI_Comm comm, const NativeSetup& s, const Decomposition& d, const std::vector<Run>& runs,
                       const Measured& m) {
    Figures f;
    std::uint64_t nel = 0;
    for (const auto& x : runs) nel += static_cast<std::uint64_t>(x.length);
    double tmax[3], tloc[3] = {m.contig_s, m.noncontig_s, m.pack_s};
    MPI_Allreduce(tloc, tmax, 3, MPI_DOUBLE, MPI_MAX, comm);
    f.contig_s = tmax[0];
    f.noncontig_s = tmax[1];
    f.pack_s = tmax[2];
    std::uint64_t mx[2], mn[2], lmx[2] = {runs.size(), nel}, lmn[2] = {runs.size(), nel};
    MPI_Allreduce(lmx, mx, 2, MPI_UINT64_T, MPI_MAX, comm);
    MPI_Allreduce(lmn, mn, 2, MPI_UINT64_T, MPI_MIN, comm);
    f.max_runs = mx[0];
    f.min_runs = mn[0];
    f.max_elems = mx[1];
    f.min_elems = mn[1];
    std::uint64_t total_elems = 0;
    MPI_Allreduce(&nel, &total_elems, 1, MPI_UINT64_T, MPI_SUM, comm);
    int pack_ok = m.pack_ok ? 1 : 0, all_pack_ok = 0;
    MPI_Allreduce(&pack_ok, &all_pack_ok, 1, MPI_INT, MPI_MIN, comm);
    f.pack_ok = all_pack_ok == 1;
    f.mismatches = m.mismatches;
    f.first = m.first;
    // The file ends with the last written run of tile 1's last variable: 2 x
    // nvars x array_size x 4 bytes when the map covers the end of the array.
    f.expect_size = ((2ull * static_cast<std::uint64_t>(s.nvars) - 1) * static_cast<std::uint64_t>(d.array_size) +
                     static_cast<std::uint64_t>(d.covered_end())) *
                    4;
    f.whole_array = d.covered_end() == d.array_size;
    f.map_stats = map_process_stats(d);
    f.amount = static_cast<double>(total_elems) * 4.0 * s.nvars;
    return f;
}

nlohmann::json summary_json(const NativeSetup& s, const Measured& r, const Figures& f, int nranks) {
    const RunStats& ms = f.map_stats;
    const double amount = f.amount;
    return {{"processes", nranks},
            {"write_bytes", amount},
            {"requests_per_var",
             {{"map_process", {{"max", ms.max_runs}, {"min", ms.min_runs}}},
              {"rank", {{"max", f.max_runs}, {"min", f.min_runs}}}}},
            {"request_bytes", {{"max", ms.max_len * 4}, {"min", ms.min_len * 4}}},
            {"bytes_per_var",
             {{"map_process", {{"max", ms.max_elems * 4}, {"min", ms.min_elems * 4}}},
              {"rank", {{"max", f.max_elems * 4}, {"min", f.min_elems * 4}}}}},
            {"seconds", {{"write_contig", f.contig_s}, {"write_noncontig", f.noncontig_s}, {"pack", f.pack_s}}},
            {"bandwidth_mib_s",
             {{"contig", f.contig_s > 0 ? amount / MiB / f.contig_s : 0.0},
              {"noncontig", f.noncontig_s > 0 ? amount / MiB / f.noncontig_s : 0.0}}},
            {"noncontig_over_contig", f.ratio()},
            {"mpiio_layer", r.layer},
            {"file_size", r.file_size},
            {"verify", {{"done", s.verify}, {"mismatches", f.mismatches}, {"first", f.first}, {"pack_ok", f.pack_ok}}}};
}

void print_report(const NativeSetup& s, const Decomposition& d, const Measured& r, const Figures& f, MPI_Info requested,
                  int nranks) {
    // The reference's runs have one rank per map process; these request
    // figures are per map process, whatever the rank count.
    const RunStats& ms = f.map_stats;
    const double amount = f.amount;
    TextReport t;
    t.section("noncontig: MPI-IO write, contiguous vs noncontiguous buffer");
    t.line("Decomposition", d.format + ", " + d.processes_text() + ", array_size " +
                                with_commas(static_cast<std::uint64_t>(d.array_size)) + ", " +
                                with_commas(d.total_runs()) + " runs");
    t.line("MPI-IO layer", r.layer);
    t.line("Access", s.independent ? "independent (MPI_File_write)" : "collective (MPI_File_write_all)");
    {
        std::string req;
        int nkeys = 0;
        MPI_Info_get_nkeys(requested, &nkeys);
        for (int i = 0; i < nkeys; ++i) {
            char k[MPI_MAX_INFO_KEY + 1], v[MPI_MAX_INFO_VAL + 1];
            int flag = 0;
            MPI_Info_get_nthkey(requested, i, k);
            MPI_Info_get(requested, k, MPI_MAX_INFO_VAL, v, &flag);
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
    t.count("Total number of variables", static_cast<std::uint64_t>(s.nvars));
    char amt[96];
    std::snprintf(amt, sizeof amt, "%.2f MiB = %.2f GiB (%s bytes)", amount / MiB, amount / MiB / 1024,
                  with_commas(static_cast<std::uint64_t>(amount)).c_str());
    t.line("Total write amount", amt);
    t.count("Max no. noncontig requests per var", ms.max_runs);
    t.count("Min no. noncontig requests per var", ms.min_runs);
    t.line("Max / min requests per var per rank", with_commas(f.max_runs) + " / " + with_commas(f.min_runs));
    t.line("Max length of contig request", std::to_string(ms.max_len * 4) + " bytes");
    t.line("Min length of contig request", std::to_string(ms.min_len * 4) + " bytes");
    t.line("Max write amount per variable", mib(static_cast<double>(ms.max_elems * 4)));
    t.line("Min write amount per variable", mib(static_cast<double>(ms.min_elems * 4)));
    t.line("Max / min write amount per var per rank",
           mib(static_cast<double>(f.max_elems * 4)) + " / " + mib(static_cast<double>(f.min_elems * 4)));
    if (s.verify) {
        t.line("File size", with_commas(r.file_size) +
                                (f.whole_array ? " bytes (expected 2 x nvars x array_size x 4 = "
                                               : " bytes (expected: to the end of tile 1's last written run = ") +
                                with_commas(f.expect_size) + ")");
        t.line("Verification", f.mismatches
                                   ? "FAILED: " + std::to_string(f.mismatches) + " element(s); first: " + f.first
                                   : std::string("passed (tile 0 and tile 1, every element; MPI_Pack output ") +
                                         (f.pack_ok ? "matches)" : "DIFFERS)"));
    }
    if (!s.verify_existing) {
        t.line("Max write time when buf is contig", f.contig_s, "sec");
        t.line("Max write time when buf is noncontig", f.noncontig_s, "sec");
        t.line("Max time of MPI_Pack()", f.pack_s, "sec");
        t.line("Noncontig / contig write time", f.ratio(), "x", 2);
    }
    t.print();
}

}  // namespace iok::noncontig
