// HDF5 backends (`hdf5`, `hdf5_md`) on one rank: round trip through the
// backend, file contents checked with the raw HDF5 API (so a permutation bug
// that cancels between write and read is still caught), and corruption found.
#ifdef IOK_HAVE_HDF5
#include <hdf5.h>

#include <time.h>

#include <cstddef>
#include <cstdio>
#include <numeric>

#include "backends/hdf5_common.hpp"
#include "core/error.hpp"
#include "library_roundtrip_case.hpp"

namespace {

using namespace iok_test;

iok::BackendConfig config(bool collective = true) {
    iok::BackendConfig cfg;
    cfg.collective = collective;
    return cfg;
}

// Reads a whole dataset (as double) with the serial HDF5 API.
std::vector<double> raw_read(const std::string& path, const std::string& var, std::vector<hsize_t>* dims = nullptr) {
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    EXPECT_GE(f, 0);
    hid_t d = H5Dopen2(f, var.c_str(), H5P_DEFAULT);
    hid_t s = H5Dget_space(d);
    std::vector<double> out(H5Sget_simple_extent_npoints(s));
    if (dims) {
        dims->resize(H5Sget_simple_extent_ndims(s));
        H5Sget_simple_extent_dims(s, dims->data(), nullptr);
    }
    EXPECT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), 0);
    H5Sclose(s);
    H5Dclose(d);
    H5Fclose(f);
    return out;
}

// Overwrites one element of PS at (record, col) with the serial HDF5 API.
void corrupt_ps(const std::string& path, hsize_t record, hsize_t col) {
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    hid_t d = H5Dopen2(f, "PS", H5P_DEFAULT);
    hid_t fs = H5Dget_space(d);
    hsize_t start[2] = {record, col}, count[2] = {1, 1}, one = 1;
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, nullptr, count, nullptr);
    hid_t ms = H5Screate_simple(1, &one, nullptr);
    double bad = -12345.0;
    ASSERT_GE(H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, &bad), 0);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    H5Fclose(f);
}

// The file holds value_of(var, rec, flat) at every element the test writes:
// checked for the 3-D variable whose blocks interleave in file order.
void expect_file_contents(const Case& c, const std::string& path) {
    const int tv = c.spec.find_var("T");
    std::vector<hsize_t> dims;
    auto t = raw_read(path, "T", &dims);
    ASSERT_EQ(dims, (std::vector<hsize_t>{kRecords, kLev, kCol}));
    for (int r = 0; r < kRecords; ++r)
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(kLev * kCol); ++i)
            ASSERT_EQ(t[r * kLev * kCol + i], static_cast<float>(value_of(tv, r, i, DType::Float)))
                << "T record " << r << " element " << i;
    const int av = c.spec.find_var("area");
    auto area = raw_read(path, "area");
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(kCol); ++i)
        EXPECT_EQ(area[i], value_of(av, 0, i, DType::Double));
}

void round_trip(const std::string& writer, const std::string& reader, bool collective) {
    const std::string path = output_dir() + "/rt_" + writer + (collective ? "" : "_indep") + ".h5";
    Case c = make_case(path);
    auto w = iok::make_backend(writer, config(collective));
    const iok::BackendStats w_stats = write_case(*w, c);
    EXPECT_EQ(w_stats.bytes_put, expected_bytes(c));
    expect_file_contents(c, path);
    auto r = iok::make_backend(reader, config(collective));
    iok::BackendStats r_stats;
    EXPECT_EQ(read_mismatches(*r, c, &r_stats), 0u);
    EXPECT_EQ(r_stats.bytes_get, expected_bytes(c));
}

TEST(Hdf5Backend, RoundTripCollective) { round_trip("hdf5", "hdf5", true); }
TEST(Hdf5Backend, RoundTripIndependent) { round_trip("hdf5", "hdf5", false); }
TEST(Hdf5Backend, MultiDatasetRoundTrip) { round_trip("hdf5_md", "hdf5_md", true); }
TEST(Hdf5Backend, MultiDatasetWrittenPlainRead) { round_trip("hdf5_md", "hdf5", true); }

TEST(Hdf5Backend, CorruptedElementIsFound) {
    for (std::string be : {"hdf5", "hdf5_md"}) {
        const std::string path = output_dir() + "/corrupt_" + be + ".h5";
        Case c = make_case(path);
        auto w = iok::make_backend(be, config());
        write_case(*w, c);
        corrupt_ps(path, 1, 5);
        auto r = iok::make_backend(be, config());
        EXPECT_EQ(read_mismatches(*r, c), 1u) << be;
    }
}

