#include "formats/decomp_map.hpp"

#include <algorithm>
#include <limits>
#include <memory>
#include <new>
#include <optional>

#include "core/error.hpp"
#include "formats/array_file.hpp"

namespace iok::e3sm {

// ---- Decomp -------------------------------------------------------------------
std::int64_t Decomp::elements() const {
    std::int64_t n = 1;
    for (auto d : dims) n *= d;
    return n;
}

namespace {
// What needs every process's runs cannot run on a share of the map.
void require_whole(const Decomp& d, const char* what) {
    if (!d.whole()) throw Error(std::string("internal error: ") + what + " on a share of map decomposition " + d.name);
}
void require_held(const Decomp& d, int p) {
    if (!d.whole() && (p < d.held.first || p >= d.held.first + d.held.count))
        throw Error("internal error: runs of map process " + std::to_string(p) + " asked of a share of " + d.name +
                    " that does not hold them");
}
}  // namespace

std::int64_t Decomp::covered_elements() const {
    require_whole(*this, "covered_elements");
    std::int64_t n = 0;
    for (std::size_t p = 0; p < nreqs.size(); ++p)
        for (std::int64_t i = 0; i < fill_starts[p]; ++i) n += lengths[first[p] + i];
    return n;
}

std::int64_t Decomp::real_runs() const {
    std::int64_t n = 0;
    for (auto f : fill_starts) n += f;
    return n;
}

bool Decomp::has_fill_runs() const {
    for (std::size_t p = 0; p < nreqs.size(); ++p)
        if (fill_starts[p] < nreqs[p]) return true;
    return false;
}

std::vector<Run> Decomp::process_runs(int p) const {
    require_held(*this, p);
    std::vector<Run> r;
    for (std::int64_t i = 0; i < fill_starts[p]; ++i) r.push_back({offsets[first[p] + i], lengths[first[p] + i]});
    return r;
}

std::vector<Run> Decomp::process_fill_runs(int p) const {
    require_held(*this, p);
    std::vector<Run> r;
    for (std::int64_t i = fill_starts[p]; i < nreqs[p]; ++i)
        r.push_back({offsets[first[p] + i], lengths[first[p] + i]});
    return r;
}

namespace {

std::string dims_text(const std::vector<std::int64_t>& dims) {
    std::string s;
    for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? " x " : "") + std::to_string(dims[i]);
    return s;
}

void compute_first(Decomp& d) {
    d.first.assign(d.nreqs.size(), 0);
    std::int64_t acc = 0;
    for (std::size_t p = 0; p < d.nreqs.size(); ++p) {
        d.first[p] = acc;
        acc += d.nreqs[p];
    }
}

const char* kHintBadMap = "the map file is corrupt or was not written by dat2nc/dat2decomp; regenerate it";

}  // namespace

