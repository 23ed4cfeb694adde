#include "runner/file_metrics.hpp"

#include <cstdio>
#include <vector>

namespace iok {

const char* phase_name(Phase p) {
    static const char* names[kPhases] = {"open",  "define", "fill",  "post",      "post_read",
                                         "flush", "verify", "close", "end_to_end"};
    return names[static_cast<int>(p)];
}

double FileMetrics::bandwidth_data_only() const { return data_seconds > 0 ? bytes.sum / MiB / data_seconds : 0.0; }

double FileMetrics::bandwidth_open_to_close() const {
    const double e2e = max_seconds(Phase::EndToEnd);
    return e2e > 0 ? bytes.sum / MiB / e2e : 0.0;
}

std::uint64_t FileMetrics::overhead_bytes() const {
    const auto data = static_cast<std::uint64_t>(bytes.sum);
    return writing && bytes_on_disk > data ? bytes_on_disk - data : 0;
}

std::string FileMetrics::memory_layout() const {
    if (struct_fields == 0) return "a packed buffer per variable";
    return "array of structs (" + std::to_string(struct_fields) + " fields, " + std::to_string(struct_bytes) + " B): " +
           (struct_packed ? "packed per field here (the backend cannot describe it)" : "handed to the library as is");
}

namespace {

void put_stat(std::vector<double>& v, const Stat& s) { v.insert(v.end(), {s.min, s.max, s.mean, s.sum}); }
Stat get_stat(const double*& p) {
    Stat s{p[0], p[1], p[2], p[3]};
    p += 4;
    return s;
}

nlohmann::json stat_json(const Stat& s) { return {{"min", s.min}, {"max", s.max}, {"mean", s.mean}}; }

}  // namespace

void FileMetrics::broadcast(MPI_Comm comm, int root) {
    std::vector<double> v = {writing ? 1.0 : 0.0,
                             static_cast<double>(variables),
                             static_cast<double>(attributes),
                             static_cast<double>(flushes),
                             static_cast<double>(records),
                             data_seconds,
                             static_cast<double>(bytes_on_disk),
                             static_cast<double>(struct_fields),
                             static_cast<double>(struct_bytes),
                             static_cast<double>(struct_native),
                             static_cast<double>(struct_packed),
                             static_cast<double>(mismatches)};
    for (const Stat* s : {&requests, &bytes, &calls, &rss_peak, &library_hwm}) put_stat(v, *s);
    for (int p = 0; p < kPhases; ++p) {
        put_stat(v, seconds[static_cast<std::size_t>(p)]);
        v.push_back(ran[static_cast<std::size_t>(p)] ? 1.0 : 0.0);
    }
    // The strings' lengths travel with the numbers, their bytes in one
    // second broadcast: two collectives per file instead of eleven.
    std::string* const texts[] = {&label, &path, &backend, &library, &first_mismatch};
    std::string chars;
    for (const std::string* t : texts) {
        v.push_back(static_cast<double>(t->size()));
        chars += *t;
    }
    MPI_Bcast(v.data(), static_cast<int>(v.size()), MPI_DOUBLE, root, comm);
    std::size_t nchars = 0;
    for (std::size_t k = 0; k < 5; ++k) nchars += static_cast<std::size_t>(v[v.size() - 5 + k]);
    chars.resize(nchars);
    if (nchars) MPI_Bcast(chars.data(), static_cast<int>(nchars), MPI_CHAR, root, comm);
    std::size_t at = 0;
    for (std::size_t k = 0; k < 5; ++k) {
        const auto n = static_cast<std::size_t>(v[v.size() - 5 + k]);
        texts[k]->assign(chars, at, n);
        at += n;
    }
    const double* p = v.data();
    writing = p[0] != 0;
    variables = static_cast<std::uint64_t>(p[1]);
    attributes = static_cast<std::uint64_t>(p[2]);
    flushes = static_cast<std::uint64_t>(p[3]);
    records = static_cast<int>(p[4]);
    data_seconds = p[5];
    bytes_on_disk = static_cast<std::uint64_t>(p[6]);
    struct_fields = static_cast<std::uint64_t>(p[7]);
    struct_bytes = static_cast<std::uint64_t>(p[8]);
    struct_native = static_cast<std::uint64_t>(p[9]);
    struct_packed = static_cast<std::uint64_t>(p[10]);
    mismatches = static_cast<std::uint64_t>(p[11]);
    p += 12;
    for (Stat* s : {&requests, &bytes, &calls, &rss_peak, &library_hwm}) *s = get_stat(p);
    for (int k = 0; k < kPhases; ++k) {
        seconds[static_cast<std::size_t>(k)] = get_stat(p);
        ran[static_cast<std::size_t>(k)] = *p++ != 0;
    }
}

nlohmann::json to_json(const FileMetrics& m) {
    nlohmann::json j;
    j["label"] = m.label;
    j["path"] = m.path;
    j["mode"] = m.writing ? "write" : "read";
    j["backend"] = m.backend;
    j["library"] = m.library;
    j["variables"] = m.variables;
    j["attributes"] = m.attributes;
    j["records"] = m.records;
    j["flushes"] = m.flushes;
    j["requests"] = {{"total", m.requests.sum}, {"max", m.requests.max}, {"min", m.requests.min}};
    j["calls_per_rank"] = {{"max", m.calls.max}, {"min", m.calls.min}};
    j["bytes"] = {{"total", m.bytes.sum}, {"max", m.bytes.max}, {"min", m.bytes.min}};
    j["bytes_on_disk"] = m.bytes_on_disk;
    j["overhead_bytes"] = static_cast<double>(m.overhead_bytes());
    nlohmann::json ph = nlohmann::json::object();
    for (int p = 0; p < kPhases; ++p)
        if (m.ran[static_cast<std::size_t>(p)])
            ph[phase_name(static_cast<Phase>(p))] = stat_json(m.seconds[static_cast<std::size_t>(p)]);
    j["seconds"] = ph;
    j["bandwidth_mib_s"] = {{"data_only", m.bandwidth_data_only()}, {"open_to_close", m.bandwidth_open_to_close()}};
    j["memory_bytes"] = {{"rss_peak", stat_json(m.rss_peak)}, {"library_hwm", stat_json(m.library_hwm)}};
    if (m.struct_fields)
        j["memory_struct"] = {{"fields", m.struct_fields},
                              {"bytes", m.struct_bytes},
                              {"requests_native", m.struct_native},
                              {"requests_packed", m.struct_packed}};
    if (!m.writing) j["verify"] = {{"checked", m.checked}, {"mismatches", m.mismatches}, {"first", m.first_mismatch}};
    return j;
}

TextReport to_text(const FileMetrics& m) {
    TextReport t;
    t.section(std::string(m.writing ? "write " : "read ") + m.label + ": " + m.path);
    t.line("Backend / library", m.backend + " / " + m.library);
    t.count("Variables", m.variables);
    t.count("Attributes", m.attributes);
    t.count("Records", static_cast<std::uint64_t>(m.records));
    t.count("Flushes", m.flushes);
    t.line("Requests total / max / min", with_commas(static_cast<std::uint64_t>(m.requests.sum)) + " / " +
                                             with_commas(static_cast<std::uint64_t>(m.requests.max)) + " / " +
                                             with_commas(static_cast<std::uint64_t>(m.requests.min)));
    t.line(std::string(m.writing ? "Write" : "Read") + " amount total", format_bytes(m.bytes.sum));
    t.line("Amount per rank max / min", format_bytes(m.bytes.max) + " / " + format_bytes(m.bytes.min));
    if (m.writing)
        t.line("Bytes on disk (overhead)", with_commas(m.bytes_on_disk) + " (" + with_commas(m.overhead_bytes()) + ")");
    char v[96];
    for (int p = 0; p < kPhases; ++p) {
        const auto k = static_cast<std::size_t>(p);
        if (!m.ran[k]) continue;
        std::snprintf(v, sizeof v, "%.4f / %.4f s", m.seconds[k].min, m.seconds[k].max);
        t.line(p == static_cast<int>(Phase::EndToEnd)
                   ? std::string("Time end-to-end min / max")
                   : "Time " + std::string(phase_name(static_cast<Phase>(p))) + " min / max",
               v);
    }
    t.line("Bandwidth (data only)", m.bandwidth_data_only(), "MiB/s");
    t.line("Bandwidth (open-to-close)", m.bandwidth_open_to_close(), "MiB/s");
    t.line("User memory layout", m.memory_layout());
    t.line("Memory peak RSS max / min", format_bytes(m.rss_peak.max) + " / " + format_bytes(m.rss_peak.min));
    if (m.library_hwm.max > 0) t.line("Library memory high-water max", format_bytes(m.library_hwm.max));
    if (!m.writing)
        t.line("Verification",
               !m.checked     ? std::string("not done (--no-verify: read and timed only)")
               : m.mismatches ? "FAILED: " + std::to_string(m.mismatches) + " element(s); first: " + m.first_mismatch
                              : std::string("passed (every element read matches the pattern)"));
    return t;
}

}  // namespace iok
