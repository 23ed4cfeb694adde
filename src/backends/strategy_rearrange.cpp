// The rearrange strategy: before the library is called, every rank sends its
// pieces of a variable to the aggregator rank that owns that part of the
// variable (the flattened array is cut into one contiguous box per
// aggregator), so each aggregator hands the library a few large contiguous
// ranges instead of thousands of small runs.  The exchange plan (a Route)
// depends only on the selection, so it is built once per selection and
// reused for every variable and record that shares it.
//
// put() only queues: the pieces of every variable posted before a flush
// travel in one MPI_Alltoallv, so a flush of 400 variables costs a handful
// of collectives, not two per variable (E3SM F h0 on 16 ranks: 414 puts of
// a few KiB each per flush).  Reads travel back the same way after the
// library's flush.  --param rearrange.exchange_kib bounds the bytes of one
// exchange (more exchanges beyond it); 0 exchanges every variable on its own.
// The library completes each exchange's requests (its flush) before the
// next exchange re-uses the aggregation buffer, so an aggregator holds one
// exchange's boxes, not the whole flush's: ne30 F h0 on 16 ranks (one
// aggregator) held all 1.8 GiB of the file besides the exchange buffers
// (2.5 GiB peak RSS against E3SM-IO's 1.7 GiB; issue 33).
#include <algorithm>
#include <climits>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "backends/strategy.hpp"
#include "core/buffer_arena.hpp"
#include "core/error.hpp"
#include "core/manifest.hpp"

namespace iok {
namespace {

struct Piece {
    std::int64_t offset, length;  // flattened element range in the variable
    std::int64_t pos;             // element position in the sender's buffer / aggregator's buffer
};

// One piece's bytes.  E3SM's pieces are one to three elements (2.3 million
// of them reach the F case's aggregator): a call to memcpy each cost more
// than the bytes it moved, so the common sizes are fixed-size copies the
// compiler inlines (callgrind, aggregator: exchange 91M -> 82M instructions).
inline void copy_piece(unsigned char* to, const unsigned char* from, std::size_t bytes) {
    switch (bytes) {
        case 4: std::memcpy(to, from, 4); return;
        case 8: std::memcpy(to, from, 8); return;
        case 12: std::memcpy(to, from, 12); return;
        case 16: std::memcpy(to, from, 16); return;
        case 24: std::memcpy(to, from, 24); return;
        case 32: std::memcpy(to, from, 32); return;
        default: std::memcpy(to, from, bytes);
    }
}

// Pieces grouped by peer rank: pieces[first[p] .. first[p+1]) go to / come from rank p.
struct PeerPieces {
    std::vector<Piece> pieces;
    std::vector<std::size_t> first;  // size ranks + 1
    std::int64_t elements_for(int p) const {
        std::int64_t n = 0;
        for (std::size_t i = first[p]; i < first[p + 1]; ++i) n += pieces[i].length;
        return n;
    }
};

// How one selection's elements travel: built collectively, reused.
struct Route {
    PeerPieces mine;                 // my pieces by destination aggregator, pos = in my buffer
    PeerPieces agg_side;             // pieces I aggregate, by source rank, pos = in the aggregated buffer
    std::shared_ptr<Selection> agg;  // aggregator's selection (empty elsewhere)
};

// A put or get queued until the flush.
struct Queued {
    int var;
    const Selection* sel;
    std::int64_t record;
    unsigned char* user;  // the caller's buffer (read from for put, written to for get)
    std::size_t esz;
    const Route* route = nullptr;
    std::size_t agg_slice = 0;
    unsigned char* agg = nullptr;  // aggregated buffer (aggregators)
};

// One file open through the rearranger: the library's own file plus the
// exchange plans of the selections seen so far.
class RearrangeFile final : public File {
public:
    // batch_bytes: most bytes one exchange carries per rank (MPI counts and
    // displacements are int; it also bounds the transient copies)
    RearrangeFile(int aggregators, std::int64_t batch_bytes)
        : requested_(aggregators),
          batch_bytes_(std::min<std::int64_t>(batch_bytes, INT_MAX)) {}

    void create(Backend& library, const std::string& path, const FileSpec& spec, MPI_Comm comm) {
        setup(comm);
        remember_sizes(spec);
        inner_ = library.create(path, spec, comm);
        bind(path, spec, true);
    }
    // Update passes through: the aggregators write into the library's file
    // as they would into a new one.
    void open(Backend& library, const std::string& path, const FileSpec& spec, MPI_Comm comm, Access access) {
        setup(comm);
        remember_sizes(spec);
        inner_ = library.open(path, spec, comm, access);
        bind(path, spec, access == Access::Update);
    }
    std::int64_t records() const override { return inner_ ? inner_->records() : -1; }
    void define(const FileSpec& spec) override { inner_->define(spec); }
    std::string library() const override { return inner_->library(); }

