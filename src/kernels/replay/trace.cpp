#include "kernels/replay/trace.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "capture/run_groups.hpp"
#include "core/error.hpp"

namespace iok::replay {
namespace {

using nlohmann::json;

constexpr int kVersion = 2;
// A shape expanding to more runs is refused (a damaged trace must not
// exhaust memory; E3SM's F case at 16 ranks has ~10^5 per rank).
constexpr std::int64_t kMaxShapeRuns = std::int64_t{1} << 24;

struct Reader {
    const std::string& source;
    std::string hint = "re-capture it: LD_PRELOAD=libiok_capture.so mpiexec ... (docs/capture_trace.md)";

    [[noreturn]] void bad(const std::string& what) const {
        throw Error("trace " + source + " is damaged: " + what, hint);
    }
    const json& field(const json& o, const char* key, const std::string& where) const {
        if (!o.is_object()) bad(where + " is not an object");
        auto it = o.find(key);
        if (it == o.end()) bad(where + " has no '" + key + "'");
        return *it;
    }
    std::int64_t integer(const json& v, const std::string& where) const {
        if (!v.is_number_integer()) bad(where + " is not an integer");
        return v.get<std::int64_t>();
    }
    double number(const json& v, const std::string& where) const {
        if (!v.is_number()) bad(where + " is not a number");
        return v.get<double>();
    }
    const json& array(const json& v, const std::string& where) const {
        if (!v.is_array()) bad(where + " is not an array");
        return v;
    }
};

}  // namespace

namespace {

Trace parse_trace_document(const std::string& text, const std::string& source) {
    Reader r{source};
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
        const bool truncated = e.byte >= text.size();
        if (text.empty()) throw Error("trace " + source + " is empty", r.hint);
        throw Error(
            "trace " + source + (truncated ? " is truncated" : " is not valid JSON") + " (at byte " +
                std::to_string(e.byte) + " of " + std::to_string(text.size()) + ")",
            truncated ? "the capture did not finish (the job ended before MPI_Finalize, or the file was cut): " + r.hint
                      : r.hint);
    }
    if (!doc.is_object() || doc.value("format", std::string()) != "iokernels-trace")
        throw Error(source + " is not an iokernels trace (no \"format\": \"iokernels-trace\")",
                    "give a trace written by libiok_capture.so (docs/capture_trace.md)");
    Trace t;
    t.version = static_cast<int>(r.integer(r.field(doc, "version", "the trace"), "version"));
    if (t.version < 1 || t.version > kVersion)
        throw Error("trace " + source + " has format version " + std::to_string(t.version) +
                        ", this program reads version " + std::to_string(kVersion),
                    "replay it with the iokernels that came with the capture library that wrote it");
    t.nranks = static_cast<int>(r.integer(r.field(doc, "nranks", "the trace"), "nranks"));
    if (t.nranks < 1) r.bad("nranks is " + std::to_string(t.nranks));
    t.program = doc.value("program", std::string());
    t.mpi = doc.value("mpi", std::string());
    const json& ranks = r.array(r.field(doc, "ranks", "the trace"), "ranks");
    if (static_cast<int>(ranks.size()) != t.nranks)
        r.bad("it holds " + std::to_string(ranks.size()) + " rank records for nranks " + std::to_string(t.nranks));
    t.shapes.resize(static_cast<std::size_t>(t.nranks));
    std::map<std::string, std::size_t> file_index;
    std::vector<std::pair<double, std::size_t>> first_open;
    for (const json& rk : ranks) {
        const int rank = static_cast<int>(r.integer(r.field(rk, "rank", "a rank record"), "rank"));
        const std::string where = "rank " + std::to_string(rank);
        if (rank < 0 || rank >= t.nranks) r.bad(where + " is outside 0.." + std::to_string(t.nranks - 1));
        auto& shapes = t.shapes[static_cast<std::size_t>(rank)];
        if (!shapes.empty()) r.bad(where + " appears twice");
        for (const json& sj : r.array(r.field(rk, "shapes", where), where + " shapes")) {
            TraceShape s;
            s.size = r.integer(r.field(sj, "size", where + " shape"), where + " shape size");
            s.extent = r.integer(r.field(sj, "extent", where + " shape"), where + " shape extent");
            const json& g = r.array(r.field(sj, "runs", where + " shape"), where + " shape runs");
            std::vector<std::int64_t> flat;
            flat.reserve(g.size());
            for (const json& x : g) flat.push_back(r.integer(x, where + " run"));
            if (t.version < 2)  // version 1 has no repeat groups (count 0)
                for (std::size_t i = 3; i < flat.size(); i += 4)
                    if (flat[i] <= 0) r.bad(where + ": a shape run has count " + std::to_string(flat[i]));
            std::int64_t data = 0;
            bool negative = false, too_much = false;
            const std::string err = iok_runs::unfold_runs(flat, kMaxShapeRuns, [&](std::int64_t off, std::int64_t len) {
                if (off < 0) negative = true;
                if (too_much || negative) return;
                s.runs.push_back({off, len});
                s.data_before.push_back(data);
                data += len;
                too_much = data > s.size;
            });
            if (!err.empty()) r.bad(where + ": shape " + std::to_string(shapes.size()) + ": " + err);
            if (negative) r.bad(where + ": a shape has a run before its first byte");
            if (s.runs.empty() || data != s.size || s.extent <= 0)
                r.bad(where + ": a shape's runs hold " + std::to_string(data) + " bytes, its size says " +
                      std::to_string(s.size));
            shapes.push_back(std::move(s));
        }
        if (shapes.empty()) r.bad(where + " has no shapes (shape 0 is the contiguous view)");
        for (const json& sj : r.array(r.field(rk, "sessions", where), where + " sessions")) {
            TraceSession s;
            s.rank = rank;
            const json& name = r.field(sj, "file", where + " session");
            if (!name.is_string()) r.bad(where + ": a session's file is not a string");
            s.amode = static_cast<int>(r.integer(r.field(sj, "amode", where + " session"), "amode"));
            s.comm_size = static_cast<int>(r.integer(r.field(sj, "comm_size", where + " session"), "comm_size"));
            s.comm_rank = static_cast<int>(r.integer(r.field(sj, "comm_rank", where + " session"), "comm_rank"));
            const json hints = sj.value("hints", json::object());
            if (hints.is_object())
                for (auto it = hints.begin(); it != hints.end(); ++it)
                    if (it.value().is_string()) s.hints[it.key()] = it.value().get<std::string>();
            s.open = r.number(r.field(sj, "open", where + " session"), "open");
            const json& cl = r.field(sj, "close", where + " session");
            s.close = cl.is_null() ? -1 : r.number(cl, "close");
            s.set_views = sj.value("set_views", std::int64_t{0});
            s.unknown_views = sj.value("unknown_views", std::int64_t{0});
            for (const json& oj : r.array(r.field(sj, "ops", where + " session"), where + " ops")) {
                const std::size_t fields = t.version < 2 ? 11 : 13;
                if (!oj.is_array() || oj.size() != fields)
                    r.bad(where + ": an access record is not " + std::to_string(fields) + " numbers");
                TraceOp o;
                o.flags = static_cast<std::uint32_t>(r.integer(oj[0], where + " flags"));
                o.shape = static_cast<int>(r.integer(oj[1], where + " shape"));
                o.disp = r.integer(oj[2], where + " disp");
                o.voff = r.integer(oj[3], where + " offset");
                o.bytes = r.integer(oj[4], where + " bytes");
                o.count = r.integer(oj[5], where + " count");
                o.dstep = r.integer(oj[6], where + " step");
                o.vstep = r.integer(oj[7], where + " step");
                o.t_first = r.number(oj[8], where + " time");
                o.t_end = r.number(oj[9], where + " time");
                o.busy = r.number(oj[10], where + " time");
                if (t.version >= 2) {
                    o.views = r.integer(oj[11], where + " set_view count");
                    o.view_step = r.integer(oj[12], where + " set_view count");
                    if (o.views < 0 || o.view_step < 0) r.bad(where + ": an access has a negative set_view count");
                }
                if (o.shape < 0 || static_cast<std::size_t>(o.shape) >= shapes.size())
                    r.bad(where + ": an access names shape " + std::to_string(o.shape) + " of " +
                          std::to_string(shapes.size()));
                if (o.bytes < 0 || o.count < 1 || o.voff < 0 || o.disp < 0)
                    r.bad(where + ": an access has bytes " + std::to_string(o.bytes) + ", count " +
                          std::to_string(o.count) + ", offset " + std::to_string(o.voff));
                if (o.flags > 255) r.bad(where + ": an access has unknown flags " + std::to_string(o.flags));
                s.ops.push_back(o);
            }
            auto [it, fresh] = file_index.emplace(name.get<std::string>(), t.files.size());
            if (fresh) {
                t.files.push_back({name.get<std::string>(), {}});
                first_open.push_back({s.open, it->second});
            } else if (s.open < first_open[it->second].first)
                first_open[it->second].first = s.open;
            t.files[it->second].sessions.push_back(std::move(s));
        }
    }
    // Files in order of their first open (ties: name order).
    std::stable_sort(first_open.begin(), first_open.end());
    std::vector<TraceFile> ordered;
    for (const auto& [time, idx] : first_open) ordered.push_back(std::move(t.files[idx]));
    t.files = std::move(ordered);
    return t;
}

}  // namespace

