#include "backends/mpiio_calls.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "core/mpi_layer.hpp"

namespace iok {
namespace {

// The user buffer of one access: `bytes` bytes in one block (MPI_BYTE) or,
// for a noncontiguous memory datatype, blocks of 1 KiB with 64-byte gaps
// (at least two; the trace records that the layout was noncontiguous, not
// which it was).
class MemType {
public:
    MemType(std::int64_t bytes, bool noncontig) {
        if (!noncontig && bytes <= INT_MAX) {
            count = static_cast<int>(bytes);
            blocks.push_back({0, bytes});
            span = bytes;
            return;
        }
        // noncontiguous: at least two blocks (one block with no gap would be contiguous)
        const std::int64_t block = noncontig ? std::max<std::int64_t>(1, std::min<std::int64_t>(1024, (bytes + 1) / 2))
                                             : (std::int64_t{1} << 30),
                           gap = noncontig ? 64 : 0;
        std::vector<int> len;
        std::vector<MPI_Aint> disp;
        for (std::int64_t done = 0; done < bytes; done += block) {
            const std::int64_t n = std::min(block, bytes - done);
            disp.push_back(static_cast<MPI_Aint>(span));
            len.push_back(static_cast<int>(n));
            blocks.push_back({span, n});
            span += n + gap;
        }
        if (len.size() > static_cast<std::size_t>(INT_MAX))
            throw Error("an access of " + std::to_string(bytes) + " bytes is too large to replay");
        MPI_Type_create_hindexed(static_cast<int>(len.size()), len.data(), disp.data(), MPI_BYTE, &type);
        MPI_Type_commit(&type);
        owned = true;
        count = 1;
    }
    ~MemType() {
        if (owned) MPI_Type_free(&type);
    }
    MemType(const MemType&) = delete;
    MemType& operator=(const MemType&) = delete;

