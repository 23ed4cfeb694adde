#include "formats/cdf_classic.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/error.hpp"

namespace iok::cdf {

namespace {

constexpr std::uint32_t kTagDimension = 0x0A;
constexpr std::uint32_t kTagVariable = 0x0B;
constexpr std::uint32_t kTagAttribute = 0x0C;

bool valid_type(std::int32_t t, int version) { return t >= 1 && t <= (version == 5 ? 11 : 6); }

std::uint64_t pad4(std::uint64_t n) { return (n + 3) & ~std::uint64_t{3}; }

// ---- big-endian encoding ----------------------------------------------------
void put_be(std::vector<unsigned char>& b, std::uint64_t v, int nbytes) {
    for (int i = nbytes - 1; i >= 0; --i) b.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

std::uint64_t get_be(const unsigned char* p, int nbytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < nbytes; ++i) v = (v << 8) | p[i];
    return v;
}

// A stored real as an integer: truncated, and clamped to the int64 range
// (NaN to the lowest value), so a corrupt float offset is refused by the map
// checks as out of range instead of converting with undefined behaviour.
std::int64_t real_to_int(double d) {
    if (!(d >= -9.2233720368547758e18)) return std::numeric_limits<std::int64_t>::min();  // NaN too
    if (d >= 9.2233720368547758e18) return std::numeric_limits<std::int64_t>::max();
    return static_cast<std::int64_t>(d);
}

// One element of `type` at p, as int64 / as double.
std::int64_t decode_int(const unsigned char* p, NcType t) {
    switch (t) {
        case NcType::Byte: return static_cast<std::int8_t>(p[0]);
        case NcType::Char:
        case NcType::UByte: return p[0];
        case NcType::Short: return static_cast<std::int16_t>(get_be(p, 2));
        case NcType::UShort: return static_cast<std::uint16_t>(get_be(p, 2));
        case NcType::Int: return static_cast<std::int32_t>(get_be(p, 4));
        case NcType::UInt: return static_cast<std::uint32_t>(get_be(p, 4));
        case NcType::Int64:
        case NcType::UInt64: return static_cast<std::int64_t>(get_be(p, 8));
        case NcType::Float: {
            std::uint32_t u = static_cast<std::uint32_t>(get_be(p, 4));
            float f;
            std::memcpy(&f, &u, 4);
            return real_to_int(f);
        }
        case NcType::Double: {
            std::uint64_t u = get_be(p, 8);
            double d;
            std::memcpy(&d, &u, 8);
            return real_to_int(d);
        }
    }
    return 0;
}

// n big-endian integers of one width, sign- or zero-extended: one loop per
// width the compiler vectorises (a byte swap and a widening per lane).
template <class Stored>
void decode_be_ints(const unsigned char* p, std::size_t n, std::int64_t* out) {
    for (std::size_t i = 0; i < n; ++i) {
        Stored x;
        std::memcpy(&x, p + i * sizeof x, sizeof x);
        if constexpr (sizeof x == 2) x = static_cast<Stored>(__builtin_bswap16(static_cast<std::uint16_t>(x)));
        if constexpr (sizeof x == 4) x = static_cast<Stored>(__builtin_bswap32(static_cast<std::uint32_t>(x)));
        if constexpr (sizeof x == 8) x = static_cast<Stored>(__builtin_bswap64(static_cast<std::uint64_t>(x)));
        out[i] = static_cast<std::int64_t>(x);
    }
}

// n elements of `type` at p, as int64: decode_int's values, with the type's
// switch outside the loop (an ne30 map's 7 million offsets and lengths took
// 19 instructions each through decode_int, 15% of a 1-rank E3SM run under
// callgrind: issue 19).
void decode_ints(const unsigned char* p, NcType t, std::size_t n, std::int64_t* out) {
    switch (t) {
        case NcType::Short: return decode_be_ints<std::int16_t>(p, n, out);
        case NcType::UShort: return decode_be_ints<std::uint16_t>(p, n, out);
        case NcType::Int: return decode_be_ints<std::int32_t>(p, n, out);
        case NcType::UInt: return decode_be_ints<std::uint32_t>(p, n, out);
        case NcType::Int64:
        case NcType::UInt64: return decode_be_ints<std::int64_t>(p, n, out);
        default: break;  // bytes and reals: rare in maps, one at a time
    }
    const std::size_t esz = type_size(t);
    for (std::size_t i = 0; i < n; ++i) out[i] = decode_int(p + i * esz, t);
}

double decode_real(const unsigned char* p, NcType t) {
    if (t == NcType::Float) {
        std::uint32_t u = static_cast<std::uint32_t>(get_be(p, 4));
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    if (t == NcType::Double) {
        std::uint64_t u = get_be(p, 8);
        double d;
        std::memcpy(&d, &u, 8);
        return d;
    }
    if (t == NcType::UInt64) return static_cast<double>(get_be(p, 8));
    return static_cast<double>(decode_int(p, t));
}

void encode_int(std::vector<unsigned char>& b, std::int64_t v, NcType t) {
    switch (t) {
        case NcType::Float: {
            float f = static_cast<float>(v);
            std::uint32_t u;
            std::memcpy(&u, &f, 4);
            put_be(b, u, 4);
            return;
        }
        case NcType::Double: {
            double d = static_cast<double>(v);
            std::uint64_t u;
            std::memcpy(&u, &d, 8);
            put_be(b, u, 8);
            return;
        }
        default: put_be(b, static_cast<std::uint64_t>(v), static_cast<int>(type_size(t)));
    }
}

void encode_real(std::vector<unsigned char>& b, double v, NcType t) {
    if (t == NcType::Float) {
        float f = static_cast<float>(v);
        std::uint32_t u;
        std::memcpy(&u, &f, 4);
        put_be(b, u, 4);
    } else if (t == NcType::Double) {
        std::uint64_t u;
        std::memcpy(&u, &v, 8);
        put_be(b, u, 8);
    } else {
        encode_int(b, static_cast<std::int64_t>(std::llround(v)), t);
    }
}

// ---- header parsing ---------------------------------------------------------
// A cursor over the file that loads bytes on demand and refuses to step past
// the end of the file with a message naming what it was reading.
class Cursor {
public:
    Cursor(std::ifstream& in, std::uint64_t size, const std::string& path) : in_(in), size_(size), path_(path) {}

    const unsigned char* take(std::uint64_t n, const char* what) {
        if (n > size_ || pos_ > size_ - n)
            throw Error(path_ + ": truncated: the header (" + what + ") needs " + std::to_string(n) +
                            " bytes at offset " + std::to_string(pos_) + " but the file has " + std::to_string(size_),
                        "the map file is incomplete; copy or regenerate it");
        if (pos_ + n > buf_.size()) {
            std::uint64_t want =
                std::min<std::uint64_t>(size_, std::max<std::uint64_t>(pos_ + n, 2 * buf_.size() + 4096));
            std::uint64_t have = buf_.size();
            buf_.resize(want);
            in_.seekg(static_cast<std::streamoff>(have));
            in_.read(reinterpret_cast<char*>(buf_.data() + have), static_cast<std::streamsize>(want - have));
            if (!in_) throw Error(path_ + ": read error in the header", "check the file is readable");
        }
        const unsigned char* p = buf_.data() + pos_;
        pos_ += n;
        return p;
    }
    std::uint64_t u(int nbytes, const char* what) { return get_be(take(nbytes, what), nbytes); }
    std::uint64_t pos() const { return pos_; }
    std::uint64_t remaining() const { return size_ - pos_; }

private:
    std::ifstream& in_;
    std::uint64_t size_;
    const std::string& path_;
    std::vector<unsigned char> buf_;
    std::uint64_t pos_ = 0;
};

struct Parser {
    Cursor& c;
    const std::string& path;
    int version;
    int nsz() const { return version == 5 ? 8 : 4; }  // NON_NEG width

    [[noreturn]] void bad(const std::string& what) const {
        throw Error(path + ": malformed NetCDF classic header at offset " + std::to_string(c.pos()) + ": " + what,
                    "the file is corrupt or not a decomposition map");
    }
    std::uint64_t count(const char* what, std::uint64_t min_bytes_each) {
        std::uint64_t n = c.u(nsz(), what);
        if (min_bytes_each && n > c.remaining() / min_bytes_each)
            throw Error(path + ": truncated: the header lists " + std::to_string(n) + " " + what + " at offset " +
                            std::to_string(c.pos()) + " but the file has only " + std::to_string(c.remaining()) +
                            " bytes left",
                        "the map file is incomplete or corrupt");
        return n;
    }
    std::string name(const char* what) {
        std::uint64_t n = c.u(nsz(), what);
        if (n > c.remaining()) bad(std::string("name of a ") + what + " longer than the file");
        const unsigned char* p = c.take(pad4(n), what);
        return std::string(reinterpret_cast<const char*>(p), n);
    }
    // Returns the list's element count; 0 for ABSENT.
    std::uint64_t list(std::uint32_t tag, const char* what, std::uint64_t min_bytes_each) {
        std::uint32_t t = static_cast<std::uint32_t>(c.u(4, what));
        if (t == 0) {
            if (c.u(nsz(), what) != 0) bad(std::string("ABSENT ") + what + " list with a non-zero count");
            return 0;
        }
        if (t != tag) bad(std::string("expected the ") + what + " list tag, found " + std::to_string(t));
        return count(what, min_bytes_each);
    }
    std::vector<Attr> attrs() {
        std::vector<Attr> out;
        std::uint64_t n = list(kTagAttribute, "attributes", 12);
        for (std::uint64_t i = 0; i < n; ++i) {
            Attr a;
            a.name = name("attribute");
            std::int32_t t = static_cast<std::int32_t>(c.u(4, "attribute type"));
            if (!valid_type(t, version)) bad("attribute '" + a.name + "' has invalid type " + std::to_string(t));
            a.type = static_cast<NcType>(t);
            std::uint64_t ne = c.u(nsz(), "attribute length");
            std::uint64_t sz = type_size(a.type);
            if (ne > c.remaining() / sz) bad("attribute '" + a.name + "' is longer than the file");
            const unsigned char* p = c.take(pad4(ne * sz), "attribute values");
            if (a.type == NcType::Char) {
                a.text.assign(reinterpret_cast<const char*>(p), ne);
            } else if (a.type == NcType::Float || a.type == NcType::Double) {
                for (std::uint64_t k = 0; k < ne; ++k) a.reals.push_back(decode_real(p + k * sz, a.type));
            } else {
                for (std::uint64_t k = 0; k < ne; ++k) a.ints.push_back(decode_int(p + k * sz, a.type));
            }
            out.push_back(std::move(a));
        }
        return out;
    }
};

}  // namespace

// ---- types and small helpers -------------------------------------------------
std::size_t type_size(NcType t) {
    switch (t) {
        case NcType::Byte:
        case NcType::Char:
        case NcType::UByte: return 1;
        case NcType::Short:
        case NcType::UShort: return 2;
        case NcType::Int:
        case NcType::UInt:
        case NcType::Float: return 4;
        case NcType::Double:
        case NcType::Int64:
        case NcType::UInt64: return 8;
    }
    return 1;
}

const char* type_name(NcType t) {
    switch (t) {
        case NcType::Byte: return "byte";
        case NcType::Char: return "char";
        case NcType::Short: return "short";
        case NcType::Int: return "int";
        case NcType::Float: return "float";
        case NcType::Double: return "double";
        case NcType::UByte: return "ubyte";
        case NcType::UShort: return "ushort";
        case NcType::UInt: return "uint";
        case NcType::Int64: return "int64";
        case NcType::UInt64: return "uint64";
    }
    return "?";
}

std::size_t Attr::nelems() const {
    if (type == NcType::Char) return text.size();
    if (type == NcType::Float || type == NcType::Double) return reals.size();
    return ints.size();
}

std::vector<std::int64_t> Attr::as_ints() const {
    if (type == NcType::Char) throw Error("attribute '" + name + "' is text, not a number");
    if (!reals.empty() || type == NcType::Float || type == NcType::Double) {
        std::vector<std::int64_t> v;
        for (double d : reals) v.push_back(real_to_int(d));
        return v;
    }
    return ints;
}

std::vector<double> Attr::as_reals() const {
    if (type == NcType::Char) throw Error("attribute '" + name + "' is text, not a number");
    if (type == NcType::Float || type == NcType::Double) return reals;
    return std::vector<double>(ints.begin(), ints.end());
}

Attr Attr::Text(std::string name, std::string text) {
    Attr a;
    a.name = std::move(name);
    a.type = NcType::Char;
    a.text = std::move(text);
    return a;
}
Attr Attr::Ints(std::string name, NcType type, std::vector<std::int64_t> values) {
    Attr a;
    a.name = std::move(name);
    a.type = type;
    a.ints = std::move(values);
    return a;
}
Attr Attr::Reals(std::string name, NcType type, std::vector<double> values) {
    Attr a;
    a.name = std::move(name);
    a.type = type;
    a.reals = std::move(values);
    return a;
}

const Attr* Var::find_attr(const std::string& n) const {
    for (const auto& a : attrs)
        if (a.name == n) return &a;
    return nullptr;
}

int Header::find_dim(const std::string& n) const {
    for (std::size_t i = 0; i < dims.size(); ++i)
        if (dims[i].name == n) return static_cast<int>(i);
    return -1;
}
int Header::find_var(const std::string& n) const {
    for (std::size_t i = 0; i < vars.size(); ++i)
        if (vars[i].name == n) return static_cast<int>(i);
    return -1;
}
const Attr* Header::find_gatt(const std::string& n) const {
    for (const auto& a : gatts)
        if (a.name == n) return &a;
    return nullptr;
}
bool Header::is_record(const Var& v) const { return !v.dimids.empty() && dims[v.dimids[0]].is_record(); }
std::uint64_t Header::slab_elements(const Var& v) const {
    std::uint64_t n = 1;
    for (std::size_t i = is_record(v) ? 1 : 0; i < v.dimids.size(); ++i) n *= dims[v.dimids[i]].length;
    return n;
}
std::uint64_t Header::record_size() const {
    std::uint64_t total = 0;
    int nrec = 0;
    std::uint64_t last = 0;
    for (const auto& v : vars)
        if (is_record(v)) {
            last = slab_elements(v) * type_size(v.type);
            total += pad4(last);
            ++nrec;
        }
    // The format's one exception: a lone record variable is not padded.
    return nrec == 1 ? last : total;
}

// ---- Reader ------------------------------------------------------------------
Reader::Reader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) throw Error(path + ": cannot open the file", "check the path and that the file is readable");
    in_.seekg(0, std::ios::end);
    size_ = static_cast<std::uint64_t>(in_.tellg());
    in_.seekg(0);

