#include "kernels/s3d/s3d_report.hpp"

#include <cstdio>

namespace iok::s3d {

void Totals::add(const FileMetrics& f) {
    // The reference's open time covers create + define + enddef.
    open_s += f.max_seconds(Phase::Open) + f.max_seconds(Phase::Define);
    close_s += f.max_seconds(Phase::Close);
    if (f.writing) {
        write_s += f.max_seconds(Phase::Post) + f.max_seconds(Phase::Flush);
        write_bytes += f.bytes.sum;
        write_calls += f.calls.max;
        ++files_written;
        bytes_on_disk += f.bytes_on_disk;
    } else {
        read_s += f.max_seconds(Phase::PostRead) + f.max_seconds(Phase::Flush);
        read_bytes += f.bytes.sum;
        read_calls += f.calls.max;
    }
}

nlohmann::json Totals::to_json() const {
    const auto bw = [](double bytes, double s) { return s > 0 ? bytes / MiB / s : 0.0; };
    return {
        {"seconds", {{"open", open_s}, {"write", write_s}, {"read", read_s}, {"close", close_s}, {"total", total_s()}}},
        {"bytes", {{"write", write_bytes}, {"read", read_bytes}, {"total", total_bytes()}, {"on_disk", bytes_on_disk}}},
        {"calls_per_process", {{"write", write_calls}, {"read", read_calls}}},
        {"bandwidth_mib_s",
         {{"write", bw(write_bytes, write_s)}, {"read", bw(read_bytes, read_s)}, {"io", bw(total_bytes(), total_s())}}},
        {"files_written", files_written}};
}

void print_s3d_report(const ReportContext& ctx, const Grid& grid, const Block& blk, int checkpoints,
                      const std::string& dir, const Totals& totals) {
    TextReport t;
    t.section("S3D-IO checkpoint kernel");
    t.line("I/O library", ctx.stack + " / " + ctx.library);
    t.line("I/O method", ctx.method + (!ctx.pnetcdf_api.empty() ? " APIs (pnetcdf api=" + ctx.pnetcdf_api + ")"
                                                                : " requested (applies to pnetcdf only; " + ctx.stack +
                                                                      " uses its own put/flush)"));
    t.line("Run with restart", ctx.restart_note);
    t.count("No. MPI processes", static_cast<std::uint64_t>(ctx.nprocs));
    t.line("Process grid",
           std::to_string(grid.npx) + " x " + std::to_string(grid.npy) + " x " + std::to_string(grid.npz));
    t.line("Global array size",
           std::to_string(grid.nx_g) + " x " + std::to_string(grid.ny_g) + " x " + std::to_string(grid.nz_g));
    t.line("Local array size",
           std::to_string(blk.nx) + " x " + std::to_string(blk.ny) + " x " + std::to_string(blk.nz));
    t.count("Checkpoints", static_cast<std::uint64_t>(checkpoints));
    t.line("Output file path", dir);
    t.line("File striping count", ctx.striping_factor);
    t.line("File striping size", ctx.striping_unit + " bytes");
    t.line("Bytes on disk",
           with_commas(totals.bytes_on_disk) + " in " + std::to_string(totals.files_written) + " files");
    t.line("Verification", ctx.verify_note);
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

std::string gib_text(double bytes) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.2f GiB (%s bytes)", bytes / GiB,
                  with_commas(static_cast<std::uint64_t>(bytes)).c_str());
    return buf;
}

}  // namespace iok::s3d
