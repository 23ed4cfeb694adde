#include "kernels/vpic/vpic_config.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/command_line.hpp"
#include "core/error.hpp"

namespace iok::vpic {

namespace {

std::string trim(const std::string& s) {
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

std::string upper(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// Splits "16 M" / "16M" / "5000us" into number and unit text.
void split_number(const std::string& text, const std::string& what, double& number, std::string& unit, bool integer) {
    const std::string t = trim(text);
    std::size_t i = 0;
    while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) ||
                            (!integer && (t[i] == '.' || t[i] == 'e' || t[i] == 'E'))))
        ++i;
    // "1e" followed by a unit letter: do not swallow the e of a unit such as "e".
    if (i == 0)
        throw Error(what + ": '" + text + "' is not a " + (integer ? "non-negative integer" : "number"),
                    "write a number, e.g. " + what + "=16M");
    try {
        std::size_t used = 0;
        number = std::stod(t.substr(0, i), &used);
        if (used != i) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
        throw Error(what + ": '" + text + "' is not a number", "write a number, e.g. " + what + "=16M");
    }
    unit = trim(t.substr(i));
}

const std::vector<std::string> kKeys = {"MEM_PATTERN",
                                        "FILE_PATTERN",
                                        "TIMESTEPS",
                                        "EMULATED_COMPUTE_TIME_PER_TIMESTEP",
                                        "NUM_DIMS",
                                        "DIM_1",
                                        "DIM_2",
                                        "DIM_3",
                                        "BLOCK_SIZE",
                                        "BLOCK_SIZE_2",
                                        "STRIDE_SIZE",
                                        "STRIDE_SIZE_2",
                                        "BLOCK_CNT",
                                        "COLLECTIVE_DATA",
                                        "COLLECTIVE_METADATA",
                                        "COMPRESS",
                                        "CHUNK_DIM_1",
                                        "CHUNK_DIM_2",
                                        "CHUNK_DIM_3",
                                        "COMPRESS_LEVEL",
                                        "MODE",
                                        "IO_MEM_LIMIT",
                                        "DELAYED_CLOSE_TIMESTEPS",
                                        "SUBFILING",
                                        "FILE_PER_PROC",
                                        "ALIGN",
                                        "ALIGN_THRESHOLD",
                                        "ALIGN_LEN",
                                        "CSV_FILE",
                                        "ENV_METADATA_FILE",
                                        "STDEV_DIM_1",
                                        "SEED",
                                        "READ_OPTION",
                                        "TO_READ_NUM_PARTICLES",
                                        "IO_OPERATION",
                                        "UNLIMITED",
                                        "NUM_PARTICLES",
                                        "BLOCK_SIZE_3",
                                        "STRIDE_SIZE_3",
                                        "DATA_SEED"};

}  // namespace

const char* name(MemPattern p) {
    switch (p) {
        case MemPattern::Contig: return "CONTIG";
        case MemPattern::Interleaved: return "INTERLEAVED";
        case MemPattern::Strided: return "STRIDED";
    }
    return "?";
}
const char* name(FilePattern p) {
    switch (p) {
        case FilePattern::Contig: return "CONTIG";
        case FilePattern::Interleaved: return "INTERLEAVED";
        case FilePattern::Strided: return "STRIDED";
    }
    return "?";
}
const char* name(ReadOption r) {
    switch (r) {
        case ReadOption::Full: return "FULL";
        case ReadOption::Partial: return "PARTIAL";
        case ReadOption::Strided: return "STRIDED";
        case ReadOption::Ldc: return "LDC";
        case ReadOption::Rdc: return "RDC";
        case ReadOption::Prl: return "PRL";
        case ReadOption::Cs: return "CS";
    }
    return "?";
}
const char* name(IoOperation o) {
    switch (o) {
        case IoOperation::Write: return "WRITE";
        case IoOperation::Read: return "READ";
        case IoOperation::Overwrite: return "OVERWRITE";
        case IoOperation::Append: return "APPEND";
    }
    return "?";
}
bool is_2d_pattern(ReadOption r) {
    return r == ReadOption::Ldc || r == ReadOption::Rdc || r == ReadOption::Prl || r == ReadOption::Cs;
}

