// mpiio backend: round trips in collective and independent mode, the raw
// canonical layout byte for byte, the selection->datatype conversion (order,
// overlap, >2 GiB splitting), error messages, and a corrupted byte caught.
#include <climits>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "backends/mpiio_datatypes.hpp"
#include "backends/raw_layout.hpp"
#include "core/error.hpp"
#include "pnc_mpiio_roundtrip.hpp"

namespace {

using namespace pnc_test;

std::unique_ptr<iok::Backend> make(bool collective, const std::string& sync = "0", bool aggregate = false) {
    iok::BackendConfig cfg;
    cfg.collective = collective;
    cfg.params["mpiio.sync"] = sync;
    cfg.params["mpiio.aggregate"] = aggregate ? "1" : "0";
    return iok::make_backend("mpiio", cfg);
}

TEST(RawLayout, FixedVariablesThenRecords) {
    Case c = make_case("unused");
    iok::RawLayout l = iok::raw_layout(c.spec);
    // fixed: ndbase 4, lev 24, area 40, mask 10, ilev 60, gid 80, cube 480, unwritten 40
    EXPECT_EQ(l.fixed_bytes, 4u + 24 + 40 + 10 + 60 + 80 + 480 + 40);
    EXPECT_EQ(l.offset(1, -1), 4u);
    EXPECT_EQ(l.offset(6, 99), 4u + 24 + 40 + 10 + 60 + 80);  // record ignored for fixed vars
    // record: date 8, time 8, time_bnds 16, PS 80, T 240, nstep 4, flags 20
    EXPECT_EQ(l.record_bytes, 8u + 8 + 16 + 80 + 240 + 4 + 20);
    EXPECT_EQ(l.offset(8, 0), l.fixed_bytes);
    EXPECT_EQ(l.offset(11, 2), l.fixed_bytes + 2 * l.record_bytes + 8 + 8 + 16);
    EXPECT_EQ(l.file_bytes(kRecords), l.fixed_bytes + kRecords * l.record_bytes);
    EXPECT_THROW(l.offset(11, -1), iok::Error);
    EXPECT_THROW(l.offset(15, 0), iok::Error);
}

class MpiioRoundTrip : public ::testing::TestWithParam<std::tuple<bool, bool>> {};

TEST_P(MpiioRoundTrip, WritesTheRawLayoutAndReadsItBack) {
    const auto [coll, agg] = GetParam();
    const std::string path =
        out_dir() + std::string("/mpiio_") + (coll ? "coll" : "indep") + (agg ? "_agg" : "") + ".bin";
    Case c = make_case(path);
    auto w = make(coll, coll ? "1" : "0", agg);
    const iok::BackendStats w_stats = write_case(*w, c);
    EXPECT_EQ(w_stats.bytes_put, expected_bytes(c));
    EXPECT_EQ(w_stats.calls_put, 8u + 7u * kRecords);
    auto r = make(coll, "0", agg);
    iok::BackendStats r_stats;
    EXPECT_EQ(read_mismatches(*r, c, &r_stats), 0u);
    EXPECT_EQ(r_stats.bytes_get, expected_bytes(c));

    // The bytes where raw_layout says they are (checked without MPI).
    const iok::RawLayout l = iok::raw_layout(c.spec);
    EXPECT_EQ(std::filesystem::file_size(path), l.file_bytes(kRecords));
    std::ifstream in(path, std::ios::binary);
    double ps = 0;
    in.seekg(static_cast<std::streamoff>(l.offset(11, 2) + 6 * sizeof(double)));
    in.read(reinterpret_cast<char*>(&ps), sizeof ps);
    EXPECT_EQ(ps, value_of(11, 2, 6, DType::Double));
    float t = 0;
    in.seekg(static_cast<std::streamoff>(l.offset(12, 1) + 37 * sizeof(float)));
    in.read(reinterpret_cast<char*>(&t), sizeof t);
    EXPECT_EQ(t, static_cast<float>(value_of(12, 1, 37, DType::Float)));
    // 'unwritten' (a hole in the fixed section) is not asserted: ROMIO's data
    // sieving writes back whatever it read there (-1 seen), as with PnetCDF.
}

INSTANTIATE_TEST_SUITE_P(Modes, MpiioRoundTrip, ::testing::Combine(::testing::Bool(), ::testing::Bool()),
                         [](const auto& p) {
                             return std::string(std::get<0>(p.param) ? "collective" : "independent") +
                                    (std::get<1>(p.param) ? "_aggregated" : "");
                         });

TEST(MpiioBackend, AggregatedBatchWithTheSameVariableTwice) {
    // Data and fill runs of one variable in one flush: the batch is split so
    // that the view's displacements stay monotonic.
    Case c = make_case(out_dir() + "/mpiio_twice.bin");
    auto w = make(true, "0", true);
    auto wf = w->create(c.spec.path, c.spec, MPI_COMM_WORLD);
    const int area = 2;
    auto holes = rank() == 0 ? Selection::from_runs({kCol}, {{5, 2}, {0, 2}}) : Selection({kCol});
    auto data = expected(c, area, 0);
    std::vector<float> fill(4, 1e20f);
    wf->put(area, c.sel[area], -1, data.data());
    wf->put(area, holes, -1, fill.data());
    wf->flush();
    wf->close();
    auto r = make(true, "0", true);
    auto rf = r->open(c.spec.path, c.spec, MPI_COMM_WORLD);
    std::vector<float> all(kCol, -1);
    // elements 0..8: element 9 was never written and lies past the file's end
    auto whole = rank() == 0 ? Selection::from_runs({kCol}, {{0, 9}}) : Selection({kCol});
    rf->get(area, whole, -1, all.data());
    rf->flush();
    rf->close();
    if (rank() == 0) {
        EXPECT_EQ(all[0], 1e20f);
        EXPECT_EQ(all[6], 1e20f);
        EXPECT_EQ(all[3], static_cast<float>(value_of(area, 0, 3, DType::Float)));
        EXPECT_EQ(all[8], static_cast<float>(value_of(area, 0, 8, DType::Float)));
    }
}

TEST(MpiioBackend, CorruptedValueIsCaught) {
    Case c = make_case(out_dir() + "/mpiio_corrupt.bin");
    auto w = make(true);
    write_case(*w, c);
    corrupt_byte(c.spec.path, iok::raw_layout(c.spec).offset(6, 0) + 17 * 8 + 3);  // cube element 17
    auto r = make(true);
    EXPECT_EQ(read_mismatches(*r, c), 1u);
}

TEST(MpiioBackend, ShortFileIsAnErrorNotStaleData) {
    Case c = make_case(out_dir() + "/mpiio_short.bin");
    auto w = make(true);
    write_case(*w, c);
    const iok::RawLayout l = iok::raw_layout(c.spec);
    if (rank() == 0) std::filesystem::resize_file(c.spec.path, l.file_bytes(kRecords - 1));
    MPI_Barrier(MPI_COMM_WORLD);
    auto r = make(true);
    auto rf = r->open(c.spec.path, c.spec, MPI_COMM_WORLD);
    const int T = 12;
    std::vector<char> buf(std::max<std::uint64_t>(1, c.sel[T].elements()) * 4);
    // Only ranks holding part of T see the short read; all enter the call.
    bool threw = false;
    try {
        rf->get(T, c.sel[T], kRecords - 1, buf.data());
    } catch (const iok::Error& e) {
        threw = true;
        EXPECT_NE(std::string(e.what()).find("cannot read variable T record 2"), std::string::npos) << e.what();
    }
    EXPECT_EQ(threw, !c.sel[T].empty());
    rf->close();
}

TEST(MpiioBackend, CreateInMissingDirectorySaysWhatToDo) {
    Case c = make_case("/nonexistent_iok_dir/sub/out.bin");
    auto w = make(true);
    try {
        auto wf = w->create(c.spec.path, c.spec, MPI_COMM_WORLD);
        FAIL() << "create in a missing directory succeeded";
    } catch (const iok::Error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot create /nonexistent_iok_dir/sub/out.bin"), std::string::npos)
            << e.what();
        EXPECT_EQ(e.hint(), "does the output directory exist?");
    }
}

TEST(MpiioBackend, RejectsBadParameters) {
    EXPECT_THROW(make(true, "yes"), iok::Error);
    iok::BackendConfig cfg;
    cfg.params["mpiio.aggregate"] = "2";
    EXPECT_THROW(iok::make_backend("mpiio", cfg), iok::Error);
}

TEST(MpiioBackend, LibraryNamesTheMpiioLayer) {
    Case c = make_case(out_dir() + "/mpiio_info.bin");
    auto w = make(true);
    auto wf = w->create(c.spec.path, c.spec, MPI_COMM_WORLD);
    EXPECT_NE(wf->library().find("MPI-IO layer"), std::string::npos) << wf->library();
    MPI_Info info = wf->info_in_effect();
    ASSERT_NE(info, MPI_INFO_NULL);
    MPI_Info_free(&info);
    wf->close();
}

// --- the datatype builder, without I/O --------------------------------------

MPI_Count type_size(MPI_Datatype t) {
    MPI_Count s = 0;
    MPI_Type_size_x(t, &s);
    return s;
}

TEST(SelectionTypes, InFileOrderTheMemorySideIsContiguous) {
    auto s = Selection::from_runs({100}, {{10, 5}, {15, 5}, {40, 2}});
    auto t = iok::SelectionTypes::build(s, 8, MPI_BYTE, 1);
    EXPECT_FALSE(t.permuted());
    EXPECT_EQ(t.file_blocks(), 2u);  // adjacent runs merged
    EXPECT_EQ(t.memory(), MPI_BYTE);
    EXPECT_EQ(t.memory_count(), 12 * 8);
    EXPECT_EQ(type_size(t.file()), 12 * 8);
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_get_true_extent(t.file(), &lb, &extent);
    EXPECT_EQ(lb, 80);
    EXPECT_EQ(extent, 42 * 8 - 80);
}

TEST(SelectionTypes, OutOfOrderRunsPermuteTheMemorySide) {
    auto s = Selection::from_runs({100}, {{40, 2}, {10, 5}});
    auto t = iok::SelectionTypes::build(s, 4, MPI_FLOAT, 4);
    EXPECT_TRUE(t.permuted());
    EXPECT_EQ(t.memory_count(), 1);
    // Packing through the memory type yields the buffer in file order.
    float buf[7] = {40, 41, 10, 11, 12, 13, 14}, packed[7];
    int pos = 0;
    MPI_Pack(buf, 1, t.memory(), packed, sizeof packed, &pos, MPI_COMM_SELF);
    EXPECT_EQ(pos, 28);
    EXPECT_EQ(packed[0], 10);
    EXPECT_EQ(packed[4], 14);
    EXPECT_EQ(packed[5], 40);
}

TEST(SelectionTypes, OverlapIsRejected) {
    auto s = Selection::from_runs({100}, {{10, 5}, {12, 5}});
    EXPECT_THROW(iok::SelectionTypes::build(s, 8, MPI_BYTE, 1), iok::Error);
}

TEST(SelectionTypes, MoreThanTwoGiBIsSplitNotTruncated) {
    const std::uint64_t n = (std::uint64_t{3} << 30) + 5;  // elements of 1 byte: > INT_MAX
    auto t = iok::SelectionTypes::build(Selection::whole({n}), 1, MPI_BYTE, 1);
    EXPECT_EQ(t.file_blocks(), 4u);
    EXPECT_EQ(static_cast<std::uint64_t>(type_size(t.file())), n);
    EXPECT_EQ(t.memory_count(), 1);
    EXPECT_EQ(static_cast<std::uint64_t>(type_size(t.memory())), n);
    auto empty = iok::SelectionTypes::build(Selection({n}), 1, MPI_BYTE, 1);
    EXPECT_EQ(empty.file(), MPI_DATATYPE_NULL);
    EXPECT_EQ(empty.memory_count(), 0);
}

}  // namespace
