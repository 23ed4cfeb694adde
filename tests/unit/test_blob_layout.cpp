// Layout of blob and log outputs: index JSON round trips, the subfile's
// FileSpec (1-D variables, shared length dimensions, zero-length variables
// left out), rank offsets, block ints, log index serialisation, and the
// refusal of corrupt metadata.
#include <gtest/gtest.h>

#include "backends/strategy_blob_layout.hpp"
#include "backends/strategy_log_layout.hpp"
#include "core/error.hpp"

namespace {

using namespace iok;

FileSpec small_spec() {
    FileSpec f;
    f.label = "h0";
    f.dims = {{"time", 0, true}, {"lev", 3, false}, {"ncol", 10, false}};
    VarSpec t;
    t.name = "T";
    t.type = DType::Float;
    t.dims = {0, 1, 2};
    t.decomp = 0;
    t.fill_value = 1e36;
    t.attrs = {Attr::Text("units", "K"), Attr::Number("valid", DType::Float, {0.5, 400.25})};
    VarSpec lat;
    lat.name = "lat";
    lat.dims = {2};
    VarSpec scalar;
    scalar.name = "ndays";
    scalar.type = DType::Int;
    f.vars = {t, lat, scalar};
    f.global_attrs = {Attr::Text("title", "blob test"), Attr::Number("ne", DType::Int, {30})};
    return f;
}

// Two ranks: T by both (rank 0 two blocks, rank 1 one), lat by rank 0 only,
// the scalar by nobody in this group.
BlobSubfile small_subfile() {
    BlobSubfile s;
    s.ranks = {4, 5};
    s.sels = {BlobSel{2, {2, 1}, {12, 18}}, BlobSel{1, {1, 0}, {10, 0}}, BlobSel{0, {0, 0}, {0, 0}}};
    s.var_sel = {0, 1, 2};
    return s;
}

TEST(BlobLayout, SubfileSpecHasOneDimensionalVariables) {
    const FileSpec c = small_spec();
    const BlobSubfileSpec l = blob_subfile_spec(c, small_subfile(), 1, 3);
    ASSERT_EQ(l.var_index, (std::vector<int>{0, 1, -1}));  // nobody holds the scalar: not declared
    EXPECT_EQ(l.var_length, (std::vector<std::uint64_t>{30, 10, 0}));
    const VarSpec& t = l.spec.vars[0];
    ASSERT_EQ(t.dims.size(), 2u);
    EXPECT_TRUE(l.spec.dims[static_cast<std::size_t>(t.dims[0])].unlimited);
    EXPECT_EQ(l.spec.dims[static_cast<std::size_t>(t.dims[1])].length, 30u);
    EXPECT_EQ(l.spec.vars[1].dims.size(), 1u);
    // blocks: T has 3 blocks * 2 * 2 ints = 12 ints, lat 1 * 2 * 1 = 2, the scalar none
    EXPECT_EQ(l.blocks_index[2], -1);
    EXPECT_EQ(l.spec.vars[static_cast<std::size_t>(l.blocks_index[0])].name, "blob_blocks_0");
    EXPECT_EQ(
        l.spec.dims[static_cast<std::size_t>(l.spec.vars[static_cast<std::size_t>(l.blocks_index[0])].dims[0])].length,
        12u);
    bool found = false;
    for (const Attr& a : t.attrs) found = found || (a.name == "blob_canonical_dims" && a.text == "time lev ncol");
    EXPECT_TRUE(found);
    EXPECT_EQ(l.spec.global_attrs.back().text, "1 of 3");
    // rank offsets
    EXPECT_EQ(blob_elem_offset(small_subfile().sels[0], 1), 12);
    EXPECT_EQ(blob_block_offset(small_subfile().sels[0], 1), 8);
}

TEST(BlobLayout, IndexJsonRoundTrip) {
    BlobIndex x;
    x.spec = small_spec();
    x.library = "pnetcdf";
    x.extension = ".nc";
    x.writers = 6;
    x.nrecords = 2;
    BlobSubfile a = small_subfile();
    a.ranks = {0, 1};
    BlobSubfile b = small_subfile();
    b.ranks = {2, 3};
    BlobSubfile c = small_subfile();
    c.ranks = {5, 4};
    x.subfiles = {a, b, c};
    const BlobIndex y = blob_index_from_json(blob_index_to_json(x), "test");
    EXPECT_EQ(y.writers, 6);
    EXPECT_EQ(y.nrecords, 2);
    ASSERT_EQ(y.spec.vars.size(), 3u);
    EXPECT_EQ(y.spec.vars[0].attrs[1].values, (std::vector<double>{0.5, 400.25}));
    EXPECT_EQ(*y.spec.vars[0].fill_value, 1e36);
    EXPECT_TRUE(y.spec.dims[0].unlimited);
    EXPECT_EQ(y.subfiles[2].ranks, (std::vector<int>{5, 4}));
    EXPECT_EQ(y.subfiles[1].sels[0].nelems, (std::vector<std::int64_t>{12, 18}));
}

TEST(BlobLayout, IndexWithMissingOrDuplicateWriterIsRefused) {
    BlobIndex x;
    x.spec = small_spec();
    x.library = "pnetcdf";
    x.writers = 3;
    x.subfiles = {small_subfile()};
    x.subfiles[0].ranks = {0, 1};
    EXPECT_THROW(blob_index_from_json(blob_index_to_json(x), "t"), Error);  // writer 2 in no subfile
    x.subfiles[0].ranks = {0, 0};
    EXPECT_THROW(blob_index_from_json(blob_index_to_json(x), "t"), Error);
    EXPECT_THROW(blob_index_from_json("{\"format\": \"x\"}", "t"), Error);
    EXPECT_THROW(blob_index_from_json("not json", "t"), Error);
}

TEST(BlobLayout, BlocksIntsRoundTripAndBoundsCheck) {
    Selection s(std::vector<std::uint64_t>{3, 10});
    const std::int64_t st1[] = {2, 4}, c1[] = {1, 6}, st2[] = {0, 0}, c2[] = {2, 3};
    s.add_block(st1, c1);
    s.add_block(st2, c2);
    const auto ints = blocks_to_ints(s);
    EXPECT_EQ(ints, (std::vector<std::int64_t>{2, 4, 1, 6, 0, 0, 2, 3}));
    Selection back(std::vector<std::uint64_t>{3, 10});
    add_blocks_from_ints(back, ints.data(), 2);
    EXPECT_EQ(back.elements(), 12u);
    EXPECT_EQ(back.runs().front().offset, 24);
    std::vector<std::int64_t> bad = {2, 8, 1, 6};  // 8 + 6 > 10
    Selection b2(std::vector<std::uint64_t>{3, 10});
    EXPECT_THROW(add_blocks_from_ints(b2, bad.data(), 1), Error);
}

TEST(LogLayout, WriterIndexRoundTripAndCorruption) {
    LogWriterIndex w;
    w.sels = {LogSel{2, 1, {0, 1, 3, 4}}, LogSel{0, 1, {}}};
    w.entries = {{0, 0, 0, 0, 48}, {2, 1, 1, 48, 4}};
    const auto v = log_serialize(w);
    EXPECT_EQ(v.size(), 1u + (2 + 4) + 2 + 1 + 10);
    const LogWriterIndex r = log_parse(v, "t");
    ASSERT_EQ(r.entries.size(), 2u);
    EXPECT_EQ(r.entries[1].offset, 48);
    EXPECT_EQ(r.sels[0].ints, (std::vector<std::int64_t>{0, 1, 3, 4}));
    auto cut = v;
    cut.pop_back();
    EXPECT_THROW(log_parse(cut, "t"), Error);
    auto badsel = v;
    badsel[badsel.size() - 3] = 7;  // entry names selection 7 of 2
    EXPECT_THROW(log_parse(badsel, "t"), Error);
}

}  // namespace
