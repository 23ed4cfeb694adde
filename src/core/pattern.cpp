#include "core/pattern.hpp"

#include <cmath>
#include <cstring>

namespace iok {

std::uint64_t pattern_key(const std::string& name) {
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : name) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

static inline std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline std::uint64_t raw(std::uint64_t key, std::uint64_t element, std::uint64_t record) {
    return mix(key ^ mix(element * 0x100000001b3ull + record * 0x9e3779b97f4a7c15ull));
}

double pattern_value(std::uint64_t key, std::uint64_t element, std::uint64_t record) {
    return static_cast<double>(raw(key, element, record) & 0xFFFFFFu) / 256.0;
}

namespace {

template <class T>
T store_as(DType t, std::uint64_t r) {
    switch (t) {
        case DType::Char: return static_cast<T>('A' + r % 26);
        case DType::Byte: return static_cast<T>(static_cast<std::int8_t>(r & 0x7f));
        case DType::Short: return static_cast<T>(static_cast<std::int16_t>(r & 0x7fff));
        case DType::Int: return static_cast<T>(static_cast<std::int32_t>(r & 0x7fffffff));
        case DType::Int64: return static_cast<T>(static_cast<std::int64_t>(r & 0x7fffffffffffull));
        case DType::Float:
        case DType::Double: return static_cast<T>(static_cast<double>(r & 0xFFFFFFu) / 256.0);
    }
    return T{};
}

template <class T, class F>
void for_each_element(const Selection& sel, F&& fn) {
    std::uint64_t pos = 0;
    sel.for_each_run([&](std::int64_t off, std::int64_t len) {
        for (std::int64_t i = 0; i < len; ++i) fn(pos++, static_cast<std::uint64_t>(off + i));
    });
}

template <class T>
void fill_typed(DType t, T* out, const Selection& sel, std::uint64_t key, std::uint64_t rec) {
    for_each_element<T>(sel, [&](std::uint64_t pos, std::uint64_t el) {
        out[pos] = store_as<T>(t, raw(key, el, rec));
    });
}

template <class T>
Mismatch check_typed(DType t, const T* in, const Selection& sel, std::uint64_t key,
                     std::uint64_t rec, const double* constant) {
    Mismatch m;
    const T c = constant ? static_cast<T>(*constant) : T{};
    std::uint64_t pos = 0;
    sel.for_each_run([&](std::int64_t off, std::int64_t len) {
        if (m.found) return;
        for (std::int64_t i = 0; i < len; ++i, ++pos) {
            const std::uint64_t el = static_cast<std::uint64_t>(off + i);
            const T want = constant ? c : store_as<T>(t, raw(key, el, rec));
            // compare bytes: exact, and NaN-safe for fill values
            if (std::memcmp(&want, &in[pos], sizeof(T)) != 0) {
                m = {true, el, pos, static_cast<double>(want), static_cast<double>(in[pos])};
                return;
            }
        }
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

void pattern_fill(DType t, void* buf, const Selection& sel, std::uint64_t key, std::uint64_t record) {
    dispatch(t, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        fill_typed<T>(t, static_cast<T*>(buf), sel, key, record);
        return 0;
    });
}

void fill_constant(DType t, void* buf, std::uint64_t n, double value) {
    dispatch(t, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        T* out = static_cast<T*>(buf);
        const T v = static_cast<T>(value);
        for (std::uint64_t i = 0; i < n; ++i) out[i] = v;
        return 0;
    });
}

Mismatch pattern_check(DType t, const void* buf, const Selection& sel, std::uint64_t key,
                       std::uint64_t record) {
    return dispatch(t, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        return check_typed<T>(t, static_cast<const T*>(buf), sel, key, record, nullptr);
    });
}

Mismatch constant_check(DType t, const void* buf, const Selection& sel, double constant) {
    return dispatch(t, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        return check_typed<T>(t, static_cast<const T*>(buf), sel, 0, 0, &constant);
    });
}

}  // namespace iok