    Cursor c(in_, size_, path_);
    const unsigned char* m = c.take(4, "magic");
    if (m[0] != 'C' || m[1] != 'D' || m[2] != 'F' || (m[3] != 1 && m[3] != 2 && m[3] != 5)) {
        bool hdf5 = m[0] == 0x89 && m[1] == 'H';
        throw Error(path + ": not a NetCDF classic file (CDF-1, CDF-2 or CDF-5)" +
                        std::string(hdf5 ? "; it looks like an HDF5/NetCDF-4 file" : ""),
                    "decomposition maps must be classic NetCDF files; convert .dat maps with dat2nc");
    }
    h_.version = m[3];
    Parser p{c, path_, h_.version};
    h_.numrecs = c.u(p.nsz(), "numrecs");

    std::uint64_t ndims = p.list(kTagDimension, "dimensions", 8);
    for (std::uint64_t i = 0; i < ndims; ++i) {
        Dim d;
        d.name = p.name("dimension");
        d.length = c.u(p.nsz(), "dimension length");
        h_.dims.push_back(std::move(d));
    }
    int nrecdims = 0;
    for (const auto& d : h_.dims) nrecdims += d.is_record();
    if (nrecdims > 1) p.bad("more than one record dimension");

    h_.gatts = p.attrs();

