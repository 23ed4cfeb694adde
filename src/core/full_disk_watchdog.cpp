#include "core/full_disk_watchdog.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "core/collective.hpp"
#include "core/output_files.hpp"

namespace iok {

namespace {

std::mutex g_mutex;
std::vector<std::string> g_paths;  // outputs open for writing
bool g_started = false;
int g_rank = 0;

// Half the time a rank waits for the others to agree on its failure
// (collective.cpp, IOK_FAILURE_WAIT_SECONDS, default 20 s): on a full file
// system the watchdog speaks first, with the cause, instead of a rank giving
// up on its library call with MPI_Abort at about the same moment.
double wait_limit() {
    const char* e = std::getenv("IOK_FAILURE_WAIT_SECONDS");
    return 0.5 * (e ? std::atof(e) : 20.0);
}

[[noreturn]] void give_up(const std::string& full) {
    if (g_rank == 0) {
        // a rank that gave up on its library call at the same time may have
        // said it already (collective.cpp): one message
        if (first_to_speak_on_this_node())
            print_error(full + "; the I/O library did not report it on every rank, so the job stops here",
                        "free space there, or write elsewhere (-o)");
        run_abandon_cleanups();
    } else {
        std::this_thread::sleep_for(std::chrono::seconds(2));  // let rank 0 speak first
    }
    std::fflush(nullptr);
    std::_Exit(1);
}

void watch() {
    double full_for = 0;
    while (true) {
        std::this_thread::sleep_for(std::chrono::seconds(1));
        std::string full;
        {
            std::lock_guard<std::mutex> lock(g_mutex);
            for (const auto& p : g_paths)
                if (full.empty()) full = full_file_system(p);
        }
        full_for = full.empty() ? 0 : full_for + 1;
        if (!full.empty() && full_for >= wait_limit()) give_up(full);
    }
}

}  // namespace

void watch_output(const std::string& path) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_paths.push_back(path);
    if (!g_started) {
        g_started = true;
        MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
        std::thread(watch).detach();
    }
}

void unwatch_output(const std::string& path) {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (auto it = g_paths.begin(); it != g_paths.end(); ++it)
        if (*it == path) {
            g_paths.erase(it);
            break;
        }
}

}  // namespace iok
