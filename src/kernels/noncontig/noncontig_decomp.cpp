#include "kernels/noncontig/noncontig_decomp.hpp"

#include <algorithm>
#include <cstdio>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "formats/cdf_classic.hpp"
#include "formats/decomp_map.hpp"

namespace iok::noncontig {

namespace {

const char* kHint =
    "give an mpi_io_test decomposition (dims num_procs, array_size, nreq_NNNNN; int vars off_NNNNN, "
    "len_NNNNN) or an E3SM decomposition map";

std::string proc_name(const char* prefix, int p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s_%05d", prefix, p);
    return buf;
}

Decomposition read_mpi_io_test(cdf::Reader& r) {
    const cdf::Header& h = r.header();
    const std::string& f = r.path();
    Decomposition d;
    d.path = f;
    d.format = "mpi_io_test";
    const int np = h.find_dim("num_procs"), na = h.find_dim("array_size");
    d.nprocs = static_cast<int>(h.dims[static_cast<std::size_t>(np)].length);
    d.array_size = static_cast<std::int64_t>(h.dims[static_cast<std::size_t>(na)].length);
    if (d.nprocs < 1) throw Error(f + ": num_procs is 0", kHint);
    if (d.array_size < 1) throw Error(f + ": array_size is 0", kHint);
    for (int p = 0; p < d.nprocs; ++p) {
        const std::string nreq = proc_name("nreq", p), off = proc_name("off", p), len = proc_name("len", p);
        const int dn = h.find_dim(nreq);
        if (dn < 0)
            throw Error(f + ": dimension " + nreq + " is missing (num_procs = " + std::to_string(d.nprocs) + ")",
                        kHint);
        const std::uint64_t n = h.dims[static_cast<std::size_t>(dn)].length;
        if (h.find_var(off) < 0 || h.find_var(len) < 0)
            throw Error(f + ": variable " + (h.find_var(off) < 0 ? off : len) + " is missing", kHint);
        auto o = r.read_ints(off);
        auto l = r.read_ints(len);
        if (o.size() != n || l.size() != n)
            throw Error(f + ": " + off + "/" + len + " have " + std::to_string(o.size()) + "/" +
                            std::to_string(l.size()) + " values, " + nreq + " is " + std::to_string(n),
                        kHint);
        d.nreqs.push_back(static_cast<std::int64_t>(n));
        d.offsets.insert(d.offsets.end(), o.begin(), o.end());
        d.lengths.insert(d.lengths.end(), l.begin(), l.end());
    }
    return d;
}

Decomposition from_e3sm_map(const std::string& path, const std::string& name) {
    e3sm::DecompMap m = e3sm::read_decomp_map(path);
    const e3sm::Decomp* dk = nullptr;
    std::string names;
    for (const auto& x : m.decomps) {
        names += (names.empty() ? "" : ", ") + x.name;
        if (x.name == name) dk = &x;
    }
    if (!dk) throw Error(path + " has no decomposition " + name, "choose one of " + names + " with --decomp");
    Decomposition d;
    d.path = path;
    d.format = "e3sm map (" + name + ")";
    d.nprocs = m.nprocs;
    d.array_size = dk->elements();
    for (int p = 0; p < m.nprocs; ++p) {
        auto runs = dk->process_runs(p);  // real runs only, in map order
        // E3SM maps list runs in the model's order; a file view needs them sorted.
        std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.offset < b.offset; });
        d.nreqs.push_back(static_cast<std::int64_t>(runs.size()));
        for (const auto& run : runs) {
            d.offsets.push_back(run.offset);
            d.lengths.push_back(run.length);
        }
    }
    return d;
}

template <class T>
void bcast_vector(std::vector<T>& v, MPI_Datatype t, MPI_Comm comm) {
    std::uint64_t n = v.size();
    MPI_Bcast(&n, 1, MPI_UINT64_T, 0, comm);
    v.resize(n);
    // in pieces below INT_MAX elements
    for (std::uint64_t i = 0; i < n; i += 1u << 30) {
        int c = static_cast<int>(std::min<std::uint64_t>(n - i, 1u << 30));
        MPI_Bcast(v.data() + i, c, t, 0, comm);
    }
}

}  // namespace

std::uint64_t Decomposition::covered_elements() const {
    std::uint64_t n = 0;
    for (auto l : lengths) n += static_cast<std::uint64_t>(l);
    return n;
}

std::int64_t Decomposition::covered_end() const {
    std::int64_t end = 0;
    for (std::size_t i = 0; i < offsets.size(); ++i) end = std::max(end, offsets[i] + lengths[i]);
    return end;
}

std::string Decomposition::processes_text() const {
    if (map_nprocs <= nprocs) return std::to_string(nprocs) + " processes";
    return "processes 0-" + std::to_string(nprocs - 1) + " of " + std::to_string(map_nprocs) + " (--map-processes own)";
}