// ---- validation ---------------------------------------------------------------
namespace {

std::int64_t checked_elements(const std::string& where, const Decomp& d) {
    if (d.dims.empty()) throw Error(where + ": has no dimensions (" + d.name + ".dims)", kHintBadMap);
    std::int64_t elems = 1;
    for (auto x : d.dims) {
        if (x < 1)
            throw Error(where + ": dimension lengths must be >= 1, " + d.name + ".dims = " + dims_text(d.dims),
                        kHintBadMap);
        if (elems > std::numeric_limits<std::int64_t>::max() / x)
            throw Error(where + ": array of " + dims_text(d.dims) + " elements overflows 64 bits", kHintBadMap);
        elems *= x;
    }
    return elems;
}

// Everything but the runs: shape, per-process counts, fill starts and the
// run index; `entries` is how many runs the file holds (Dk.offsets).
void validate_header(const DecompMap& m, const Decomp& d, std::int64_t entries) {
    const std::string where = m.path + ": " + d.name;
    checked_elements(where, d);
    if (static_cast<int>(d.nreqs.size()) != m.nprocs || d.fill_starts.size() != d.nreqs.size() ||
        d.first.size() != d.nreqs.size())
        throw Error(where + ": " + d.name + ".nreqs has " + std::to_string(d.nreqs.size()) +
                        " entries but decomp_nprocs is " + std::to_string(m.nprocs),
                    kHintBadMap);
    std::int64_t total = 0;
    for (int p = 0; p < m.nprocs; ++p) {
        if (d.nreqs[p] < 0)
            throw Error(where + ", process " + std::to_string(p) + ": negative nreqs " + std::to_string(d.nreqs[p]),
                        kHintBadMap);
        total += d.nreqs[p];
    }
    if (total != entries)
        throw Error(where + ": the nreqs of all processes sum to " + std::to_string(total) + " but " + d.name +
                        ".total_nreqs is " + std::to_string(entries),
                    kHintBadMap);
    for (int p = 0; p < m.nprocs; ++p) {
        if (d.fill_starts[p] < 0 || d.fill_starts[p] > d.nreqs[p])
            throw Error(where + ", process " + std::to_string(p) + ": fill_starts " + std::to_string(d.fill_starts[p]) +
                            " is outside [0, nreqs = " + std::to_string(d.nreqs[p]) + "]",
                        kHintBadMap);
        if (d.first[p] != (p ? d.first[p - 1] + d.nreqs[p - 1] : 0))
            throw Error(where + ", process " + std::to_string(p) + ": inconsistent run index", kHintBadMap);
    }
}

// True when every run in [begin, end) of d's arrays is valid: length >= 1,
// inside the array, not crossing a row.  One branch-light pass without a
// division per run (a run of one element cannot cross a row); validate_runs
// looks for the culprit only when this fails.  (ne30 map: 27 instructions
// per run before, the second largest part of reading it: issue 19.)
bool runs_are_valid(const Decomp& d, std::int64_t begin, std::int64_t end, std::int64_t elems, std::int64_t row) {
    const std::int64_t* off = d.offsets.data();
    const std::int64_t* len = d.lengths.data();
    bool bad = false;
    std::int64_t longer = 0;  // runs of more than one element: checked against rows below
    for (std::int64_t i = begin; i < end; ++i) {
        bad |= (len[i] < 1) | (off[i] < 0) | (off[i] >= elems) | (len[i] > elems - off[i]);
        longer += len[i] > 1;
    }
    if (bad) return false;
    if (longer == 0) return true;
    for (std::int64_t i = begin; i < end; ++i)
        if (len[i] > 1 && off[i] % row + len[i] > row) return false;
    return true;
}

// The runs of map processes [pr.first, pr.first + pr.count), wherever d
// holds them (d.first[p] indexes d.offsets: the whole map, or a share).
void validate_runs(const DecompMap& m, const Decomp& d, ProcRange pr) {
    const std::string where = m.path + ": " + d.name;
    const std::int64_t elems = checked_elements(where, d), row = d.row_length();
    if (pr.count <= 0) return;
    // A process's runs are consecutive and so are the processes': one range.
    const std::int64_t begin = d.first[pr.first];
    const std::int64_t end = d.first[pr.first + pr.count - 1] + d.nreqs[pr.first + pr.count - 1];
    if (runs_are_valid(d, begin, end, elems, row)) return;
    // Messages are built only when a check fails: building them for every
    // run made validation the largest part of reading an ne30 map (issue 19).
    for (int p = pr.first; p < pr.first + pr.count; ++p) {
        for (std::int64_t i = 0; i < d.nreqs[p]; ++i) {
            const std::int64_t off = d.offsets[d.first[p] + i], len = d.lengths[d.first[p] + i];
            auto wr = [&] {
                return where + ", process " + std::to_string(p) + ", run " + std::to_string(i) + " (offset " +
                       std::to_string(off) + ", length " + std::to_string(len) + ")";
            };
            if (len < 1) throw Error(wr() + ": length must be >= 1", kHintBadMap);
            if (off < 0 || off >= elems || len > elems - off)
                throw Error(
                    wr() + ": outside the " + std::to_string(elems) + " elements of the array " + dims_text(d.dims),
                    kHintBadMap);
            if (len > 1 && off % row + len > row)
                throw Error(wr() + ": crosses a row of the fastest dimension (length " + std::to_string(row) + " in " +
                                dims_text(d.dims) + ")",
                            "runs must be broken where offset % " + std::to_string(row) +
                                " == 0; convert the .dat files again with dat2nc");
        }
    }
    throw Error(where + ": a run is invalid but none of processes " + std::to_string(pr.first) + "-" +
                    std::to_string(pr.first + pr.count - 1) + " holds it (inconsistent run index)",
                kHintBadMap);
}

void validate_top(const DecompMap& m) {
    const std::string& f = m.path;
    if (m.nprocs < 1) throw Error(f + ": decomp_nprocs is " + std::to_string(m.nprocs) + ", must be >= 1", kHintBadMap);
    if (m.decomps.empty()) throw Error(f + ": the map has no decompositions (num_decomp = 0)", kHintBadMap);
}

}  // namespace