    std::uint64_t nvars = p.list(kTagVariable, "variables", 24);
    const int idsz = h_.version == 5 ? 8 : 4;
    const int offsz = h_.version == 1 ? 4 : 8;
    for (std::uint64_t i = 0; i < nvars; ++i) {
        Var v;
        v.name = p.name("variable");
        std::uint64_t nd = p.count("dimension ids", idsz);
        for (std::uint64_t k = 0; k < nd; ++k) {
            std::uint64_t id = c.u(idsz, "dimension id");
            if (id >= h_.dims.size())
                p.bad("variable '" + v.name + "' uses dimension id " + std::to_string(id) + " of " +
                      std::to_string(h_.dims.size()));
            if (k > 0 && h_.dims[id].is_record())
                p.bad("variable '" + v.name + "' has the record dimension in a position other than the first");
            v.dimids.push_back(static_cast<int>(id));
        }
        v.attrs = p.attrs();
        std::int32_t t = static_cast<std::int32_t>(c.u(4, "variable type"));
        if (!valid_type(t, h_.version)) p.bad("variable '" + v.name + "' has invalid type " + std::to_string(t));
        v.type = static_cast<NcType>(t);
        c.u(p.nsz(), "vsize");  // recomputed from the shape; not trusted
        v.begin = c.u(offsz, "variable begin");
        h_.vars.push_back(std::move(v));
    }
    h_.header_size = c.pos();