const std::vector<std::string>& config_keys() { return kKeys; }

std::uint64_t parse_count(const std::string& text, const std::string& what) {
    double n = 0;
    std::string unit;
    split_number(text, what, n, unit, true);
    const std::string u = upper(unit);
    double mult = 1;
    if (u.empty())
        mult = 1;
    else if (u == "K" || u == "KI" || u == "KB" || u == "KIB")
        mult = 1024.0;
    else if (u == "M" || u == "MI" || u == "MB" || u == "MIB")
        mult = 1024.0 * 1024;
    else if (u == "G" || u == "GI" || u == "GB" || u == "GIB")
        mult = 1024.0 * 1024 * 1024;
    else if (u == "T" || u == "TI" || u == "TB" || u == "TIB")
        mult = 1024.0 * 1024 * 1024 * 1024;
    else
        throw Error(what + ": unknown unit '" + unit + "' in '" + text + "'",
                    "use a plain integer or one of the suffixes K, M, G, T (powers of 1024), e.g. 16M or 16 M");
    // A count beyond 2^63 cannot be converted (undefined behaviour, found by
    // fuzzing: DIM_2=3255...5 with 48 digits); nothing that large can run.
    if (!(n * mult < 9.2233720368547758e18))
        throw Error(what + ": '" + text + "' is too large", "give a count below 2^63 (9.2E18)");
    return static_cast<std::uint64_t>(n * mult);
}

double parse_duration(const std::string& text, const std::string& what) {
    double n = 0;
    std::string unit;
    split_number(text, what, n, unit, false);
    const std::string u = lowercase(unit);
    if (u.empty()) {
        if (n == 0) return 0;
        throw Error(what + ": '" + text + "' has no time unit",
                    "give a unit: s, ms, us or min, e.g. \"10 s\", \"100 ms\" or \"5000us\"");
    }
    if (u == "s" || u == "sec" || u == "second" || u == "seconds") return n;
    if (u == "ms" || u == "msec") return n / 1e3;
    if (u == "us" || u == "usec") return n / 1e6;
    if (u == "min" || u == "m" || u == "minute" || u == "minutes") return n * 60;
    throw Error(what + ": unknown time unit '" + unit + "' in '" + text + "'",
                "use s, ms, us or min, e.g. \"10 s\", \"100 ms\" or \"5000us\"");
}

bool parse_yes_no(const std::string& text, const std::string& what) {
    const std::string u = upper(trim(text));
    if (u == "YES" || u == "Y" || u == "TRUE" || u == "1" || u == "ON") return true;
    if (u == "NO" || u == "N" || u == "FALSE" || u == "0" || u == "OFF") return false;
    throw Error(what + ": '" + text + "' is not YES or NO", "write " + what + "=YES or " + what + "=NO");
}