void validate_decomp_map(const DecompMap& m) {
    validate_top(m);
    for (const Decomp& d : m.decomps) {
        if (d.offsets.size() != d.lengths.size())
            throw Error(m.path + ": " + d.name + ": " + std::to_string(d.offsets.size()) + " offsets but " +
                            std::to_string(d.lengths.size()) + " lengths",
                        kHintBadMap);
        validate_header(m, d, static_cast<std::int64_t>(d.offsets.size()));
        validate_runs(m, d, ProcRange{0, m.nprocs});
    }
}

// ---- reading -------------------------------------------------------------------
namespace {

// The map from an open reader.  Without `runs`, Dk.offsets and Dk.lengths are
// not read, only checked to be whole in the file, and the map is validated
// but for its runs (read_decomp_map_share's ranks read and check their own).
DecompMap read_map(formats::ArrayReader* r, const std::string& path, bool runs) {
    std::vector<std::int64_t> entries;  // per decomposition: runs in the file
    DecompMap m;
    m.path = path;
    auto dim_len = [&](const std::string& name) -> std::int64_t {
        std::optional<std::uint64_t> len = r->dim(name);
        if (!len)
            throw Error(path + ": not a decomposition map: dimension '" + name + "' is missing (in this " +
                            r->format() + " file)",
                        "maps have num_decomp, decomp_nprocs and Dk.total_nreqs; convert .dat maps with dat2nc");
        return static_cast<std::int64_t>(*len);
    };
    const std::int64_t ndecomp = dim_len("num_decomp");
    m.nprocs = static_cast<int>(dim_len("decomp_nprocs"));
    if (ndecomp < 1 || ndecomp > 1000)
        throw Error(path + ": num_decomp is " + std::to_string(ndecomp) + ", expected 1..1000", kHintBadMap);
    m.has_fill_starts = r->has_array("D1.fill_starts");

    for (std::int64_t k = 1; k <= ndecomp; ++k) {
        Decomp d;
        d.name = "D" + std::to_string(k);
        const std::string where = path + ": " + d.name;
        std::optional<std::vector<std::int64_t>> dims = r->global_ints(d.name + ".dims");
        if (!dims || dims->empty())
            throw Error(where + ": the global attribute " + d.name + ".dims (array shape, C order) is missing",
                        "num_decomp says the map has " + std::to_string(ndecomp) + " decompositions");
        d.dims = *dims;
        if (auto nd = r->global_ints(d.name + ".ndims")) {
            if (nd->size() != 1 || (*nd)[0] != static_cast<std::int64_t>(d.dims.size()))
                throw Error(
                    where + ": " + d.name + ".ndims disagrees with " + d.name + ".dims (" + dims_text(d.dims) + ")",
                    kHintBadMap);
        }
        const std::int64_t total = dim_len(d.name + ".total_nreqs");
        d.nreqs = r->read_ints(d.name + ".nreqs");
        if (static_cast<std::int64_t>(d.nreqs.size()) != m.nprocs)
            throw Error(where + ": " + d.name + ".nreqs has " + std::to_string(d.nreqs.size()) +
                            " entries but decomp_nprocs is " + std::to_string(m.nprocs),
                        kHintBadMap);
        if (r->has_array(d.name + ".fill_starts")) {
            d.fill_starts = r->read_ints(d.name + ".fill_starts");
            if (d.fill_starts.size() != d.nreqs.size())
                throw Error(where + ": " + d.name + ".fill_starts has " + std::to_string(d.fill_starts.size()) +
                                " entries but decomp_nprocs is " + std::to_string(m.nprocs),
                            kHintBadMap);
        } else {
            if (m.has_fill_starts)
                throw Error(where + ": " + d.name + ".fill_starts is missing while D1.fill_starts exists", kHintBadMap);
            d.fill_starts = d.nreqs;  // seed format: every run is real
        }
        std::uint64_t noff = 0, nlen = 0;
        if (runs) {
            d.offsets = r->read_ints(d.name + ".offsets");
            d.lengths = r->read_ints(d.name + ".lengths");
            noff = d.offsets.size(), nlen = d.lengths.size();
        } else {
            noff = r->array_length(d.name + ".offsets");
            nlen = r->array_length(d.name + ".lengths");
        }
        if (static_cast<std::int64_t>(noff) != total || static_cast<std::int64_t>(nlen) != total)
            throw Error(where + ": " + d.name + ".offsets/lengths do not have " + d.name +
                            ".total_nreqs = " + std::to_string(total) + " entries",
                        kHintBadMap);
        entries.push_back(total);
        compute_first(d);
        m.decomps.push_back(std::move(d));
    }
    if (runs) {
        validate_decomp_map(m);
    } else {
        validate_top(m);
        for (std::size_t k = 0; k < m.decomps.size(); ++k) validate_header(m, m.decomps[k], entries[k]);
    }
    return m;
}

}  // namespace

