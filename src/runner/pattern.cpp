#include "runner/pattern.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

// Speed (issue 19): generating and checking the pattern is on every write's
// and every verified read's critical path, so it must run at memory speed
// (>= 5 GB/s per core), not at the speed of a per-element switch.  The values
// are unchanged (tests and files written before still agree); what changed:
//  - one loop per element type, the type conversion known at compile time,
//    over runs of consecutive elements, so the compiler vectorises it;
//  - those loops are compiled for AVX-512 and AVX2 as well as baseline
//    x86-64 (chosen once, by what the CPU has), since the hash needs 64-bit
//    multiplies that only AVX-512 has as one instruction;
//  - checking is fused with generation: expected and read bits are XOR-ed
//    and OR-ed over blocks of 512 elements (streamed, vectorised, no
//    expected-values array); only a block that differs is searched element
//    by element.

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(IOK_NO_CLONES) && !defined(__SANITIZE_ADDRESS__)
#define IOK_MULTIVERSION 1
#endif

namespace iok {

std::uint64_t pattern_key(const std::string& name) {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : name) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

namespace {

constexpr std::uint64_t kElementMul = 0x100000001b3ull;
constexpr std::uint64_t kRecordMul = 0x9e3779b97f4a7c15ull;

inline std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// An element's raw bits: the hash of its 512-element block (of the variable,
// record and block) XOR a Weyl sequence over its position in the block,
// folded so that low bits (all a byte or a float keeps) are not periodic.
// Two hashes per block instead of per element: generating and checking run
// at memory speed (issue 19: bdcats spent more time verifying than
// reading); a value moved within its block, to another block, record or
// variable still differs (but for one chance in 2^24 per float element).
constexpr std::uint64_t kBlockShift = 9;  // 512 elements per hashed block
constexpr std::uint64_t kBlockMask = (std::uint64_t{1} << kBlockShift) - 1;
constexpr std::uint64_t kWeyl = 0xd6e8feb86659fd93ull;

inline std::uint64_t block_hash(std::uint64_t key, std::uint64_t block, std::uint64_t rec) {
    return mix(key ^ mix(block * kElementMul + rec));  // rec: record * kRecordMul
}
inline std::uint64_t in_block(std::uint64_t x) { return x ^ (x >> 32); }  // x = position * kWeyl

inline std::uint64_t raw(std::uint64_t key, std::uint64_t element, std::uint64_t record) {
    return block_hash(key, element >> kBlockShift, record * kRecordMul) ^ in_block((element & kBlockMask) * kWeyl);
}

// The stored value of raw hash r, per element type.  Floats and doubles hold
// a 24-bit integer / 256: exact in float, so the int->float conversion and
// the power-of-two scale below give the same bits as the double division.
inline float as_float(std::uint64_t r) {
    return static_cast<float>(static_cast<std::int32_t>(r & 0xFFFFFFu)) * (1.0f / 256.0f);
}
inline double as_double(std::uint64_t r) {
    return static_cast<double>(static_cast<std::int32_t>(r & 0xFFFFFFu)) * (1.0 / 256.0);
}
inline std::int32_t as_int(std::uint64_t r) { return static_cast<std::int32_t>(r & 0x7fffffffu); }
inline std::int64_t as_int64(std::uint64_t r) { return static_cast<std::int64_t>(r & 0x7fffffffffffull); }
inline std::int16_t as_short(std::uint64_t r) { return static_cast<std::int16_t>(r & 0x7fff); }
inline std::int8_t as_byte(std::uint64_t r) { return static_cast<std::int8_t>(r & 0x7f); }
inline char as_char(std::uint64_t r) { return static_cast<char>('A' + r % 26); }

// n consecutive elements first, first+1, ... of one record: the hot loops.
// `rec` is record * kRecordMul (the element-independent part of the input).
#if IOK_MULTIVERSION
// The best instruction set this CPU has (x86-64 micro-architecture level).
int level() {
    static const int l = [] {
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"))
            return 4;
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2")) return 3;
        return 1;
    }();
    return l;
}
#endif

// Each generator is compiled three times: AVX-512 with 512-bit vectors (GCC
// prefers 256 by default; the multiplies are the bottleneck, so the width
// doubles the rate), AVX2, and baseline; the first call picks one (a
// function-local static: safe even from another file's static initialiser).
// clang-format off: macros that define functions, laid out by hand.
#define IOK_GENERATOR_BODY(T, CONV)                                                                   \
    {                                                                                                 \
        while (n > 0) { /* one hashed block at a time; the inner loop vectorises */                   \
            const std::uint64_t pos = first & kBlockMask, m = std::min(n, kBlockMask + 1 - pos);       \
            const std::uint64_t h = block_hash(key, first >> kBlockShift, rec);                       \
            std::uint64_t x = pos * kWeyl; /* an induction: no multiply per element */               \
            for (std::uint64_t i = 0; i < m; ++i, x += kWeyl) out[i] = CONV(h ^ in_block(x));         \
            out += m, first += m, n -= m;                                                             \
        }                                                                                             \
    }
// Checking fuses generation and comparison (no expected-values buffer): the
// XOR of the expected and the read bits is OR-ed over a block of elements,
// and only a block whose OR is not zero is searched, element by element.
// Returns the index of the first differing element, or n.
#define IOK_CHECKER_BODY(T, U, CONV)                                                                  \
    {                                                                                                 \
        for (std::uint64_t i0 = 0; i0 < n;) {                                                         \
            const std::uint64_t e = first + i0, pos = e & kBlockMask;                                  \
            const std::uint64_t m = std::min(n - i0, kBlockMask + 1 - pos);                            \
            const std::uint64_t h = block_hash(key, e >> kBlockShift, rec);                           \
            std::uint64_t x = pos * kWeyl;                                                            \
            U acc = 0;                                                                                \
            for (std::uint64_t i = 0; i < m; ++i, x += kWeyl) {                                       \
                const T w = CONV(h ^ in_block(x));                                                    \
                U a, b;                                                                               \
                std::memcpy(&a, &w, sizeof a);                                                        \
                std::memcpy(&b, &in[i0 + i], sizeof b);                                               \
                acc |= static_cast<U>(a ^ b);                                                         \
            }                                                                                         \
            if (acc != 0) {                                                                           \
                x = pos * kWeyl;                                                                      \
                for (std::uint64_t i = 0; i < m; ++i, x += kWeyl) {                                   \
                    const T w = CONV(h ^ in_block(x));                                                \
                    if (std::memcmp(&w, &in[i0 + i], sizeof w) != 0) return i0 + i;                   \
                }                                                                                     \
            }                                                                                         \
            i0 += m;                                                                                  \
        }                                                                                             \
        return n;                                                                                     \
    }
#if IOK_MULTIVERSION
#define IOK_V4 __attribute__((target("arch=x86-64-v4,prefer-vector-width=512")))
#define IOK_V3 __attribute__((target("arch=x86-64-v3")))
#define IOK_GENERATOR(NAME, T, U, CONV)                                                                     \
    IOK_V4 void gen_##NAME##_v4(T* out, std::uint64_t first, std::uint64_t n, std::uint64_t key, std::uint64_t rec) \
        IOK_GENERATOR_BODY(T, CONV)                                                                          \
    IOK_V3 void gen_##NAME##_v3(T* out, std::uint64_t first, std::uint64_t n, std::uint64_t key, std::uint64_t rec) \
        IOK_GENERATOR_BODY(T, CONV)                                                                          \
    void gen_##NAME##_v1(T* out, std::uint64_t first, std::uint64_t n, std::uint64_t key, std::uint64_t rec)        \
        IOK_GENERATOR_BODY(T, CONV)                                                                          \
    IOK_V4 std::uint64_t chk_##NAME##_v4(const T* in, std::uint64_t first, std::uint64_t n, std::uint64_t key,     \
                                         std::uint64_t rec) IOK_CHECKER_BODY(T, U, CONV)                     \
    IOK_V3 std::uint64_t chk_##NAME##_v3(const T* in, std::uint64_t first, std::uint64_t n, std::uint64_t key,     \
                                         std::uint64_t rec) IOK_CHECKER_BODY(T, U, CONV)                     \
    std::uint64_t chk_##NAME##_v1(const T* in, std::uint64_t first, std::uint64_t n, std::uint64_t key,            \
                                  std::uint64_t rec) IOK_CHECKER_BODY(T, U, CONV)                            \
    void generate(T* out, std::uint64_t first, std::uint64_t n, std::uint64_t key, std::uint64_t rec) {      \
        static const auto best = level() >= 4 ? gen_##NAME##_v4 : level() == 3 ? gen_##NAME##_v3 : gen_##NAME##_v1; \
        best(out, first, n, key, rec);                                                                       \
    }                                                                                                        \
    std::uint64_t first_difference(const T* in, std::uint64_t first, std::uint64_t n, std::uint64_t key,        \
                                   std::uint64_t rec) {                                                      \
        static const auto best = level() >= 4 ? chk_##NAME##_v4 : level() == 3 ? chk_##NAME##_v3 : chk_##NAME##_v1; \
        return best(in, first, n, key, rec);                                                                 \
    }
