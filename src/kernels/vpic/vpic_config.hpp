#pragma once
// Configuration of the VPIC (write) and BDCATS (read) particle kernels, as
// h5bench_write / h5bench_read take it: KEY=VALUE lines, one setter shared by
// the configuration file and the named options (--dim-1 16M is DIM_1=16M),
// so both forms are validated alike.  Unlike the reference, unknown keys,
// malformed numbers and time values without a unit are errors.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace iok::vpic {

enum class MemPattern { Contig, Interleaved, Strided };
enum class FilePattern { Contig, Interleaved, Strided };
enum class ReadOption { Full, Partial, Strided, Ldc, Rdc, Prl, Cs };
// h5bench's IO_OPERATION (its driver writes it for the `overwrite` and
// `append` benchmarks): what the kernel does with the file.
enum class IoOperation { Write, Read, Overwrite, Append };

const char* name(MemPattern p);
const char* name(FilePattern p);
const char* name(ReadOption r);
const char* name(IoOperation o);
bool is_2d_pattern(ReadOption r);  // LDC, RDC, PRL, CS

struct Config {
    MemPattern mem = MemPattern::Contig;
    FilePattern file = FilePattern::Contig;
    int timesteps = 1;
    double compute_seconds = 0;  // EMULATED_COMPUTE_TIME_PER_TIMESTEP
    int num_dims = 1;
    std::uint64_t dim[3] = {1, 1, 1};  // particles per rank = dim[0]*dim[1]*dim[2]
    std::uint64_t block_size = 1, block_size_2 = 1, stride = 1, stride_2 = 1, block_cnt = 1;
    // Parsed by h5bench but used by none of its patterns: accepted, kept in
    // `given`, without effect (as in the reference).
    std::uint64_t block_size_3 = 1, stride_3 = 1;
    // NUM_PARTICLES: h5bench's older spelling; the reference replaces it by
    // DIM_1 x DIM_2 x DIM_3 for every write and full read, so it has no effect.
    std::uint64_t num_particles = 0;
    bool collective_data = false, collective_metadata = false;
    bool compress = false;
    std::uint64_t chunk[3] = {0, 0, 0};  // CHUNK_DIM_1..3 (0 = not given: h5bench's 1)
    int deflate_level = 9;               // COMPRESS_LEVEL (an extension; zlib 1..9; h5bench uses 9)
    bool async = false;                  // MODE=ASYNC
    std::uint64_t io_mem_limit = 0;
    int delayed_close_timesteps = 0;
    bool subfiling = false, file_per_proc = false;
    bool align = false;
    std::uint64_t align_threshold = 0, align_len = 0;
    std::string csv_file, env_metadata_file;
    double stdev_dim_1 = 0;  // > 0: per-rank counts drawn from N(DIM_1, STDEV_DIM_1)
    std::uint64_t seed = 1;  // SEED (an extension): the normal distribution's seed
    ReadOption read = ReadOption::Full;
    std::uint64_t to_read = 0;  // TO_READ_NUM_PARTICLES (0 = h5bench's default: all of the rank's part)
    IoOperation operation = IoOperation::Write;  // IO_OPERATION (vpic: WRITE; bdcats: READ)
    bool io_operation_given = false;
    // UNLIMITED=YES (an extension; h5bench's write-unlimited benchmark): one
    // dataset per field with an unlimited time-step dimension, extended by
    // one record per step, instead of /Timestep_<i> groups.
    bool unlimited = false;
    // DATA_SEED (an extension): which generation of values the particles
    // carry.  OVERWRITE writes new values (seed 1 unless given) so that
    // a rewrite shows; bdcats reads an overwritten file with DATA_SEED=1.
    std::uint64_t data_seed = 0;
    bool data_seed_given = false;
    std::uint64_t data_version() const {
        return data_seed_given ? data_seed : operation == IoOperation::Overwrite ? 1 : 0;
    }
    bool update() const { return operation == IoOperation::Overwrite || operation == IoOperation::Append; }

    // The chunk length along dimension d (CHUNK_DIM_<d+1>, h5bench's default 1).
    std::uint64_t chunk_length(int d) const { return chunk[d] ? chunk[d] : 1; }

    std::map<std::string, std::string> given;  // every key set, as written (for the report/JSON)

    // Sets one key; throws iok::Error naming the key for an unknown key or a
    // bad value.
    void set(const std::string& key, const std::string& value);
    // Reads a KEY=VALUE file ('#' comments, blank lines allowed).
    void load_file(const std::string& path);
    void load_text(const std::string& text, const std::string& origin);

    std::uint64_t particles_per_rank() const { return dim[0] * dim[1] * dim[2]; }
    // Checks the combination for writing / reading (throws iok::Error).
    void validate_write() const;
    void validate_read() const;
};

// Every key the configuration accepts, in the order --help lists them.
const std::vector<std::string>& config_keys();

// "16M", "16 M", "4Ki", "1G" -> count (K/M/G/T are powers of 1024, as in
// h5bench).  Throws iok::Error naming `what`.
std::uint64_t parse_count(const std::string& text, const std::string& what);
// "10 s", "100ms", "5000us", "1 min" -> seconds.  A unit is required (the
// reference silently read "5000us" as seconds); "0" alone is accepted.
double parse_duration(const std::string& text, const std::string& what);
// YES/NO (also TRUE/FALSE, 1/0, ON/OFF), case-insensitive.
bool parse_yes_no(const std::string& text, const std::string& what);

}  // namespace iok::vpic
