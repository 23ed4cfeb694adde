#include "driver/canonical_rebuild.hpp"

#include "core/collective.hpp"
#include "core/output_files.hpp"
#include "core/report.hpp"
#include "core/stats.hpp"

namespace iok {

CanonicalRebuild::CanonicalRebuild(const std::string& kind, const std::string& input_help, MPI_Comm comm, int argc,
                                   char** argv)
    : kind_(kind),
      comm_(comm),
      app_("Rebuild the canonical file from a " + kind + " output (iokernels -x " + kind +
               "), with any number of processes, through any I/O stack (-a, -x, --param, --hint).",
           kind + "_replay") {
    app_.add_option("input", input_, input_help)->required();
    app_.add_option("-o,--output", output_,
                    "canonical file to write (default: the input path with _canonical inserted)");
    DriverDefaults d;
    d.verify_option = false;
    driver_ = std::make_unique<Driver>(app_.get_name().c_str(), comm, app_, argc, argv, d);
}

bool CanonicalRebuild::parse() {
    if (!driver_->parse()) return false;
    while (input_.size() > 1 && input_.back() == '/') input_.pop_back();
    if (output_.empty()) output_ = insert_suffix(input_, "canonical");
    MPI_Barrier(comm_);
    t0_ = MPI_Wtime();
    return true;
}

std::pair<std::size_t, std::size_t> CanonicalRebuild::share(std::size_t writers) const {
    const auto r = static_cast<std::size_t>(rank()), n = static_cast<std::size_t>(size());
    return {writers * r / n, writers * (r + 1) / n};
}

void CanonicalRebuild::write(const FileSpec& spec_in, std::int64_t nrecords, const Fill& fill,
                             const std::function<void()>& after_fill, const std::function<void()>& close_inputs) {
    OutputFiles files(comm_, true, driver_->options().overwrite);  // the product is kept
    files.claim(output_);
    FileSpec spec = spec_in;
    spec.path = output_;
    std::unique_ptr<Backend> library = driver_->make_stack();
    std::unique_ptr<File> out;
    collective_step(comm_, [&] {
        out = library->create(output_, spec, comm_);
        out->define(spec);
    });
    // One pass per flush group: the fixed-size variables, then each record.
    auto pass = [&](bool records, std::int64_t rec) {
        std::vector<std::vector<unsigned char>> bufs;
        std::vector<std::pair<int, const Selection*>> puts;
        bufs.reserve(spec.vars.size());
        for (std::size_t v = 0; v < spec.vars.size(); ++v) {
            if (spec.vars[v].is_record(spec) != records) continue;
            bufs.emplace_back();
            const Selection& sel = fill(static_cast<int>(v), rec, bufs.back());
            puts.push_back({static_cast<int>(v), &sel});
        }
        if (after_fill) after_fill();
        for (std::size_t i = 0; i < puts.size(); ++i) {
            out->put(puts[i].first, *puts[i].second, rec, bufs[i].data());
            bytes_ += puts[i].second->elements() * dtype_size(spec.vars[static_cast<std::size_t>(puts[i].first)].type);
        }
        out->flush();
    };
    collective_step(comm_, [&] { pass(false, 0); });
    for (std::int64_t r = 0; r < nrecords; ++r) collective_step(comm_, [&] { pass(true, r); });
    collective_step(comm_, [&] {
        if (close_inputs) close_inputs();
        out->close();
    });
    records_ = nrecords;
}

void CanonicalRebuild::report(const std::vector<std::pair<std::string, std::string>>& lines) {
    const double t = MPI_Wtime() - t0_;
    auto st = reduce_over_ranks(comm_, {t, static_cast<double>(bytes_)});
    if (rank() != 0 || driver_->options().quiet) return;
    TextReport rep;
    rep.section(kind_ + "_replay");
    rep.line("Input (" + kind_ + " output)", input_);
    for (const auto& [k, v] : lines) rep.line(k, v);
    rep.count("Replay processes", static_cast<std::uint64_t>(size()));
    rep.count("Records", static_cast<std::uint64_t>(records_));
    rep.line("Output (canonical)", output_);
    rep.line("Output API", driver_->stack_label() + " (" + driver_->library_label() + ")");
    rep.line("Data amount", format_bytes(st[1].sum));
    rep.line("Time (max)", st[0].max, "s");
    rep.line("Bandwidth", st[0].max > 0 ? st[1].sum / MiB / st[0].max : 0.0, "MiB/s");
    rep.print();
}

}  // namespace iok