    // A streaming file (numrecs all ones) counts records from the file size.
    const std::uint64_t streaming = h_.version == 5 ? ~std::uint64_t{0} : 0xFFFFFFFFull;
    if (h_.numrecs == streaming) {
        std::uint64_t rs = h_.record_size(), first = ~std::uint64_t{0};
        for (const auto& v : h_.vars)
            if (h_.is_record(v)) first = std::min(first, v.begin);
        h_.numrecs = (rs && first <= size_) ? (size_ - first) / rs : 0;
    }
}

const Var& Reader::var_or_throw(const std::string& name) const {
    int id = h_.find_var(name);
    if (id < 0) throw Error(path_ + ": has no variable '" + name + "'", "is this a decomposition map file?");
    return h_.vars[id];
}

std::pair<std::uint64_t, std::uint64_t> Reader::checked_slabs(const Var& v) const {
    // Shapes, record counts and offsets come from the header and are not
    // trusted: every product is checked for overflow, and the slabs must lie
    // within the file before anything is allocated.  Their offsets grow with
    // the record, so the first and the last slab bound them all (a loop over
    // every record took minutes on a header claiming 2^60 records).
    const std::uint64_t kMax = ~std::uint64_t{0};
    auto truncated = [&](std::uint64_t need, std::uint64_t at) {
        return Error(path_ + ": truncated: variable " + v.name + " needs " + std::to_string(need) +
                         " bytes at offset " + std::to_string(at) + " but the file has " + std::to_string(size_),
                     "the map file is incomplete; copy or regenerate it");
    };
    const bool rec = h_.is_record(v);
    std::uint64_t slab = type_size(v.type);
    for (std::size_t i = rec ? 1 : 0; i < v.dimids.size(); ++i) {
        const std::uint64_t len = h_.dims[static_cast<std::size_t>(v.dimids[i])].length;
        if (len && slab > kMax / len) throw truncated(kMax, v.begin);
        slab *= len;
    }
    const std::uint64_t nslabs = rec ? h_.numrecs : 1;
    const std::uint64_t stride = rec ? h_.record_size() : 0;
    if (nslabs == 0 || slab == 0) return {0, 0};
    if (slab > size_ / nslabs) throw truncated(nslabs > kMax / slab ? kMax : slab * nslabs, v.begin);
    if (nslabs - 1 > 0 && stride > (kMax - v.begin) / (nslabs - 1)) throw truncated(slab, kMax);
    for (const std::uint64_t off : {v.begin, v.begin + (nslabs - 1) * stride})
        if (off > size_ || slab > size_ - off) throw truncated(slab, off);
    return {slab, nslabs};
}

