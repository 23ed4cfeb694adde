#include "runner/runner.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/buffer_arena.hpp"
#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/full_disk_watchdog.hpp"
#include "core/memory.hpp"
#include "core/output_files.hpp"
#include "core/phase_timer.hpp"
#include "core/stats.hpp"
#include "runner/pattern.hpp"

namespace iok {

namespace {

// One put/get of the plan: a variable, a record and which selection.
struct Request {
    int var;
    std::int64_t record;  // 0 for fixed-size variables
    bool fill;            // fill-mode request (constant fill value)
    const Selection* sel;
    std::size_t slice;
    bool structs = false;  // every FilePlan::memory_struct field of `record`, one array of structs
};

// Copies one field between an array of structs and a packed buffer.
void struct_to_packed(const void* aos, std::size_t stride, std::size_t offset, std::size_t elem, std::uint64_t n,
                      void* packed) {
    const auto* in = static_cast<const unsigned char*>(aos) + offset;
    auto* out = static_cast<unsigned char*>(packed);
    for (std::uint64_t i = 0; i < n; ++i) std::memcpy(out + i * elem, in + i * stride, elem);
}
void packed_to_struct(const void* packed, std::size_t stride, std::size_t offset, std::size_t elem, std::uint64_t n,
                      void* aos) {
    const auto* in = static_cast<const unsigned char*>(packed);
    auto* out = static_cast<unsigned char*>(aos) + offset;
    for (std::uint64_t i = 0; i < n; ++i) std::memcpy(out + i * stride, in + i * elem, elem);
}

// Runs a write-side step; an error on a file system that has filled up is
// named as such (the library's own text is often a generic I/O error).
// An empty path (reading) runs fn as it is.
void naming_full_disk(const std::string& path, const std::function<void()>& fn) {
    if (path.empty()) return fn();
    try {
        fn();
    } catch (const CollectiveFailure&) {
        throw;
    } catch (const Error& e) {
        const std::string full = full_file_system(path);
        if (full.empty()) throw;
        throw Error(full + ": " + e.what(), "free space there, or write elsewhere (-o)");
    }
}

const Selection& selection_of(const std::vector<SelectionPtr>& v, std::size_t i, const Selection& none) {
    return (i < v.size() && v[i]) ? *v[i] : none;
}

// Groups of records completed by one flush each.  Fixed-size variables go
// into the first group, before any record.
std::vector<std::pair<int, int>> record_groups(const FilePlan& p) {
    std::vector<std::pair<int, int>> g;
    const int n = std::max(p.nrecords, 0);
    const int every = p.flush_every <= 0 ? std::max(n, 1) : p.flush_every;
    for (int r = 0; r < n; r += every) g.push_back({r, std::min(n, r + every)});
    if (g.empty()) g.push_back({0, 0});
    return g;
}

std::uint64_t on_disk_bytes(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        std::uint64_t n = 0;
        for (auto& e : fs::recursive_directory_iterator(path, ec))
            if (e.is_regular_file(ec)) n += e.file_size(ec);
        return n;
    }
    auto n = fs::file_size(path, ec);
    return ec ? 0 : n;
}

class FileRun {
public:
    FileRun(MPI_Comm comm, Backend& be, const RunOptions& opt, const FilePlan& plan, bool writing, bool update = false)
        : comm_(comm),
          be_(be),
          opt_(opt),
          plan_(plan),
          writing_(writing),
          update_(update),
          timer_(comm),
          arena_(opt.noncontig_buffer ? opt.gap_bytes : 0) {
        // "accesses nothing" must still have the variable's shape: backends check it
        for (const VarSpec& v : plan.spec.vars) empty_.emplace_back(plan.spec.fixed_shape(v));
        MPI_Comm_rank(comm, &rank_);
        MPI_Comm_size(comm, &size_);
    }

