// RecordWriter::set_noncontig_buffer switches the user-buffer layout between
// calls (noncontig's tile 0 packed, tile 1 with gaps between the
// variables).  The arena took its gap once, when the file was opened, so a
// switch after the open changed nothing: the "noncontiguous" tile of every
// stack but the native one was written from packed buffers.  A library that
// notes where each put's buffer starts sees the layout it was given.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "backends/backend.hpp"
#include "double_backend.hpp"
#include "runner/runner.hpp"
#include "scratch_dir.hpp"

using namespace iok;

namespace {

// (record, variable) -> the user buffer's address the library was given.
using Addresses = std::map<std::pair<std::int64_t, int>, std::uintptr_t>;

class AddressFile final : public File {
public:
    explicit AddressFile(Addresses& a) : a_(a) {}
    void define(const FileSpec&) override {}
    bool do_put(int var, const Selection&, std::int64_t record, const void* buf) override {
        a_[{record, var}] = reinterpret_cast<std::uintptr_t>(buf);
        return true;
    }
    void do_get(int, const Selection&, std::int64_t, void*) override {}
    void flush() override {}
    void close() override {}
    std::string library() const override { return "a library that notes buffer addresses"; }

private:
    Addresses& a_;
};

// A backend of AddressFiles, all noting into `a`.
iok_test::DoubleBackend address_backend(Addresses& a) {
    return {"addresses", [&a] { return std::make_unique<AddressFile>(a); }};
}

constexpr std::uint64_t kFloats = 99;  // per variable and record: odd, so 8-byte alignment would leave a hole

// Two float record variables of kFloats elements, 2 records.
FilePlan two_vars() {
    FilePlan p;
    p.spec.dims = {{"tile", 0, true}, {"x", kFloats, false}};
    auto sel = std::make_shared<const Selection>(Selection::whole({kFloats}));
    for (const char* name : {"a", "b"}) {
        VarSpec v;
        v.name = name;
        v.type = DType::Float;
        v.dims = {0, 1};
        p.spec.vars.push_back(v);
        p.selection.push_back(sel);
    }
    p.nrecords = 2;
    return p;
}

}  // namespace

TEST(RecordGaps, SwitchingTheLayoutAfterOpenGivesGapsToThatRecordOnly) {
    Addresses addresses;
    iok_test::DoubleBackend be = address_backend(addresses);
    RunOptions ro;
    ro.progress = false;
    ro.gap_bytes = 4096;
    const FilePlan plan = two_vars();
    RecordWriter w(MPI_COMM_SELF, be, ro, plan, iok_test::scratch_path("gaps.none"));
    w.set_noncontig_buffer(false);
    w.write(0, 1);
    w.set_noncontig_buffer(true);
    w.write(1, 2);
    FileOutcome out = w.close();
    if (out.hints != MPI_INFO_NULL) MPI_Info_free(&out.hints);
    auto distance = [&](std::int64_t rec) {
        return static_cast<std::int64_t>(addresses.at({rec, 1})) - static_cast<std::int64_t>(addresses.at({rec, 0}));
    };
    const std::int64_t packed = static_cast<std::int64_t>(kFloats * sizeof(float));
    // Record 0: b right after a, not a byte between (floats are aligned
    // as floats: the MPI-IO backend passes such buffers as one contiguous one).
    EXPECT_EQ(distance(0), packed);
    // Record 1: at least the gap between them.
    EXPECT_GE(distance(1), packed + 4096);
    // Each write() call timed apart (noncontig's two tiles).
    ASSERT_EQ(out.step_seconds.size(), 2u);
    EXPECT_GE(out.step_seconds[0], 0.0);
    EXPECT_GE(out.step_seconds[1], 0.0);
}

// A read that finds wrong data says where, as numbers a kernel can word in
// its own terms (noncontig: tile, variable, file byte): this library reads
// nothing, so the first element of the first variable read is wrong.
TEST(RecordGaps, FirstMismatchIsGivenAsNumbers) {
    Addresses addresses;
    iok_test::DoubleBackend be = address_backend(addresses);
    RunOptions ro;
    ro.progress = false;
    const FilePlan plan = two_vars();
    RecordReader r(MPI_COMM_SELF, be, ro, plan, iok_test::scratch_path("gaps_read.none"));
    r.read(1, 2);
    FileOutcome out = r.close();
    if (out.hints != MPI_INFO_NULL) MPI_Info_free(&out.hints);
    EXPECT_EQ(out.mismatches, 2u);  // the runner stops at the first wrong element of each request: one per variable
    EXPECT_EQ(out.first_at.var, 0);
    EXPECT_EQ(out.first_at.record, 1);
    EXPECT_EQ(out.first_at.element, 0u);
    EXPECT_EQ(out.first_at.rank, 0);
    EXPECT_NE(out.first_at.expected, out.first_at.actual);
    EXPECT_NE(out.first_mismatch.find("record 1, element 0"), std::string::npos) << out.first_mismatch;
    ASSERT_EQ(out.step_seconds.size(), 1u);
}
