#include "kernels/vpic/vpic_run.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <thread>

#include "core/collective.hpp"
#include "core/error.hpp"

extern char** environ;

namespace iok::vpic {

namespace {

std::string option_name(const std::string& key) {
    std::string n = "--";
    for (char c : key) n += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return n;
}

// Defaults as the reference's (shown in --help; the Config holds the same).
std::string key_default(const std::string& k) {
    static const std::map<std::string, std::string> d = {{"MEM_PATTERN", "CONTIG"},
                                                         {"FILE_PATTERN", "CONTIG"},
                                                         {"TIMESTEPS", "1"},
                                                         {"EMULATED_COMPUTE_TIME_PER_TIMESTEP", "0 s"},
                                                         {"NUM_DIMS", "1"},
                                                         {"DIM_1", "1"},
                                                         {"DIM_2", "1"},
                                                         {"DIM_3", "1"},
                                                         {"BLOCK_SIZE", "1"},
                                                         {"BLOCK_SIZE_2", "1"},
                                                         {"STRIDE_SIZE", "1"},
                                                         {"STRIDE_SIZE_2", "1"},
                                                         {"BLOCK_CNT", "1"},
                                                         {"COLLECTIVE_DATA", "NO"},
                                                         {"COLLECTIVE_METADATA", "NO"},
                                                         {"COMPRESS", "NO"},
                                                         {"COMPRESS_LEVEL", "9"},
                                                         {"MODE", "SYNC"},
                                                         {"IO_MEM_LIMIT", "0"},
                                                         {"DELAYED_CLOSE_TIMESTEPS", "0"},
                                                         {"SUBFILING", "NO"},
                                                         {"FILE_PER_PROC", "NO"},
                                                         {"ALIGN", "NO"},
                                                         {"ALIGN_THRESHOLD", "0"},
                                                         {"ALIGN_LEN", "0"},
                                                         {"STDEV_DIM_1", "0"},
                                                         {"SEED", "1"},
                                                         {"READ_OPTION", "FULL"},
                                                         {"TO_READ_NUM_PARTICLES", "0"},
                                                         {"IO_OPERATION", "WRITE (vpic), READ (bdcats)"},
                                                         {"UNLIMITED", "NO"},
                                                         {"NUM_PARTICLES", "DIM_1 x DIM_2 x DIM_3"},
                                                         {"BLOCK_SIZE_3", "1"},
                                                         {"STRIDE_SIZE_3", "1"},
                                                         {"DATA_SEED", "0 (OVERWRITE: 1)"},
                                                         {"CHUNK_DIM_1", "1"},
                                                         {"CHUNK_DIM_2", "1"},
                                                         {"CHUNK_DIM_3", "1"}};
    auto it = d.find(k);
    return it == d.end() ? "" : it->second;
}

std::string key_help(const std::string& k) {
    static const std::map<std::string, std::string> h = {
        {"MEM_PATTERN", ": CONTIG|INTERLEAVED (STRIDED is refused)"},
        {"FILE_PATTERN", ": CONTIG|INTERLEAVED (compound, HDF5)|STRIDED (1-D)"},
        {"EMULATED_COMPUTE_TIME_PER_TIMESTEP", ": sleep between steps, with a unit (s, ms, us, min)"},
        {"DIM_1", ": particles per rank along dim 1 (units K, M, G, T = powers of 1024)"},
        {"CHUNK_DIM_1", ": chunk length (with COMPRESS=YES; h5bench's default 1 makes one-element chunks)"},
        {"COMPRESS_LEVEL", ": deflate level 1..9 (extension; h5bench always uses 9)"},
        {"MODE", ": SYNC|ASYNC (ASYNC needs HDF5's async VOL connector)"},
        {"TO_READ_NUM_PARTICLES", ": particles each rank reads with PARTIAL (0: all of its part, as h5bench)"},
        {"IO_OPERATION",
         ": WRITE|READ|OVERWRITE|APPEND (h5bench's driver key; vpic OVERWRITE rewrites the "
         "first TIMESTEPS steps of an existing file, APPEND adds TIMESTEPS steps to an UNLIMITED=YES file)"},
        {"DATA_SEED",
         ": which values the particles carry (extension; OVERWRITE writes seed 1, read an overwritten "
         "file with DATA_SEED=1)"},
        {"UNLIMITED",
         ": YES: h5bench's write-unlimited layout, one dataset per field with an unlimited "
         "time-step dimension extended per step (extension; give it to bdcats too)"},
        {"NUM_PARTICLES", ": older spelling, no effect: h5bench replaces it by DIM_1 x DIM_2 x DIM_3"},
        {"BLOCK_SIZE_3", ": accepted, no effect (no h5bench pattern uses it)"},
        {"STRIDE_SIZE_3", ": accepted, no effect (no h5bench pattern uses it)"},
        {"STDEV_DIM_1", ": > 0 draws each rank's count from N(DIM_1, STDEV_DIM_1)"},
        {"SEED", ": seed of the normal distribution (extension)"},
        {"READ_OPTION", ": FULL|PARTIAL|STRIDED (1-D), LDC|RDC|PRL|CS (2-D)"}};
    auto it = h.find(k);
    return it == h.end() ? "" : it->second;
}

}  // namespace

void Cli::add_to(CLI::App& app, bool reading) {
    app.add_option("files", positional,
                   reading ? "h5bench_read form: CONFIG_FILE FILE (KEY=VALUE configuration, file to read)"
                           : "h5bench_write form: CONFIG_FILE FILE (KEY=VALUE configuration, file to write); "
                             "implies --keep --overwrite like the reference")
        ->expected(0, 2);
    if (reading)
        app.add_option("-i,--input", path, "particle file to read (default: vpic_particles<ext>)");
    else
        app.add_option("-o,--output", path,
                       "particle file to write (default: vpic_particles<ext>; FILE_PER_PROC adds _<rank>)");
    app.add_option("--csv", csv, "write the metrics as 'metric, value, unit' rows (same as CSV_FILE)");
    if (reading)
        app.add_option("--writers", writers,
                       "ranks that wrote the file (default: as many as read it); fixes the file's geometry")
            ->capture_default_str()
            ->check(CLI::NonNegativeNumber);
    named_values.resize(config_keys().size());
    for (std::size_t i = 0; i < config_keys().size(); ++i) {
        const std::string& k = config_keys()[i];
        CLI::Option* o = app.add_option(option_name(k), named_values[i], "configuration key " + k + key_help(k));
        o->default_str(key_default(k));
        named.push_back({k, o});
    }
}

void Cli::resolve(bool reading, const std::string& default_path) {
    if (positional.size() == 1)
        throw Error("the h5bench form takes CONFIG_FILE and FILE; only '" + positional[0] + "' was given",
                    "add the particle file path, or use named options (--dim-1 ..., -o FILE)");
    if (positional.size() == 2) {
        cfg.load_file(positional[0]);
        if (!path.empty() && path != positional[1])
            throw Error("two particle files given ('" + positional[1] + "' and '" + path + "')", "give one");
        path = positional[1];
    }
    for (std::size_t i = 0; i < named.size(); ++i)
        if (named[i].second->count() > 0) cfg.set(named[i].first, named_values[i]);
    if (!csv.empty()) cfg.csv_file = csv;
    if (path.empty()) path = default_path;
    if (reading)
        cfg.validate_read();
    else
        cfg.validate_write();
}

void configure_stack(Driver& d, const Config& c) {
    const Capabilities& caps = d.library().caps;
    if (c.file == FilePattern::Interleaved)
        d.require(caps.compound_files, "FILE_PATTERN=INTERLEAVED (a compound dataset of particles)", "compound files");
    if (c.compress) d.require(caps.chunking, "COMPRESS=YES", "chunking");
    if (c.align) d.require(caps.aligns_objects, "ALIGN=YES (H5Pset_alignment)", "object alignment");
    if (c.async) d.require(d.has_param("hdf5.async"), "MODE=ASYNC (HDF5's asynchronous VOL connector)", "hdf5.async");
    if (c.subfiling) d.require(d.has_param("hdf5.subfiling"), "SUBFILING=YES (HDF5's subfiling VFD)", "hdf5.subfiling");
    const bool collective = c.collective_data && !d.options().independent;
    collective_step(d.comm(), [&] {
        if (c.compress && !collective && d.size() > 1 && !c.file_per_proc)
            throw Error("COMPRESS=YES with independent data access on " + std::to_string(d.size()) + " ranks",
                        "parallel HDF5 writes compressed datasets collectively only: set COLLECTIVE_DATA=YES");
    });
    d.set_collective(c.collective_data);
    d.default_param("hdf5.collective_metadata", c.collective_metadata ? "1" : "0");
    if (c.subfiling) d.default_param("hdf5.subfiling", "1");
    if (c.async) d.default_param("hdf5.async", "1");
}

double Metrics::raw_rate() const { return raw > 0 ? bytes / MiB / raw : 0.0; }
double Metrics::observed_rate() const {
    // h5bench prepares its particles once before the clock starts and never
    // checks them; we generate (write) or verify (read) every step inside it.
    const double t = observed - compute - prepare - verify;
    return t > 0 ? bytes / MiB / t : 0.0;
}

Metrics reduce_metrics(MPI_Comm comm, bool writing, const FileMetrics& f, bool file_owner, double observed,
                       double compute, std::uint64_t local_particles) {
    // Every rank holds its file's figures; a shared file's bytes count once.
    const double bytes = file_owner ? f.bytes.sum : 0.0;
    const Phase post = writing ? Phase::Post : Phase::PostRead;
    const double raw = f.data_seconds > 0 ? f.data_seconds : f.max_seconds(post) + f.max_seconds(Phase::Flush);
    // Slowest rank for every time; bytes and particles summed.
    double mx[9] = {f.max_seconds(Phase::Fill),
                    raw,
                    f.max_seconds(writing ? Phase::Define : Phase::Open),
                    f.max_seconds(Phase::Open),
                    f.max_seconds(Phase::Flush),
                    f.max_seconds(Phase::Close),
                    observed,
                    compute,
                    f.max_seconds(Phase::Verify)};
    double sum[2] = {bytes, static_cast<double>(local_particles)};
    MPI_Allreduce(MPI_IN_PLACE, mx, 9, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, sum, 2, MPI_DOUBLE, MPI_SUM, comm);
    Metrics m;
    m.writing = writing;
    MPI_Comm_size(comm, &m.ranks);
    m.prepare = mx[0];
    m.raw = mx[1];
    m.metadata = mx[2];
    m.create = mx[3];
    m.flush = mx[4];
    m.close = mx[5];
    m.observed = mx[6];
    m.compute = mx[7];
    m.verify = mx[8];
    m.bytes = sum[0];
    m.particles = static_cast<std::uint64_t>(sum[1]);
    return m;
}

void add_metrics(TextReport& t, const Metrics& m) {
    const char* op = m.writing ? "write" : "read";
    t.section("Performance results (time: slowest rank; size: all ranks)");
    t.line("Total emulated compute time", m.compute, "s");
    t.line(std::string("Total ") + op + " size", format_bytes(m.bytes));
    t.count(std::string("Particles ") + (m.writing ? "written" : "read") + " per time step", m.particles);
    t.line(m.writing ? "Data preparation time" : "Buffer preparation time", m.prepare, "s");
    if (!m.writing) t.line("Verification time", m.verify, "s");
    t.line(std::string("Raw ") + op + " time", m.raw, "s");
    t.line("Metadata time", m.metadata, "s");
    t.line(m.writing ? "File create time" : "File open time", m.create, "s");
    t.line("File flush time", m.flush, "s");
    t.line("File close time", m.close, "s");
    t.line("Observed completion time", m.observed, "s");
    t.line(std::string("Raw ") + op + " rate", m.raw_rate(), "MiB/s", 3);
    t.line(
        std::string("Observed ") + op + " rate (excl. compute, preparation" + (m.writing ? "" : ", verification") + ")",
        m.observed_rate(), "MiB/s", 3);
}

nlohmann::json metrics_json(const Metrics& m) {
    return {{"operation", m.writing ? "write" : "read"},
            {"ranks", m.ranks},
            {"particles", m.particles},
            {"total_size_bytes", m.bytes},
            {"compute_seconds", m.compute},
            {"data_preparation_seconds", m.prepare},
            {"verify_seconds", m.verify},
            {"raw_seconds", m.raw},
            {"metadata_seconds", m.metadata},
            {m.writing ? "create_seconds" : "open_seconds", m.create},
            {"flush_seconds", m.flush},
            {"close_seconds", m.close},
            {"observed_seconds", m.observed},
            {"raw_rate_mib_s", m.raw_rate()},
            {"observed_rate_mib_s", m.observed_rate()}};
}

void write_csv(const std::string& path, const Metrics& m, const Config& cfg,
               const std::vector<std::pair<std::string, std::string>>& extra) {
    std::ofstream out(path);
    if (!out) throw Error("cannot write CSV file '" + path + "'", "check the directory exists and is writable");
    auto row = [&](const std::string& k, const std::string& v, const std::string& unit) {
        out << k << ", " << v << ", " << unit << "\n";
    };
    auto num = [](double v) {
        char b[64];
        std::snprintf(b, sizeof b, "%.6f", v);
        return std::string(b);
    };
    row("metric", "value", "unit");
    // h5bench's operation names: one per benchmark binary.
    const char* op = !m.writing                                ? "read"
                     : cfg.operation == IoOperation::Overwrite ? "overwrite"
                     : cfg.operation == IoOperation::Append    ? "append"
                     : cfg.unlimited                           ? "write unlimited"
                     : cfg.stdev_dim_1 > 0                     ? "write_var_normal_dist"
                                                               : "write";
    row("operation", op, "");
    row("ranks", std::to_string(m.ranks), "");
    row("total number of particles", std::to_string(m.particles), "");
    row("collective data", cfg.collective_data ? "YES" : "NO", "");
    row("collective meta", cfg.collective_metadata ? "YES" : "NO", "");
    row("subfiling", cfg.subfiling ? "YES" : "NO", "");
    for (const auto& [k, v] : extra) row(k, v, "");
    row("total compute time", num(m.compute), "seconds");
    row("total size", num(m.bytes), "bytes");
    row("raw time", num(m.raw), "seconds");
    row("raw rate", num(m.raw_rate()), "MiB/s");
    row("metadata time", num(m.metadata), "seconds");
    row(m.writing ? "create time" : "open time", num(m.create), "seconds");
    row("flush time", num(m.flush), "seconds");
    row("close time", num(m.close), "seconds");
    row("observed rate", num(m.observed_rate()), "MiB/s");
    row("observed time", num(m.observed), "seconds");
    if (!out) throw Error("writing CSV file '" + path + "' failed", "the file system may be full");
}

void write_env_metadata(const std::string& path) {
    std::ofstream out(path);
    if (!out) throw Error("cannot write ENV_METADATA_FILE '" + path + "'", "check the directory is writable");
    static const char* const prefixes[] = {"HDF5_", "H5",      "OMPI_",    "MPICH_",          "ROMIO_",
                                           "PMIX_", "ADIOS2_", "PNETCDF_", "LD_LIBRARY_PATH", "ABT_"};
    for (char** e = environ; e && *e; ++e) {
        const std::string kv = *e;
        for (const char* p : prefixes)
            if (kv.rfind(p, 0) == 0) {
                out << kv << "\n";
                break;
            }
    }
}

void emulate_compute(double seconds) {
    if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

void TimeSteps::before(int t) {
    if (t == 0) t0 = MPI_Wtime();
}

StepGroup TimeSteps::group(Step file, bool file_per_proc) {
    StepGroup g;
    g.steps.push_back(std::move(file));
    g.ticks = cfg.timesteps;
    g.before_tick = [this](int t) { before(t); };
    g.after_tick = [this](int t) { after(t); };
    g.comm = file_per_proc ? MPI_COMM_SELF : MPI_COMM_NULL;
    return g;
}

void TimeSteps::after(int t) {
    // 2.5 GiB runs take a while: say where they are
    if (progress && cfg.timesteps > 1)
        std::fprintf(stderr, "  time step %d/%d %s (%.2f s)\n", t + 1, cfg.timesteps, verb, MPI_Wtime() - t0);
    if (t + 1 < cfg.timesteps && cfg.compute_seconds > 0) {
        emulate_compute(cfg.compute_seconds);
        compute += cfg.compute_seconds;
    }
}

}  // namespace iok::vpic