std::vector<unsigned char> Reader::read_raw(const Var& v) {
    const auto [slab, nslabs] = checked_slabs(v);
    const std::uint64_t stride = h_.is_record(v) ? h_.record_size() : 0;
    std::vector<unsigned char> raw(slab * nslabs);
    for (std::uint64_t r = 0; r < nslabs; ++r) {
        in_.clear();
        in_.seekg(static_cast<std::streamoff>(v.begin + r * stride));
        in_.read(reinterpret_cast<char*>(raw.data() + r * slab), static_cast<std::streamsize>(slab));
        if (!in_) throw Error(path_ + ": read error in variable " + v.name, "check the file is readable");
    }
    return raw;
}

std::uint64_t Reader::checked_length(const std::string& name) {
    const Var& v = var_or_throw(name);
    const auto [slab, nslabs] = checked_slabs(v);
    return slab * nslabs / type_size(v.type);
}

std::vector<std::int64_t> Reader::read_ints(const std::string& name, std::uint64_t start, std::uint64_t count) {
    const Var& v = var_or_throw(name);
    const std::uint64_t n = checked_length(name);
    if (start > n || count > n - start)
        throw Error(path_ + ": entries [" + std::to_string(start) + ", +" + std::to_string(count) +
                        ") lie outside variable " + v.name + " of " + std::to_string(n) + " entries",
                    "the map file is inconsistent; regenerate it");
    const std::size_t esz = type_size(v.type);
    std::vector<std::int64_t> out(count);
    if (count == 0) return out;
    if (h_.is_record(v)) {  // records interleave: the whole variable, cut
        const auto all = read_ints(name);
        std::copy(all.begin() + static_cast<std::ptrdiff_t>(start),
                  all.begin() + static_cast<std::ptrdiff_t>(start + count), out.begin());
        return out;
    }
    std::vector<unsigned char> raw(count * esz);
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(v.begin + start * esz));
    in_.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
    if (!in_) throw Error(path_ + ": read error in variable " + v.name, "check the file is readable");
    decode_ints(raw.data(), v.type, count, out.data());
    return out;
}