void Config::set(const std::string& key_in, const std::string& value_in) {
    const std::string key = upper(trim(key_in));
    std::string value = trim(value_in);
    // The h5bench driver writes values in quotes sometimes.
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
        value = trim(value.substr(1, value.size() - 2));
    auto count = [&] { return parse_count(value, key); };
    auto positive = [&] {
        auto n = count();
        if (n == 0) throw Error(key + " must be at least 1, not '" + value + "'");
        return n;
    };
    auto choice = [&](std::initializer_list<const char*> options) {
        const std::string u = upper(value);
        for (const char* o : options)
            if (u == o) return u;
        std::string list;
        for (const char* o : options) list += (list.empty() ? "" : ", ") + std::string(o);
        throw Error(key + ": '" + value + "' is not one of " + list, "write " + key + "=<one of: " + list + ">");
    };
    if (key == "MEM_PATTERN") {
        const auto c = choice({"CONTIG", "INTERLEAVED", "STRIDED"});
        mem = c == "CONTIG" ? MemPattern::Contig : c == "INTERLEAVED" ? MemPattern::Interleaved : MemPattern::Strided;
    } else if (key == "FILE_PATTERN") {
        const auto c = choice({"CONTIG", "INTERLEAVED", "STRIDED"});
        file = c == "CONTIG"        ? FilePattern::Contig
               : c == "INTERLEAVED" ? FilePattern::Interleaved
                                    : FilePattern::Strided;
    } else if (key == "TIMESTEPS") {
        const auto n = positive();
        if (n > 1000000) throw Error("TIMESTEPS=" + value + " is too large (at most 1000000)");
        timesteps = static_cast<int>(n);
    } else if (key == "EMULATED_COMPUTE_TIME_PER_TIMESTEP") {
        compute_seconds = parse_duration(value, key);
        if (compute_seconds < 0) throw Error(key + " must not be negative");
    } else if (key == "NUM_DIMS") {
        const auto n = count();
        if (n < 1 || n > 3)
            throw Error("NUM_DIMS must be 1, 2 or 3, not '" + value + "'",
                        "set NUM_DIMS=1, 2 or 3 (h5bench's 1-D, 2-D or 3-D layout)");
        num_dims = static_cast<int>(n);
    } else if (key == "DIM_1" || key == "DIM_2" || key == "DIM_3") {
        dim[key[4] - '1'] = positive();
    } else if (key == "BLOCK_SIZE") {
        block_size = positive();
    } else if (key == "BLOCK_SIZE_2") {
        block_size_2 = positive();
    } else if (key == "STRIDE_SIZE") {
        stride = positive();
    } else if (key == "STRIDE_SIZE_2") {
        stride_2 = positive();
    } else if (key == "BLOCK_CNT") {
        block_cnt = positive();
    } else if (key == "COLLECTIVE_DATA") {
        collective_data = parse_yes_no(value, key);
    } else if (key == "COLLECTIVE_METADATA") {
        collective_metadata = parse_yes_no(value, key);
    } else if (key == "COMPRESS") {
        compress = parse_yes_no(value, key);
    } else if (key == "CHUNK_DIM_1" || key == "CHUNK_DIM_2" || key == "CHUNK_DIM_3") {
        chunk[key[10] - '1'] = positive();
    } else if (key == "COMPRESS_LEVEL") {
        const auto n = count();
        if (n < 1 || n > 9) throw Error("COMPRESS_LEVEL must be in 1..9 (zlib), not '" + value + "'");
        deflate_level = static_cast<int>(n);
    } else if (key == "MODE") {
        async = choice({"SYNC", "ASYNC"}) == "ASYNC";
    } else if (key == "IO_MEM_LIMIT") {
        io_mem_limit = count();
    } else if (key == "DELAYED_CLOSE_TIMESTEPS") {
        delayed_close_timesteps = static_cast<int>(count());
    } else if (key == "SUBFILING") {
        subfiling = parse_yes_no(value, key);
    } else if (key == "FILE_PER_PROC") {
        file_per_proc = parse_yes_no(value, key);
    } else if (key == "ALIGN") {
        align = parse_yes_no(value, key);
    } else if (key == "ALIGN_THRESHOLD") {
        align_threshold = count();
    } else if (key == "ALIGN_LEN") {
        align_len = count();
    } else if (key == "CSV_FILE") {
        csv_file = value;
    } else if (key == "ENV_METADATA_FILE") {
        env_metadata_file = value;
    } else if (key == "STDEV_DIM_1") {
        stdev_dim_1 = static_cast<double>(count());
    } else if (key == "SEED") {
        seed = count();
    } else if (key == "READ_OPTION") {
        const auto c = choice({"FULL", "PARTIAL", "STRIDED", "LDC", "RDC", "PRL", "CS"});
        read = c == "FULL"      ? ReadOption::Full
               : c == "PARTIAL" ? ReadOption::Partial
               : c == "STRIDED" ? ReadOption::Strided
               : c == "LDC"     ? ReadOption::Ldc
               : c == "RDC"     ? ReadOption::Rdc
               : c == "PRL"     ? ReadOption::Prl
                                : ReadOption::Cs;
    } else if (key == "TO_READ_NUM_PARTICLES") {
        to_read = positive();
    } else if (key == "IO_OPERATION") {
        const auto c = choice({"WRITE", "READ", "OVERWRITE", "APPEND"});
        operation = c == "WRITE"       ? IoOperation::Write
                    : c == "READ"      ? IoOperation::Read
                    : c == "OVERWRITE" ? IoOperation::Overwrite
                                       : IoOperation::Append;
        io_operation_given = true;
    } else if (key == "UNLIMITED") {
        unlimited = parse_yes_no(value, key);
    } else if (key == "NUM_PARTICLES") {
        num_particles = positive();
    } else if (key == "BLOCK_SIZE_3") {
        block_size_3 = positive();
    } else if (key == "STRIDE_SIZE_3") {
        stride_3 = positive();
    } else if (key == "DATA_SEED") {
        data_seed = count();
        data_seed_given = true;
    } else {
        std::string list;
        for (const auto& k : kKeys) list += (list.empty() ? "" : " ") + k;
        throw Error("unknown configuration key '" + key_in + "'", "known keys: " + list);
    }
    given[key] = value;
}