DecompMap read_decomp_map(const std::string& path) {
    std::unique_ptr<formats::ArrayReader> r = formats::open_array_file(path);
    return read_map(r.get(), path, true);
}

namespace {

// Flattens a map into int64s for one broadcast, and back; without the runs
// (with_runs false) only the dims and per-process counts travel.
std::vector<std::int64_t> pack(const DecompMap& m, bool with_runs = true) {
    std::vector<std::int64_t> b = {m.nprocs, m.has_fill_starts ? 1 : 0, static_cast<std::int64_t>(m.decomps.size())};
    for (const auto& d : m.decomps) {
        b.push_back(static_cast<std::int64_t>(d.dims.size()));
        b.insert(b.end(), d.dims.begin(), d.dims.end());
        b.insert(b.end(), d.nreqs.begin(), d.nreqs.end());
        b.insert(b.end(), d.fill_starts.begin(), d.fill_starts.end());
        b.push_back(static_cast<std::int64_t>(d.offsets.size()));
        if (!with_runs) continue;
        b.insert(b.end(), d.offsets.begin(), d.offsets.end());
        b.insert(b.end(), d.lengths.begin(), d.lengths.end());
    }
    return b;
}

DecompMap unpack(const std::vector<std::int64_t>& b, const std::string& path, bool with_runs = true) {
    DecompMap m;
    m.path = path;
    std::size_t i = 0;
    auto take = [&](std::size_t n) {
        std::vector<std::int64_t> v(b.begin() + i, b.begin() + i + n);
        i += n;
        return v;
    };
    m.nprocs = static_cast<int>(b[i++]);
    m.has_fill_starts = b[i++] != 0;
    const std::int64_t nd = b[i++];
    for (std::int64_t k = 0; k < nd; ++k) {
        Decomp d;
        d.name = "D" + std::to_string(k + 1);
        d.dims = take(static_cast<std::size_t>(b[i++]));
        d.nreqs = take(m.nprocs);
        d.fill_starts = take(m.nprocs);
        const std::size_t total = static_cast<std::size_t>(b[i++]);
        if (with_runs) {
            d.offsets = take(total);
            d.lengths = take(total);
        }
        compute_first(d);
        m.decomps.push_back(std::move(d));
    }
    return m;
}

void bcast_string(std::string& s, MPI_Comm comm) {
    long long n = static_cast<long long>(s.size());
    MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm);
    s.resize(static_cast<std::size_t>(n));
    if (n) MPI_Bcast(s.data(), static_cast<int>(n), MPI_CHAR, 0, comm);
}

}  // namespace