std::vector<std::int64_t> Reader::read_ints(const std::string& name) {
    const Var& v = var_or_throw(name);
    auto raw = read_raw(v);
    const std::size_t esz = type_size(v.type);
    std::vector<std::int64_t> out(raw.size() / esz);
    decode_ints(raw.data(), v.type, out.size(), out.data());
    return out;
}

std::vector<double> Reader::read_reals(const std::string& name) {
    const Var& v = var_or_throw(name);
    auto raw = read_raw(v);
    const std::size_t esz = type_size(v.type);
    std::vector<double> out(raw.size() / esz);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = decode_real(raw.data() + i * esz, v.type);
    return out;
}

std::string Reader::read_text(const std::string& name) {
    const Var& v = var_or_throw(name);
    auto raw = read_raw(v);
    return std::string(raw.begin(), raw.end());
}

// ---- Writer ------------------------------------------------------------------
namespace {

void put_name(std::vector<unsigned char>& b, const std::string& s, int nsz) {
    put_be(b, s.size(), nsz);
    b.insert(b.end(), s.begin(), s.end());
    b.resize(pad4(b.size()), 0);
}

void put_attrs(std::vector<unsigned char>& b, const std::vector<Attr>& attrs, int nsz) {
    if (attrs.empty()) {
        put_be(b, 0, 4);
        put_be(b, 0, nsz);
        return;
    }
    put_be(b, kTagAttribute, 4);
    put_be(b, attrs.size(), nsz);
    for (const auto& a : attrs) {
        put_name(b, a.name, nsz);
        put_be(b, static_cast<std::uint32_t>(a.type), 4);
        put_be(b, a.nelems(), nsz);
        if (a.type == NcType::Char) {
            b.insert(b.end(), a.text.begin(), a.text.end());
        } else if (a.type == NcType::Float || a.type == NcType::Double) {
            for (double d : a.reals) encode_real(b, d, a.type);
        } else {
            for (auto i : a.ints) encode_int(b, i, a.type);
        }
        b.resize(pad4(b.size()), 0);
    }
}

std::vector<unsigned char> encode_header(const Header& h) {
    const int nsz = h.version == 5 ? 8 : 4;
    const int idsz = h.version == 5 ? 8 : 4;
    const int offsz = h.version == 1 ? 4 : 8;
    std::vector<unsigned char> b = {'C', 'D', 'F', static_cast<unsigned char>(h.version)};
    put_be(b, h.numrecs, nsz);
    if (h.dims.empty()) {
        put_be(b, 0, 4);
        put_be(b, 0, nsz);
    } else {
        put_be(b, kTagDimension, 4);
        put_be(b, h.dims.size(), nsz);
        for (const auto& d : h.dims) {
            put_name(b, d.name, nsz);
            put_be(b, d.length, nsz);
        }
    }
    put_attrs(b, h.gatts, nsz);
    if (h.vars.empty()) {
        put_be(b, 0, 4);
        put_be(b, 0, nsz);
    } else {
        put_be(b, kTagVariable, 4);
        put_be(b, h.vars.size(), nsz);
        for (const auto& v : h.vars) {
            put_name(b, v.name, nsz);
            put_be(b, v.dimids.size(), nsz);
            for (int id : v.dimids) put_be(b, static_cast<std::uint64_t>(id), idsz);
            put_attrs(b, v.attrs, nsz);
            put_be(b, static_cast<std::uint32_t>(v.type), 4);
            std::uint64_t vsize = pad4(h.slab_elements(v) * type_size(v.type));
            if (h.version != 5 && vsize > 0xFFFFFFFFull) vsize = 0xFFFFFFFFull;  // the format's "too big" marker
            put_be(b, vsize, nsz);
            put_be(b, v.begin, offsz);
        }
    }
    return b;
}

}  // namespace

