#include "kernels/s3d/s3d_report.hpp"

#include <cstdio>

namespace iok::s3d {

namespace {

double phase_max(const nlohmann::json& file, const char* phase) {
    const auto& s = file.at("seconds");
    return s.contains(phase) ? s[phase].at("max").get<double>() : 0.0;
}

}  // namespace

void Totals::add(const nlohmann::json& f) {
    // The reference's open time covers create + define + enddef.
    open_s += phase_max(f, "open") + phase_max(f, "define");
    close_s += phase_max(f, "close");
    const double bytes = f.at("bytes").at("total").get<double>();
    const double calls = f.at("calls_per_rank").at("max").get<double>();
    if (f.at("mode") == "write") {
        write_s += phase_max(f, "post") + phase_max(f, "flush");
        write_bytes += bytes;
        write_calls += calls;
        ++files_written;
        bytes_on_disk += f.at("bytes_on_disk").get<std::uint64_t>();
    } else {
        read_s += phase_max(f, "post_read") + phase_max(f, "flush");
        read_bytes += bytes;
        read_calls += calls;
    }
}

nlohmann::json Totals::to_json() const {
    const auto bw = [](double bytes, double s) { return s > 0 ? bytes / MiB / s : 0.0; };
    return {{"seconds", {{"open", open_s}, {"write", write_s}, {"read", read_s}, {"close", close_s},
                         {"total", total_s()}}},
            {"bytes", {{"write", write_bytes}, {"read", read_bytes}, {"total", total_bytes()},
                       {"on_disk", bytes_on_disk}}},
            {"calls_per_process", {{"write", write_calls}, {"read", read_calls}}},
            {"bandwidth_mib_s", {{"write", bw(write_bytes, write_s)}, {"read", bw(read_bytes, read_s)},
                                 {"io", bw(total_bytes(), total_s())}}},
            {"files_written", files_written}};
}

std::string gib_text(double bytes) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.2f GiB (%s bytes)", bytes / GiB,
                  with_commas(static_cast<std::uint64_t>(bytes)).c_str());
    return buf;
}

}  // namespace iok::s3d