#else
#define IOK_GENERATOR(NAME, T, U, CONV)                                                                     \
    void generate(T* out, std::uint64_t first, std::uint64_t n, std::uint64_t key, std::uint64_t rec)        \
        IOK_GENERATOR_BODY(T, CONV)                                                                          \
    std::uint64_t first_difference(const T* in, std::uint64_t first, std::uint64_t n, std::uint64_t key,        \
                                   std::uint64_t rec) IOK_CHECKER_BODY(T, U, CONV)
#endif
IOK_GENERATOR(float, float, std::uint32_t, as_float)
IOK_GENERATOR(double, double, std::uint64_t, as_double)
IOK_GENERATOR(int, std::int32_t, std::uint32_t, as_int)
IOK_GENERATOR(int64, std::int64_t, std::uint64_t, as_int64)
IOK_GENERATOR(short, std::int16_t, std::uint16_t, as_short)
IOK_GENERATOR(byte, std::int8_t, std::uint8_t, as_byte)
IOK_GENERATOR(char, char, std::uint8_t, as_char)
#undef IOK_GENERATOR
#undef IOK_GENERATOR_BODY
#undef IOK_CHECKER_BODY
// clang-format on

// Runs shorter than this are generated inline: E3SM maps average one or two
// elements per run, where the call through the CPU-dispatched pointer and a
// vector loop's set-up cost more than the elements (perf on the F case,
// 16 ranks: 13% of the extra CPU over E3SM-IO).  Same values either way.
constexpr std::int64_t kShortRun = 8;
constexpr std::uint64_t kShortWrite = 4;  // elements a short run of at most this many writes