    bool do_put(int var, const Selection& sel, std::int64_t record, const void* buf) override {
        puts_.push_back({var, &sel, record, static_cast<unsigned char*>(const_cast<void*>(buf)), esize(var)});
        return true;
    }
    void do_get(int var, const Selection& sel, std::int64_t record, void* buf) override {
        gets_.push_back({var, &sel, record, static_cast<unsigned char*>(buf), esize(var)});
    }

    void flush() override {
        // A refusal below (the library's, e.g. a record written twice) drops
        // this flush's requests: the file stays usable, as after a refused put.
        struct Drop {
            RearrangeFile& f;
            ~Drop() {
                f.puts_.clear();
                f.gets_.clear();
            }
        } drop{*this};
        plan(puts_);
        plan(gets_);
        // Batch by batch (the same cuts on every rank, so the library's
        // collective flushes pair up): the batch's boxes get the aggregation
        // buffer, and the library is done with them before the next batch
        // takes it over.
        // writes: my pieces to the aggregators, then the library writes the boxes
        for_each_batch(puts_, [&](std::size_t b, std::size_t e) {
            stage(puts_, b, e);
            exchange(puts_, b, e, /*to_aggregators=*/true);
            for (std::size_t i = b; i < e; ++i) {
                const Queued& q = puts_[i];
                inner_->put(q.var, *q.route->agg, q.record, q.agg);
            }
            inner_->flush();
        });
        // reads: the library reads the boxes, then every piece goes back to its owner
        for_each_batch(gets_, [&](std::size_t b, std::size_t e) {
            stage(gets_, b, e);
            for (std::size_t i = b; i < e; ++i) {
                const Queued& q = gets_[i];
                inner_->get(q.var, *q.route->agg, q.record, q.agg);
            }
            inner_->flush();
            exchange(gets_, b, e, /*to_aggregators=*/false);
        });
        if (puts_.empty() && gets_.empty()) inner_->flush();  // an empty flush reaches the library as before
    }

    void close() override {
        inner_->close();
        routes_.clear();
        puts_.clear();
        gets_.clear();
    }

    MPI_Info info_in_effect() override { return inner_->info_in_effect(); }
    // The library's file's counts (the aggregators' put/get calls), not the requests given here.
    BackendStats stats() const override { return inner_->stats(); }

private:
    void setup(MPI_Comm comm) {
        comm_ = comm;
        MPI_Comm_rank(comm, &rank_);
        MPI_Comm_size(comm, &size_);
        int n = requested_ > 0 ? requested_ : count_nodes(comm);
        n = std::max(1, std::min(n, size_));
        aggregators_.clear();
        for (int k = 0; k < n; ++k) aggregators_.push_back(static_cast<int>(static_cast<long long>(k) * size_ / n));
        routes_.clear();
    }

    std::size_t esize(int var) const {
        // the inner backend knows the spec; we only need the element size,
        // which the runner guarantees matches the variable's type
        return var_sizes_.at(static_cast<std::size_t>(var));
    }

    // Every queued request gets its route.  Ranks agree on which routes to
    // (re)build in one allreduce: a miss anywhere rebuilds everywhere, in
    // queue order (building is collective).
    void plan(std::vector<Queued>& queue) {
        if (queue.empty()) return;
        std::vector<int> hit(queue.size()), all(queue.size());
        std::set<std::uint64_t> queued;  // a selection queued twice is built once
        for (std::size_t i = 0; i < queue.size(); ++i) {
            const std::uint64_t id = queue[i].sel->id();
            hit[i] = routes_.count(id) != 0 || !queued.insert(id).second;
        }
        MPI_Allreduce(hit.data(), all.data(), static_cast<int>(hit.size()), MPI_INT, MPI_MIN, comm_);
        for (std::size_t i = 0; i < queue.size(); ++i)
            if (!all[i]) routes_[queue[i].sel->id()] = build(*queue[i].sel);
        for (Queued& q : queue) q.route = &routes_.at(q.sel->id());
    }

