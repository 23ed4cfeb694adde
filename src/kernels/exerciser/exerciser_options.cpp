#include "kernels/exerciser/exerciser_options.hpp"

#include "core/error.hpp"

namespace iok::exerciser {

void Options::add_to(CLI::App& app) {
    app.add_option("--numdims", numdims, "dimensions of the datasets, 1..4 (more: 4, with a warning); required")
        ->required();
    app.add_option("--minels", minels, "elements per rank along each dimension at the first size [default: 8 ...]")
        ->expected(1, kMaxDims);
    app.add_option("--nsizes", nsizes, "buffer sizes to run (each grows by --bufmult) [default: 1]");
    app.add_option("--bufmult", bufmult, "growth factor of each dimension from one size to the next [default: 2 ...]")
        ->expected(1, kMaxDims);
    app.add_option("--dimranks", dimranks,
                   "ranks along each dimension (product = rank count, else dimension 0 holds every rank, with a "
                   "warning) [default: 1 ...]")
        ->expected(1, kMaxDims);
    app.add_option("--rshift", rshift,
                   "rank shift: rank r writes the block of rank r+N and reads that of r+2N (mod ranks) [default: 0]");
    app.add_option("--memblock", memblock,
                   "memory block of the double buffer (1-D hyperslab; elements); 0 or not dividing: contiguous "
                   "[default: 0]");
    app.add_option("--memstride", memstride, "memory stride of --memblock [default: 1]");
    app.add_option("--fileblocks", fileblocks,
                   "file hyperslab block per dimension (must divide the elements, else one block) [default: 0 ...]")
        ->expected(1, kMaxDims);
    app.add_option("--filestrides", filestrides, "file hyperslab stride per dimension [default: 1 ...]")
        ->expected(1, kMaxDims);
    app.add_option("--maxcheck", maxcheck,
                   "the original verifies buffers up to this many bytes; here every buffer is verified "
                   "[default: 17179869184]");
    app.add_flag("--metacoll", metacoll, "collective metadata reads and writes (hdf5.collective_metadata=1)");
    app.add_flag("--derivedtype", derivedtype,
                 "also write the compound dataset /Data/derivedData/simulation parameters (needs compound files)");
    app.add_flag("--addattr", addattr, "write 64 attributes of 1024 chars on /Data");
    app.add_flag("--indepio", indepio, "independent data transfers (default: collective)");
    app.add_flag("--keepfile", keepfile, "keep the file at the end (default: removed, as the original)");
    app.add_flag("--usechunked", usechunked, "chunked datasets, one chunk per rank's block");
    app.add_flag("--read-only", read_only,
                 "only read the file a --keepfile run left (its last size's last iteration) at the doubly shifted "
                 "place and verify it (iokernels; needs -o)");
    app.add_option("-o,--output", path, "the file (iokernels; default: hdf5TestFile-<random>, as the original)");
}

namespace {

template <class T>
void per_dim(std::vector<T>& v, int n, T dflt, const char* flag) {
    if (v.empty()) v.assign(static_cast<std::size_t>(n), dflt);
    if (static_cast<int>(v.size()) != n)
        throw Error(
            std::string(flag) + " has " + std::to_string(v.size()) + " value(s) but --numdims is " + std::to_string(n),
            std::string("give one value per dimension, e.g. --numdims 2 ") + flag + " 8 8");
    v.resize(kMaxDims, dflt);
}

}  // namespace

std::string Options::resolve(int nprocs) {
    std::string warning;
    if (numdims < 1)
        throw Error("--numdims " + std::to_string(numdims) + ": at least one dimension", "e.g. --numdims 2");
    if (numdims > kMaxDims) {
        warning = "WARNING: Maximum of 4 dimensions is suppported -- Using numDims = 4";
        numdims = kMaxDims;
    }
    per_dim(minels, numdims, 8, "--minels");
    per_dim(bufmult, numdims, 2, "--bufmult");
    per_dim(dimranks, numdims, 1, "--dimranks");
    per_dim(fileblocks, numdims, std::int64_t{0}, "--fileblocks");
    per_dim(filestrides, numdims, std::int64_t{1}, "--filestrides");
    if (nsizes < 1) throw Error("--nsizes " + std::to_string(nsizes) + ": at least one size", "e.g. --nsizes 3");
    for (int d = 0; d < numdims; ++d) {
        const auto i = static_cast<std::size_t>(d);
        if (minels[i] < 1)
            throw Error("--minels: " + std::to_string(minels[i]) + " elements along dimension " + std::to_string(d),
                        "every dimension needs at least one element");
        if (bufmult[i] < 1)
            throw Error("--bufmult: " + std::to_string(bufmult[i]) + " along dimension " + std::to_string(d),
                        "each dimension grows by a factor of 1 or more");
        if (dimranks[i] < 1)
            throw Error("--dimranks: " + std::to_string(dimranks[i]) + " ranks along dimension " + std::to_string(d),
                        "give at least one rank per dimension");
        if (fileblocks[i] < 0 || filestrides[i] < 0) throw Error("--fileblocks/--filestrides must not be negative");
    }
    if (rshift < 0) throw Error("--rshift " + std::to_string(rshift) + " is negative", "give a shift >= 0");
    if (memblock < 0 || memstride < 0) throw Error("--memblock/--memstride must not be negative");
    long long domains = 1;
    for (int d = 0; d < numdims; ++d) domains *= dimranks[static_cast<std::size_t>(d)];
    if (domains != nprocs) {
        warning += std::string(warning.empty() ? "" : "\n") + "WARNING!! - ndomains: " + std::to_string(domains) +
                   " must be: " + std::to_string(nprocs) + ". Only dividing dim-0";
        for (auto& r : dimranks) r = 1;
        dimranks[0] = nprocs;
    }
    // Sizes grow geometrically: refuse one that overflows the original's int element count.
    long double els = 1;
    for (int d = 0; d < numdims; ++d) {
        const auto i = static_cast<std::size_t>(d);
        long double n = minels[i];
        for (int s = 1; s < nsizes; ++s) n *= bufmult[i];
        els *= n;
    }
    if (els >= 2147483647.0L)
        throw Error("the last buffer size has " + std::to_string(static_cast<double>(els)) +
                        " elements per rank, more than the original's int can count",
                    "lower --nsizes, --minels or --bufmult");
    return warning;
}

std::vector<std::uint64_t> location(const Options& o, int rank) {
    std::vector<std::uint64_t> loc(static_cast<std::size_t>(o.numdims));
    auto cary = static_cast<std::uint64_t>(rank);
    for (int i = o.numdims - 1; i >= 0; --i) {
        const auto r = static_cast<std::uint64_t>(o.dimranks[static_cast<std::size_t>(i)]);
        loc[static_cast<std::size_t>(i)] = cary % r;
        cary /= r;
    }
    return loc;
}

Geometry geometry(const Options& o, int size_index) {
    Geometry g;
    g.ndims = o.numdims;
    g.elements = 1;
    for (int d = 0; d < o.numdims; ++d) {
        const auto i = static_cast<std::size_t>(d);
        std::uint64_t n = static_cast<std::uint64_t>(o.minels[i]);
        for (int s = 0; s < size_index; ++s) n *= static_cast<std::uint64_t>(o.bufmult[i]);
        g.nels.push_back(n);
        g.elements *= n;
        std::uint64_t block = static_cast<std::uint64_t>(o.fileblocks[i]);
        std::uint64_t stride = static_cast<std::uint64_t>(o.filestrides[i]);
        std::uint64_t count = 1;
        if (block < 1 || n % block != 0) {
            block = stride = n;
        } else {
            count = n / block;
            if (stride < block) stride = block;
        }
        g.block.push_back(block);
        g.stride.push_back(stride);
        g.count.push_back(count);
        g.dims.push_back(stride * count * static_cast<std::uint64_t>(o.dimranks[i]));
        g.derived_dims.push_back(n * static_cast<std::uint64_t>(o.dimranks[i]));
    }
    g.buf_bytes = 8 * g.elements;
    g.derived_elements = g.elements;
    // The memory hyperslab: with a block dividing the elements, the buffer
    // holds stride x count elements (and the dataset's name says so).
    if (o.memblock >= 1 && g.elements % static_cast<std::uint64_t>(o.memblock) == 0) {
        const auto block = static_cast<std::uint64_t>(o.memblock);
        const std::uint64_t stride = std::max<std::uint64_t>(static_cast<std::uint64_t>(o.memstride), block);
        g.elements = stride * (g.elements / block);
    }
    return g;
}

}  // namespace iok::exerciser
