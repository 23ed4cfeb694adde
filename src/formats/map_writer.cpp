#include "formats/map_writer.hpp"

#include <algorithm>

#include "core/error.hpp"

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
        for (std::int64_t i = 0; i < d.fill_starts[p]; ++i)
            runs.push_back({d.offsets[d.first[p] + i], d.lengths[d.first[p] + i]});
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
    if (raw && raw->size() != m.decomps.size())
        throw Error("write_decomp_map: one RawOffsets per decomposition needed");
    using formats::Attribute;
    using formats::IntArray;
    formats::ArrayFile f;
    f.dims.emplace_back("num_decomp", m.decomps.size());
    f.dims.emplace_back("decomp_nprocs", static_cast<std::uint64_t>(m.nprocs));
    for (std::size_t k = 0; k < m.decomps.size(); ++k) {
        const Decomp& d = m.decomps[k];
        if (d.offsets.empty())
            throw Error(path + ": " + d.name + " has no runs at all; a map needs at least one",
                        "check the input files");
        // Offsets are stored as 32-bit integers (NC_INT): refuse arrays they cannot address.
        if (d.elements() > 2147483647LL)
            throw Error(path + ": " + d.name + " has " + std::to_string(d.elements()) +
                        " elements, more than 32-bit integer offsets can address");
        f.dims.emplace_back(d.name + ".total_nreqs", d.offsets.size());
        if (raw && !(*raw)[k].offsets.empty())
            f.dims.emplace_back(d.name + ".total_raw_nreqs", (*raw)[k].offsets.size());
    }
    if (!opt.command_line.empty()) f.attrs.push_back(Attribute::Text("command_line", opt.command_line));
    auto array = [&](std::string name, std::string dim, std::vector<std::int64_t> values, std::string description,
                     std::vector<std::int64_t> blocks = {}) {
        IntArray a;
        a.name = std::move(name);
        a.dim = std::move(dim);
        a.values = std::move(values);
        a.attrs.push_back(Attribute::Text("description", std::move(description)));
        a.blocks = std::move(blocks);  // ADIOS BP: one block per map process, as E3SM-IO writes
        f.arrays.push_back(std::move(a));
        return &f.arrays.back();
    };
    for (std::size_t k = 0; k < m.decomps.size(); ++k) {
        const Decomp& d = m.decomps[k];
        const std::string n = d.name;
        array(n + ".nreqs", "decomp_nprocs", d.nreqs, "Number of noncontiguous requests per process");
        array(n + ".fill_starts", "decomp_nprocs", d.fill_starts,
              "Start index in offsets[] and lengths[] for requests to be written with fill values");
        array(n + ".offsets", n + ".total_nreqs", d.offsets, "Flattened starting indices of noncontiguous requests",
              d.nreqs);
        IntArray* len =
            array(n + ".lengths", n + ".total_nreqs", d.lengths, "Lengths of noncontiguous requests", d.nreqs);
        len->attrs.push_back(Attribute::Ints("max", {*std::max_element(d.lengths.begin(), d.lengths.end())}));
        len->attrs.push_back(Attribute::Ints("min", {*std::min_element(d.lengths.begin(), d.lengths.end())}));
        if (raw && !(*raw)[k].offsets.empty()) {
            array(n + ".raw_nreqs", "decomp_nprocs", (*raw)[k].nreqs,
                  "Number of file offsets accessed per process before merge");
            array(n + ".raw_offsets", n + ".total_raw_nreqs", (*raw)[k].offsets, "File offsets accessed before merge",
                  (*raw)[k].nreqs);
        }
        f.attrs.push_back(Attribute::Ints(n + ".ndims", {static_cast<std::int64_t>(d.dims.size())}));
        f.attrs.push_back(Attribute::Ints(n + ".dims", d.dims));
        f.attrs.push_back(Attribute::Ints(n + ".max_nreqs", {*std::max_element(d.nreqs.begin(), d.nreqs.end())}));
        f.attrs.push_back(Attribute::Ints(n + ".min_nreqs", {*std::min_element(d.nreqs.begin(), d.nreqs.end())}));
        f.attrs.push_back(Attribute::Text(n + ".fully_covered", fully_covered(d) ? "true" : "false"));
    }
    formats::write_array_file(path, f, opt.format);
}

}  // namespace iok::e3sm
