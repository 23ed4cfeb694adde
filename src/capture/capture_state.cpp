#include "capture_state.hpp"

#include "run_groups.hpp"

#include <cstdio>
#include <limits>

namespace iokcap {
namespace {

std::uint64_t hash_runs(const std::vector<ByteRun>& r, std::int64_t size, std::int64_t extent) {
    std::uint64_t h = 1469598103934665603ull;
    const auto mix = [&](std::uint64_t x) { h = (h ^ x) * 1099511628211ull; };
    mix(static_cast<std::uint64_t>(size));
    mix(static_cast<std::uint64_t>(extent));
    for (const ByteRun& x : r) {
        mix(static_cast<std::uint64_t>(x.off));
        mix(static_cast<std::uint64_t>(x.len));
    }
    return h;
}

void json_string(std::string& out, const std::string& s) {
    out += '"';
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            out += b;
        } else
            out += static_cast<char>(c);
    }
    out += '"';
}

void num(std::string& out, std::int64_t v) { out += std::to_string(v); }

void seconds(std::string& out, double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.6f", v);
    out += b;
}

// Runs as groups (offset, length, stride, count) of equal-length runs at a
// constant stride (a vector type of a million blocks is one group), with
// repeated blocks of groups folded (run_groups.hpp): an E3SM level's runs
// once, not once per level.
void runs_json(std::string& out, const std::vector<ByteRun>& r) {
    std::vector<std::pair<std::int64_t, std::int64_t>> runs;
    runs.reserve(r.size());
    for (const ByteRun& x : r) runs.emplace_back(x.off, x.len);
    const std::vector<std::int64_t> flat = iok_runs::fold_groups(iok_runs::group_runs(runs));
    out += '[';
    for (std::size_t i = 0; i < flat.size(); ++i) {
        if (i) out += ',';
        num(out, flat[i]);
    }
    out += ']';
}

}  // namespace

CaptureState::CaptureState() {
    // Shape 0: the contiguous view (MPI_BYTE filetype, the default view).
    Shape s;
    s.runs = {{0, 1}};
    s.size = s.extent = 1;
    intern(std::move(s));
}

int CaptureState::intern(Shape s) {
    s.hash = hash_runs(s.runs, s.size, s.extent);
    auto range = by_hash_.equal_range(s.hash);
    for (auto it = range.first; it != range.second; ++it) {
        const Shape& o = shapes_[static_cast<std::size_t>(it->second)];
        if (o.size != s.size || o.extent != s.extent || o.runs.size() != s.runs.size()) continue;
        bool same = true;
        for (std::size_t i = 0; same && i < o.runs.size(); ++i)
            same = o.runs[i].off == s.runs[i].off && o.runs[i].len == s.runs[i].len;
        if (same) return it->second;
    }
    const int id = static_cast<int>(shapes_.size());
    by_hash_.emplace(s.hash, id);
    shapes_.push_back(std::move(s));
    return id;
}

void CaptureState::open(MPI_File fh, MPI_Comm comm, const char* name, int amode, MPI_Info info, double t) {
    Session s;
    s.file = name ? name : "";
    s.amode = amode;
    PMPI_Comm_size(comm, &s.comm_size);
    PMPI_Comm_rank(comm, &s.comm_rank);
    if (info != MPI_INFO_NULL) {
        int n = 0;
        PMPI_Info_get_nkeys(info, &n);
        for (int i = 0; i < n; ++i) {
            char key[MPI_MAX_INFO_KEY + 1] = {0};
            PMPI_Info_get_nthkey(info, i, key);
            int len = 0, flag = 0;
            PMPI_Info_get_valuelen(info, key, &len, &flag);
            if (!flag) continue;
            std::string v(static_cast<std::size_t>(len) + 1, '\0');
            PMPI_Info_get(info, key, len + 1, v.data(), &flag);
            v.resize(static_cast<std::size_t>(len));
            s.hints.emplace_back(key, v);
        }
    }
    s.t_open = t;
    PMPI_Comm_dup(comm, &s.comm);
    open_[fh] = sessions_.size();
    sessions_.push_back(std::move(s));
}

Session* CaptureState::find(MPI_File fh) {
    auto it = open_.find(fh);
    return it == open_.end() ? nullptr : &sessions_[it->second];
}

void CaptureState::close(MPI_File fh, double t) {
    auto it = open_.find(fh);
    if (it == open_.end()) return;
    Session& s = sessions_[it->second];
    s.t_close = t;
    if (s.comm != MPI_COMM_NULL) PMPI_Comm_free(&s.comm);
    open_.erase(it);
}