namespace {

// Rank 0 reads the map and packs it (pack_runs: with the runs); every rank
// learns whether that worked, and throws rank 0's error if not.  With
// `sliced` non-null, a container that reads parts of arrays (NetCDF classic)
// is read without its runs (each rank reads its own) and *sliced says so on
// every rank.
void read_on_rank0(const std::string& path, MPI_Comm comm, bool pack_runs, DecompMap& m,
                   std::vector<std::int64_t>& packed, bool* sliced = nullptr) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    int failed = 0, slices = 0;
    std::string what, hint;
    if (rank == 0) {
        try {
            std::unique_ptr<formats::ArrayReader> r = formats::open_array_file(path);
            slices = sliced && r->reads_slices();
            m = read_map(r.get(), path, !slices);
            packed = pack(m, pack_runs && !slices);
        } catch (const Error& e) {
            failed = 1;
            what = e.what();
            hint = e.hint();
        } catch (const std::bad_alloc&) {
            failed = 1;
            what = path + ": out of memory while reading the map";
            hint = "use fewer ranks per node or a machine with more memory";
        } catch (const std::exception& e) {
            failed = 1;
            what = path + ": " + e.what();
        }
    }
    // Status first, so that a bad file fails every rank with the same message.
    int status[2] = {failed, slices};
    MPI_Bcast(status, 2, MPI_INT, 0, comm);
    failed = status[0];
    if (sliced) *sliced = status[1] != 0;
    if (failed) {
        bcast_string(what, comm);
        bcast_string(hint, comm);
        throw Error(what, hint);
    }
}

void bcast_packed(std::vector<std::int64_t>& packed, MPI_Comm comm) {
    long long n = static_cast<long long>(packed.size());
    MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm);
    packed.resize(static_cast<std::size_t>(n));
    const long long chunk = 1 << 28;  // MPI counts are int
    for (long long off = 0; off < n; off += chunk)
        MPI_Bcast(packed.data() + off, static_cast<int>(std::min(chunk, n - off)), MPI_INT64_T, 0, comm);
}

// Point to point in pieces MPI's int counts can hold; one (source, tag) pair
// keeps the pieces in order.
constexpr std::size_t kPiece = std::size_t(1) << 28;
void send_pieces(const std::int64_t* data, std::size_t n, int to, MPI_Comm comm, std::vector<MPI_Request>& reqs) {
    for (std::size_t off = 0; off < n; off += kPiece) {
        reqs.emplace_back();
        MPI_Isend(data + off, static_cast<int>(std::min(kPiece, n - off)), MPI_INT64_T, to, 0, comm, &reqs.back());
    }
}
void recv_pieces(std::int64_t* data, std::size_t n, MPI_Comm comm, std::vector<MPI_Request>& reqs) {
    for (std::size_t off = 0; off < n; off += kPiece) {
        reqs.emplace_back();
        MPI_Irecv(data + off, static_cast<int>(std::min(kPiece, n - off)), MPI_INT64_T, 0, 0, comm, &reqs.back());
    }
}

}  // namespace

