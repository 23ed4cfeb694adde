#include "formats/container_probe.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace iok::formats {

namespace fs = std::filesystem;

namespace {

std::vector<unsigned char> read_at(std::ifstream& in, std::uint64_t off, std::size_t n) {
    std::vector<unsigned char> b(n);
    in.clear();
    in.seekg(static_cast<std::streamoff>(off));
    in.read(reinterpret_cast<char*>(b.data()), static_cast<std::streamsize>(n));
    b.resize(static_cast<std::size_t>(in.gcount()));
    return b;
}

std::uint64_t le64(const unsigned char* p) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

// HDF5 puts its 8-byte signature at 0 or, after a user block, at 512, 1024, 2048, ...
bool has_hdf5_signature(std::ifstream& in, std::uint64_t size) {
    static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    for (std::uint64_t off = 0; off + 8 <= size; off = off ? off * 2 : 512) {
        auto b = read_at(in, off, 8);
        if (b.size() == 8 && std::memcmp(b.data(), sig, 8) == 0) return true;
    }
    return false;
}

// A BP3 file ends with the offsets of its process-group, variable and
// attribute indexes (64-bit), then 4 bytes whose last is the BP version (3).
// The indexes come in that order inside the file (the process-group index at
// 0 when the data sit in "<name>.bp.dir/").  Either byte order is accepted.
bool is_bp3_file(std::ifstream& in, std::uint64_t size) {
    if (size < 64) return false;
    auto t = read_at(in, size - 28, 28);
    if (t.size() != 28 || t[27] != 3) return false;
    for (bool big : {false, true}) {
        auto rd = [&](int i) {
            unsigned char p[8];
            for (int k = 0; k < 8; ++k) p[k] = big ? t[i * 8 + 7 - k] : t[i * 8 + k];
            return le64(p);
        };
        const std::uint64_t pg = rd(0), var = rd(1), attr = rd(2);
        if (pg < var && var <= attr && attr < size - 28) return true;
    }
    return false;
}

std::string printable_start(const std::vector<unsigned char>& b) {
    std::string s;
    for (unsigned char c : b) {
        if (c == '\n' || c == '\r' || s.size() >= 40) break;
        s += static_cast<char>(c);
    }
    return s;
}

bool mostly_text(const std::vector<unsigned char>& b) {
    if (b.empty()) return false;
    std::size_t ok = 0;
    for (unsigned char c : b) ok += (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\r' || c == '\t';
    return ok * 100 >= b.size() * 95;
}

std::string hex_start(const std::vector<unsigned char>& b) {
    static const char* d = "0123456789abcdef";
    std::string s;
    for (std::size_t i = 0; i < b.size() && i < 8; ++i) {
        if (i) s += ' ';
        s += d[b[i] >> 4];
        s += d[b[i] & 15];
    }
    return s;
}

ProbeResult unknown(std::string looks_like, std::string hint = {}) {
    ProbeResult r;
    r.kind = Container::Unknown;
    r.looks_like = std::move(looks_like);
    r.hint = hint.empty() ? "write a map with e3sm_mapgen or convert PIO .dat files with dat2nc" : std::move(hint);
    return r;
}

ProbeResult probe_directory(const fs::path& dir) {
    const fs::path idx = dir / "md.idx";
    std::error_code ec;
    if (!fs::is_regular_file(idx, ec)) {
        bool empty = fs::is_empty(dir, ec);
        return unknown(std::string(empty ? "an empty directory" : "a directory") +
                           " without the md.idx of an ADIOS2 BP4/BP5 dataset",
                       "give the map file itself, or a BP4/BP5 directory written completely by ADIOS2");
    }
    std::ifstream in(idx, std::ios::binary);
    auto h = read_at(in, 0, 64);
    // md.idx begins with a 64-byte header: "ADIOS-BP v<version> ..." text,
    // the endianness at byte 36 and the BP version at byte 37.
    if (h.size() < 64 || std::memcmp(h.data(), "ADIOS-BP", 8) != 0)
        return unknown("a directory with an md.idx that is not an ADIOS2 index (" + std::to_string(h.size()) +
                           " bytes, starting " + hex_start(h) + ")",
                       "the BP directory is incomplete or damaged; write it again");
    ProbeResult r;
    if (h[37] == 4)
        r.kind = Container::Bp4;
    else if (h[37] == 5)
        r.kind = Container::Bp5;
    else
        return unknown("an ADIOS2 directory of BP version " + std::to_string(h[37]) + ", which is not 4 or 5");
    return r;
}

}  // namespace

const char* accepted_containers() {
    return "NetCDF classic (CDF-1, CDF-2, CDF-5), HDF5 or NetCDF-4 files, ADIOS2 BP3 files or BP4/BP5 directories";
}

ProbeResult probe_container(const std::string& path) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
        ProbeResult r;
        r.kind = Container::Missing;
        r.looks_like = std::strerror(ENOENT);
        return r;
    }
    if (fs::is_directory(st)) return probe_directory(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        ProbeResult r;
        r.kind = Container::Missing;
        r.looks_like = std::strerror(errno ? errno : EACCES);
        return r;
    }
    const std::uint64_t size = fs::file_size(path, ec);
    if (ec || size == 0) return unknown("an empty file");
    auto head = read_at(in, 0, 512);

    if (head.size() >= 4 && std::memcmp(head.data(), "CDF", 3) == 0) {
        if (head[3] == 1 || head[3] == 2 || head[3] == 5) {
            ProbeResult r;
            r.kind = Container::CdfClassic;
            r.cdf_version = head[3];
            return r;
        }
        return unknown("a NetCDF classic file of unknown version byte " + std::to_string(head[3]));
    }
    if (has_hdf5_signature(in, size)) {
        ProbeResult r;
        r.kind = Container::Hdf5;
        return r;
    }
    if (is_bp3_file(in, size)) {
        ProbeResult r;
        r.kind = Container::Bp3;
        return r;
    }
    if (head.size() >= 8 && std::memcmp(head.data(), "ADIOS-BP", 8) == 0)
        return unknown("the index (md.idx) of an ADIOS2 BP4/BP5 directory",
                       "give the directory that holds it: " + fs::path(path).parent_path().string());
    if (mostly_text(head)) {
        const std::string first = printable_start(head);
        if (first.rfind("version ", 0) == 0)
            return unknown("a PIO decomposition text file ('" + first + "...')",
                           "convert it (one .dat per decomposition) with: dat2nc -o map.nc D1.dat D2.dat ...");
        if (first.rfind("netcdf ", 0) == 0)
            return unknown("CDL text ('" + first + "...')",
                           "make a binary file of it with ncgen, e.g. ncgen -5 -o map.nc");
        return unknown("a text file starting '" + first + "'");
    }
    if (head.size() >= 2 && head[0] == 0x1f && head[1] == 0x8b)
        return unknown("a gzip-compressed file", "decompress it first (gunzip)");
    return unknown("a binary file of " + std::to_string(size) + " bytes starting " + hex_start(head));
}

}  // namespace iok::formats