void CaptureState::set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype) {
    Session* s = find(fh);
    if (!s) return;
    ++s->set_views;
    ++s->views_pending;
    int esize = 1;
    PMPI_Type_size(etype, &esize);
    s->etype_size = esize > 0 ? esize : 1;
    Shape sh;
    if (!flatten_type(filetype, 0, sh.runs) || sh.runs.empty()) {
        // Unknown layout: record the view as contiguous and say so.
        ++s->unknown_views;
        s->shape = 0;
        s->disp = disp;
        return;
    }
    int size = 0;
    MPI_Aint lb = 0, ext = 0;
    PMPI_Type_size(filetype, &size);
    PMPI_Type_get_extent(filetype, &lb, &ext);
    const std::int64_t first = sh.runs.front().off;
    for (ByteRun& r : sh.runs) r.off -= first;
    sh.size = size;
    sh.extent = ext;
    s->disp = disp + first;
    // One run filling the whole extent tiles the file contiguously.
    if (sh.runs.size() == 1 && sh.runs[0].len == sh.extent)
        s->shape = 0;
    else
        s->shape = intern(std::move(sh));
}

void CaptureState::access(Session& s, std::uint32_t flags, std::int64_t voff, int count, MPI_Datatype type, double t0,
                          double t1, int moved) {
    int tsize = 0;
    PMPI_Type_size(type, &tsize);
    if (!contiguous_in_memory(type, count)) flags |= kMemNoncontig;
    Op o;
    o.flags = flags;
    o.shape = s.shape;
    o.disp = s.disp;
    o.voff = voff;
    o.bytes = static_cast<std::int64_t>(tsize) * count;
    if (moved != MPI_UNDEFINED && moved >= 0 && moved < o.bytes) o.bytes = moved;
    o.t_first = t0;
    o.t_end = t1;
    o.busy = t1 - t0;
    o.views = s.views_pending;
    s.views_pending = 0;
    if (!s.ops.empty()) {
        Op& l = s.ops.back();
        if (l.flags == o.flags && l.shape == o.shape && l.bytes == o.bytes) {
            // A series also keeps a constant number of set_view calls between
            // its accesses, so the replay re-issues them where they were.
            const bool extend = l.count == 1 || (o.disp == l.disp + l.count * l.dstep &&
                                                 o.voff == l.voff + l.count * l.vstep && o.views == l.view_step);
            if (extend) {
                if (l.count == 1) {
                    l.dstep = o.disp - l.disp;
                    l.vstep = o.voff - l.voff;
                    l.view_step = o.views;
                }
                ++l.count;
                l.t_end = t1;
                l.busy += o.busy;
                return;
            }
        }
    }
    s.ops.push_back(o);
}

double CaptureState::first_time() const {
    double t = std::numeric_limits<double>::max();
    for (const Session& s : sessions_) t = s.t_open < t ? s.t_open : t;
    return t;
}

std::string CaptureState::rank_json(int rank, double t_base) const {
    std::string o = "{\"rank\":";
    num(o, rank);
    o += ",\"sessions\":[";
    for (std::size_t i = 0; i < sessions_.size(); ++i) {
        const Session& s = sessions_[i];
        if (i) o += ',';
        o += "\n{\"file\":";
        json_string(o, s.file);
        o += ",\"amode\":";
        num(o, s.amode);
        o += ",\"comm_size\":";
        num(o, s.comm_size);
        o += ",\"comm_rank\":";
        num(o, s.comm_rank);
        o += ",\"hints\":{";
        for (std::size_t h = 0; h < s.hints.size(); ++h) {
            if (h) o += ',';
            json_string(o, s.hints[h].first);
            o += ':';
            json_string(o, s.hints[h].second);
        }
        o += "},\"open\":";
        seconds(o, s.t_open - t_base);
        o += ",\"close\":";
        if (s.t_close < 0)
            o += "null";
        else
            seconds(o, s.t_close - t_base);
        o += ",\"set_views\":";
        num(o, s.set_views);
        o += ",\"unknown_views\":";
        num(o, s.unknown_views);
        o += ",\"ops\":[";
        for (std::size_t k = 0; k < s.ops.size(); ++k) {
            const Op& p = s.ops[k];
            if (k) o += ',';
            o += '[';
            num(o, p.flags);
            o += ',';
            num(o, p.shape);
            o += ',';
            num(o, p.disp);
            o += ',';
            num(o, p.voff);
            o += ',';
            num(o, p.bytes);
            o += ',';
            num(o, p.count);
            o += ',';
            num(o, p.dstep);
            o += ',';
            num(o, p.vstep);
            o += ',';
            seconds(o, p.t_first - t_base);
            o += ',';
            seconds(o, p.t_end - t_base);
            o += ',';
            seconds(o, p.busy);
            o += ',';
            num(o, p.views);
            o += ',';
            num(o, p.view_step);
            o += ']';
        }
        o += "]}";
    }
    o += "],\n\"shapes\":[";
    for (std::size_t i = 0; i < shapes_.size(); ++i) {
        const Shape& sh = shapes_[i];
        if (i) o += ',';
        o += "{\"size\":";
        num(o, sh.size);
        o += ",\"extent\":";
        num(o, sh.extent);
        o += ",\"runs\":";
        runs_json(o, sh.runs);
        o += '}';
    }
    o += "]}";
    return o;
}

}  // namespace iokcap