Writer::Writer(int version) {
    if (version != 1 && version != 2 && version != 5)
        throw Error("CDF version must be 1, 2 or 5, not " + std::to_string(version));
    h_.version = version;
}

int Writer::def_dim(const std::string& name, std::uint64_t length) {
    if (h_.find_dim(name) >= 0) throw Error("dimension '" + name + "' defined twice");
    if (length == 0)
        for (const auto& d : h_.dims)
            if (d.is_record()) throw Error("a classic file has at most one record dimension");
    h_.dims.push_back({name, length});
    return static_cast<int>(h_.dims.size()) - 1;
}

int Writer::def_var(const std::string& name, NcType type, std::vector<int> dimids) {
    if (h_.find_var(name) >= 0) throw Error("variable '" + name + "' defined twice");
    if (!valid_type(static_cast<std::int32_t>(type), h_.version))
        throw Error(std::string("type ") + type_name(type) + " needs CDF-5", "write the file as CDF-5");
    for (std::size_t k = 0; k < dimids.size(); ++k) {
        if (dimids[k] < 0 || dimids[k] >= static_cast<int>(h_.dims.size()))
            throw Error("variable '" + name + "': bad dimension id " + std::to_string(dimids[k]));
        if (k > 0 && h_.dims[dimids[k]].is_record())
            throw Error("variable '" + name + "': the record dimension must come first");
    }
    Var v;
    v.name = name;
    v.type = type;
    v.dimids = std::move(dimids);
    h_.vars.push_back(std::move(v));
    data_.emplace_back();
    return static_cast<int>(h_.vars.size()) - 1;
}

void Writer::put_att(int varid, Attr a) {
    if (a.type != NcType::Char && !valid_type(static_cast<std::int32_t>(a.type), h_.version))
        throw Error(std::string("attribute type ") + type_name(a.type) + " needs CDF-5");
    auto& list = varid < 0 ? h_.gatts : h_.vars.at(varid).attrs;
    for (auto& x : list)
        if (x.name == a.name) {
            x = std::move(a);
            return;
        }
    list.push_back(std::move(a));
}