Decomposition first_processes(Decomposition d, int n) {
    if (n >= d.nprocs) return d;
    std::size_t runs = 0;
    for (int p = 0; p < n; ++p) runs += static_cast<std::size_t>(d.nreqs[static_cast<std::size_t>(p)]);
    d.map_nprocs = d.nprocs;
    d.nprocs = n;
    d.nreqs.resize(static_cast<std::size_t>(n));
    d.offsets.resize(runs);
    d.lengths.resize(runs);
    return d;
}

std::vector<Run> Decomposition::runs_of(int first, int count) const {
    std::uint64_t begin = 0;
    for (int p = 0; p < first; ++p) begin += static_cast<std::uint64_t>(nreqs[static_cast<std::size_t>(p)]);
    std::vector<Run> runs;
    std::uint64_t i = begin;
    for (int p = first; p < first + count; ++p)
        for (std::int64_t k = 0; k < nreqs[static_cast<std::size_t>(p)]; ++k, ++i)
            runs.push_back({offsets[i], lengths[i]});
    // A file view needs nondecreasing displacements; runs of one map process
    // are sorted already, several processes' runs interleave.
    std::stable_sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.offset < b.offset; });
    return runs;
}

void validate(const Decomposition& d) {
    std::uint64_t i = 0;
    for (int p = 0; p < d.nprocs; ++p) {
        std::int64_t end = 0;
        for (std::int64_t k = 0; k < d.nreqs[static_cast<std::size_t>(p)]; ++k, ++i) {
            const std::int64_t o = d.offsets[i], l = d.lengths[i];
            const std::string where = d.path + ": process " + std::to_string(p) + ", run " + std::to_string(k);
            if (l < 1) throw Error(where + " has length " + std::to_string(l) + " (must be >= 1)", kHint);
            if (o < 0 || o + l > d.array_size)
                throw Error(where + " [" + std::to_string(o) + ", " + std::to_string(o + l) + ") leaves the array of " +
                                std::to_string(d.array_size) + " elements",
                            kHint);
            if (o < end)
                throw Error(where + " at offset " + std::to_string(o) +
                                " overlaps or precedes the previous run (ending at " + std::to_string(end) +
                                "): runs must be sorted and disjoint",
                            kHint);
            end = o + l;
        }
    }
}

Decomposition read_decomposition(const std::string& path, const std::string& decomp) {
    cdf::Reader r(path);
    const cdf::Header& h = r.header();
    Decomposition d;
    if (h.find_dim("num_procs") >= 0 && h.find_dim("array_size") >= 0)
        d = read_mpi_io_test(r);
    else if (h.find_dim("decomp_nprocs") >= 0)
        d = from_e3sm_map(path, decomp);
    else
        throw Error(path +
                        " is neither an mpi_io_test decomposition nor an E3SM map "
                        "(no num_procs/array_size or decomp_nprocs dimension)",
                    kHint);
    validate(d);
    return d;
}

Decomposition read_decomposition_collective(const std::string& path, const std::string& decomp, MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    Decomposition d;
    collective_step(comm, [&] {
        if (rank == 0) d = read_decomposition(path, decomp);
    });
    std::int64_t head[2] = {d.nprocs, d.array_size};
    MPI_Bcast(head, 2, MPI_INT64_T, 0, comm);
    d.nprocs = static_cast<int>(head[0]);
    d.array_size = head[1];
    bcast_vector(d.nreqs, MPI_INT64_T, comm);
    bcast_vector(d.offsets, MPI_INT64_T, comm);
    bcast_vector(d.lengths, MPI_INT64_T, comm);
    int flen = static_cast<int>(d.format.size());
    MPI_Bcast(&flen, 1, MPI_INT, 0, comm);
    d.format.resize(static_cast<std::size_t>(flen));
    MPI_Bcast(d.format.data(), flen, MPI_CHAR, 0, comm);
    d.path = path;
    return d;
}

std::vector<Run> rank_runs(const Decomposition& d, int rank, int nranks) {
    const e3sm::ProcRange pr = e3sm::map_procs_of_rank(d.nprocs, rank, nranks);
    return d.runs_of(pr.first, pr.count);
}

RunStats map_process_stats(const Decomposition& d) {
    RunStats s;
    s.min_runs = s.min_len = s.min_elems = UINT64_MAX;
    std::uint64_t i = 0;
    for (int p = 0; p < d.nprocs; ++p) {
        const auto n = static_cast<std::uint64_t>(d.nreqs[static_cast<std::size_t>(p)]);
        std::uint64_t elems = 0;
        for (std::uint64_t k = 0; k < n; ++k, ++i) {
            const auto l = static_cast<std::uint64_t>(d.lengths[i]);
            elems += l;
            s.min_len = std::min(s.min_len, l);
            s.max_len = std::max(s.max_len, l);
        }
        s.min_runs = std::min(s.min_runs, n);
        s.max_runs = std::max(s.max_runs, n);
        s.min_elems = std::min(s.min_elems, elems);
        s.max_elems = std::max(s.max_elems, elems);
    }
    if (d.offsets.empty()) s.min_len = 0;
    if (d.nprocs == 0) s.min_runs = s.min_elems = 0;
    return s;
}

}  // namespace iok::noncontig