// Each writing rank reads its own map processes' runs (one slice of each
// Dk.offsets and Dk.lengths: they are consecutive) and checks them; rank 0
// read and checked everything else.  The reading is spread over the ranks
// instead of rank 0 reading all of it and sending it out (ne30 map, 16 ranks:
// rank 0 spent 68 ms of CPU while the others waited).  A failure here is one
// rank's: the caller's collective_step agrees on it (no collective follows).
namespace {
// Makes d hold the runs of this rank's map processes (none for share_rank <
// 0), indexed locally from 0; returns where they start in the whole map's
// arrays and how many there are.
struct HeldRuns {
    std::int64_t start = 0, count = 0;
};
HeldRuns hold_share(Decomp& d, int share_rank, int share_size) {
    d.held = share_rank < 0 ? ProcRange{} : map_procs_of_rank(static_cast<int>(d.nreqs.size()), share_rank, share_size);
    HeldRuns h;
    h.start = d.held.count ? d.first[d.held.first] : 0;
    for (int p = d.held.first; p < d.held.first + d.held.count; ++p) {
        d.first[p] = h.count;  // local index: this rank holds its own processes' runs only
        h.count += d.nreqs[p];
    }
    return h;
}

void read_own_runs(const std::string& path, DecompMap& m, int share_rank, int share_size) {
    std::unique_ptr<formats::ArrayReader> r = share_rank < 0 ? nullptr : formats::open_array_file(path);
    for (auto& d : m.decomps) {
        const HeldRuns h = hold_share(d, share_rank, share_size);
        if (h.count > 0) {
            const auto b = static_cast<std::uint64_t>(h.start), c = static_cast<std::uint64_t>(h.count);
            d.offsets = r->read_int_slice(d.name + ".offsets", b, c);
            d.lengths = r->read_int_slice(d.name + ".lengths", b, c);
        }
        validate_runs(m, d, d.held);
    }
}
}  // namespace

DecompMap read_decomp_map_collective(const std::string& path, MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    DecompMap m;
    std::vector<std::int64_t> packed;
    read_on_rank0(path, comm, true, m, packed);
    bcast_packed(packed, comm);
    if (rank == 0) return m;
    return unpack(packed, path);
}

DecompMap read_decomp_map_share(const std::string& path, MPI_Comm comm, int share_rank, int share_size) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    DecompMap m;
    std::vector<std::int64_t> packed;
    bool sliced = false;
    read_on_rank0(path, comm, false, m, packed, &sliced);
    bcast_packed(packed, comm);
    if (sliced) {
        if (rank != 0) m = unpack(packed, path, false);
        read_own_runs(path, m, share_rank, share_size);
        return m;
    }
    std::vector<int> shares(static_cast<std::size_t>(size));
    MPI_Gather(&share_rank, 1, MPI_INT, shares.data(), 1, MPI_INT, 0, comm);
    if (rank != 0) m = unpack(packed, path, false);
    // Each rank's map processes are consecutive, so their runs are one slice
    // of offsets and one of lengths.
    std::vector<MPI_Request> reqs;
    for (auto& d : m.decomps) {
        const int nmap = static_cast<int>(d.nreqs.size());
        if (rank == 0) {
            for (int r = 1; r < size; ++r) {
                if (shares[r] < 0) continue;
                const ProcRange pr = map_procs_of_rank(nmap, shares[r], share_size);
                if (pr.count == 0) continue;
                const std::int64_t b = d.first[pr.first],
                                   e = d.first[pr.first + pr.count - 1] + d.nreqs[pr.first + pr.count - 1];
                send_pieces(d.offsets.data() + b, static_cast<std::size_t>(e - b), r, comm, reqs);
                send_pieces(d.lengths.data() + b, static_cast<std::size_t>(e - b), r, comm, reqs);
            }
            continue;
        }
        const std::int64_t n = hold_share(d, share_rank, share_size).count;
        d.offsets.resize(static_cast<std::size_t>(n));
        d.lengths.resize(static_cast<std::size_t>(n));
        if (n == 0) continue;
        recv_pieces(d.offsets.data(), d.offsets.size(), comm, reqs);
        recv_pieces(d.lengths.data(), d.lengths.size(), comm, reqs);
    }
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    return m;
}

