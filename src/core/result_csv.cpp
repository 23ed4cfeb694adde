#include "core/result_csv.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/error.hpp"

namespace iok {

namespace {

// A value at a JSON path as CSV text ("" when absent); strings quoted.
std::string cell(const nlohmann::json& j, std::initializer_list<const char*> path) {
    const nlohmann::json* p = &j;
    for (const char* k : path) {
        if (!p->is_object() || !p->contains(k)) return "";
        p = &(*p)[k];
    }
    if (p->is_string()) {
        std::string s = p->get<std::string>(), q = "\"";
        for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
        return q + "\"";
    }
    return p->is_null() ? "" : p->dump();
}

}  // namespace

void write_result_csv(const std::string& path, const std::string& kernel, const nlohmann::json& params,
                      const nlohmann::json& files, int processes) {
    std::ofstream out(path);
    if (!out)
        throw Error("cannot write the CSV result " + path + ": " + std::strerror(errno),
                    "choose a writable path with --csv");
    out << "kernel,backend,strategy,processes,label,mode,path,bytes,requests,seconds_end_to_end_max,"
           "bandwidth_mib_s_open_to_close,bandwidth_mib_s_data_only,mismatches\n";
    for (const auto& f : files) {
        out << kernel << ',' << cell(params, {"backend"}) << ',' << cell(params, {"strategy"}) << ',' << processes
            << ',' << cell(f, {"label"}) << ',' << cell(f, {"mode"}) << ',' << cell(f, {"path"}) << ','
            << cell(f, {"bytes", "total"}) << ',' << cell(f, {"requests", "total"}) << ','
            << cell(f, {"seconds", "end_to_end", "max"}) << ',' << cell(f, {"bandwidth_mib_s", "open_to_close"}) << ','
            << cell(f, {"bandwidth_mib_s", "data_only"}) << ',' << cell(f, {"verify", "mismatches"}) << '\n';
    }
    if (!out) throw Error("writing the CSV result " + path + " failed (disk full?)");
}

}  // namespace iok
