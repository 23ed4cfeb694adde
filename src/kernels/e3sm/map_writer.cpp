#include "kernels/e3sm/map_writer.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "formats/cdf_classic.hpp"

namespace iok::e3sm {

Decomp decomp_from_pio(const PioDecompDat& dat, bool sort, RawOffsets* raw) {
    Decomp d;
    d.dims = dat.dims_c();
    const std::int64_t row = d.row_length();
    if (raw) *raw = RawOffsets{};
    for (const auto& proc : dat.offsets) {
        std::vector<std::int64_t> offs;
        offs.reserve(proc.size());
        for (auto o : proc)
            if (o > 0) offs.push_back(o - 1);
        if (raw) {
            raw->nreqs.push_back(static_cast<std::int64_t>(offs.size()));
            for (auto o : offs) raw->offsets.push_back(o + 1);
        }
        if (sort) std::sort(offs.begin(), offs.end());
        std::int64_t n = 0;
        for (std::size_t i = 0; i < offs.size(); ++i) {
            const bool extends = n > 0 && offs[i] == d.offsets.back() + d.lengths.back() && offs[i] % row != 0;
            if (extends) {
                ++d.lengths.back();
            } else {
                d.offsets.push_back(offs[i]);
                d.lengths.push_back(1);
                ++n;
            }
        }
        d.nreqs.push_back(n);
    }
    d.fill_starts = d.nreqs;
    d.first.clear();
    std::int64_t acc = 0;
    for (auto n : d.nreqs) {
        d.first.push_back(acc);
        acc += n;
    }
    return d;
}

bool fully_covered(const Decomp& d) {
    std::vector<Run> runs;
    for (std::size_t p = 0; p < d.nreqs.size(); ++p)
        for (std::int64_t i = 0; i < d.fill_starts[p]; ++i) runs.push_back({d.offsets[d.first[p] + i], d.lengths[d.first[p] + i]});
    std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.offset < b.offset; });
    std::int64_t next = 0;
    for (const auto& r : runs) {
        if (r.offset != next) return false;  // a hole or an overlap
        next += r.length;
    }
    return next == d.elements();
}

void write_decomp_map(const std::string& path, const DecompMap& m, const MapWriteOptions& opt,
                      const std::vector<RawOffsets>* raw) {
    validate_decomp_map(m);
    if (raw && raw->size() != m.decomps.size()) throw Error("write_decomp_map: one RawOffsets per decomposition needed");
    using cdf::Attr;
    using cdf::NcType;
    cdf::Writer w(opt.cdf_version);
    w.def_dim("num_decomp", m.decomps.size());
    const int np = w.def_dim("decomp_nprocs", static_cast<std::uint64_t>(m.nprocs));
    std::vector<int> tot(m.decomps.size()), rawtot(m.decomps.size(), -1);
    for (std::size_t k = 0; k < m.decomps.size(); ++k) {
        const Decomp& d = m.decomps[k];
        // A classic dimension of length 0 would be the record dimension.
        if (d.offsets.empty())
            throw Error(path + ": " + d.name + " has no runs at all; a map needs at least one", "check the input files");
        // Offsets are stored as NC_INT: refuse arrays they cannot address.
        if (d.elements() > 2147483647LL)
            throw Error(path + ": " + d.name + " has " + std::to_string(d.elements()) +
                        " elements, more than NC_INT offsets can address");
        tot[k] = w.def_dim(d.name + ".total_nreqs", d.offsets.size());
        if (raw && !(*raw)[k].offsets.empty()) rawtot[k] = w.def_dim(d.name + ".total_raw_nreqs", (*raw)[k].offsets.size());
    }
    if (!opt.command_line.empty()) w.put_att(-1, Attr::Text("command_line", opt.command_line));
    for (std::size_t k = 0; k < m.decomps.size(); ++k) {
        const Decomp& d = m.decomps[k];
        const std::string n = d.name;
        int v = w.def_var(n + ".nreqs", NcType::Int, {np});
        w.put_att(v, Attr::Text("description", "Number of noncontiguous requests per process"));
        w.put_ints(v, d.nreqs);
        v = w.def_var(n + ".fill_starts", NcType::Int, {np});
        w.put_att(v, Attr::Text("description",
                                "Start index in offsets[] and lengths[] for requests to be written with fill values"));
        w.put_ints(v, d.fill_starts);
        v = w.def_var(n + ".offsets", NcType::Int, {tot[k]});
        w.put_att(v, Attr::Text("description", "Flattened starting indices of noncontiguous requests"));
        w.put_ints(v, d.offsets);
        v = w.def_var(n + ".lengths", NcType::Int, {tot[k]});
        w.put_att(v, Attr::Text("description", "Lengths of noncontiguous requests"));
        w.put_att(v, Attr::Ints("max", NcType::Int, {*std::max_element(d.lengths.begin(), d.lengths.end())}));
        w.put_att(v, Attr::Ints("min", NcType::Int, {*std::min_element(d.lengths.begin(), d.lengths.end())}));
        w.put_ints(v, d.lengths);
        if (rawtot[k] >= 0) {
            v = w.def_var(n + ".raw_nreqs", NcType::Int, {np});
            w.put_att(v, Attr::Text("description", "Number of file offsets accessed per process before merge"));
            w.put_ints(v, (*raw)[k].nreqs);
            v = w.def_var(n + ".raw_offsets", NcType::Int, {rawtot[k]});
            w.put_att(v, Attr::Text("description", "File offsets accessed before merge"));
            w.put_ints(v, (*raw)[k].offsets);
        }
        w.put_att(-1, Attr::Ints(n + ".ndims", NcType::Int, {static_cast<std::int64_t>(d.dims.size())}));
        w.put_att(-1, Attr::Ints(n + ".dims", NcType::Int, d.dims));
        w.put_att(-1, Attr::Ints(n + ".max_nreqs", NcType::Int, {*std::max_element(d.nreqs.begin(), d.nreqs.end())}));
        w.put_att(-1, Attr::Ints(n + ".min_nreqs", NcType::Int, {*std::min_element(d.nreqs.begin(), d.nreqs.end())}));
        w.put_att(-1, Attr::Text(n + ".fully_covered", fully_covered(d) ? "true" : "false"));
    }
    w.write(path);
}

}  // namespace iok::e3sm
