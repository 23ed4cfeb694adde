// A read must not pass when the library leaves the buffer untouched: the
// runner poisons read buffers, except pattern requests in a fresh mapping,
// where the kernel's zeros stand in (runner.cpp, FileRun::prepare).  A
// library that reads nothing -- File::get() does nothing -- must give
// mismatches in every case: small and large buffers, every element type,
// fill and constant data, and right after a write of the very same values
// (whose freed buffer a small read buffer may re-use).
#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "double_backend.hpp"
#include "runner/runner.hpp"
#include "scratch_dir.hpp"

using namespace iok;

namespace {

class NothingFile final : public File {
public:
    void define(const FileSpec&) override {}
    bool do_put(int, const Selection&, std::int64_t, const void*) override { return true; }
    void do_get(int, const Selection&, std::int64_t, void*) override {}  // reads nothing
    void flush() override {}
    void close() override {}
    std::string library() const override { return "a library that reads nothing"; }
};

// One record variable of `type` and n elements per record, 2 records.
FilePlan plan_of(DType type, std::uint64_t n) {
    FilePlan p;
    p.spec.dims = {{"time", 0, true}, {"x", n, false}};
    VarSpec v;
    v.name = "v";
    v.type = type;
    v.dims = {0, 1};
    p.spec.vars = {v};
    p.selection = {std::make_shared<const Selection>(Selection::whole({n}))};
    p.nrecords = 2;
    return p;
}

std::uint64_t mismatches_reading(const FilePlan& plan, bool write_first) {
    iok_test::DoubleBackend be("nothing", [] { return std::make_unique<NothingFile>(); });
    RunOptions ro;
    ro.progress = false;
    Runner runner(MPI_COMM_SELF, be, ro);
    const std::string path = iok_test::scratch_path("nothing.none");
    if (write_first) runner.write(plan, path);
    FileOutcome out = runner.read(plan, path);
    if (out.hints != MPI_INFO_NULL) MPI_Info_free(&out.hints);
    return out.mismatches;
}

}  // namespace

TEST(ReadPoison, NothingReadNeverPasses) {
    // 2^20 elements: every type's buffer is a fresh mapping (2 MiB and up)
    // but bytes' (1 MiB) and shorts' (2 MiB); 1,000: small buffers.
    for (std::uint64_t n : {std::uint64_t{1000}, std::uint64_t{1} << 20})
        for (DType t : {DType::Float, DType::Double, DType::Int, DType::Int64, DType::Short, DType::Byte, DType::Char})
            for (bool write_first : {false, true}) {
                SCOPED_TRACE("type " + std::to_string(static_cast<int>(t)) + ", " + std::to_string(n) + " elements" +
                             (write_first ? ", after a write" : ""));
                EXPECT_EQ(mismatches_reading(plan_of(t, n), write_first), 2u);  // one per request: both records
            }
}

TEST(ReadPoison, ConstantDataOfZeroInAFreshMappingIsPoisoned) {
    // E3SM-IO's data (-d rank): rank 0 writes zeros, which a fresh mapping holds.
    FilePlan p = plan_of(DType::Double, std::uint64_t{1} << 20);
    p.constant_data = FilePlan::ConstantData{0, 'a'};
    EXPECT_EQ(mismatches_reading(p, false), 2u);
}
