// Recorded calls as a backend capability (Capabilities::recorded_calls):
// the MPI-IO backend re-issues a session's accesses with their flavours and
// views, the data from the caller's CallData; what a read got is handed to
// CallData::check (so a changed byte is caught); a library without the
// capability refuses with one message naming the way out.
#include <gtest/gtest.h>
#include <mpi.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "scratch_dir.hpp"

using namespace iok;

namespace {

// Byte i of the file holds (i * 7) & 0x7f.
std::int8_t byte_at(std::int64_t i) { return static_cast<std::int8_t>((i * 7) & 0x7f); }

// Writes and reads are views of shape 1 (every other 4-byte block) at
// displacement 0, so data byte d lies at file byte (d / 4) * 8 + d % 4.
std::int64_t file_byte(std::int64_t voff_data) { return (voff_data / 4) * 8 + voff_data % 4; }

class Bytes final : public CallData {
public:
    std::vector<std::int64_t> seen_reads;
    void fill(const CallAccess& a, std::vector<std::int8_t>& data) override {
        for (std::size_t d = 0; d < data.size(); ++d)
            data[d] = byte_at(file_byte(a.voff + static_cast<std::int64_t>(d)));
    }
    void check(const CallAccess& a, const std::vector<std::int8_t>& got) override {
        seen_reads.push_back(a.voff);
        for (std::size_t d = 0; d < got.size(); ++d)
            if (got[d] != byte_at(file_byte(a.voff + static_cast<std::int64_t>(d))) && mismatches++ == 0)
                first_mismatch = "data byte " + std::to_string(a.voff + static_cast<std::int64_t>(d));
    }
};

struct Recorded {
    std::vector<TraceShape> shapes;
    TraceSession session;
    RecordedCalls calls;
};

// One session on this rank alone: 3 collective explicit-offset writes of 16
// data bytes (a strided series), then one nonblocking read of all 48.
Recorded recorded(std::uint32_t read_flags) {
    Recorded r;
    r.shapes.resize(2);
    r.shapes[0] = {{{0, 1}}, 1, 1, {0}};
    r.shapes[1] = {{{0, 4}}, 4, 8, {0}};  // 4 data bytes, then a 4-byte hole
    TraceSession& s = r.session;
    s.amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
    s.comm_size = 1;
    TraceOp w;
    w.flags = kWrite | kCollective | kExplicit;
    w.shape = 1;
    w.bytes = 16;
    w.count = 3;
    w.vstep = 16;
    w.views = 1;
    TraceOp rd;
    rd.flags = read_flags;
    rd.shape = 1;
    rd.bytes = 48;
    s.ops = {w, rd};
    s.set_views = 1;
    r.calls.shapes = &r.shapes;
    r.calls.sessions.assign(1, &r.session);  // not = {...}: GCC 14 -O2 -Warray-bounds false positive
    return r;
}

std::unique_ptr<Backend> mpiio() { return make_backend("mpiio", BackendConfig{}); }

}  // namespace

TEST(RecordedCalls, MpiioReissuesTheSessionAndChecksWhatItRead) {
    Recorded r = recorded(kExplicit | kNonblocking);
    const std::string path = iok_test::scratch_path("recorded.bin");
    Bytes data;
    const CallTally t = mpiio()->replay_calls(path, MPI_COMM_SELF, r.calls, data);
    EXPECT_EQ(t.wreq, 3);
    EXPECT_EQ(t.wbytes, 48);
    EXPECT_EQ(t.rreq, 1);
    EXPECT_EQ(t.rbytes, 48);
    // open, 1 view, 3 writes, the read's post and wait, close
    EXPECT_EQ(t.calls, 1 + 1 + 3 + 2 + 1);
    EXPECT_EQ(data.mismatches, 0u) << data.first_mismatch;
    EXPECT_EQ(data.seen_reads, std::vector<std::int64_t>{0});
    // The file: the data bytes where the view put them, the holes never written (zeros).
    std::ifstream f(path, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    ASSERT_EQ(bytes.size(), 92u);  // the last data byte, 47, is at file byte 91
    for (std::int64_t d = 0; d < 48; ++d)
        EXPECT_EQ(bytes[static_cast<std::size_t>(file_byte(d))], byte_at(file_byte(d)));
    EXPECT_EQ(bytes[4], 0);
}

TEST(RecordedCalls, AReadOfOtherBytesIsCaught) {
    Recorded r = recorded(kExplicit);
    r.session.ops[1].voff = 16;  // data bytes 16..63: the last 16 were never written
    r.session.ops[1].bytes = 48;
    Bytes data;
    mpiio()->replay_calls(iok_test::scratch_path("recorded_short.bin"), MPI_COMM_SELF, r.calls, data);
    EXPECT_GT(data.mismatches, 0u);
    EXPECT_EQ(data.first_mismatch, "data byte 48");  // data byte 47 is the file's last
}

TEST(RecordedCalls, ALibraryWithoutTheCapabilityRefuses) {
    Recorded r = recorded(kExplicit);
    Bytes data;
    for (const BackendInfo& b : registered_backends()) {
        if (b.caps.recorded_calls) continue;
        try {
            make_backend(b.name, BackendConfig{})
                ->replay_calls(iok_test::scratch_path("never.bin"), MPI_COMM_SELF, r.calls, data);
            ADD_FAILURE() << b.name << " replayed recorded calls without the capability";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("cannot re-issue recorded MPI-IO calls"), std::string::npos)
                << e.what();
        }
    }
    EXPECT_TRUE(backend_info("mpiio").caps.recorded_calls);
}