TEST(Hdf5Backend, LibraryAndHintsReported) {
    auto b = iok::make_backend("hdf5", config());
    EXPECT_EQ(iok::backend_info(b->name()).library_version().rfind("HDF5 1.", 0), 0u)
        << iok::backend_info(b->name()).library_version();
    EXPECT_EQ(b->extension(), ".h5");
    const std::string path = output_dir() + "/hints.h5";
    Case c = make_case(path);
    auto bf = b->create(path, c.spec, MPI_COMM_WORLD);
    MPI_Info info = bf->info_in_effect();
    // The MPI-IO layer's own info object (OMPIO may report no keys).
    ASSERT_NE(info, MPI_INFO_NULL);
    MPI_Info_free(&info);
    bf->define(c.spec);
    bf->close();
}

TEST(Hdf5Backend, ErrorsNameTheFile) {
    auto b = iok::make_backend("hdf5", config());
    Case c = make_case("/nonexistent-dir/x.h5");
    try {
        auto bf = b->open("/nonexistent-dir/x.h5", c.spec, MPI_COMM_WORLD);
        FAIL() << "open of a missing file succeeded";
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.h5"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("H5F"), std::string::npos) << e.what();
        EXPECT_FALSE(e.hint().empty());
    }
}

TEST(Hdf5Backend, ReadingMissingRecordFails) {
    const std::string path = output_dir() + "/records.h5";
    Case c = make_case(path);
    auto w = iok::make_backend("hdf5", config());
    write_case(*w, c);
    auto r = iok::make_backend("hdf5", config());
    auto rf = r->open(path, c.spec, MPI_COMM_WORLD);
    std::vector<double> buf(kCol);
    EXPECT_THROW(rf->get(c.spec.find_var("PS"), c.sel[c.spec.find_var("PS")], kRecords, buf.data()), iok::Error);
    rf->close();
}

// File::sole_accessor (E3SM-IO's root-only writes): the sole rank moves the
// data independently -- same file, read back equal -- and a rank that is not
// it makes no data call but still extends the record dataset; a selection
// that is not empty there is refused.
TEST(Hdf5Backend, SoleAccessorWritesAloneAndOthersOnlyExtend) {
    const std::string path = output_dir() + "/sole.h5";
    Case c = make_case(path);
    const int ps = c.spec.find_var("PS");
    auto w = iok::make_backend("hdf5", config());
    const iok::BackendStats st = write_case(*w, c, [&](iok::File& f) {
        for (std::size_t v = 0; v < c.spec.vars.size(); ++v) f.sole_accessor(static_cast<int>(v), 0);  // this rank
    });
    EXPECT_EQ(st.bytes_put, expected_bytes(c));
    expect_file_contents(c, path);
    auto r = iok::make_backend("hdf5", config());
    EXPECT_EQ(read_mismatches(*r, c), 0u);

    const std::string other = output_dir() + "/not_sole.h5";
    Case d = make_case(other);
    const std::unique_ptr<iok::File> f = w->create(other, d.spec, MPI_COMM_WORLD);
    f->define(d.spec);
    f->sole_accessor(ps, 1);  // another rank: this one holds nothing of PS
    const Selection none(d.spec.fixed_shape(d.spec.vars[static_cast<std::size_t>(ps)]));
    for (int rec = 0; rec < 3; ++rec) f->put(ps, none, rec, nullptr);
    EXPECT_EQ(f->stats().calls_put, 0u);  // no H5Dwrite at all
    std::vector<char> buf = expected(d, ps, 0);
    try {
        f->put(ps, d.sel[static_cast<std::size_t>(ps)], 0, buf.data());
        FAIL() << "elements of another rank's variable were written";
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("alone"), std::string::npos) << e.what();
    }
    f->close();
    std::vector<hsize_t> dims;
    raw_read(other, "PS", &dims);
    EXPECT_EQ(dims, (std::vector<hsize_t>{3, kCol}));  // but every record's extent
}

// Many reversed blocks: the staging permutation must restore file order.
TEST(Hdf5Backend, ManyReversedBlocks) {
    const std::uint64_t n = 20000;
    std::vector<iok::Run> runs;
    for (std::int64_t o = n - 4; o >= 0; o -= 4) runs.push_back({o, 3});  // gaps of 1
    Selection s = Selection::from_runs({n}, runs);
    auto t = iok::h5::make_transfer({n}, s, -1, "test");
    ASSERT_EQ(t.order->size(), runs.size());
    EXPECT_EQ(t.order->front().buf_offset, static_cast<std::int64_t>(3 * (runs.size() - 1)));
    EXPECT_EQ(H5Sget_select_npoints(*t.file_space), static_cast<hssize_t>(s.elements()));
}