    // Requests [b, e) get their slices of the aggregation arena (the library
    // reads or fills them until its flush); earlier batches' slices are
    // given up, their requests complete.
    void stage(std::vector<Queued>& queue, std::size_t b, std::size_t e) {
        agg_.clear();
        for (std::size_t i = b; i < e; ++i)
            queue[i].agg_slice = agg_.reserve(queue[i].route->agg->elements() * queue[i].esz);
        agg_.allocate();
        for (std::size_t i = b; i < e; ++i) queue[i].agg = static_cast<unsigned char*>(agg_.data(queue[i].agg_slice));
    }

    // Bytes a request makes this rank send or receive, whichever is larger.
    static std::int64_t traffic(const Queued& q) {
        const auto sent = static_cast<std::int64_t>(q.sel->elements());
        const auto received = static_cast<std::int64_t>(q.route->agg->elements());
        return std::max(sent, received) * static_cast<std::int64_t>(q.esz);
    }

    // Cuts the queue into batches of at most batch_bytes_ on every rank (the
    // same cuts everywhere: the per-request maxima are agreed first).
    template <class F>
    void for_each_batch(const std::vector<Queued>& queue, F&& fn) {
        if (queue.empty()) return;
        std::vector<std::int64_t> bytes(queue.size()), most(queue.size());
        for (std::size_t i = 0; i < queue.size(); ++i) bytes[i] = traffic(queue[i]);
        MPI_Allreduce(bytes.data(), most.data(), static_cast<int>(bytes.size()), MPI_INT64_T, MPI_MAX, comm_);
        std::size_t b = 0;
        std::int64_t sum = 0;
        for (std::size_t i = 0; i < queue.size(); ++i) {
            if (most[i] > INT_MAX) throw Error("rearrange: one variable's share exceeds 2 GiB on a rank");
            if (i > b && sum + most[i] > batch_bytes_) {
                fn(b, i);
                b = i;
                sum = 0;
            }
            sum += most[i];
        }
        fn(b, queue.size());
    }

    // One MPI_Alltoallv for requests [b, e): towards the aggregators (writes)
    // or back from them (reads).  Each peer's block holds the requests in
    // queue order, each request's pieces in route order.
    void exchange(const std::vector<Queued>& queue, std::size_t b, std::size_t e, bool to_aggregators) {
        const auto n = static_cast<std::size_t>(size_);
        auto out_side = [&](const Queued& q) -> const PeerPieces& {
            return to_aggregators ? q.route->mine : q.route->agg_side;
        };
        auto in_side = [&](const Queued& q) -> const PeerPieces& {
            return to_aggregators ? q.route->agg_side : q.route->mine;
        };
        auto out_buf = [&](const Queued& q) { return to_aggregators ? q.user : q.agg; };
        auto in_buf = [&](const Queued& q) { return to_aggregators ? q.agg : q.user; };
        std::vector<int> scount(n), sdispl(n), rcount(n), rdispl(n);
        std::int64_t st = 0, rt = 0;
        for (std::size_t p = 0; p < n; ++p) {
            std::int64_t s = 0, r = 0;
            for (std::size_t i = b; i < e; ++i) {
                s += out_side(queue[i]).elements_for(static_cast<int>(p)) * static_cast<std::int64_t>(queue[i].esz);
                r += in_side(queue[i]).elements_for(static_cast<int>(p)) * static_cast<std::int64_t>(queue[i].esz);
            }
            sdispl[p] = static_cast<int>(st);
            rdispl[p] = static_cast<int>(rt);
            scount[p] = static_cast<int>(s);
            rcount[p] = static_cast<int>(r);
            st += s;
            rt += r;
        }
        send_.clear();
        recv_.clear();
        const std::size_t ss = send_.reserve(static_cast<std::size_t>(st)),
                          rs = recv_.reserve(static_cast<std::size_t>(rt));
        send_.allocate();
        recv_.allocate();
        auto* sendbuf = static_cast<unsigned char*>(send_.data(ss));
        auto* recvbuf = static_cast<unsigned char*>(recv_.data(rs));
        walk(queue, b, e, out_side, [&](const Queued& q, std::size_t pos, std::size_t at, std::size_t bytes) {
            copy_piece(sendbuf + at, out_buf(q) + pos, bytes);
        });
        MPI_Alltoallv(sendbuf, scount.data(), sdispl.data(), MPI_BYTE, recvbuf, rcount.data(), rdispl.data(), MPI_BYTE,
                      comm_);
        walk(queue, b, e, in_side, [&](const Queued& q, std::size_t pos, std::size_t at, std::size_t bytes) {
            copy_piece(in_buf(q) + pos, recvbuf + at, bytes);
        });
    }

