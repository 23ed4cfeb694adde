#include "kernels/vpic/vpic_report.hpp"

#include <string>

#include "core/output_files.hpp"
#include "core/report.hpp"
#include "kernels/vpic/vpic_plan.hpp"

namespace iok::vpic {
namespace {

std::string memory_note(const Config& c) {
    if (c.mem == MemPattern::Interleaved) return "INTERLEAVED (one array of 32-byte particle structs)";
    return "CONTIG (one array per field)";
}

std::string shape_text(const Geometry& g) {
    std::string shape;
    for (auto n : g.shape) shape += (shape.empty() ? "" : " x ") + with_commas(n);
    return shape;
}

nlohmann::json configuration(const Config& cfg) {
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [k, v] : cfg.given) params[k] = v;
    return params;
}

}  // namespace

void report_write(Driver& d, const Cli& cli, const Geometry& g, const FileOutcome& w, const Metrics& m,
                  const FileOutcome* verified) {
    const Config& cfg = cli.cfg;
    const bool fpp = cfg.file_per_proc;
    Result& result = d.result();
    result.params().update({{"configuration", configuration(cfg)},
                            {"mem_pattern", name(cfg.mem)},
                            {"file_pattern", name(cfg.file)},
                            {"num_dims", cfg.num_dims},
                            {"timesteps", cfg.timesteps},
                            {"file_per_proc", fpp},
                            {"collective_data", d.config().collective},
                            {"io_operation", name(cfg.operation)},
                            {"data_seed", cfg.data_version()},
                            {"path", cli.path}});
    nlohmann::json s = metrics_json(m);
    s["expected_bytes"] = static_cast<double>(m.particles) * kBytesPerParticle * cfg.timesteps;
    result.summary() = s;

    if (d.options().verbose) w.text.print();
    TextReport t;
    t.section(cfg.operation == IoOperation::Overwrite ? "VPIC-IO particle overwrite (h5bench_overwrite)"
              : cfg.operation == IoOperation::Append  ? "VPIC-IO particle append (h5bench_append)"
                                                      : "VPIC-IO particle write (h5bench_write)");
    t.line("I/O library", d.stack_label() + " / " + d.library_label());
    t.count("No. MPI processes", static_cast<std::uint64_t>(d.size()));
    t.line("Memory pattern", memory_note(cfg));
    if (w.metrics.struct_fields)
        t.line("Structs handed to the library",
               w.metrics.struct_packed > 0 ? "no: packed per field first (this backend takes packed buffers only)"
                                           : "as is (the library gathers the fields)");
    t.line("File pattern", std::string(name(cfg.file)) +
                               (cfg.file == FilePattern::Interleaved ? " (compound dataset 'particles')" : ""));
    t.count("Dimensions", static_cast<std::uint64_t>(cfg.num_dims));
    t.line(fpp ? "Dataset shape (rank 0's file)" : "Dataset shape", shape_text(g));
    t.count("Time steps", static_cast<std::uint64_t>(cfg.timesteps));
    t.line("Collective data / metadata",
           std::string(d.config().collective ? "YES" : "NO") + " / " + (cfg.collective_metadata ? "YES" : "NO"));
    if (cfg.compress)
        t.line("Compression", "deflate level " + std::to_string(cfg.deflate_level) + ", chunk " +
                                  std::to_string(cfg.chunk[0]) +
                                  (cfg.num_dims > 1 ? " x " + std::to_string(cfg.chunk[1]) : "") +
                                  (cfg.num_dims > 2 ? " x " + std::to_string(cfg.chunk[2]) : ""));
    if (cfg.align)
        t.line("Alignment",
               std::to_string(cfg.align_len) + " bytes for objects >= " + std::to_string(cfg.align_threshold));
    if (cfg.stdev_dim_1 > 0)
        t.line("Particle counts", "normal, mean " + std::to_string(cfg.dim[0]) + " stdev " +
                                      std::to_string(static_cast<std::uint64_t>(cfg.stdev_dim_1)) + " seed " +
                                      std::to_string(cfg.seed));
    if (cfg.delayed_close_timesteps || cfg.io_mem_limit)
        t.line("DELAYED_CLOSE_TIMESTEPS / IO_MEM_LIMIT", "no effect in SYNC mode (as in the reference)");
    if (cfg.update()) t.line("Data", "pattern of DATA_SEED " + std::to_string(cfg.data_version()));
    t.line(cfg.update() ? "File updated" : "Output",
           fpp ? insert_suffix(cli.path, "<rank>") + " (" + std::to_string(d.size()) + " files)" : cli.path);
    add_metrics(t, m);
    if (verified)
        t.line("Read back (--verify)",
               verified->mismatches == 0
                   ? "every element verified (" +
                         std::to_string(static_cast<std::uint64_t>(verified->metrics.bytes.sum)) + " bytes" +
                         (fpp ? " of rank 0's file" : "") + ")"
                   : std::to_string(verified->mismatches) + " element(s) differ; first: " + verified->first_mismatch);
    t.print();
}

void report_read(Driver& d, const Cli& cli, const Geometry& g, const FileOutcome& r, const Metrics& m, int writers,
                 std::uint64_t bad) {
    const Config& cfg = cli.cfg;
    Result& result = d.result();
    result.params().update({{"configuration", configuration(cfg)},
                            {"read_option", name(cfg.read)},
                            {"file_pattern", name(cfg.file)},
                            {"num_dims", cfg.num_dims},
                            {"timesteps", cfg.timesteps},
                            {"writers", writers},
                            {"file_per_proc", cfg.file_per_proc},
                            {"collective_data", d.config().collective},
                            {"path", cli.path}});
    nlohmann::json s = metrics_json(m);
    s["mismatches"] = bad;
    s["verified"] = r.metrics.checked;
    result.summary() = s;
    if (d.options().verbose) r.text.print();
    TextReport t;
    t.section("BDCATS-IO particle read (h5bench_read)");
    t.line("I/O library", d.stack_label() + " / " + d.library_label());
    t.count("No. MPI processes", static_cast<std::uint64_t>(d.size()));
    t.line("Read pattern", std::string(name(cfg.read)) +
                               (is_2d_pattern(cfg.read) ? " (rows of each block shared over all ranks)" : ""));
    t.line("File pattern", std::string(name(cfg.file)) +
                               (cfg.file == FilePattern::Interleaved ? " (fields of compound 'particles')" : ""));
    if (r.metrics.struct_fields)
        t.line("Memory pattern", std::string("INTERLEAVED (array of 32-byte structs), ") +
                                     (r.metrics.struct_packed > 0 ? "read packed per field, then spread"
                                                                  : "filled by the library directly"));
    t.line("Dataset shape", shape_text(g) + " (written by " + std::to_string(writers) + " ranks)");
    t.count("Time steps", static_cast<std::uint64_t>(cfg.timesteps));
    t.line("Verification", !r.metrics.checked ? std::string("not done (--no-verify: read and timed only)")
                           : bad ? "FAILED: " + std::to_string(bad) + " element(s); first: " + r.first_mismatch
                                 : std::string("passed (every particle read matches the pattern)"));
    add_metrics(t, m);
    t.print();
}

}  // namespace iok::vpic