Trace parse_trace(const std::string& text, const std::string& source) {
    try {
        return parse_trace_document(text, source);
    } catch (const json::exception& e) {
        // what the checks above do not name: a number JSON cannot hold
        // (1e5000), a string where a number belongs in an optional field
        throw Error("trace " + source + " is damaged: " + e.what(),
                    "give a trace written by libiok_capture.so (docs/capture_trace.md)");
    }
}

std::vector<Run> normalize_runs(std::vector<Run> runs) {
    std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.offset < b.offset; });
    std::vector<Run> out;
    for (const Run& x : runs) {
        if (x.length <= 0) continue;
        if (!out.empty() && x.offset <= out.back().offset + out.back().length)
            out.back().length =
                std::max(out.back().offset + out.back().length, x.offset + x.length) - out.back().offset;
        else
            out.push_back(x);
    }
    return out;
}

std::vector<Run> intersect_runs(const std::vector<Run>& a, const std::vector<Run>& b) {
    std::vector<Run> out;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const std::int64_t lo = std::max(a[i].offset, b[j].offset);
        const std::int64_t hi = std::min(a[i].offset + a[i].length, b[j].offset + b[j].length);
        if (lo < hi) out.push_back({lo, hi - lo});
        if (a[i].offset + a[i].length < b[j].offset + b[j].length)
            ++i;
        else
            ++j;
    }
    return out;
}

std::vector<Run> subtract_runs(const std::vector<Run>& a, const std::vector<Run>& b) {
    std::vector<Run> out;
    std::size_t j = 0;
    for (const Run& x : a) {
        std::int64_t lo = x.offset;
        const std::int64_t hi = x.offset + x.length;
        while (j < b.size() && b[j].offset + b[j].length <= lo) ++j;
        for (std::size_t k = j; k < b.size() && b[k].offset < hi; ++k) {
            if (b[k].offset > lo) out.push_back({lo, b[k].offset - lo});
            lo = std::max(lo, b[k].offset + b[k].length);
        }
        if (lo < hi) out.push_back({lo, hi - lo});
    }
    return out;
}

std::int64_t run_bytes(const std::vector<Run>& r) {
    std::int64_t n = 0;
    for (const Run& x : r) n += x.length;
    return n;
}

}  // namespace iok::replay