TEST(Hdf5Backend, OverlappingBlocksRejected) {
    Selection s = Selection::from_runs({10}, {{5, 3}, {2, 4}});
    EXPECT_THROW(iok::h5::make_transfer({10}, s, -1, "test"), iok::Error);
}

// CPU seconds this thread has used.  Not wall-clock time: that grows with
// whatever else shares the cores (the test flaked under a parallel build),
// while the work this test bounds does not.
double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// E3SM-sized selection: 190k sorted single-row blocks.  Adding them to one
// span tree one by one is quadratic (6.4 s of CPU here); the grouped union
// takes 0.3 s.  The bound is on CPU time, 16x the expected cost, so it fails
// for the quadratic build and not because the machine is busy.
TEST(Hdf5Backend, LargeSortedSelectionBuildsFast) {
    const std::int64_t nblocks = 190080, row = 18480;  // 72 rows of 2640 blocks of stride 7
    std::vector<iok::Run> runs;
    for (std::int64_t i = 0; i < nblocks; ++i) runs.push_back({i * 7, 3});
    Selection s = Selection::from_runs({72, static_cast<std::uint64_t>(row)}, runs);
    double t0 = thread_cpu_seconds();
    auto t = iok::h5::make_transfer({5, 72, s.shape()[1]}, s, 2, "big");
    const double cpu = thread_cpu_seconds() - t0;
    EXPECT_FALSE(t.permuted());
    EXPECT_EQ(H5Sget_select_npoints(*t.file_space), static_cast<hssize_t>(s.elements()));
    // Every row has the same columns, so HDF5 holds the union as 2640
    // blocks of 1 x 72 x 3: the first spans all rows at columns 0..2.
    const hssize_t hdf5_blocks = nblocks / 72;
    EXPECT_EQ(H5Sget_select_hyper_nblocks(*t.file_space), hdf5_blocks);
    hsize_t first[6] = {};
    H5Sget_select_hyper_blocklist(*t.file_space, 0, 1, first);
    EXPECT_EQ(std::vector<hsize_t>(first, first + 6), (std::vector<hsize_t>{2, 0, 0, 2, 71, 2}));
    hsize_t lo[3], hi[3];
    H5Sget_select_bounds(*t.file_space, lo, hi);
    EXPECT_EQ(lo[0], 2u);
    EXPECT_EQ(hi[0], 2u);
    EXPECT_EQ(hi[2], static_cast<hsize_t>(row - 7 + 2));  // last block of the last row: columns row-7 .. row-5
    EXPECT_LT(cpu, 5.0) << "hyperslab union of " << nblocks << " blocks: quadratic again?";
    // Another record through the cache: copied and shifted, same blocks.
    iok::h5::TransferCache cache;
    cache.get({5, 72, s.shape()[1]}, s, 2, "big");
    t0 = thread_cpu_seconds();
    auto t3 = cache.get({5, 72, s.shape()[1]}, s, 3, "big");
    const double cpu3 = thread_cpu_seconds() - t0;
    H5Sget_select_bounds(*t3.file_space, lo, hi);
    EXPECT_EQ(lo[0], 3u);
    EXPECT_EQ(hi[0], 3u);
    EXPECT_EQ(H5Sget_select_npoints(*t3.file_space), static_cast<hssize_t>(s.elements()));
    EXPECT_EQ(H5Sget_select_hyper_nblocks(*t3.file_space), hdf5_blocks);
    std::printf("[ info ] derived for another record in %.3f s CPU\n", cpu3);
    std::printf("[ info ] 190080-block hyperslab union built in %.3f s CPU\n", cpu);
}

// ---- arrays of structs (put_struct / get_struct)

struct Particle {  // three 4-byte fields, packed: 12 bytes
    float a;
    std::int32_t b;
    float c;
};
constexpr std::uint64_t kN = 16;

// Fields a, b, c of length kN; `compound` names a compound holding all three
// ("" = a dataset each; "=" = a one-member compound each, as h5bench's
// INTERLEAVED->CONTIG).
FileSpec struct_spec(const std::string& path, const std::string& compound) {
    FileSpec f;
    f.path = path;
    f.label = "structs";
    f.dims = {{"n", kN, false}};
    const char* names[] = {"a", "b", "c"};
    for (int k = 0; k < 3; ++k) {
        iok::VarSpec v;
        v.name = names[k];
        v.type = k == 1 ? DType::Int : DType::Float;
        v.dims = {0};
        v.compound = compound == "=" ? v.name : compound;
        f.vars.push_back(v);
    }
    return f;
}

iok::StructBuffer struct_buffer(std::vector<Particle>& p) {
    return {
        {0, 1, 2}, {offsetof(Particle, a), offsetof(Particle, b), offsetof(Particle, c)}, sizeof(Particle), p.data()};
}

