// iokernels s3d: the S3D-IO checkpoint kernel.  Every checkpoint is a new
// file holding four double arrays of the block-block-block decomposed grid;
// optionally checkpoint 0 of a previous run is read first (restart).  The
// kernel builds plans and hands them to the runner; the library is whichever
// backend -a names.
#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "backends/backend.hpp"
#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/kernel_registry.hpp"
#include "core/output_files.hpp"
#include "core/report.hpp"
#include "core/result.hpp"
#include "kernels/s3d/s3d_decomp.hpp"
#include "kernels/s3d/s3d_options.hpp"
#include "kernels/s3d/s3d_plan.hpp"
#include "kernels/s3d/s3d_report.hpp"
#include "runner/runner.hpp"

namespace iok::s3d {
namespace {

// Sets an MPI-IO hint unless the user already gave it with --hint.
void default_hint(MPI_Info info, const char* key, const char* value) {
    int len = 0, flag = 0;
    MPI_Info_get_valuelen(info, key, &len, &flag);
    if (!flag) MPI_Info_set(info, key, value);
}

std::string info_value(MPI_Info info, const char* key, const std::string& dflt) {
    if (info == MPI_INFO_NULL) return dflt;
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
    return flag ? std::string(value) : dflt;
}

// Rank 0 checks the output directory; every rank gets the verdict.
void check_directory(MPI_Comm comm, const std::string& dir) {
    collective_step(comm, [&] {
        int rank = 0;
        MPI_Comm_rank(comm, &rank);
        if (rank != 0) return;
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec))
            throw Error("output directory " + dir + " does not exist",
                        "create it first (mkdir -p " + dir + ") or choose another with -o/--dir");
        if (access(dir.c_str(), W_OK | X_OK) != 0)
            throw Error("output directory " + dir + " is not writable", "choose a writable directory with -o/--dir");
    });
}

bool exists_on_rank0(MPI_Comm comm, const std::string& path) {
    int rank = 0, found = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        std::error_code ec;
        found = std::filesystem::exists(path, ec) ? 1 : 0;
    }
    MPI_Bcast(&found, 1, MPI_INT, 0, comm);
    return found != 0;
}

// Fails on every rank when a read-back found wrong data.
void require_verified(MPI_Comm comm, const FileOutcome& r, const std::string& path, const char* what) {
    collective_step(comm, [&] {
        if (r.mismatches)
            throw Error(std::string(what) + " " + path + " failed verification: " + std::to_string(r.mismatches) +
                            " element(s) differ; first: " + r.first_mismatch,
                        "the file does not hold what an s3d run with this grid writes: was it modified, "
                        "or written with other --grid/--local options?");
    });
}

void free_info(MPI_Info& info) {
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
}