template <class T>
inline T value_of(std::uint64_t h) {
    if constexpr (std::is_same_v<T, float>)
        return as_float(h);
    else if constexpr (std::is_same_v<T, double>)
        return as_double(h);
    else if constexpr (std::is_same_v<T, std::int32_t>)
        return as_int(h);
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return as_int64(h);
    else if constexpr (std::is_same_v<T, std::int16_t>)
        return as_short(h);
    else if constexpr (std::is_same_v<T, std::int8_t>)
        return as_byte(h);
    else
        return as_char(h);
}

template <class T>
void fill_typed(T* out, const Selection& sel, std::uint64_t key, std::uint64_t rec) {
    const std::uint64_t r = rec * kRecordMul;
    std::uint64_t cached_block = ~std::uint64_t{0}, h = 0;  // short runs often share a block
    T* const end = out + sel.elements();
    sel.for_each_run([&](std::int64_t off, std::int64_t len) {
        const auto first = static_cast<std::uint64_t>(off), n = static_cast<std::uint64_t>(len);
        // A short run inside one hashed block (nearly all of them): one block
        // check and one multiply per run, the Weyl position an induction.
        if (len < kShortRun && ((first + n - 1) >> kBlockShift) == (first >> kBlockShift)) {
            if (first >> kBlockShift != cached_block) {
                cached_block = first >> kBlockShift;
                h = block_hash(key, cached_block, r);
            }
            std::uint64_t x = (first & kBlockMask) * kWeyl;
            if (n <= kShortWrite && end - out >= static_cast<std::ptrdiff_t>(kShortWrite)) {
                // A fixed count, whatever the run's length: no mispredicted
                // loop exit per run (1-3 elements, at random); the values
                // past the run are overwritten by the next runs.
                for (std::uint64_t i = 0; i < kShortWrite; ++i, x += kWeyl) out[i] = value_of<T>(h ^ in_block(x));
            } else {
                for (std::uint64_t i = 0; i < n; ++i, x += kWeyl) out[i] = value_of<T>(h ^ in_block(x));
            }
        } else if (len > 0) {
            generate(out, first, n, key, r);
        }
        out += n;
    });
}

// Elements per comparison block of a constant (fill value) check.
constexpr std::uint64_t kBlock = 2048;