void Writer::put_ints(int varid, std::vector<std::int64_t> values) {
    auto& d = data_.at(varid);
    d.n = values.size();
    d.ints = std::move(values);
    d.kind = 1;
}
void Writer::put_reals(int varid, std::vector<double> values) {
    auto& d = data_.at(varid);
    d.n = values.size();
    d.reals = std::move(values);
    d.kind = 2;
}
void Writer::put_text(int varid, std::string text) {
    auto& d = data_.at(varid);
    d.n = text.size();
    d.text = std::move(text);
    d.kind = 3;
}

void Writer::write(const std::string& path) {
    // Record count and data sizes.
    h_.numrecs = 0;
    for (std::size_t i = 0; i < h_.vars.size(); ++i) {
        const Var& v = h_.vars[i];
        std::uint64_t slab = h_.slab_elements(v);
        if (h_.is_record(v)) {
            if (slab && data_[i].n % slab)
                throw Error("record variable '" + v.name + "': " + std::to_string(data_[i].n) +
                            " values are not a whole number of records of " + std::to_string(slab));
            if (slab) h_.numrecs = std::max(h_.numrecs, data_[i].n / slab);
        } else if (data_[i].kind && data_[i].n != slab) {
            throw Error("variable '" + v.name + "': " + std::to_string(data_[i].n) + " values given, shape holds " +
                        std::to_string(slab));
        }
        if (h_.version != 5)
            for (int id : v.dimids)
                if (h_.dims[id].length > 0x7FFFFFFFull)
                    throw Error(
                        "dimension '" + h_.dims[id].name + "' is too long for CDF-" + std::to_string(h_.version),
                        "write the file as CDF-5");
    }
    // Layout: header, fixed variables in order, then the records.
    h_.header_size = encode_header(h_).size();
    std::uint64_t pos = h_.header_size;
    for (auto& v : h_.vars)
        if (!h_.is_record(v)) {
            v.begin = pos;
            pos += pad4(h_.slab_elements(v) * type_size(v.type));
        }
    for (auto& v : h_.vars)
        if (h_.is_record(v)) {
            v.begin = pos;
            pos += pad4(h_.slab_elements(v) * type_size(v.type));
        }
    if (h_.version == 1)
        for (const auto& v : h_.vars)
            if (v.begin > 0x7FFFFFFFull)
                throw Error("the data exceed CDF-1's 2 GiB offsets", "write the file as CDF-2 or CDF-5");

    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path + ": cannot create the file", "check the directory exists and is writable");
    auto header = encode_header(h_);
    out.write(reinterpret_cast<const char*>(header.data()), static_cast<std::streamsize>(header.size()));

    // Encodes elements [first, first+n) of variable i, zeros where no data.
    auto encode = [&](std::size_t i, std::uint64_t first, std::uint64_t n, bool pad) {
        const Var& v = h_.vars[i];
        const Data& d = data_[i];
        std::vector<unsigned char> b;
        b.reserve(n * type_size(v.type) + 3);
        for (std::uint64_t k = first; k < first + n; ++k) {
            bool have = k < d.n;
            if (d.kind == 3 || !have || d.kind == 0) {
                std::int64_t c = (d.kind == 3 && have) ? static_cast<unsigned char>(d.text[k]) : 0;
                encode_int(b, c, v.type);
            } else if (d.kind == 1) {
                encode_int(b, d.ints[k], v.type);
            } else {
                encode_real(b, d.reals[k], v.type);
            }
        }
        if (pad) b.resize(pad4(b.size()), 0);
        out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    };
    for (std::size_t i = 0; i < h_.vars.size(); ++i)
        if (!h_.is_record(h_.vars[i])) encode(i, 0, h_.slab_elements(h_.vars[i]), true);
    int nrecvars = 0;
    for (const auto& v : h_.vars) nrecvars += h_.is_record(v);
    for (std::uint64_t r = 0; r < h_.numrecs; ++r)
        for (std::size_t i = 0; i < h_.vars.size(); ++i)
            if (h_.is_record(h_.vars[i])) {
                std::uint64_t slab = h_.slab_elements(h_.vars[i]);
                encode(i, r * slab, slab, nrecvars > 1);
            }
    out.flush();
    if (!out) throw Error(path + ": write failed", "check free space on the file system");
}

}  // namespace iok::cdf
