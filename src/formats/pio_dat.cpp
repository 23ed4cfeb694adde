#include "formats/pio_dat.hpp"

#include <cctype>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace iok {

std::vector<std::int64_t> PioDecompDat::dims_c() const { return {dims_fortran.rbegin(), dims_fortran.rend()}; }

namespace {

// Whitespace-separated integers with line numbers, over the whole file.
class Tokens {
public:
    Tokens(std::string text, std::string path) : s_(std::move(text)), path_(std::move(path)) {}

    bool at_end() {
        skip();
        return i_ >= s_.size();
    }
    std::int64_t integer(const char* what) {
        skip();
        if (i_ >= s_.size())
            throw Error(path_ + ":" + std::to_string(line_) + ": unexpected end of file while reading " + what,
                        "the .dat file is truncated; regenerate it with PIO");
        std::size_t b = i_;
        if (s_[i_] == '-' || s_[i_] == '+') ++i_;
        while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
        if (i_ == b || (i_ == b + 1 && !std::isdigit(static_cast<unsigned char>(s_[b]))) ||
            (i_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[i_])))) {
            std::size_t e = b;
            while (e < s_.size() && !std::isspace(static_cast<unsigned char>(s_[e]))) ++e;
            throw Error(
                path_ + ":" + std::to_string(line_) + ": expected " + what + ", found '" + s_.substr(b, e - b) + "'",
                "is this a PIO decomposition (.dat) file?");
        }
        if (i_ - b > 18)
            throw Error(path_ + ":" + std::to_string(line_) + ": number too large: " + s_.substr(b, i_ - b));
        return std::stoll(s_.substr(b, i_ - b));
    }
    std::string word() {
        skip();
        std::size_t b = i_;
        while (i_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
        return s_.substr(b, i_ - b);
    }
    int line() const { return line_; }

private:
    void skip() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) {
            if (s_[i_] == '\n') ++line_;
            ++i_;
        }
    }
    std::string s_, path_;
    std::size_t i_ = 0;
    int line_ = 1;
};

}  // namespace

PioDecompDat read_pio_decomp_dat(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open the file", "check the path and that the file is readable");
    std::stringstream ss;
    ss << in.rdbuf();
    Tokens t(ss.str(), path);

    PioDecompDat d;
    d.path = path;
    std::int64_t npes = -1, ndims = -1;
    // Header: "version V npes N ndims D" (keywords in this order).
    for (const char* key : {"version", "npes", "ndims"}) {
        std::string w = t.word();
        if (w != key)
            throw Error(
                path + ":" + std::to_string(t.line()) + ": expected '" + key + "' in the header, found '" + w + "'",
                "line 1 of a PIO .dat file reads 'version V npes N ndims D'");
        std::int64_t v = t.integer(key);
        if (std::string(key) == "version")
            d.version = static_cast<int>(v);
        else if (std::string(key) == "npes")
            npes = v;
        else
            ndims = v;
    }
    if (npes < 1 || ndims < 1 || ndims > 16)
        throw Error(path + ": header says npes " + std::to_string(npes) + ", ndims " + std::to_string(ndims) +
                    "; both must be >= 1 (ndims <= 16)");
    std::int64_t elems = 1;
    for (std::int64_t k = 0; k < ndims; ++k) {
        std::int64_t len = t.integer("a dimension length");
        if (len < 1)
            throw Error(path + ":" + std::to_string(t.line()) + ": dimension length " + std::to_string(len) +
                        " must be >= 1");
        d.dims_fortran.push_back(len);
        elems *= len;
    }
    for (std::int64_t p = 0; p < npes; ++p) {
        std::int64_t rank = t.integer("a process rank");
        if (rank != p)
            throw Error(path + ":" + std::to_string(t.line()) + ": expected the entry of process " + std::to_string(p) +
                            ", found rank " + std::to_string(rank),
                        "the .dat file lists processes 0..npes-1 in order");
        std::int64_t count = t.integer("an offset count");
        if (count < 0 || count > elems * 4 + 1024)
            throw Error(path + ":" + std::to_string(t.line()) + ": process " + std::to_string(p) +
                        " has an implausible count " + std::to_string(count));
        std::vector<std::int64_t> offs(static_cast<std::size_t>(count));
        for (auto& o : offs) {
            o = t.integer("an offset");
            if (o < 0 || o > elems)
                throw Error(path + ":" + std::to_string(t.line()) + ": process " + std::to_string(p) + " offset " +
                                std::to_string(o) + " is outside 1.." + std::to_string(elems) + " (0 = skip)",
                            "the dims on line 2 do not match the offsets");
        }
        d.offsets.push_back(std::move(offs));
    }
    return d;  // trailing lines (stack traces) are ignored
}

}  // namespace iok
