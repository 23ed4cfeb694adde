#include "core/collective.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace iok {

namespace {

std::string pack(const std::string& what, const std::string& hint) { return what + '\0' + hint; }
std::pair<std::string, std::string> unpack(const std::string& msg) {
    const auto nul = msg.find('\0');
    return {msg.substr(0, nul), nul == std::string::npos ? "" : msg.substr(nul + 1)};
}

int g_files_open = 0;
std::string g_kernel = "iokernels";  // "iokernels <kernel>", set by run_kernel_main
std::string g_job_token;             // the same on every rank of one run (run_kernel_main)

std::map<int, std::function<void()>> g_cleanups;
int g_next_cleanup = 0;

// The agreed failure, reported once by rank 0.
void report(const CollectiveFailure& e, int rank, int size) {
    if (rank != 0) return;
    print_error(e.what() + (size > 1 && e.failing_rank() != 0 ? " (rank " + std::to_string(e.failing_rank()) + ")"
                                                              : std::string()),
                e.hint());
}

// A rank with an error waits this long for the others to join the agreement.
// Staggered by rank, so that when several ranks failed the lowest one speaks
// and its MPI_Abort ends the others before they repeat the message.
bool agreed_in_time(MPI_Request& req, int rank) {
    double limit = 20.0;
    if (const char* e = std::getenv("IOK_FAILURE_WAIT_SECONDS")) limit = std::atof(e);
    limit += 0.25 * rank;
    const double t0 = MPI_Wtime();
    int done = 0;
    while (true) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done) return true;
        if (MPI_Wtime() - t0 > limit) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

[[noreturn]] void abandon(MPI_Comm comm, const CollectiveFailure& e) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    report(e, rank, size);
    run_abandon_cleanups();
    std::fflush(nullptr);
    MPI_Barrier(comm);          // every rank is here (the failure was agreed): rank 0 has printed
    std::_Exit(e.exit_code());  // 2 for a refusal (Unsupported), as without open files
}

}  // namespace

// Whether this rank is the one of its node to speak for a failure the ranks
// could not agree on.  The first rank to bind an abstract-namespace socket
// named after the run wins; the name disappears with the process, so nothing
// is left behind.  With the 0.25 s stagger below this makes "one message" hold
// on a node however loaded it is (the stagger alone did not, under load).
bool first_to_speak_on_this_node() {
    if (g_job_token.empty()) return true;
    const int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    if (fd < 0) return true;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string name = "iokernels-failure-" + g_job_token;
    const std::size_t n = std::min(name.size(), sizeof(addr.sun_path) - 2);
    std::memcpy(addr.sun_path + 1, name.data(), n);  // sun_path[0] = 0: abstract namespace
    const socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
    return bind(fd, reinterpret_cast<sockaddr*>(&addr), len) == 0;  // fd stays open until MPI_Abort
}
void note_files_open(int delta) { g_files_open += delta; }

int at_abandon(std::function<void()> cleanup) {
    g_cleanups[g_next_cleanup] = std::move(cleanup);
    return g_next_cleanup++;
}

void cancel_abandon(int id) { g_cleanups.erase(id); }

void run_abandon_cleanups() {
    for (auto& [id, fn] : g_cleanups) fn();
}

void print_error(const std::string& what, const std::string& hint) {
    // one write: the launcher forwards stderr in chunks, and a message split
    // over several writes can reach the user partly
    std::string msg = g_kernel + ": error: " + what + "\n";
    if (!hint.empty()) msg += "  hint: " + hint + "\n";
    std::fputs(msg.c_str(), stderr);
    std::fflush(stderr);
}

void collective_step(MPI_Comm comm, const std::function<void()>& fn) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::string msg;
    int failed_rank = -1;
    char code = 1;  // the exit status the failure asks for, sent with its message
    try {
        fn();
    } catch (const CollectiveFailure&) {
        throw;  // already agreed on by every rank
    } catch (const Error& e) {
        msg = pack(e.what(), e.hint());
        code = static_cast<char>(e.exit_code());
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
    MPI_Request req;
    MPI_Iallreduce(&first, &agreed, 1, MPI_INT, MPI_MIN, comm, &req);
    if (failed_rank < 0) {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (!agreed_in_time(req, rank)) {
        // The others are blocked inside a collective library call this rank
        // left with its error (H5Fclose, a BP5 flush): they will never come
        // here.  Say what failed, then end the job.
        const auto [what, hint] = unpack(msg);
        if (first_to_speak_on_this_node())
            print_error(what + " (rank " + std::to_string(rank) +
                            "; the other ranks are still inside the library call: the job is aborted)",
                        hint);
        MPI_Abort(comm, 1);
    }
    if (agreed == INT_MAX) return;
    msg.insert(msg.begin(), code);
    int len = static_cast<int>(msg.size());
    MPI_Bcast(&len, 1, MPI_INT, agreed, comm);
    msg.resize(static_cast<std::size_t>(len));
    MPI_Bcast(msg.data(), len, MPI_CHAR, agreed, comm);
    code = msg[0];
    msg.erase(0, 1);
    const auto [what, hint] = unpack(msg);
    CollectiveFailure failure(what, hint, agreed, code);
    if (g_files_open > 0) abandon(comm, failure);
    throw failure;
}

int run_kernel_main(const char* kernel, MPI_Comm comm, const std::function<void()>& body) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    g_kernel = std::string("iokernels ") + kernel;
    long long token[2] = {static_cast<long long>(getpid()), static_cast<long long>(time(nullptr))};
    MPI_Bcast(token, 2, MPI_LONG_LONG, 0, comm);  // rank 0's pid and start time name this run
    g_job_token = std::to_string(token[0]) + "-" + std::to_string(token[1]);
    try {
        body();
        return 0;
    } catch (const CollectiveFailure& e) {
        report(e, rank, size);
        return e.exit_code();
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