    FileOutcome run(const std::string& path);
    // The steps of run(), for writers that keep a file open across calls.
    void begin(const std::string& path);
    void step(int first_rec, int last_rec, bool with_fixed);
    FileOutcome finish(const std::string& path);
    std::int64_t records_at_open() const { return records_at_open_; }

private:
    std::vector<Request> requests_for(int first_rec, int last_rec, bool with_fixed, BufferArena& arena);
    void prepare(std::vector<Request>& reqs, BufferArena& arena);
    void verify(const std::vector<Request>& reqs, BufferArena& arena);
    void check_field(const Request& q, int var, const void* buf);
    // Moves an array-of-structs request: natively when the backend can
    // describe the layout, else one packed copy per field (kept in
    // `staging` until the flush; unpacked by unpack_staged() after it).
    struct Staged {  // one field of one array of structs, packed
        void* structs;
        std::size_t offset, elem;
        std::uint64_t n;
        std::vector<unsigned char> data;
    };
    void post_struct(const Request& q, void* base, std::vector<Staged>& staging);
    void unpack_staged(std::vector<Staged>& staging);
    bool in_struct(int v) const;
    // The plan's one value for this variable (FilePlan::constant_data).
    double constant_value(const VarSpec& v) const {
        return v.type == DType::Char ? plan_.constant_data->text : plan_.constant_data->number;
    }
    void report(const std::string& path, FileOutcome& out);

