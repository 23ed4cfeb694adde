// iokernels exerciser: h5bench's HDF5 Exerciser (h5bench_exerciser).  For
// each of --nsizes buffer sizes (--minels grown by --bufmult), 10
// iterations each create the file anew (truncating it), write group /Data
// (and its 64 attributes with --addattr), the double dataset of N-D
// rank-ordered blocks (shifted by --rshift ranks), the compound dataset with
// --derivedtype, close it, open it again and read the double dataset back at
// the doubly shifted place, verifying every element.  The command line is
// the original's.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "driver/kernel.hpp"
#include "kernels/exerciser/exerciser_options.hpp"
#include "kernels/exerciser/exerciser_plan.hpp"

namespace iok::exerciser {
namespace {

const char* const kMismatchHint =
    "a rank read back other values than the shifted rank wrote: was the file modified meanwhile?";

// min, median, max, average and standard deviation of one column.
struct Moments {
    double min = 0, med = 0, max = 0, avg = 0, std = 0;
};

Moments moments(std::vector<double> a) {
    Moments m;
    if (a.empty()) return m;
    std::sort(a.begin(), a.end());
    m.min = a.front();
    m.max = a.back();
    const std::size_t n = a.size();
    m.med = n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
    for (double x : a) m.avg += x;
    m.avg /= static_cast<double>(n);
    for (double x : a) m.std += (x - m.avg) * (x - m.avg);
    m.std = std::sqrt(m.std / static_cast<double>(n));
    return m;
}

class Exerciser final : public Kernel {
public:
    const char* name() const override { return "exerciser"; }
    std::string description() const override {
        return "h5bench's HDF5 Exerciser (h5bench_exerciser): N-D rank-ordered blocks of doubles growing over "
               "--nsizes buffer sizes; per size 10 iterations of create / write / close / open / read, with the "
               "rank shift on write and the double shift on read verified; optional compound dataset and 64 "
               "attributes on /Data. Its command-line flags as they are.";
    }
    void add_options(CLI::App& app, DriverDefaults& defaults) override {
        opt_.add_to(app);
        defaults.backend = "hdf5";
        defaults.verify = true;
        defaults.verify_option = false;  // reading back is the benchmark's own iteration
    }
    void validate(Driver& d) override {
        warning_ = opt_.resolve(d.size());
        d.options().keep = opt_.keepfile || opt_.read_only;
        if (opt_.read_only && opt_.path.empty())
            throw Error("--read-only reads the file a --keepfile run left: name it", "add -o FILE");
    }
    void configure(Driver& d) override {
        d.set_collective(!opt_.indepio);
        d.default_param("hdf5.collective_metadata", opt_.metacoll ? "1" : "0");
        if (opt_.derivedtype)
            d.require(d.library().caps.compound_files, "--derivedtype (the compound dataset 'simulation parameters')",
                      "compound files");
        d.expressible(opt_.rshift == 0 || !d.strategy().read_needs_same_ranks,
                      "--rshift " + std::to_string(opt_.rshift) + " reads other ranks' blocks, and strategy " +
                          d.options().strategy + " reads back only the blocks each rank wrote",
                      "run it with --rshift 0, or with -x canonical or rearrange");
        layout_.groups = d.library().caps.slash_names;
        layout_.read_derived = d.strategy().read_needs_same_ranks;
        layout_.group_attrs = d.library().caps.group_attrs && d.strategy().keeps_canonical_layout;
        if (opt_.path.empty()) {  // the original's random name, the same on every rank
            unsigned name = 0;
            if (d.rank() == 0)
                name = std::random_device{}() ^
                       static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count());
            MPI_Bcast(&name, 1, MPI_UNSIGNED, 0, d.comm());
            opt_.path = "hdf5TestFile-" + std::to_string(name % 2147483647u);
        }
    }
    KernelPlan plan(Driver& d) override;
    void begin(Driver& d) override {
        if (d.rank() != 0 || d.options().quiet) return;
        if (!warning_.empty()) std::printf("%s\n", warning_.c_str());
        std::printf(
            "useMetaDataCollectives: %d addDerivedTypeDataset: %d addAttributes: %d useIndependentIO: %d "
            "numDims: %d useChunked: %d rankShift: %d\n",
            opt_.metacoll, opt_.derivedtype, opt_.addattr, opt_.indepio, opt_.numdims, opt_.usechunked, opt_.rshift);
        std::fflush(stdout);
    }
    void report(Driver& d, const std::vector<StepOutcome>& done, const std::vector<GroupOutcome>&) override;

private:
    Options opt_;
    std::string warning_;
    Layout layout_;
};

KernelPlan Exerciser::plan(Driver& d) {
    KernelPlan p;
    p.shrink_hint = "--minels, --bufmult or --nsizes";
    p.mismatch_hint = kMismatchHint;
    p.runner_progress = false;
    StepGroup g;
    if (opt_.read_only) {  // what the file holds at the end: the last size's last iteration
        const Geometry geo = geometry(opt_, opt_.nsizes - 1);
        g.steps.push_back({StepKind::Read,
                           share(read_plan(opt_, geo, kIterations - 1, d.rank(), d.size(), layout_)),
                           opt_.path,
                           PathUse::Input,
                           {{"role", "read"}}});
        p.groups.push_back(std::move(g));
        return p;
    }
    for (int s = 0; s < opt_.nsizes; ++s) {
        const Geometry geo = geometry(opt_, s);
        for (int it = 0; it < kIterations; ++it) {
            const bool first = s == 0 && it == 0;
            g.steps.push_back({StepKind::Write,
                               share(write_plan(opt_, geo, it, d.rank(), d.size(), layout_)),
                               opt_.path,
                               first ? PathUse::Output : PathUse::Written,
                               {{"role", "write"}, {"size", s}, {"iteration", it}}});
            g.steps.push_back({StepKind::Read,
                               share(read_plan(opt_, geo, it, d.rank(), d.size(), layout_)),
                               opt_.path,
                               PathUse::Written,
                               {{"role", "read"}, {"size", s}, {"iteration", it}}});
        }
    }
    p.groups.push_back(std::move(g));
    return p;
}

void Exerciser::report(Driver& d, const std::vector<StepOutcome>& done, const std::vector<GroupOutcome>&) {
    std::uint64_t bad = 0;
    std::string first;
    nlohmann::json sizes = nlohmann::json::array();
    const bool talk = d.rank() == 0 && !d.options().quiet && !opt_.read_only;
    if (talk)
        std::printf(
            "Metric      Bufsize   H5DWrite    RawWrBDWTH    H5Dread    RawRdBDWTH     Define    H5Fopen   "
            "H5Fclose\n");
    for (int s = 0; s < opt_.nsizes && !opt_.read_only; ++s) {
        const Geometry geo = geometry(opt_, s);
        const double mib = static_cast<double>(geo.buf_bytes) * d.size() / (1024.0 * 1024.0);
        std::vector<double> cols[7];
        for (int it = 0; it < kIterations; ++it) {
            const auto base = static_cast<std::size_t>(2 * (s * kIterations + it));
            const FileMetrics& w = done.at(base).out.metrics;
            const FileMetrics& r = done.at(base + 1).out.metrics;
            if (done.at(base + 1).out.mismatches && !bad) first = done.at(base + 1).out.first_mismatch;
            bad += done.at(base + 1).out.mismatches;
            const double wt = w.max_seconds(Phase::Post) + w.max_seconds(Phase::Flush);
            const double rt = r.max_seconds(Phase::PostRead) + r.max_seconds(Phase::Flush);
            cols[0].push_back(wt);
            cols[1].push_back(wt > 0 ? mib / wt : 0);
            cols[2].push_back(rt);
            cols[3].push_back(rt > 0 ? mib / rt : 0);
            cols[4].push_back(w.max_seconds(Phase::Define));
            cols[5].push_back(w.max_seconds(Phase::Open) + r.max_seconds(Phase::Open));
            cols[6].push_back(w.max_seconds(Phase::Close) + r.max_seconds(Phase::Close));
        }
        Moments m[7];
        for (int c = 0; c < 7; ++c) m[c] = moments(cols[c]);
        nlohmann::json row = {{"bufsize", geo.buf_bytes}, {"elements", geo.elements}};
        const char* names[] = {"write_s", "write_mib_s", "read_s", "read_mib_s", "define_s", "open_s", "close_s"};
        for (int c = 0; c < 7; ++c)
            row[names[c]] = {
                {"min", m[c].min}, {"med", m[c].med}, {"max", m[c].max}, {"avg", m[c].avg}, {"std", m[c].std}};
        sizes.push_back(row);
        if (!talk) continue;
        const auto line = [&](const char* label, double Moments::* f) {
            std::printf("%-8s %10llu %10.6f  %12.6f %10.6f  %12.6f %10.6f %10.6f %10.6f\n", label,
                        static_cast<unsigned long long>(geo.buf_bytes), m[0].*f, m[1].*f, m[2].*f, m[3].*f, m[4].*f,
                        m[5].*f, m[6].*f);
        };
        line("Min", &Moments::min);
        line("Med", &Moments::med);
        line("Max", &Moments::max);
        line("Avg", &Moments::avg);
        line("Std", &Moments::std);
    }
    if (opt_.read_only) {
        bad = done.back().out.mismatches;
        first = done.back().out.first_mismatch;
    }
    d.result().params().update(
        {{"numdims", opt_.numdims},
         {"minels", std::vector<int>(opt_.minels.begin(), opt_.minels.begin() + opt_.numdims)},
         {"bufmult", std::vector<int>(opt_.bufmult.begin(), opt_.bufmult.begin() + opt_.numdims)},
         {"dimranks", std::vector<int>(opt_.dimranks.begin(), opt_.dimranks.begin() + opt_.numdims)},
         {"nsizes", opt_.nsizes},
         {"rshift", opt_.rshift},
         {"derivedtype", opt_.derivedtype},
         {"addattr", opt_.addattr},
         {"usechunked", opt_.usechunked},
         {"indepio", opt_.indepio},
         {"path", opt_.path}});
    d.result().summary() = {{"sizes", sizes}, {"iterations", kIterations}, {"mismatches", bad}};
    if (d.rank() != 0) return;
    TextReport t;
    t.section("h5bench exerciser (h5bench_exerciser)");
    t.line("I/O library", d.stack_label() + " / " + d.library_label());
    t.line("File", opt_.path + (opt_.keepfile ? " (kept)" : " (removed at the end)"));
    t.count("Buffer sizes x iterations", static_cast<std::uint64_t>(opt_.nsizes) * kIterations);
    t.line("Verification", bad ? "FAILED: " + std::to_string(bad) + " element(s); first: " + first
                               : std::string("passed (every iteration read back the shifted rank's values)"));
    t.print();
    if (!d.options().quiet) std::printf("All done -- Finishing normally.\n");
}

}  // namespace
}  // namespace iok::exerciser

IOK_REGISTER_KERNEL(exerciser, "exerciser",
                    "h5bench HDF5 Exerciser (h5bench_exerciser): N-D blocks over growing sizes, shifted ranks",
                    iok::exerciser::Exerciser)