void Config::load_text(const std::string& text, const std::string& origin) {
    std::istringstream in(text);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        const auto hash = line.find('#');
        if (hash != std::string::npos) line.erase(hash);
        if (trim(line).empty()) continue;
        const auto eq = line.find('=');
        if (eq == std::string::npos)
            throw Error(origin + " line " + std::to_string(n) + ": '" + trim(line) + "' is not KEY=VALUE",
                        "each line of an h5bench configuration is KEY=VALUE, e.g. DIM_1=16M");
        try {
            set(line.substr(0, eq), line.substr(eq + 1));
        } catch (const Error& e) {
            throw Error(origin + " line " + std::to_string(n) + ": " + e.what(), e.hint());
        }
    }
}

void Config::load_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error("cannot read configuration file '" + path + "'", "check the path and its permissions");
    std::stringstream ss;
    ss << in.rdbuf();
    load_text(ss.str(), path);
}

void Config::validate_write() const {
    if (operation == IoOperation::Read)
        throw Error("IO_OPERATION=READ in a write configuration",
                    "reading is `iokernels bdcats` (h5bench_read); vpic writes (IO_OPERATION=WRITE)");
    // h5bench_append extends datasets made extendable by h5bench_write_unlimited;
    // here the file's unlimited dimension is the time step (UNLIMITED=YES).
    if (operation == IoOperation::Append && !unlimited)
        throw Error(
            "IO_OPERATION=APPEND (h5bench's append) adds time steps along the file's unlimited dimension, "
            "which only UNLIMITED=YES files have",
            "add UNLIMITED=YES and append to a file written with UNLIMITED=YES (h5bench's write-unlimited)");
    const std::string combo = std::string("MEM_PATTERN=") + name(mem) + " FILE_PATTERN=" + name(file) +
                              " NUM_DIMS=" + std::to_string(num_dims);
    const char* supported =
        "h5bench_write's patterns: CONTIG/CONTIG (1-3 D); CONTIG/INTERLEAVED, INTERLEAVED/CONTIG, "
        "INTERLEAVED/INTERLEAVED (1-2 D); CONTIG/STRIDED (1 D)";
    bool ok = false;
    if (mem == MemPattern::Contig && file == FilePattern::Contig)
        ok = true;
    else if (mem != MemPattern::Strided && file != FilePattern::Strided)
        ok = num_dims <= 2;
    else if (mem == MemPattern::Contig && file == FilePattern::Strided)
        ok = num_dims == 1;
    if (!ok) throw Error(combo + " is not a supported write pattern", supported);
    for (int d = num_dims; d < 3; ++d)
        if (dim[d] != 1)
            throw Error("DIM_" + std::to_string(d + 1) + "=" + std::to_string(dim[d]) +
                            " with NUM_DIMS=" + std::to_string(num_dims),
                        "unused dimensions must be 1 (particles per rank = DIM_1 x DIM_2 x DIM_3)");
    if (file == FilePattern::Strided) {
        if (stride < block_size)
            throw Error("FILE_PATTERN=STRIDED: STRIDE_SIZE " + std::to_string(stride) + " < BLOCK_SIZE " +
                            std::to_string(block_size),
                        "blocks would overlap; the stride is the distance between block starts");
        // h5bench demands (STRIDE_SIZE + BLOCK_SIZE) x BLOCK_CNT <= DIM_1; the
        // blocks need only fit: the last one ends at (BLOCK_CNT-1) STRIDE + BLOCK.
        const std::uint64_t span = block_cnt == 0 ? 0 : (block_cnt - 1) * stride + block_size;
        if (block_cnt == 0 || span > particles_per_rank())
            throw Error("FILE_PATTERN=STRIDED: BLOCK_CNT=" + std::to_string(block_cnt) +
                            " blocks of BLOCK_SIZE=" + std::to_string(block_size) +
                            " every STRIDE_SIZE=" + std::to_string(stride) + " span " + std::to_string(span) +
                            " particles, more than each rank's DIM_1=" + std::to_string(particles_per_rank()),
                        "each rank writes its blocks inside its DIM_1 particles: lower BLOCK_CNT or STRIDE_SIZE, "
                        "or raise DIM_1");
    }
    if (stdev_dim_1 > 0) {
        if (num_dims != 1 || file == FilePattern::Strided)
            throw Error(
                "STDEV_DIM_1 (normal distribution of particle counts) works with NUM_DIMS=1 and a "
                "CONTIG or INTERLEAVED file only",
                "drop STDEV_DIM_1 or use NUM_DIMS=1 with FILE_PATTERN=CONTIG");
    }
    if (compress) {
        // A CHUNK_DIM_<d> not given is h5bench's default, 1 (see chunk_length).
        if (file == FilePattern::Strided)
            throw Error("COMPRESS=YES with FILE_PATTERN=STRIDED",
                        "compressed chunks must be written whole; use FILE_PATTERN=CONTIG");
    }
    if (align && align_len == 0)
        throw Error("ALIGN=YES needs ALIGN_LEN (the alignment in bytes)", "e.g. ALIGN_LEN=1M ALIGN_THRESHOLD=16K");
}

