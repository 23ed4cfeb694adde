// raw_write: the storage reference for benchmarks.  Writes N bytes to one
// file with plain MPI-IO, each rank one contiguous share (rank order), in
// chunks of --chunk bytes, collectively (MPI_File_write_at_all) or not, and
// prints the slowest rank's open-to-close time and the bandwidth.  bench/
// scripts run it beside a kernel, same directory, same run, so ratios
// compare like with like.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/command_line.hpp"
#include "core/manifest.hpp"
#include "core/mpi_layer.hpp"
#include "core/output_files.hpp"
#include "core/report.hpp"
#include "core/result.hpp"

int main(int argc, char** argv) {
    iok::init_mpi(&argc, &argv);
    MPI_Comm comm = MPI_COMM_WORLD;
    int rc = iok::run_kernel_main("raw_write", comm, [&] {
        CLI::App app{"raw contiguous MPI-IO write of N bytes (benchmark reference)", "raw_write"};
        std::uint64_t bytes = 64ull << 20, chunk = 8ull << 20;
        std::string path = "raw_write.dat", json;
        bool independent = false, keep = false, overwrite = false, read_back = false, read_only = false;
        std::vector<std::string> hints;
        app.add_option("-n,--bytes", bytes, "total bytes to write (over all ranks)")->capture_default_str();
        app.add_option("-c,--chunk", chunk, "bytes per write call")->capture_default_str();
        app.add_option("-o,--output", path, "output file")->capture_default_str();
        app.add_flag("--independent", independent, "MPI_File_write_at instead of write_at_all")->capture_default_str();
        app.add_flag("--read", read_back, "also read the file back (read bandwidth)")->capture_default_str();
        app.add_flag("--read-only", read_only,
                     "only read an existing file of --bytes bytes (e.g. one kept with -k, after dropping the "
                     "page cache: a cold read)")
            ->capture_default_str();
        app.add_option("--hint", hints, "MPI-IO hint KEY=VALUE, repeatable");
        app.add_flag("-k,--keep", keep, "keep the file")->capture_default_str();
        app.add_flag("--overwrite", overwrite, "replace an existing file")->capture_default_str();
        app.add_option("--json", json, "write the result as JSON to FILE");
        int code = 0;
        bool done = false;
        iok::collective_step(comm, [&] {
            done = iok::parse_command_line(app, argc, argv, comm, &code);
            if (chunk == 0) throw iok::Error("--chunk must be positive");
        });
        if (done) return;
        int rank = 0, size = 1;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        iok::OutputFiles outputs(comm, keep, overwrite);
        if (read_only)
            outputs.require_readable(path);
        else
            outputs.claim(path);
        MPI_Info info;
        MPI_Info_create(&info);
        for (const auto& h : hints) {
            auto [k, v] = iok::split_key_value(h, "--hint");
            MPI_Info_set(info, k.c_str(), v.c_str());
        }
        const std::uint64_t share = bytes / size + (static_cast<std::uint64_t>(rank) < bytes % size ? 1 : 0);
        const std::uint64_t first = (bytes / size) * rank + std::min<std::uint64_t>(rank, bytes % size);
        std::vector<char> buf(std::min(chunk, std::max<std::uint64_t>(share, 1)), static_cast<char>('a' + rank % 26));
        // every rank makes the same number of calls (collective)
        std::uint64_t max_share = bytes / size + (bytes % size ? 1 : 0);
        const std::uint64_t ncalls = (max_share + chunk - 1) / chunk;

        auto run = [&](bool writing) {
            MPI_File fh;
            MPI_Barrier(comm);
            double t0 = MPI_Wtime();
            int err = MPI_File_open(comm, path.c_str(), writing ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY,
                                    info, &fh);
            iok::collective_step(comm,
                                 [&] { iok::check_mpi(err, "MPI_File_open", (writing ? "create " : "open ") + path); });
            for (std::uint64_t c = 0; c < ncalls; ++c) {
                std::uint64_t done_bytes = c * chunk;
                int n = static_cast<int>(done_bytes < share ? std::min(chunk, share - done_bytes) : 0);
                MPI_Offset off = static_cast<MPI_Offset>(first + std::min(done_bytes, share));
                if (writing) {
                    if (independent)
                        MPI_File_write_at(fh, off, buf.data(), n, MPI_BYTE, MPI_STATUS_IGNORE);
                    else
                        MPI_File_write_at_all(fh, off, buf.data(), n, MPI_BYTE, MPI_STATUS_IGNORE);
                } else {
                    if (independent)
                        MPI_File_read_at(fh, off, buf.data(), n, MPI_BYTE, MPI_STATUS_IGNORE);
                    else
                        MPI_File_read_at_all(fh, off, buf.data(), n, MPI_BYTE, MPI_STATUS_IGNORE);
                }
            }
            MPI_Info used;
            MPI_File_get_info(fh, &used);
            MPI_File_close(&fh);
            double t = MPI_Wtime() - t0, tmax = 0;
            MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
            return std::make_pair(tmax, used);
        };
        double tw = 0, tr = 0;
        MPI_Info used = MPI_INFO_NULL;
        if (!read_only) std::tie(tw, used) = run(true);
        if (read_back || read_only) {
            MPI_Info r;
            std::tie(tr, r) = run(false);
            if (used == MPI_INFO_NULL)
                used = r;
            else
                MPI_Info_free(&r);
        }
        nlohmann::json manifest = iok::build_manifest(comm, iok::argv_vector(argc, argv), {}, used, info);
        if (rank == 0) {
            iok::TextReport t;
            t.section("raw contiguous MPI-IO " + std::string(independent ? "independent" : "collective") +
                      (read_only ? " read" : " write"));
            t.line("Output", path);
            t.line("MPI-IO layer", iok::mpiio_layer_from_info(used));
            t.line(read_only ? "Read amount" : "Write amount", iok::format_bytes(static_cast<double>(bytes)));
            if (!read_only) {
                t.line("Time open-to-close (max)", tw, "s");
                t.line("Bandwidth (write)", tw > 0 ? bytes / iok::MiB / tw : 0.0, "MiB/s");
            }
            if (read_back || read_only) {
                t.line("Time read (max)", tr, "s");
                t.line("Bandwidth (read)", tr > 0 ? bytes / iok::MiB / tr : 0.0, "MiB/s");
            }
            t.print();
            if (!json.empty()) {
                nlohmann::json doc = {{"schema", "iokernels-result/1"},
                                      {"kernel", "raw_write"},
                                      {"summary",
                                       {{"bytes", bytes},
                                        {"write_seconds", tw},
                                        {"write_mib_s", tw > 0 ? bytes / iok::MiB / tw : 0.0},
                                        {"read_seconds", tr},
                                        {"read_mib_s", tr > 0 ? bytes / iok::MiB / tr : 0.0}}},
                                      {"manifest", manifest}};
                FILE* f = std::fopen(json.c_str(), "w");
                if (f) {
                    std::fputs(doc.dump(2).c_str(), f);
                    std::fclose(f);
                }
            }
        }
        MPI_Info_free(&used);
        MPI_Info_free(&info);
    });
    MPI_Finalize();
    return rc;
}