    MPI_Comm comm_;
    Backend& be_;
    std::unique_ptr<File> file_;  // open from begin() on; kept after close for its stats
    const RunOptions& opt_;
    const FilePlan& plan_;
    bool writing_;
    bool update_;  // writing into an existing file (opened with Access::Update, not created)
    PhaseTimer timer_;
    BufferArena arena_;             // user buffers, re-used by every flush of this file (pages stay mapped)
    std::vector<Selection> empty_;  // per variable: selects nothing, right shape
    int rank_ = 0, size_ = 1;
    std::uint64_t bytes_ = 0, calls_ = 0, flushes_ = 0;
    std::uint64_t mismatches_ = 0;
    std::uint64_t struct_native_ = 0, struct_packed_ = 0;  // array-of-structs requests by how they moved
    std::string first_mismatch_;
    MismatchAt first_at_;
    std::vector<double> step_seconds_;
    MPI_Info hints_ = MPI_INFO_NULL;
    std::string path_;  // the file, from begin()
    std::int64_t records_at_open_ = -1;
};

std::vector<Request> FileRun::requests_for(int first_rec, int last_rec, bool with_fixed, BufferArena& arena) {
    const FileSpec& spec = plan_.spec;
    std::vector<Request> reqs;
    auto add = [&](int v, std::int64_t rec) {
        const Selection& s =
            selection_of(plan_.selection, static_cast<std::size_t>(v), empty_[static_cast<std::size_t>(v)]);
        const std::size_t esz = dtype_size(spec.vars[static_cast<std::size_t>(v)].type);
        // Slices back to back, whatever their types (alignment 1): PnetCDF
        // merges requests whose buffers touch into one contiguous MPI_BYTE
        // buffer, which ROMIO copies into its collective buffer in one go.
        // Aligned to their element sizes, an odd count of floats before
        // doubles left a 4-byte hole, the buffer type became an hindexed one
        // and ROMIO took its noncontiguous path, a copy per file-order piece
        // (46.7 M on the ne30 F map: 16 ranks' user CPU 31.5 -> 26.1 s, wall
        // 45.9 -> 41.0 s packed, medians of 3).  pattern.cpp takes any
        // alignment.
        reqs.push_back({v, rec, false, &s, arena.reserve(s.elements() * esz, 1)});
        if (opt_.fill_mode && !plan_.fill_selection.empty()) {
            const Selection& f =
                selection_of(plan_.fill_selection, static_cast<std::size_t>(v), empty_[static_cast<std::size_t>(v)]);
            reqs.push_back({v, rec, true, &f, arena.reserve(f.elements() * esz, 1)});
        }
    };
    const bool structs = !plan_.memory_struct.empty();
    const Selection* struct_sel = nullptr;
    bool struct_records = false;
    if (structs) {
        const int first = plan_.memory_struct.front();
        struct_sel =
            &selection_of(plan_.selection, static_cast<std::size_t>(first), empty_[static_cast<std::size_t>(first)]);
        struct_records = spec.vars[static_cast<std::size_t>(first)].is_record(spec);
        for (int v : plan_.memory_struct) {
            const Selection& s =
                selection_of(plan_.selection, static_cast<std::size_t>(v), empty_[static_cast<std::size_t>(v)]);
            if (&s != struct_sel || spec.vars[static_cast<std::size_t>(v)].is_record(spec) != struct_records)
                throw Error("plan: array-of-structs field '" + spec.vars[static_cast<std::size_t>(v)].name +
                                "' does not share the first field's selection and kind (record or fixed)",
                            "the fields of one struct must share one selection and be all record or all fixed");
        }
    }
    auto add_structs = [&](std::int64_t rec) {
        reqs.push_back({plan_.memory_struct.front(), rec, false, struct_sel,
                        arena.reserve(struct_sel->elements() * plan_.struct_size()), true});
    };
    const auto order = plan_.write_order();
    if (with_fixed) {
        if (structs && !struct_records) add_structs(0);
        for (int v : order)
            if (!spec.vars[static_cast<std::size_t>(v)].is_record(spec) && !in_struct(v)) add(v, 0);
    }
    for (int r = first_rec; r < last_rec; ++r) {
        if (structs && struct_records) add_structs(r);
        for (int v : order)
            if (spec.vars[static_cast<std::size_t>(v)].is_record(spec) && !in_struct(v)) add(v, r);
    }
    return reqs;
}

bool FileRun::in_struct(int v) const {
    return std::find(plan_.memory_struct.begin(), plan_.memory_struct.end(), v) != plan_.memory_struct.end();
}

void FileRun::prepare(std::vector<Request>& reqs, BufferArena& arena) {
    const bool fresh = arena.allocate(!writing_);  // reads: zero pages, writes: recycled ones
    const bool zeroed = fresh && arena.zeroed();
    for (const Request& q : reqs) {
        const VarSpec& var = plan_.spec.vars[static_cast<std::size_t>(q.var)];
        void* buf = arena.data(q.slice);
        // A read buffer is poisoned so that an element the library fails to
        // read cannot pass as correct.  A re-used one holds the previous
        // record's values, which cannot pass for this record's pattern: only
        // values that do not depend on the record (fill, constant data,
        // fixed-size variables) need it again.  A fresh mapping holds zeros,
        // which pass for a pattern element only where its value is exactly
        // 0 (one float or double in 2^24, one int in 2^31, never a char), so
        // such pattern requests skip the poison there; bytes and shorts (0 is
        // one value in 128 or 32,768), structs, fill values and constant data
        // (often 0) keep it.  (Poisoning every step was a memset of
        // every byte read, and the first step's a second pass over bdcats'
        // 128 MiB per rank: issue 19, "no zero-filling of buffers that are
        // about to be filled".)
        const bool zero_is_rare = var.type == DType::Float || var.type == DType::Double || var.type == DType::Int ||
                                  var.type == DType::Int64 || var.type == DType::Char;
        const bool pattern = !q.fill && !plan_.constant_data && !q.structs && zero_is_rare;
        // Nothing to poison when nothing is checked (--no-verify reads).
        const bool poison = opt_.check_reads && (fresh ? !(zeroed && pattern)
                                                       : q.fill || plan_.constant_data || !var.is_record(plan_.spec));
        if (q.structs) {
            const std::uint64_t n = q.sel->elements();
            const std::size_t stride = plan_.struct_size();
            if (!writing_) {
                if (poison) std::memset(buf, 0xA5, n * stride);
                continue;
            }
            // Each field generated packed, then spread into the structs.
            const auto offsets = plan_.struct_offsets();
            std::vector<unsigned char> field;
            for (std::size_t k = 0; k < plan_.memory_struct.size(); ++k) {
                const VarSpec& fv = plan_.spec.vars[static_cast<std::size_t>(plan_.memory_struct[k])];
                field.resize(n * dtype_size(fv.type));
                if (plan_.constant_data)
                    fill_constant(fv.type, field.data(), n, constant_value(fv));
                else
                    pattern_fill(fv.type, field.data(), *q.sel, pattern_key(fv.name) ^ plan_.pattern_seed,
                                 static_cast<std::uint64_t>(q.record));
                packed_to_struct(field.data(), stride, offsets[k], dtype_size(fv.type), n, buf);
            }
            continue;
        }
        if (!writing_) {
            if (poison) std::memset(buf, 0xA5, q.sel->elements() * dtype_size(var.type));
        } else if (q.fill) {
            fill_constant(var.type, buf, q.sel->elements(), var.fill_value.value_or(0.0));
        } else if (plan_.constant_data) {
            fill_constant(var.type, buf, q.sel->elements(), constant_value(var));
        } else {
            pattern_fill(var.type, buf, *q.sel, (pattern_key(var.name) ^ plan_.pattern_seed),
                         static_cast<std::uint64_t>(q.record));
        }
    }
}

void FileRun::verify(const std::vector<Request>& reqs, BufferArena& arena) {
    for (const Request& q : reqs) {
        if (!q.structs) {
            check_field(q, q.var, arena.data(q.slice));
            continue;
        }
        const std::uint64_t n = q.sel->elements();
        const auto offsets = plan_.struct_offsets();
        std::vector<unsigned char> field;
        for (std::size_t k = 0; k < plan_.memory_struct.size(); ++k) {
            const int v = plan_.memory_struct[k];
            const std::size_t elem = dtype_size(plan_.spec.vars[static_cast<std::size_t>(v)].type);
            field.resize(n * elem);
            struct_to_packed(arena.data(q.slice), plan_.struct_size(), offsets[k], elem, n, field.data());
            check_field(q, v, field.data());
        }
    }
}

void FileRun::check_field(const Request& q, int v, const void* buf) {
    {
        const VarSpec& var = plan_.spec.vars[static_cast<std::size_t>(v)];
        Mismatch m = q.fill ? constant_check(var.type, buf, *q.sel, var.fill_value.value_or(0.0))
                     : plan_.constant_data
                         ? constant_check(var.type, buf, *q.sel, constant_value(var))
                         : pattern_check(var.type, buf, *q.sel, (pattern_key(var.name) ^ plan_.pattern_seed),
                                         static_cast<std::uint64_t>(q.record));
        if (!m.found) return;
        ++mismatches_;
        if (first_mismatch_.empty()) {
            char msg[512];
            std::snprintf(msg, sizeof msg,
                          "variable %s, record %lld, element %llu (flattened index): expected %.17g, read %.17g%s",
                          var.name.c_str(), static_cast<long long>(q.record),
                          static_cast<unsigned long long>(m.element), m.expected, m.actual,
                          q.fill ? " (fill value)" : "");
            first_mismatch_ = msg;
            first_at_ = {v, q.record, m.element, m.expected, m.actual, rank_};
        }
    }
}

void FileRun::post_struct(const Request& q, void* base, std::vector<Staged>& staging) {
    StructBuffer b{plan_.memory_struct, plan_.struct_offsets(), plan_.struct_size(), base};
    // Library calls, as the backend counts them: one per dataset touched.
    auto library_calls = [&] { return writing_ ? file_->stats().calls_put : file_->stats().calls_get; };
    const std::uint64_t before = library_calls();
    if (writing_ ? file_->put_struct(b, *q.sel, q.record) : file_->get_struct(b, *q.sel, q.record)) {
        ++struct_native_;
        calls_ += library_calls() - before;
        return;
    }
    ++struct_packed_;
    const std::uint64_t n = q.sel->elements();
    for (std::size_t k = 0; k < b.vars.size(); ++k) {
        const std::size_t elem = dtype_size(plan_.spec.vars[static_cast<std::size_t>(b.vars[k])].type);
        staging.push_back(
            {base, b.offsets[k], elem, n, std::vector<unsigned char>(std::max<std::uint64_t>(n * elem, 1))});
        void* field = staging.back().data.data();
        if (writing_) {
            struct_to_packed(base, b.stride, b.offsets[k], elem, n, field);
            file_->put(b.vars[k], *q.sel, q.record, field);
        } else {
            file_->get(b.vars[k], *q.sel, q.record, field);
        }
        ++calls_;
    }
}

void FileRun::unpack_staged(std::vector<Staged>& staging) {
    for (const Staged& f : staging)
        packed_to_struct(f.data.data(), plan_.struct_size(), f.offset, f.elem, f.n, f.structs);
    staging.clear();
}

FileOutcome FileRun::run(const std::string& path) {
    begin(path);
    const auto groups = record_groups(plan_);
    for (std::size_t g = 0; g < groups.size(); ++g) {
        step(groups[g].first, groups[g].second, g == 0);
        if (opt_.progress && rank_ == 0 && groups.size() > 1)
            std::fprintf(stderr, "  [%s] records %d-%d of %d %s\n", plan_.spec.label.c_str(), groups[g].first + 1,
                         groups[g].second, plan_.nrecords, writing_ ? "written" : "read");
    }
    return finish(path);
}

void FileRun::begin(const std::string& path) {
    path_ = path;
    const FileSpec& spec = plan_.spec;
    collective_step(comm_, [&] {
        timer_.start("open");
        file_ = !writing_ ? be_.open(path, spec, comm_)
                : update_ ? be_.open(path, spec, comm_, Access::Update)
                          : be_.create(path, spec, comm_);
        timer_.stop();
        records_at_open_ = file_->records();
    });
    for (std::size_t v = 0; v < plan_.sole_rank.size(); ++v)
        if (plan_.sole_rank[v] >= 0) file_->sole_accessor(static_cast<int>(v), plan_.sole_rank[v]);
    note_files_open(+1);               // from here a failed step abandons the job (collective.hpp)
    if (writing_) watch_output(path);  // a full disk some ranks never hear of (full_disk_watchdog.hpp)
    if (writing_ && !update_) {
        collective_step(comm_, [&] {
            naming_full_disk(path, [&] {
                timer_.start("define");
                file_->define(spec);
                timer_.stop();
            });
        });
    }
    hints_ = file_->info_in_effect();
}

void FileRun::step(int first_rec, int last_rec, bool with_fixed) {
    const FileSpec& spec = plan_.spec;
    const char* post = writing_ ? "post" : "post_read";
    const double io_before = timer_.seconds(post) + timer_.seconds("flush");
    {
        BufferArena& arena = arena_;
        arena.clear();
        // The layout of this call's user buffers: RecordWriter::set_noncontig_buffer
        // switches it between calls (noncontig's tile 0 packed, tile 1 with gaps).
        arena.set_gap(opt_.noncontig_buffer ? opt_.gap_bytes : 0);
        auto reqs = requests_for(first_rec, last_rec, with_fixed, arena);
        // Local phases start without a barrier; the flush (collective) has one,
        // as E3SM-IO's (one barrier per flush, not three: issue 19).
        timer_.start_local("fill");  // pattern generation: not I/O, reported apart
        prepare(reqs, arena);
        timer_.stop();
        std::vector<Staged> staging;  // packed fields of structs, until the flush
        collective_step(comm_, [&] {
            naming_full_disk(writing_ ? path_ : std::string(), [&] {
                timer_.start_local(post);
                for (const Request& q : reqs) {
                    const VarSpec& var = spec.vars[static_cast<std::size_t>(q.var)];
                    if (q.structs) {
                        post_struct(q, arena.data(q.slice), staging);
                        bytes_ += q.sel->elements() * plan_.struct_size();
                        continue;
                    }
                    if (writing_)
                        file_->put(q.var, *q.sel, q.record, arena.data(q.slice));
                    else
                        file_->get(q.var, *q.sel, q.record, arena.data(q.slice));
                    bytes_ += q.sel->elements() * dtype_size(var.type);
                    ++calls_;
                }
                timer_.start("flush");
                file_->flush();
                if (!writing_) unpack_staged(staging);  // the application's own copy: I/O time
                timer_.stop();
                ++flushes_;
            });
        });
        step_seconds_.push_back(timer_.seconds(post) + timer_.seconds("flush") - io_before);
        if (!writing_ && opt_.check_reads) {
            timer_.start_local("verify");
            verify(reqs, arena);
            timer_.stop();
        }
    }
}

FileOutcome FileRun::finish(const std::string& path) {
    // A strategy that opens its library's file at the first flush (blob) had
    // no hints to report right after define.
    if (hints_ == MPI_INFO_NULL) hints_ = file_->info_in_effect();
    // Every flush completed its puts, so the user buffers go before close,
    // where a library may allocate most (ADIOS2 writes its buffered step
    // there): a rank's peak is then not both.
    if (writing_) arena_.release();
    collective_step(comm_, [&] {
        naming_full_disk(writing_ ? path : std::string(), [&] {
            timer_.start("close");
            file_->close();
            timer_.stop();
        });
    });
    note_files_open(-1);
    if (writing_) unwatch_output(path);
    FileOutcome out;
    report(path, out);
    out.hints = hints_;
    return out;
}

void FileRun::report(const std::string& path, FileOutcome& out) {
    const char* post = writing_ ? "post" : "post_read";
    const double io = timer_.seconds("open") + timer_.seconds("define") + timer_.seconds(post) +
                      timer_.seconds("flush") + timer_.seconds("close");
    const auto lib = file_->stats();
    std::vector<double> local = {static_cast<double>(plan_.requests),
                                 static_cast<double>(bytes_),
                                 io,
                                 timer_.seconds(post) + timer_.seconds("flush"),
                                 static_cast<double>(peak_rss_bytes()),
                                 static_cast<double>(lib.library_memory_hwm),
                                 static_cast<double>(mismatches_),
                                 static_cast<double>(calls_)};
    auto red = reduce_over_ranks(comm_, local);
    auto phases = timer_.reduce();

    // Everyone learns the first failing rank's mismatch (for the exit message).
    std::uint64_t total_bad = 0;
    MPI_Allreduce(&mismatches_, &total_bad, 1, MPI_UINT64_T, MPI_SUM, comm_);
    std::string first;
    if (total_bad) {
        int mine = mismatches_ ? rank_ : size_, first_rank = size_;
        MPI_Allreduce(&mine, &first_rank, 1, MPI_INT, MPI_MIN, comm_);
        int len = static_cast<int>(first_mismatch_.size());
        MPI_Bcast(&len, 1, MPI_INT, first_rank, comm_);
        first = first_mismatch_;
        first.resize(static_cast<std::size_t>(len));
        MPI_Bcast(first.data(), len, MPI_CHAR, first_rank, comm_);
        first += " on rank " + std::to_string(first_rank);
        double at[5] = {static_cast<double>(first_at_.var), static_cast<double>(first_at_.record),
                        static_cast<double>(first_at_.element), first_at_.expected, first_at_.actual};
        MPI_Bcast(at, 5, MPI_DOUBLE, first_rank, comm_);
        out.first_at = {static_cast<int>(at[0]),
                        static_cast<std::int64_t>(at[1]),
                        static_cast<std::uint64_t>(at[2]),
                        at[3],
                        at[4],
                        first_rank};
    }

    FileMetrics& m = out.metrics;
    if (rank_ == 0) {
        const FileSpec& spec = plan_.spec;
        m.writing = writing_;
        m.label = spec.label;
        m.path = path;
        m.backend = be_.name();
        m.library = file_->library();
        m.variables = spec.vars.size();
        m.attributes = spec.attribute_count();
        m.records = plan_.nrecords;
        m.flushes = flushes_;
        m.requests = red[0];
        m.bytes = red[1];
        m.seconds[static_cast<std::size_t>(Phase::EndToEnd)] = red[2];
        m.ran[static_cast<std::size_t>(Phase::EndToEnd)] = true;
        m.data_seconds = red[3].max;
        m.rss_peak = red[4];
        m.library_hwm = red[5];
        m.calls = red[7];
        for (const auto& ph : phases)
            for (int k = 0; k < kPhases; ++k)
                if (ph.phase == phase_name(static_cast<Phase>(k))) {
                    m.seconds[static_cast<std::size_t>(k)] = ph.seconds;
                    m.ran[static_cast<std::size_t>(k)] = true;
                }
        m.bytes_on_disk = on_disk_bytes(path);
        if (!plan_.memory_struct.empty()) {
            m.struct_fields = plan_.memory_struct.size();
            m.struct_bytes = plan_.struct_size();
            m.struct_native = struct_native_;
            m.struct_packed = struct_packed_;
        }
    }
    m.mismatches = total_bad;
    m.first_mismatch = first;
    m.broadcast(comm_);
    m.checked = writing_ || opt_.check_reads;  // every rank knows it: not broadcast
    out.mismatches = total_bad;
    out.first_mismatch = first;
    out.step_seconds = step_seconds_;
    if (rank_ != 0) return;
    out.json = to_json(m);
    out.text = to_text(m);
}

}  // namespace