    // The pieces of requests [b, e) in exchange order (peer, request, piece):
    // fn(request, byte position in its buffer, byte offset in the packed
    // exchange buffer, bytes).
    template <class Side, class F>
    void walk(const std::vector<Queued>& queue, std::size_t b, std::size_t e, Side side, F&& fn) const {
        std::size_t at = 0;
        for (std::size_t p = 0; p < static_cast<std::size_t>(size_); ++p)
            for (std::size_t i = b; i < e; ++i) {
                const PeerPieces& pieces = side(queue[i]);
                const std::size_t esz = queue[i].esz;
                for (std::size_t k = pieces.first[p]; k < pieces.first[p + 1]; ++k) {
                    const Piece& c = pieces.pieces[k];
                    fn(queue[i], c.pos * esz, at, c.length * esz);
                    at += c.length * esz;
                }
            }
    }

    Route build(const Selection& sel) {
        Route r;
        std::uint64_t n = 1;
        for (auto d : sel.shape()) n *= d;
        const auto nagg = static_cast<std::uint64_t>(aggregators_.size());
        auto box_start = [&](std::uint64_t k) { return static_cast<std::int64_t>(k * n / nagg); };
        // split my runs at box boundaries, remember where each piece sits in my buffer
        std::vector<std::vector<Piece>> by_dest(static_cast<std::size_t>(size_));
        std::int64_t pos = 0;
        sel.for_each_run([&](std::int64_t off, std::int64_t len) {
            while (len > 0) {
                std::uint64_t k = static_cast<std::uint64_t>(off) * nagg / n;
                while (k + 1 < nagg && box_start(k + 1) <= off) ++k;
                while (k > 0 && box_start(k) > off) --k;
                const std::int64_t end = k + 1 < nagg ? std::min(off + len, box_start(k + 1)) : off + len;
                by_dest[static_cast<std::size_t>(aggregators_[k])].push_back({off, end - off, pos});
                pos += end - off;
                len -= end - off;
                off = end;
            }
        });
        std::vector<int> send_pieces(static_cast<std::size_t>(size_)), send_pdispl(static_cast<std::size_t>(size_));
        std::vector<std::int64_t> meta;
        int pieces = 0;
        r.mine.first.push_back(0);
        for (int d = 0; d < size_; ++d) {
            send_pdispl[d] = pieces;
            for (const Piece& p : by_dest[d]) {
                r.mine.pieces.push_back(p);
                meta.push_back(p.offset);
                meta.push_back(p.length);
            }
            r.mine.first.push_back(r.mine.pieces.size());
            send_pieces[d] = static_cast<int>(by_dest[d].size()) * 2;
            pieces += send_pieces[d];
        }
        std::vector<int> recv_pieces(static_cast<std::size_t>(size_)), recv_pdispl(static_cast<std::size_t>(size_));
        MPI_Alltoall(send_pieces.data(), 1, MPI_INT, recv_pieces.data(), 1, MPI_INT, comm_);
        int rp = 0;
        r.agg_side.first.push_back(0);
        for (int d = 0; d < size_; ++d) {
            recv_pdispl[d] = rp;
            rp += recv_pieces[d];
            r.agg_side.first.push_back(static_cast<std::size_t>(rp / 2));
        }
        std::vector<std::int64_t> rmeta(static_cast<std::size_t>(rp) + 1);
        MPI_Alltoallv(meta.data(), send_pieces.data(), send_pdispl.data(), MPI_INT64_T, rmeta.data(),
                      recv_pieces.data(), recv_pdispl.data(), MPI_INT64_T, comm_);
        // aggregator: order the received pieces by offset; merge into ranges
        std::vector<Piece>& got = r.agg_side.pieces;
        for (int i = 0; i < rp; i += 2) got.push_back({rmeta[i], rmeta[i + 1], 0});
        std::vector<std::size_t> order(got.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(),
                  [&](std::size_t a, std::size_t b) { return got[a].offset < got[b].offset; });
        std::vector<Run> ranges;
        std::int64_t at = 0;
        for (std::size_t i : order) {
            Piece& p = got[i];
            p.pos = at;
            at += p.length;
            if (!ranges.empty() && ranges.back().offset + ranges.back().length == p.offset)
                ranges.back().length += p.length;
            else
                ranges.push_back({p.offset, p.length});
        }
        r.agg = std::make_shared<Selection>(Selection::from_ranges(sel.shape(), ranges));
        return r;
    }

public:
    // element sizes per variable, recorded when the spec is known
    void remember_sizes(const FileSpec& spec) {
        var_sizes_.clear();
        for (const auto& v : spec.vars) var_sizes_.push_back(dtype_size(v.type));
    }

private:
    std::unique_ptr<File> inner_;
    int requested_;
    std::int64_t batch_bytes_;
    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0, size_ = 1;
    std::vector<int> aggregators_;
    std::map<std::uint64_t, Route> routes_;  // by selection id
    std::vector<std::size_t> var_sizes_;
    // kept across flushes: their pages stay mapped (fresh buffers per flush
    // paid a page fault per 4 KiB on the aggregator, every flush)
    BufferArena agg_{0}, send_{0}, recv_{0};
    std::vector<Queued> puts_, gets_;
};

class RearrangeBackend final : public Backend {
public:
    RearrangeBackend(std::unique_ptr<Backend> inner, int aggregators, std::int64_t batch_bytes)
        : inner_(std::move(inner)),
          aggregators_(aggregators),
          batch_bytes_(batch_bytes) {}