void Config::validate_read() const {
    if (io_operation_given && operation != IoOperation::Read)
        throw Error(std::string("IO_OPERATION=") + name(operation) + " in a read configuration",
                    "writing is `iokernels vpic` (h5bench_write); bdcats reads (IO_OPERATION=READ)");
    for (int d = num_dims; d < 3; ++d)
        if (dim[d] != 1)
            throw Error("DIM_" + std::to_string(d + 1) + "=" + std::to_string(dim[d]) +
                            " with NUM_DIMS=" + std::to_string(num_dims),
                        "unused dimensions must be 1; use the configuration the file was written with");
    if (is_2d_pattern(read) && num_dims != 2)
        throw Error(std::string("READ_OPTION=") + name(read) + " is a 2-D pattern; the file is " +
                        std::to_string(num_dims) + "-D (NUM_DIMS)",
                    "use NUM_DIMS=2 (a file written with NUM_DIMS=2), or READ_OPTION=FULL");
    if ((read == ReadOption::Partial || read == ReadOption::Strided) && num_dims != 1)
        throw Error(std::string("READ_OPTION=") + name(read) + " reads 1-D files only (NUM_DIMS=1)",
                    "use FULL for 2-D/3-D files, or LDC/RDC/PRL/CS for 2-D");
    if (file == FilePattern::Strided && read != ReadOption::Strided)
        throw Error(
            std::string("FILE_PATTERN=STRIDED files have gaps; READ_OPTION=") + name(read) +
                " would read unwritten elements",
            "read them with READ_OPTION=STRIDED and the BLOCK_SIZE/STRIDE_SIZE/BLOCK_CNT they were written with");
    if (file == FilePattern::Strided && num_dims != 1)
        throw Error("FILE_PATTERN=STRIDED files are 1-D", "use NUM_DIMS=1");
}

}  // namespace iok::vpic