int s3d_main(int argc, char** argv) {
    MPI_Comm comm = MPI_COMM_WORLD;
    return run_kernel_main("s3d", comm, [&] {
        int rank = 0, nprocs = 1;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &nprocs);

        CLI::App app{"S3D-IO checkpoint kernel: every checkpoint writes yspecies(11,z,y,x), u(3,z,y,x), "
                     "pressure(z,y,x) and temp(z,y,x) (double, block-block-block over the ranks) to a new file "
                     "pressure_wave_test.<time>.field<ext>; --restart first reads checkpoint 0.",
                     "iokernels s3d"};
        Options opt;
        opt.add_to(app);
        int code = 0;
        bool done = false;
        collective_step(comm, [&] { done = parse_command_line(app, argc, argv, comm, &code); });
        if (done) return;

        Grid grid;
        collective_step(comm, [&] {
            grid = opt.resolve(nprocs);
            validate(grid, nprocs);
        });
        // The reference keeps and clobbers its checkpoints; its form does too.
        if (opt.reference_form()) opt.common.overwrite = true;
        check_directory(comm, opt.dir);

        BackendConfig cfg;
        std::unique_ptr<Backend> backend;
        collective_step(comm, [&] {
            cfg = opt.common.backend_config();
            // The reference's hints: no alignment padding between variables,
            // byte swap in place (no extra buffer).  The header keeps
            // PnetCDF's classic 512-byte alignment, which releases before 1.13
            // applied regardless of nc_var_align_size (1.14 would otherwise
            // align it to 4 bytes): so the file is 1024 + 128 N bytes as the
            // reference's.  Other MPI-IO layers ignore these keys; --hint
            // overrides each.
            default_hint(cfg.hints, "nc_var_align_size", "1");
            default_hint(cfg.hints, "nc_header_align_size", "512");
            default_hint(cfg.hints, "nc_in_place_swap", "enable");
            if (opt.common.backend == "pnetcdf" && !cfg.params.count("api"))
                cfg.params["api"] = opt.nonblocking() ? "varn" : "blocking";
            backend = make_backend(opt.common.backend, cfg);
        });
        struct ConfigGuard {
            BackendConfig& c;
            ~ConfigGuard() { free_config(c); }
        } guard{cfg};

        const std::string ext = backend->extension();
        std::vector<std::string> paths;
        for (int k = 0; k < opt.checkpoints; ++k) paths.push_back(join_path(opt.dir, checkpoint_name(k, ext)));
        const Block blk = block_of(grid, rank);

        RunOptions ropt;
        ropt.progress = false;
        Runner runner(comm, *backend, ropt);
        Totals totals;
        Result result("s3d", argv_vector(argc, argv));
        std::vector<TextReport> file_reports;

        // Restart: checkpoint 0 of a previous run, read and verified before
        // anything is written (the reference reads it, then carries on).
        bool restart_read = false;
        std::string restart_note = "False";
        const std::string restart_path = join_path(opt.dir, checkpoint_name(0, ext));
        if (opt.restart) {
            if (exists_on_rank0(comm, restart_path)) {
                FileOutcome r = runner.read(checkpoint_plan(grid, rank, 0), restart_path);
                free_info(r.hints);
                require_verified(comm, r, restart_path, "restart file");
                restart_read = true;
                restart_note = "True (read and verified " + restart_path + ")";
                if (rank == 0) {
                    totals.add(r.json);
                    r.json["role"] = "restart";
                    result.add_file(r.json);
                    file_reports.push_back(r.text);
                }
            } else {
                restart_note = "True (" + restart_path + " not found: no restart read)";
                if (rank == 0 && !opt.common.quiet)
                    std::printf("restart: %s not found; continuing without the restart read\n", restart_path.c_str());
            }
        }

        // Claim every output before writing any.  A restart file that just
        // passed verification is this benchmark's own output and is
        // rewritten as checkpoint 0, as the reference does.
        OutputFiles outputs(comm, opt.common.keep, opt.common.overwrite);
        OutputFiles restart_output(comm, opt.common.keep, true);
        for (int k = 0; k < opt.checkpoints; ++k) {
            if (k == 0 && restart_read) restart_output.claim(paths[0]);
            else outputs.claim(paths[static_cast<std::size_t>(k)]);
        }

        MPI_Info hints = MPI_INFO_NULL;
        for (int k = 0; k < opt.checkpoints; ++k) {
            FileOutcome w = runner.write(checkpoint_plan(grid, rank, k), paths[static_cast<std::size_t>(k)]);
            if (hints == MPI_INFO_NULL) hints = w.hints;
            else free_info(w.hints);
            if (rank == 0) {
                totals.add(w.json);
                w.json["role"] = "checkpoint";
                w.json["checkpoint"] = k;
                result.add_file(w.json);
                file_reports.push_back(w.text);
                if (opt.common.verbose) std::fprintf(stderr, "  checkpoint %d written: %s\n", k, paths[k].c_str());
            }
        }

        // Read-back of every checkpoint: not part of the reference's figures.
        std::string verify_note = "skipped (--no-verify)";
        if (opt.verify) {
            for (int k = 0; k < opt.checkpoints; ++k) {
                FileOutcome r = runner.read(checkpoint_plan(grid, rank, k), paths[static_cast<std::size_t>(k)]);
                free_info(r.hints);
                require_verified(comm, r, paths[static_cast<std::size_t>(k)], "checkpoint");
                if (rank == 0) {
                    r.json["role"] = "verify";
                    r.json["checkpoint"] = k;
                    result.add_file(r.json);
                    if (opt.common.verbose) file_reports.push_back(r.text);
                }
            }
            verify_note = "passed: " + std::to_string(opt.checkpoints) +
                          " checkpoint(s) read back, every element matches";
        }

        const std::string striping_factor = info_value(hints, "striping_factor", "0");
        const std::string striping_unit = info_value(hints, "striping_unit", "0");
        if (rank == 0) {
            result.params() = {{"grid", {grid.nx_g, grid.ny_g, grid.nz_g}},
                               {"procs", {grid.npx, grid.npy, grid.npz}},
                               {"local", {blk.nx, blk.ny, blk.nz}},
                               {"method", opt.method},
                               {"restart", opt.restart},
                               {"checkpoints", opt.checkpoints},
                               {"dir", opt.dir},
                               {"backend", backend->name()},
                               {"verify", opt.verify},
                               {"reference_form", opt.reference_form()}};
            nlohmann::json s = totals.to_json();
            s["restart_read"] = restart_read;
            s["restart_time_in_total"] = true;
            s["striping_factor"] = striping_factor;
            s["striping_unit"] = striping_unit;
            s["verified_checkpoints"] = opt.verify ? opt.checkpoints : 0;
            result.summary() = s;

            if (opt.common.verbose)
                for (const auto& t : file_reports) t.print();
            TextReport t;
            t.section("S3D-IO checkpoint kernel");
            t.line("I/O library", backend->name() + " / " + backend->library());
            t.line("I/O method", opt.method + (opt.common.backend == "pnetcdf"
                                                   ? " APIs (pnetcdf api=" + cfg.param("api", "varn") + ")"
                                                   : " requested (applies to pnetcdf only; " + backend->name() + " uses its own put/flush)"));
            t.line("Run with restart", restart_note);
            t.count("No. MPI processes", static_cast<std::uint64_t>(nprocs));
            t.line("Process grid", std::to_string(grid.npx) + " x " + std::to_string(grid.npy) + " x " +
                                       std::to_string(grid.npz));
            t.line("Global array size", std::to_string(grid.nx_g) + " x " + std::to_string(grid.ny_g) + " x " +
                                            std::to_string(grid.nz_g));
            t.line("Local array size", std::to_string(blk.nx) + " x " + std::to_string(blk.ny) + " x " +
                                           std::to_string(blk.nz));
            t.count("Checkpoints", static_cast<std::uint64_t>(opt.checkpoints));
            t.line("Output file path", opt.dir);
            t.line("File striping count", striping_factor);
            t.line("File striping size", striping_unit + " bytes");
            t.line("Bytes on disk", with_commas(totals.bytes_on_disk) + " in " +
                                        std::to_string(totals.files_written) + " files");
            t.line("Verification", verify_note);
            t.section("S3D-IO figures (time: slowest rank per phase, summed)");
            t.line("Time for open", totals.open_s, "sec");
            t.line("Time for read", totals.read_s, "sec");
            t.line("Time for write", totals.write_s, "sec");
            t.line("Time for close", totals.close_s, "sec");
            t.line("No. read calls", with_commas(static_cast<std::uint64_t>(totals.read_calls)) + " per process");
            t.line("No. write calls", with_commas(static_cast<std::uint64_t>(totals.write_calls)) + " per process");
            t.line("Total read amount", gib_text(totals.read_bytes));
            t.line("Total write amount", gib_text(totals.write_bytes));
            const auto bw = [](double b, double s) { return s > 0 ? b / MiB / s : 0.0; };
            t.line("Read bandwidth", bw(totals.read_bytes, totals.read_s), "MiB/s", 2);
            t.line("Write bandwidth", bw(totals.write_bytes, totals.write_s), "MiB/s", 2);
            t.line("Total I/O amount", gib_text(totals.total_bytes()));
            t.line("Total I/O time (restart read included)", totals.total_s(), "sec");
            t.line("I/O bandwidth", bw(totals.total_bytes(), totals.total_s()), "MiB/s", 2);
            t.print();
        }
        result.write(comm, opt.common.json, hints);
        free_info(hints);
    });
}

}  // namespace
}  // namespace iok::s3d

IOK_REGISTER_KERNEL(s3d, "s3d", "S3D-IO combustion checkpoints: 4 double arrays, block-block-block, one file each",
                    iok::s3d::s3d_main)
