#include "backends/strategy_log_layout.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "backends/strategy_blob_layout.hpp"
#include "core/broadcast_file.hpp"
#include "core/collective.hpp"
#include "core/error.hpp"

namespace iok {

using nlohmann::json;

std::string log_data_path(const std::string& dir, std::size_t k) {
    char name[32];
    std::snprintf(name, sizeof name, "log_%04zu.bin", k);
    return dir + "/" + name;
}

std::string log_index_path(const std::string& dir, std::size_t k) {
    char name[32];
    std::snprintf(name, sizeof name, "index_%04zu.bin", k);
    return dir + "/" + name;
}

std::vector<std::int64_t> log_serialize(const LogWriterIndex& w) {
    std::vector<std::int64_t> v;
    v.push_back(static_cast<std::int64_t>(w.sels.size()));
    for (const LogSel& s : w.sels) {
        v.push_back(s.ndims);
        v.push_back(s.nblocks);
        v.insert(v.end(), s.ints.begin(), s.ints.end());
    }
    v.push_back(static_cast<std::int64_t>(w.entries.size()));
    for (const LogEntry& e : w.entries) v.insert(v.end(), {e.var, e.record, e.sel, e.offset, e.nbytes});
    return v;
}

LogWriterIndex log_parse(const std::vector<std::int64_t>& v, const std::string& where) {
    std::size_t at = 0;
    auto next = [&]() {
        if (at >= v.size()) throw Error(where + ": the log index ends early", "the log output is corrupt");
        return v[at++];
    };
    LogWriterIndex w;
    const std::int64_t nsels = next();
    if (nsels < 0 || static_cast<std::uint64_t>(nsels) > v.size()) throw Error(where + ": bad selection count");
    for (std::int64_t i = 0; i < nsels; ++i) {
        LogSel s;
        s.ndims = next();
        s.nblocks = next();
        // Counts come from the file: their product is checked before it is used.
        std::int64_t per_block = 0, nints = 0;
        if (s.ndims < 0 || s.nblocks < 0 || __builtin_mul_overflow(s.ndims, std::int64_t{2}, &per_block) ||
            __builtin_mul_overflow(s.nblocks, per_block, &nints) || static_cast<std::uint64_t>(nints) > v.size() - at)
            throw Error(where + ": bad selection " + std::to_string(i), "the log output is corrupt");
        s.ints.assign(v.begin() + static_cast<std::ptrdiff_t>(at),
                      v.begin() + static_cast<std::ptrdiff_t>(at + static_cast<std::size_t>(nints)));
        at += s.ints.size();
        w.sels.push_back(std::move(s));
    }
    const std::int64_t n = next();
    if (n < 0 || static_cast<std::uint64_t>(n) * 5 != v.size() - at)
        throw Error(where + ": bad entry count", "the log output is corrupt");
    for (std::int64_t i = 0; i < n; ++i) {
        LogEntry e{next(), next(), next(), next(), next()};
        if (e.sel < 0 || e.sel >= nsels || e.nbytes < 0 || e.offset < 0)
            throw Error(where + ": bad entry " + std::to_string(i), "the log output is corrupt");
        w.entries.push_back(e);
    }
    return w;
}

std::string log_index_to_json(const LogIndex& x) {
    json j = {
        {"format", "iokernels-log"},         {"version", 1},           {"writers", x.writers}, {"nrecords", x.nrecords},
        {"spec", file_spec_to_json(x.spec)}, {"groups", json::array()}};
    for (const LogGroup& g : x.groups)
        j["groups"].push_back({{"ranks", g.ranks}, {"index_offset", g.index_offset}, {"index_length", g.index_length}});
    return j.dump(1);
}

LogIndex read_log_index(const std::string& dir, MPI_Comm comm) {
    const std::string where = dir + "/" + kLogIndexName;
    const std::string text = read_text_collective(
        where, comm, "is " + dir + " a log output (written with -x log) and was it closed cleanly?");
    LogIndex x;
    collective_step(comm, [&] {
        try {
            json j = json::parse(text);
            if (j.value("format", "") != "iokernels-log" || j.value("version", 0) != 1)
                throw Error("not an iokernels log index");
            x.writers = j.at("writers").get<int>();
            x.nrecords = j.at("nrecords").get<std::int64_t>();
            x.spec = file_spec_from_json(j.at("spec"));
            std::size_t seen = 0;
            for (const auto& g : j.at("groups")) {
                LogGroup lg;
                lg.ranks = g.at("ranks").get<std::vector<int>>();
                lg.index_offset = g.at("index_offset").get<std::vector<std::int64_t>>();
                lg.index_length = g.at("index_length").get<std::vector<std::int64_t>>();
                if (lg.index_offset.size() != lg.ranks.size() || lg.index_length.size() != lg.ranks.size())
                    throw Error("a group's index lists do not match its ranks");
                seen += lg.ranks.size();
                x.groups.push_back(std::move(lg));
            }
            if (seen != static_cast<std::size_t>(x.writers)) throw Error("the groups do not hold every writer");
        } catch (const Error& e) {
            throw Error(where + ": " + e.what(), "the log output is incomplete or corrupt; write it again");
        } catch (const std::exception& e) {
            throw Error(where + ": malformed (" + e.what() + ")", "the log output is incomplete or corrupt");
        }
    });
    return x;
}

}  // namespace iok