template <class T>
Mismatch check_typed(const T* in, const Selection& sel, std::uint64_t key, std::uint64_t rec, const double* constant) {
    Mismatch m;
    T want[kBlock];
    if (constant) std::fill(want, want + kBlock, static_cast<T>(*constant));
    const std::uint64_t r = rec * kRecordMul;
    std::uint64_t pos = 0;
    std::uint64_t cached_block = ~std::uint64_t{0}, h = 0;  // short runs often share a block
    sel.for_each_run([&](std::int64_t off, std::int64_t len) {
        if (m.found) return;
        const auto first = static_cast<std::uint64_t>(off), n = static_cast<std::uint64_t>(len);
        if (!constant) {
            std::uint64_t i = 0;
            if (n < static_cast<std::uint64_t>(kShortRun)) {
                for (; i < n; ++i) {
                    const std::uint64_t e = first + i;
                    if (e >> kBlockShift != cached_block) {
                        cached_block = e >> kBlockShift;
                        h = block_hash(key, cached_block, r);
                    }
                    const T w = value_of<T>(h ^ in_block((e & kBlockMask) * kWeyl));
                    if (std::memcmp(&w, &in[pos + i], sizeof w) != 0) break;
                }
            } else {
                i = first_difference(in + pos, first, n, key, r);
            }
            if (i < n) {
                T w;
                generate(&w, first + i, 1, key, r);
                m = {true, first + i, pos + i, static_cast<double>(w), static_cast<double>(in[pos + i])};
                return;
            }
            pos += n;
            return;
        }
        for (std::uint64_t done = 0; done < n; done += kBlock) {
            const std::uint64_t k = std::min(kBlock, n - done);
            const T* got = in + pos + done;
            // compare bytes: exact, and NaN-safe for fill values
            if (std::memcmp(want, got, k * sizeof(T)) == 0) continue;
            for (std::uint64_t i = 0; i < k; ++i)
                if (std::memcmp(&want[i], &got[i], sizeof(T)) != 0) {
                    m = {true, first + done + i, pos + done + i, static_cast<double>(want[i]),
                         static_cast<double>(got[i])};
                    return;
                }
        }
        pos += n;
    });
    return m;
}

template <class Fn>
auto dispatch(DType t, Fn&& fn) {
    switch (t) {
        case DType::Char: return fn(static_cast<char*>(nullptr));
        case DType::Byte: return fn(static_cast<std::int8_t*>(nullptr));
        case DType::Short: return fn(static_cast<std::int16_t*>(nullptr));
        case DType::Int: return fn(static_cast<std::int32_t*>(nullptr));
        case DType::Int64: return fn(static_cast<std::int64_t*>(nullptr));
        case DType::Float: return fn(static_cast<float*>(nullptr));
        case DType::Double: break;
    }
    return fn(static_cast<double*>(nullptr));
}

}  // namespace

double pattern_value(std::uint64_t key, std::uint64_t element, std::uint64_t record) {
    return static_cast<double>(raw(key, element, record) & 0xFFFFFFu) / 256.0;
}

namespace {
// The runner packs a flush's slices back to back, whatever their types (so
// that the library sees one contiguous user buffer: runner.cpp), and a slice
// may then start at any byte.  The typed loops above (vectorised, several
// instruction sets) want T-aligned pointers, so a misaligned slice is filled
// or checked through an aligned copy: one memcpy, at memory speed, and only
// for slices that follow an odd count of a narrower type.
template <class T>
bool aligned_for(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % alignof(T) == 0;
}

template <class T>
std::vector<T> aligned_copy(const void* buf, std::uint64_t n) {
    std::vector<T> copy(n);
    if (n) std::memcpy(copy.data(), buf, n * sizeof(T));
    return copy;
}
}  // namespace

void pattern_fill(DType t, void* buf, const Selection& sel, std::uint64_t key, std::uint64_t record) {
    dispatch(t, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        if (aligned_for<T>(buf)) {
            fill_typed<T>(static_cast<T*>(buf), sel, key, record);
        } else {
            std::vector<T> staged(sel.elements());
            fill_typed<T>(staged.data(), sel, key, record);
            if (!staged.empty()) std::memcpy(buf, staged.data(), staged.size() * sizeof(T));
        }
        return 0;
    });
}

void fill_constant(DType t, void* buf, std::uint64_t n, double value) {
    dispatch(t, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        const T v = static_cast<T>(value);
        auto* out = static_cast<unsigned char*>(buf);
        for (std::uint64_t i = 0; i < n; ++i) std::memcpy(out + i * sizeof(T), &v, sizeof(T));  // any alignment
        return 0;
    });
}

Mismatch pattern_check(DType t, const void* buf, const Selection& sel, std::uint64_t key, std::uint64_t record) {
    return dispatch(t, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        if (aligned_for<T>(buf)) return check_typed<T>(static_cast<const T*>(buf), sel, key, record, nullptr);
        const auto copy = aligned_copy<T>(buf, sel.elements());
        return check_typed<T>(copy.data(), sel, key, record, nullptr);
    });
}

Mismatch constant_check(DType t, const void* buf, const Selection& sel, double constant) {
    return dispatch(t, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        if (aligned_for<T>(buf)) return check_typed<T>(static_cast<const T*>(buf), sel, 0, 0, &constant);
        const auto copy = aligned_copy<T>(buf, sel.elements());
        return check_typed<T>(copy.data(), sel, 0, 0, &constant);
    });
}

}  // namespace iok
