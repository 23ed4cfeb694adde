#include "core/collective.hpp"

#include <climits>
#include <string>
#include <cstdio>
#include <vector>

namespace iok {

namespace {

std::string pack(const std::string& what, const std::string& hint) { return what + '\0' + hint; }

}  // namespace

void collective_step(MPI_Comm comm, const std::function<void()>& fn) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::string msg;
    int failed_rank = -1;
    try {
        fn();
    } catch (const CollectiveFailure&) {
        throw;  // already agreed on by every rank
    } catch (const Error& e) {
        msg = pack(e.what(), e.hint());
        failed_rank = rank;
    } catch (const std::bad_alloc&) {
        msg = pack("out of memory", "use more ranks or a smaller case");
        failed_rank = rank;
    } catch (const std::exception& e) {
        msg = pack(std::string("internal error: ") + e.what(), "please report this as a bug");
        failed_rank = rank;
    }
    // Lowest failing rank wins: its message is the one everyone reports.
    int first = failed_rank < 0 ? INT_MAX : failed_rank;
    int agreed = 0;
    MPI_Allreduce(&first, &agreed, 1, MPI_INT, MPI_MIN, comm);
    if (agreed == INT_MAX) return;
    int len = static_cast<int>(msg.size());
    MPI_Bcast(&len, 1, MPI_INT, agreed, comm);
    msg.resize(static_cast<std::size_t>(len));
    MPI_Bcast(msg.data(), len, MPI_CHAR, agreed, comm);
    const auto nul = msg.find('\0');
    throw CollectiveFailure(msg.substr(0, nul), nul == std::string::npos ? "" : msg.substr(nul + 1),
                            agreed);
}

int run_kernel_main(const char* kernel, MPI_Comm comm, const std::function<void()>& body) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    try {
        body();
        return 0;
    } catch (const CollectiveFailure& e) {
        if (rank == 0) {
            // one write: the launcher forwards stderr in chunks, and a message
            // split over several writes can reach the user partly
            std::string msg = std::string("iokernels ") + kernel + ": error: " + e.what();
            if (size > 1 && e.failing_rank() != 0) msg += " (rank " + std::to_string(e.failing_rank()) + ")";
            msg += "\n";
            if (!e.hint().empty()) msg += "  hint: " + e.hint() + "\n";
            std::fputs(msg.c_str(), stderr);
            std::fflush(stderr);
        }
        return 1;
    } catch (const std::exception& e) {
        // Only this rank knows; others may be inside a collective call.
        std::fprintf(stderr, "iokernels %s: error on rank %d: %s\n", kernel, rank, e.what());
        if (auto* ie = dynamic_cast<const Error*>(&e); ie && !ie->hint().empty())
            std::fprintf(stderr, "  hint: %s\n", ie->hint().c_str());
        std::fflush(stderr);
        MPI_Abort(comm, 1);
        return 1;
    }
}

}  // namespace iok