    std::string name() const override { return inner_->name(); }
    std::string extension() const override { return inner_->extension(); }
    std::unique_ptr<File> create(const std::string& path, const FileSpec& spec, MPI_Comm comm) override {
        auto f = std::make_unique<RearrangeFile>(aggregators_, batch_bytes_);
        f->create(*inner_, path, spec, comm);
        return f;
    }
    std::unique_ptr<File> open(const std::string& path, const FileSpec& spec, MPI_Comm comm,
                               Access access = Access::Read) override {
        auto f = std::make_unique<RearrangeFile>(aggregators_, batch_bytes_);
        f->open(*inner_, path, spec, comm, access);
        return f;
    }

private:
    std::unique_ptr<Backend> inner_;
    int aggregators_;
    std::int64_t batch_bytes_;
};

}  // namespace

std::unique_ptr<Backend> make_rearrange_backend(std::unique_ptr<Backend> inner, int aggregators,
                                                std::int64_t batch_bytes) {
    return std::make_unique<RearrangeBackend>(std::move(inner), aggregators, batch_bytes);
}

}  // namespace iok

namespace iok {
namespace {

std::unique_ptr<Backend> make_registered(const std::string& library, const BackendConfig& cfg) {
    // After rearranging, each aggregator holds a few large contiguous
    // pieces: collective buffering has nothing left to merge and only adds
    // a synchronisation per variable (measured: hdf5 F case, 4 ranks,
    // 15.2 s collective vs 3.3 s independent).  So the library writes
    // independently unless rearrange.collective=1.
    BackendConfig inner = cfg;
    inner.collective = cfg.flag("rearrange.collective") && cfg.collective;
    const std::int64_t kib = strategy_count_param(cfg, "rearrange.exchange_kib", "every variable on its own");
    return make_rearrange_backend(make_backend(library, inner), strategy_count_param(cfg, "rearrange.aggregators"),
                                  kib * 1024);
}

StrategyInfo describe() {
    StrategyInfo s;
    s.name = "rearrange";
    s.description =
        "requests exchanged among ranks (BOX-like) so a few aggregators each write a few large "
        "contiguous pieces";
    s.options = {{"rearrange.aggregators", "0", "number of aggregator ranks (0 = one per node)", {}},
                 {"rearrange.collective", "0", "library I/O collective after the exchange", {"0", "1"}},
                 // 64 MiB: few exchanges per flush (an E3SM F h0 record of ne30 on 16 ranks:
                 // 1.8 GiB, about 30 exchanges); the aggregator holds one exchange's boxes and
                 // receive buffer.  ne30, 16 ranks, one aggregator: 512 MiB peaked at 2.5 GiB
                 // and wrote h0 in 4.6 s; 64 MiB 0.29 GiB and 3.3 s; 16 MiB 0.22 GiB, 4.2 s
                 {"rearrange.exchange_kib",
                  "65536",
                  "most KiB per rank one exchange carries: a flush's variables travel together up to it "
                  "(0 = every variable on its own)",
                  {}}};
    s.make = make_registered;
    s.keeps_canonical_layout = true;
    s.library_io_independent = true;
    s.read_back = "canonical file: -i / --verify with any rank count";
    return s;
}

}  // namespace
}  // namespace iok

IOK_REGISTER_STRATEGY(rearrange, iok::describe)