FileOutcome Runner::write(const FilePlan& plan, const std::string& path) {
    FileRun run(comm_, be_, opt_, plan, true);
    return run.run(path);
}

FileOutcome Runner::read(const FilePlan& plan, const std::string& path) {
    FileRun run(comm_, be_, opt_, plan, false);
    return run.run(path);
}

// One file kept open over several calls, records written or read in steps;
// RecordWriter and RecordReader are the two directions of it.
struct RecordStream {
    RunOptions opt;
    FileRun run;
    std::string path;
    int done = 0;  // records handled so far
    RecordStream(MPI_Comm comm, Backend& be, const RunOptions& o, const FilePlan& plan, std::string p, bool writing,
                 bool update = false)
        : opt(o),
          run(comm, be, opt, plan, writing, update),
          path(std::move(p)) {
        run.begin(path);
    }
    void set_noncontig_buffer(bool on) { opt.noncontig_buffer = on; }  // FileRun reads opt by reference
    void step(int first, int last) {
        run.step(first, last, done == 0);
        done += last - first;
    }
    FileOutcome close() {
        if (done == 0) run.step(0, 0, true);  // fixed-size variables are still handled
        return run.finish(path);
    }
};

struct RecordWriter::Impl : RecordStream {
    using RecordStream::RecordStream;
};
struct RecordReader::Impl : RecordStream {
    using RecordStream::RecordStream;
};

RecordWriter::RecordWriter(MPI_Comm comm, Backend& backend, RunOptions opts, const FilePlan& plan,
                           const std::string& path, Access access)
    : impl_(std::make_unique<Impl>(comm, backend, opts, plan, path, true, access == Access::Update)) {}
std::int64_t RecordWriter::records_in_file() const { return impl_->run.records_at_open(); }
RecordWriter::~RecordWriter() = default;
void RecordWriter::write(int first_record, int last_record) { impl_->step(first_record, last_record); }
void RecordWriter::set_noncontig_buffer(bool on) { impl_->set_noncontig_buffer(on); }
FileOutcome RecordWriter::close() { return impl_->close(); }

RecordReader::RecordReader(MPI_Comm comm, Backend& backend, RunOptions opts, const FilePlan& plan,
                           const std::string& path)
    : impl_(std::make_unique<Impl>(comm, backend, opts, plan, path, false)) {}
RecordReader::~RecordReader() = default;
void RecordReader::read(int first_record, int last_record) { impl_->step(first_record, last_record); }
FileOutcome RecordReader::close() { return impl_->close(); }

}  // namespace iok