    MPI_Datatype type = MPI_BYTE;
    int count = 0;
    std::vector<std::pair<std::int64_t, std::int64_t>> blocks;  // (buffer offset, bytes), in data order
    std::int64_t span = 0;                                      // buffer bytes

private:
    bool owned = false;
};

// Filetypes of the rank's shapes, built once: the runs as an hindexed type
// of bytes resized to the shape's extent (shape 0: MPI_BYTE).
class ViewTypes {
public:
    explicit ViewTypes(const std::vector<TraceShape>& shapes)
        : shapes_(shapes),
          types_(shapes.size(), MPI_DATATYPE_NULL) {}
    ~ViewTypes() {
        for (MPI_Datatype& t : types_)
            if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
    }
    ViewTypes(const ViewTypes&) = delete;
    ViewTypes& operator=(const ViewTypes&) = delete;
    MPI_Datatype get(int shape) {
        const TraceShape& s = shapes_[static_cast<std::size_t>(shape)];
        if (shape == 0 || s.contiguous()) return MPI_BYTE;
        MPI_Datatype& t = types_[static_cast<std::size_t>(shape)];
        if (t != MPI_DATATYPE_NULL) return t;
        std::vector<int> len;
        std::vector<MPI_Aint> disp;
        for (const Run& r : s.runs) {
            len.push_back(static_cast<int>(r.length));
            disp.push_back(static_cast<MPI_Aint>(r.offset));
        }
        MPI_Datatype h;
        MPI_Type_create_hindexed(static_cast<int>(len.size()), len.data(), disp.data(), MPI_BYTE, &h);
        MPI_Type_create_resized(h, 0, static_cast<MPI_Aint>(s.extent), &t);
        MPI_Type_free(&h);
        MPI_Type_commit(&t);
        return t;
    }

private:
    const std::vector<TraceShape>& shapes_;
    std::vector<MPI_Datatype> types_;
};

// Issues one access with its recorded flavour.  Shared and ordered pointers
// become explicit offsets (the recorded ones); the individual pointer is
// moved there with MPI_File_seek first.  Nonblocking calls are waited for at
// once, split collectives ended at once.  Returns the MPI error code.
int issue(MPI_File fh, std::uint32_t flags, MPI_Offset off, void* buf, int count, MPI_Datatype type,
          std::int64_t& calls) {
    const bool w = flags & kWrite, coll = flags & kCollective, expl = flags & (kExplicit | kShared);
    MPI_Status st;
    int rc = MPI_SUCCESS;
    if (!expl) {
        ++calls;
        if ((rc = MPI_File_seek(fh, off, MPI_SEEK_SET)) != MPI_SUCCESS) return rc;
    }
    ++calls;
    if (flags & kSplit) {
        if (expl)
            rc = w ? MPI_File_write_at_all_begin(fh, off, buf, count, type)
                   : MPI_File_read_at_all_begin(fh, off, buf, count, type);
        else
            rc = w ? MPI_File_write_all_begin(fh, buf, count, type) : MPI_File_read_all_begin(fh, buf, count, type);
        if (rc != MPI_SUCCESS) return rc;
        ++calls;
        if (expl) return w ? MPI_File_write_at_all_end(fh, buf, &st) : MPI_File_read_at_all_end(fh, buf, &st);
        return w ? MPI_File_write_all_end(fh, buf, &st) : MPI_File_read_all_end(fh, buf, &st);
    }
    if (flags & kNonblocking) {
        MPI_Request rq = MPI_REQUEST_NULL;
        if (expl) {
            if (coll)
                rc = w ? MPI_File_iwrite_at_all(fh, off, buf, count, type, &rq)
                       : MPI_File_iread_at_all(fh, off, buf, count, type, &rq);
            else
                rc = w ? MPI_File_iwrite_at(fh, off, buf, count, type, &rq)
                       : MPI_File_iread_at(fh, off, buf, count, type, &rq);
        } else {
            if (coll)
                rc = w ? MPI_File_iwrite_all(fh, buf, count, type, &rq) : MPI_File_iread_all(fh, buf, count, type, &rq);
            else
                rc = w ? MPI_File_iwrite(fh, buf, count, type, &rq) : MPI_File_iread(fh, buf, count, type, &rq);
        }
        if (rc != MPI_SUCCESS) return rc;
        ++calls;
        return MPI_Wait(&rq, &st);
    }
    if (expl) {
        if (coll)
            return w ? MPI_File_write_at_all(fh, off, buf, count, type, &st)
                     : MPI_File_read_at_all(fh, off, buf, count, type, &st);
        return w ? MPI_File_write_at(fh, off, buf, count, type, &st) : MPI_File_read_at(fh, off, buf, count, type, &st);
    }
    if (coll) return w ? MPI_File_write_all(fh, buf, count, type, &st) : MPI_File_read_all(fh, buf, count, type, &st);
    return w ? MPI_File_write(fh, buf, count, type, &st) : MPI_File_read(fh, buf, count, type, &st);
}

struct SessionRun {
    MPI_Comm comm;
    MPI_Info hints;
    const std::string& path;
    const TraceSession& ses;
    ViewTypes& views;
    CallData& data;
    CallTally& tally;

    void set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype ftype) {
        const double t0 = MPI_Wtime();
        check_mpi(MPI_File_set_view(fh, disp, MPI_BYTE, ftype, "native", MPI_INFO_NULL), "MPI_File_set_view",
                  "set a recorded view on " + path);
        tally.views += MPI_Wtime() - t0;
        ++tally.calls;
    }