// ---- distribution and coalescing -----------------------------------------------
ProcRange map_procs_of_rank(int nmap_procs, int rank, int nranks) {
    if (nranks < 1 || rank < 0 || rank >= nranks) throw Error("map_procs_of_rank: bad rank/size");
    ProcRange r;
    if (rank >= nmap_procs) return r;  // more ranks than map processes: nothing to own
    const int cnt = nmap_procs / nranks, extra = nmap_procs % nranks;
    r.count = cnt + (rank < extra ? 1 : 0);
    r.first = rank * cnt + std::min(rank, extra);
    return r;
}

namespace {

// Runs of a valid map never overlap, so offsets are distinct and an unstable
// sort gives the one order (the length breaks ties on invalid input, for
// determinism).
bool by_offset(const Run& a, const Run& b) {
    return a.offset < b.offset || (a.offset == b.offset && a.length < b.length);
}

// Merges each run into the kept one before it when they are adjacent and it
// does not start a row, in place.
void merge_adjacent(std::vector<Run>& runs, std::int64_t row_length) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const Run r = runs[i];
        if (kept > 0 && runs[kept - 1].offset + runs[kept - 1].length == r.offset && r.offset % row_length != 0)
            runs[kept - 1].length += r.length;
        else
            runs[kept++] = r;
    }
    runs.resize(kept);
}

// Sort and coalesce in one: one bit per element between the lowest and the
// highest offset, set by every run, then read back as runs of set bits cut at
// row boundaries.  Linear in runs + span/64, no comparison at all; the same
// result as sorting and coalescing when no two runs overlap, no run is empty
// and none crosses a row.  Returns false (runs untouched) otherwise, or when
// the span is too sparse for a bitmap to pay.
bool coalesce_by_bitmap(std::vector<Run>& runs, std::int64_t row_length) {
    if (runs.empty() || row_length <= 0) return false;
    std::int64_t lo = runs.front().offset, hi = lo;
    for (const Run& r : runs) {
        if (r.offset < 0 || r.length <= 0) return false;
        lo = std::min(lo, r.offset);
        hi = std::max(hi, r.offset + r.length);
    }
    const std::uint64_t span = static_cast<std::uint64_t>(hi - lo);
    if (span / 64 > 4 * runs.size()) return false;
    std::vector<std::uint64_t> bits(span / 64 + 2, 0);  // a zero word past the end stops the scans
    for (const Run& r : runs) {
        const std::uint64_t at = static_cast<std::uint64_t>(r.offset - lo);
        if (r.length == 1) {  // most E3SM runs (ne30 D3: all 3.5 million): one bit, no row to cross
            const std::uint64_t bit = std::uint64_t(1) << (at % 64);
            if (bits[at / 64] & bit) return false;  // overlap
            bits[at / 64] |= bit;
            continue;
        }
        if (r.offset % row_length + r.length > row_length) return false;  // crosses a row
        for (std::uint64_t b = static_cast<std::uint64_t>(r.offset - lo), e = b + static_cast<std::uint64_t>(r.length);
             b < e;) {
            const std::uint64_t w = b / 64, n = std::min<std::uint64_t>(64 - b % 64, e - b);
            const std::uint64_t mask = (n == 64 ? ~std::uint64_t(0) : ((std::uint64_t(1) << n) - 1)) << (b % 64);
            if (bits[w] & mask) return false;  // overlap
            bits[w] |= mask;
            b += n;
        }
    }
    // next set (want 1) or clear (want 0) bit at or after i, span when none
    // is set; the zero word at the end stops the search for a clear one
    const auto next = [&](std::uint64_t i, bool want) {
        std::uint64_t w = i / 64;
        std::uint64_t x = (want ? bits[w] : ~bits[w]) & (~std::uint64_t(0) << (i % 64));
        while (x == 0) {
            if (++w == bits.size()) return span;
            x = want ? bits[w] : ~bits[w];
        }
        return w * 64 + static_cast<std::uint64_t>(__builtin_ctzll(x));
    };
    std::size_t kept = 0;
    std::int64_t row_end = 0;  // end of the row holding b; a division only on entering a new row
    for (std::uint64_t i = next(0, true); i < span; i = next(i, true)) {
        const std::uint64_t end = next(i, false);
        for (std::int64_t b = lo + static_cast<std::int64_t>(i), e = lo + static_cast<std::int64_t>(end); b < e;) {
            if (b >= row_end) row_end = (b / row_length + 1) * row_length;
            const std::int64_t stop = std::min(e, row_end);
            runs[kept++] = {b, stop - b};  // never more runs than went in
            b = stop;
        }
        i = end;
    }
    runs.resize(kept);
    return true;
}

}  // namespace