// Writes particles i -> (i + 0.5, 100 + i, -i) with put_struct from `be`,
// checks the library call count, reads them back with get_struct and with
// packed get() per field.
// `read_native` false: the backend must decline get_struct (the caller packs).
void struct_round_trip(const std::string& be, const std::string& compound, std::uint64_t expected_calls,
                       bool read_native = true) {
    const std::string path = output_dir() + "/structs_" + be + "_" +
                             (compound.empty()  ? "plain"
                              : compound == "=" ? "one"
                                                : "all") +
                             ".h5";
    FileSpec spec = struct_spec(path, compound);
    Selection sel({kN});
    std::int64_t st = 0, ct = static_cast<std::int64_t>(kN);
    sel.add_block(&st, &ct);
    std::vector<Particle> out(kN);
    for (std::uint64_t i = 0; i < kN; ++i)
        out[i] = {i + 0.5f, static_cast<std::int32_t>(100 + i), -static_cast<float>(i)};
    {
        auto w = iok::make_backend(be, config());
        auto wf = w->create(path, spec, MPI_COMM_SELF);
        wf->define(spec);
        ASSERT_TRUE(wf->put_struct(struct_buffer(out), sel, -1)) << be << " " << compound;
        wf->flush();
        wf->close();
        EXPECT_EQ(wf->stats().calls_put, expected_calls) << be << " " << compound;
        EXPECT_EQ(wf->stats().bytes_put, kN * 12);
    }
    auto r = iok::make_backend(be, config());
    auto rf = r->open(path, spec, MPI_COMM_SELF);
    std::vector<Particle> in(kN, Particle{-1, -1, -1});
    ASSERT_EQ(rf->get_struct(struct_buffer(in), sel, -1), read_native) << be << " " << compound;
    if (!read_native) in = out;  // declined: nothing to compare
    std::vector<float> a(kN);
    std::vector<std::int32_t> b(kN);
    rf->get(0, sel, -1, a.data());
    rf->get(1, sel, -1, b.data());
    rf->flush();
    rf->close();
    for (std::uint64_t i = 0; i < kN; ++i) {
        EXPECT_EQ(in[i].a, out[i].a) << be << " " << compound << " " << i;
        EXPECT_EQ(in[i].b, out[i].b) << i;
        EXPECT_EQ(in[i].c, out[i].c) << i;
        EXPECT_EQ(a[i], out[i].a) << i;
        EXPECT_EQ(b[i], out[i].b) << i;
    }
    if (compound.empty()) {  // plain datasets: the serial API sees the values too
        auto c = raw_read(path, "c");
        for (std::uint64_t i = 0; i < kN; ++i) EXPECT_EQ(c[i], out[i].c) << i;
    }
}

TEST(Hdf5Backend, StructsIntoPlainDatasets) {
    for (std::string be : {"hdf5", "hdf5_md"}) struct_round_trip(be, "", 3);
}
TEST(Hdf5Backend, StructsIntoOneCompound) {
    for (std::string be : {"hdf5", "hdf5_md"}) struct_round_trip(be, "particles", 1);
}
TEST(Hdf5Backend, StructsIntoOneMemberCompounds) {
    struct_round_trip("hdf5", "=", 3);
    // H5Dread_multi into parts of one struct leaves the buffer untouched
    // (HDF5 1.14.5): hdf5_md declines such reads rather than return nothing.
    struct_round_trip("hdf5_md", "=", 3, false);
}

// Layouts HDF5 cannot be handed as they are: the backend declines (the
// runner then packs), and does not half-write anything.
TEST(Hdf5Backend, StructsItCannotDescribeAreDeclined) {
    const std::string path = output_dir() + "/structs_declined.h5";
    FileSpec spec = struct_spec(path, "");
    auto w = iok::make_backend("hdf5", config());
    auto wf = w->create(path, spec, MPI_COMM_SELF);
    wf->define(spec);
    Selection reversed({kN});  // blocks out of file order
    for (std::int64_t s : {8, 0}) {
        std::int64_t ct = 8;
        reversed.add_block(&s, &ct);
    }
    std::vector<Particle> p(kN);
    EXPECT_FALSE(wf->put_struct(struct_buffer(p), reversed, -1));
    Selection all({kN});
    std::int64_t st = 0, ct = static_cast<std::int64_t>(kN);
    all.add_block(&st, &ct);
    std::vector<unsigned char> odd(kN * 13);  // 13-byte structs: floats off their 4-byte grid
    iok::StructBuffer b{{0, 1, 2}, {0, 5, 9}, 13, odd.data()};
    EXPECT_FALSE(wf->put_struct(b, all, -1));
    EXPECT_EQ(wf->stats().calls_put, 0u);
    wf->close();
}

}  // namespace
#endif