    void access(MPI_File fh, const TraceOp& op, std::int64_t k) {
        const CallAccess a{&ses, &op, k, op.disp + k * op.dstep, op.voff + k * op.vstep};
        const bool w = op.flags & kWrite;
        MemType mem(op.bytes, op.flags & kMemNoncontig);
        std::vector<std::int8_t> packed(static_cast<std::size_t>(op.bytes)),
            buf(static_cast<std::size_t>(mem.span), -1);
        if (w) {
            data.fill(a, packed);
            std::int64_t pos = 0;
            for (const auto& [at, n] : mem.blocks) {
                std::memcpy(buf.data() + at, packed.data() + pos, static_cast<std::size_t>(n));
                pos += n;
            }
        }
        const double t0 = MPI_Wtime();
        const int rc =
            issue(fh, op.flags, static_cast<MPI_Offset>(a.voff), buf.data(), mem.count, mem.type, tally.calls);
        const double dt = MPI_Wtime() - t0;
        check_mpi(rc, w ? "a recorded write" : "a recorded read", std::string(w ? "write " : "read ") + path);
        if (w) {
            tally.write += dt;
            ++tally.wreq;
            tally.wbytes += op.bytes;
            return;
        }
        tally.read += dt;
        ++tally.rreq;
        tally.rbytes += op.bytes;
        std::int64_t pos = 0;
        for (const auto& [at, n] : mem.blocks) {
            std::memcpy(packed.data() + pos, buf.data() + at, static_cast<std::size_t>(n));
            pos += n;
        }
        data.check(a, packed);
    }

    // The set_view calls before access k of `op`: the last sets its view;
    // the others (the trace keeps only their number) the default view.
    std::int64_t views_before(MPI_File fh, const TraceOp& op, std::int64_t k) {
        const std::int64_t nv = k == 0 ? op.views : op.view_step;
        for (std::int64_t v = 0; v < nv; ++v)
            set_view(fh, v + 1 < nv ? 0 : op.disp + k * op.dstep, v + 1 < nv ? MPI_BYTE : views.get(op.shape));
        return nv;
    }

    void run() {
        MPI_Comm c = ses.comm_size == 1 ? MPI_COMM_SELF : comm;
        MPI_Info info;
        MPI_Info_create(&info);
        for (const auto& [k, v] : ses.hints) MPI_Info_set(info, k.c_str(), v.c_str());
        if (hints != MPI_INFO_NULL) {  // the run's --hint, on top of the recorded ones
            int n = 0;
            MPI_Info_get_nkeys(hints, &n);
            for (int i = 0; i < n; ++i) {
                char key_[MPI_MAX_INFO_KEY + 1] = {0}, val[1024] = {0};
                int flag = 0;
                MPI_Info_get_nthkey(hints, i, key_);
                MPI_Info_get(hints, key_, sizeof val - 1, val, &flag);
                if (flag) MPI_Info_set(info, key_, val);
            }
        }
        // Not EXCL (the replay may overwrite) nor DELETE_ON_CLOSE (the file is verified after).
        const int amode = ses.amode & ~(MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE);
        MPI_File fh = MPI_FILE_NULL;
        double t0 = MPI_Wtime();
        const int rc = MPI_File_open(c, path.c_str(), amode, info, &fh);
        MPI_Info_free(&info);
        check_mpi(rc, "MPI_File_open", "open " + path + " with the recorded amode " + std::to_string(ses.amode),
                  "check the output directory");
        tally.open += MPI_Wtime() - t0;
        ++tally.calls;
        note_files_open(1);
        std::int64_t views_used = 0;
        for (const TraceOp& op : ses.ops) {
            const bool skip = (op.flags & kWrite) == 0 && !data.reads();  // the views still as recorded
            for (std::int64_t k = 0; k < op.count; ++k) {
                views_used += views_before(fh, op, k);
                if (!skip) access(fh, op, k);
            }
        }
        for (std::int64_t v = views_used; v < ses.set_views; ++v) set_view(fh, 0, MPI_BYTE);  // after the last access
        t0 = MPI_Wtime();
        check_mpi(MPI_File_close(&fh), "MPI_File_close", "close " + path);
        note_files_open(-1);
        tally.close += MPI_Wtime() - t0;
        ++tally.calls;
    }
};

}  // namespace

CallTally replay_mpiio_calls(MPI_Info hints, const std::string& path, MPI_Comm comm, const RecordedCalls& calls,
                             CallData& data) {
    CallTally tally;
    ViewTypes views(*calls.shapes);
    for (const TraceSession* ses : calls.sessions) SessionRun{comm, hints, path, *ses, views, data, tally}.run();
    return tally;
}

}  // namespace iok