std::vector<Run> coalesce_runs(std::vector<Run> runs, std::int64_t row_length, bool sort) {
    if (sort && coalesce_by_bitmap(runs, row_length)) return runs;
    // What the bitmap refuses (invalid maps, runs spread thin over a large
    // array) takes the comparison sort.
    if (sort && !std::is_sorted(runs.begin(), runs.end(), by_offset)) std::sort(runs.begin(), runs.end(), by_offset);
    merge_adjacent(runs, row_length);
    return runs;
}

std::vector<Run> rank_runs(const Decomp& d, int rank, int nranks, bool sort, bool fill, MapReading reading) {
    const ProcRange pr = map_procs_of_rank(static_cast<int>(d.nreqs.size()), rank, nranks);
    std::vector<Run> runs;
    if (reading == MapReading::E3smIo && !fill) {
        require_whole(d, "E3SM-IO's map reading");  // its window crosses other processes' blocks
        std::int64_t begin = 0, count = 0;
        for (int p = 0; p < pr.first; ++p) begin += d.fill_starts[p];
        for (int p = pr.first; p < pr.first + pr.count; ++p) count += d.fill_starts[p];
        for (std::int64_t i = begin; i < begin + count; ++i) runs.push_back({d.offsets[i], d.lengths[i]});
        return coalesce_runs(std::move(runs), d.row_length(), sort);
    }
    std::size_t n = 0;
    for (int p = pr.first; p < pr.first + pr.count; ++p) {
        require_held(d, p);
        n += static_cast<std::size_t>(fill ? d.nreqs[p] - d.fill_starts[p] : d.fill_starts[p]);
    }
    runs.reserve(n);
    for (int p = pr.first; p < pr.first + pr.count; ++p) {
        const std::int64_t b = fill ? d.fill_starts[p] : 0, e = fill ? d.nreqs[p] : d.fill_starts[p];
        for (std::int64_t i = b; i < e; ++i) runs.push_back({d.offsets[d.first[p] + i], d.lengths[d.first[p] + i]});
    }
    return coalesce_runs(std::move(runs), d.row_length(), sort);
}

std::vector<std::vector<std::uint64_t>> runs_per_rank(const DecompMap& m, int nranks, bool sort, bool fill) {
    std::vector<std::vector<std::uint64_t>> out;
    for (const auto& d : m.decomps) {
        std::vector<std::uint64_t> c(nranks, 0);
        for (int r = 0; r < std::min(nranks, m.nprocs); ++r) c[r] = rank_runs(d, r, nranks, sort, fill).size();
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace iok::e3sm
