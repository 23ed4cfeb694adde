#include "type_flatten.hpp"

#include <algorithm>
#include <cstring>

namespace iokcap {
namespace {

// Types bigger than this (true extent) with an unknown constructor are not
// flattened by the marker fallback: the scratch buffer would be too large.
constexpr std::int64_t kMarkerLimit = 256LL << 20;

void emit(std::vector<ByteRun>& out, std::int64_t off, std::int64_t len) {
    if (len <= 0) return;
    if (!out.empty() && out.back().off + out.back().len == off)
        out.back().len += len;
    else
        out.push_back({off, len});
}

struct TypeInfo {
    std::int64_t size = 0, lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    bool dense() const { return size == extent && true_lb == 0 && true_extent == size; }
};

TypeInfo info_of(MPI_Datatype t) {
    TypeInfo i;
    int size = 0;
    PMPI_Type_size(t, &size);
    MPI_Aint lb = 0, ext = 0, tlb = 0, text = 0;
    PMPI_Type_get_extent(t, &lb, &ext);
    PMPI_Type_get_true_extent(t, &tlb, &text);
    i.size = size;
    i.lb = lb;
    i.extent = ext;
    i.true_lb = tlb;
    i.true_extent = text;
    return i;
}

// Fallback: unpack a stream of 0xFF bytes into a zeroed buffer; the bytes
// that turn 0xFF are the type's.  Gives them in address order, which is the
// order file views need anyway (monotone displacements).
bool flatten_by_marker(MPI_Datatype t, std::int64_t base, std::vector<ByteRun>& out) {
    const TypeInfo ti = info_of(t);
    if (ti.true_extent > kMarkerLimit || ti.size > kMarkerLimit) return false;
    if (ti.size == 0) return true;
    std::vector<unsigned char> buf(static_cast<std::size_t>(ti.true_extent), 0);
    std::vector<unsigned char> stream(static_cast<std::size_t>(ti.size), 0xFF);
    int pos = 0;
    if (PMPI_Unpack(stream.data(), static_cast<int>(stream.size()), &pos, buf.data() - ti.true_lb, 1, t,
                    MPI_COMM_SELF) != MPI_SUCCESS)
        return false;
    std::int64_t i = 0;
    const std::int64_t n = ti.true_extent;
    while (i < n) {
        if (!buf[static_cast<std::size_t>(i)]) {
            ++i;
            continue;
        }
        std::int64_t j = i;
        while (j < n && buf[static_cast<std::size_t>(j)]) ++j;
        emit(out, base + ti.true_lb + i, j - i);
        i = j;
    }
    return true;
}

bool flatten_rec(MPI_Datatype t, std::int64_t base, std::vector<ByteRun>& out, int depth);

// `count` instances of `old` starting at `base`, `stride` bytes apart.
bool repeat(MPI_Datatype old, const TypeInfo& oi, std::int64_t count, std::int64_t base, std::int64_t stride,
            std::vector<ByteRun>& out, int depth) {
    if (count <= 0) return true;
    if (oi.dense()) {
        if (stride == oi.extent) {
            emit(out, base, count * oi.size);
            return true;
        }
        for (std::int64_t i = 0; i < count; ++i) emit(out, base + i * stride, oi.size);
        return true;
    }
    for (std::int64_t i = 0; i < count; ++i)
        if (!flatten_rec(old, base + i * stride, out, depth + 1)) return false;
    return true;
}

bool flatten_subarray(const std::vector<int>& ints, MPI_Datatype old, std::int64_t base, std::vector<ByteRun>& out,
                      int depth) {
    const int nd = ints[0];
    std::vector<std::int64_t> sizes(nd), sub(nd), start(nd);
    for (int d = 0; d < nd; ++d) {
        sizes[d] = ints[1 + d];
        sub[d] = ints[1 + nd + d];
        start[d] = ints[1 + 2 * nd + d];
    }
    if (ints[1 + 3 * nd] == MPI_ORDER_FORTRAN) {  // fastest first: reverse to C order
        std::reverse(sizes.begin(), sizes.end());
        std::reverse(sub.begin(), sub.end());
        std::reverse(start.begin(), start.end());
    }
    for (int d = 0; d < nd; ++d)
        if (sub[d] == 0) return true;
    const TypeInfo oi = info_of(old);
    std::vector<std::int64_t> stride(nd, 1);
    for (int d = nd - 1; d > 0; --d) stride[d - 1] = stride[d] * sizes[d];
    std::vector<std::int64_t> idx(nd, 0);
    for (;;) {  // one row of the fastest dimension per step
        std::int64_t lin = start[nd - 1];
        for (int d = 0; d + 1 < nd; ++d) lin += (start[d] + idx[d]) * stride[d];
        if (!repeat(old, oi, sub[nd - 1], base + lin * oi.extent, oi.extent, out, depth)) return false;
        int d = nd - 2;
        for (; d >= 0; --d) {
            if (++idx[d] < sub[d]) break;
            idx[d] = 0;
        }
        if (d < 0) break;
    }
    return true;
}

bool flatten_rec(MPI_Datatype t, std::int64_t base, std::vector<ByteRun>& out, int depth) {
    if (depth > 64) return flatten_by_marker(t, base, out);
    int ni = 0, na = 0, nt = 0, combiner = 0;
    PMPI_Type_get_envelope(t, &ni, &na, &nt, &combiner);
    if (combiner == MPI_COMBINER_NAMED) {
        const TypeInfo ti = info_of(t);
        if (ti.true_extent == ti.size)
            emit(out, base + ti.true_lb, ti.size);
        else
            return flatten_by_marker(t, base, out);  // pair types (MPI_DOUBLE_INT) have holes
        return true;
    }
    std::vector<int> ints(static_cast<std::size_t>(ni));
    std::vector<MPI_Aint> aints(static_cast<std::size_t>(na));
    std::vector<MPI_Datatype> types(static_cast<std::size_t>(nt));
    PMPI_Type_get_contents(t, ni, na, nt, ints.data(), aints.data(), types.data());
    bool ok = true;
    const auto old_info = [&](int k) { return info_of(types[static_cast<std::size_t>(k)]); };
    switch (combiner) {
        case MPI_COMBINER_DUP: ok = flatten_rec(types[0], base, out, depth + 1); break;
        case MPI_COMBINER_RESIZED:  // the extent changes, the bytes do not
            ok = flatten_rec(types[0], base, out, depth + 1);
            break;
        case MPI_COMBINER_CONTIGUOUS: {
            const TypeInfo oi = old_info(0);
            ok = repeat(types[0], oi, ints[0], base, oi.extent, out, depth);
            break;
        }
        case MPI_COMBINER_VECTOR:
        case MPI_COMBINER_HVECTOR: {
            const TypeInfo oi = old_info(0);
            const std::int64_t stride = combiner == MPI_COMBINER_VECTOR ? ints[2] * oi.extent : aints[0];
            for (int i = 0; ok && i < ints[0]; ++i)
                ok = repeat(types[0], oi, ints[1], base + i * stride, oi.extent, out, depth);
            break;
        }
        case MPI_COMBINER_INDEXED:
        case MPI_COMBINER_HINDEXED: {
            const TypeInfo oi = old_info(0);
            const int n = ints[0];
            for (int i = 0; ok && i < n; ++i) {
                const std::int64_t d = combiner == MPI_COMBINER_INDEXED ? ints[1 + n + i] * oi.extent : aints[i];
                ok = repeat(types[0], oi, ints[1 + i], base + d, oi.extent, out, depth);
            }
            break;
        }
        case MPI_COMBINER_INDEXED_BLOCK:
        case MPI_COMBINER_HINDEXED_BLOCK: {
            const TypeInfo oi = old_info(0);
            const int n = ints[0];
            for (int i = 0; ok && i < n; ++i) {
                const std::int64_t d = combiner == MPI_COMBINER_INDEXED_BLOCK ? ints[2 + i] * oi.extent : aints[i];
                ok = repeat(types[0], oi, ints[1], base + d, oi.extent, out, depth);
            }
            break;
        }
        case MPI_COMBINER_STRUCT: {
            const int n = ints[0];
            for (int i = 0; ok && i < n; ++i) {
                const TypeInfo oi = old_info(i);
                ok =
                    repeat(types[static_cast<std::size_t>(i)], oi, ints[1 + i], base + aints[i], oi.extent, out, depth);
            }
            break;
        }
        case MPI_COMBINER_SUBARRAY: ok = flatten_subarray(ints, types[0], base, out, depth); break;
        default:  // DARRAY, F90 types, anything newer
            ok = flatten_by_marker(t, base, out);
            break;
    }
    // Types returned by get_contents that are not predefined are new handles.
    for (MPI_Datatype& x : types) {
        int a = 0, b = 0, c = 0, comb = 0;
        PMPI_Type_get_envelope(x, &a, &b, &c, &comb);
        if (comb != MPI_COMBINER_NAMED) PMPI_Type_free(&x);
    }
    return ok;
}

}  // namespace

bool flatten_type(MPI_Datatype type, std::int64_t base, std::vector<ByteRun>& out) {
    return flatten_rec(type, base, out, 0);
}

bool contiguous_in_memory(MPI_Datatype type, int count) {
    const TypeInfo ti = info_of(type);
    return ti.true_extent == ti.size && (count <= 1 || ti.extent == ti.size);
}

}  // namespace iokcap
