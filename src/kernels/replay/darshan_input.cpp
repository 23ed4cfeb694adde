#include "kernels/replay/darshan_input.hpp"

#include <unistd.h>

#include <sys/wait.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/build_info.hpp"
#include "core/collective.hpp"
#include "core/error.hpp"

namespace iok::replay {
namespace {

constexpr std::int64_t kDarshanMagic = 6567223;  // darshan-log-format.h: DARSHAN_MAGIC_NR

std::string quoted(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

void broadcast(std::string& text, MPI_Comm comm) {
    long long n = static_cast<long long>(text.size());
    MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm);
    text.resize(static_cast<std::size_t>(n));
    // in pieces: MPI counts are int
    for (long long off = 0; off < n; off += 1 << 30) {
        const int len = static_cast<int>(std::min<long long>(n - off, 1 << 30));
        MPI_Bcast(text.data() + off, len, MPI_CHAR, 0, comm);
    }
}

}  // namespace

bool is_darshan_log(const std::string& path, MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    int yes = 0;
    if (rank == 0) {
        std::ifstream in(path, std::ios::binary);
        unsigned char h[16] = {};
        if (in.read(reinterpret_cast<char*>(h), sizeof h)) {
            std::int64_t le = 0, be = 0;
            for (int i = 0; i < 8; ++i) {
                le |= static_cast<std::int64_t>(h[8 + i]) << (8 * i);
                be = (be << 8) | h[8 + i];
            }
            yes = le == kDarshanMagic || be == kDarshanMagic;
        }
    }
    MPI_Bcast(&yes, 1, MPI_INT, 0, comm);
    return yes != 0;
}

std::string darshan_converter() {
    if (const char* env = std::getenv("IOK_DARSHAN"); env && *env) return env;
    std::string exe = executable_path();
    const auto slash = exe.rfind('/');
    return (slash == std::string::npos ? std::string(".") : exe.substr(0, slash)) + "/iokernels-darshan";
}

std::string darshan_trace(const std::string& path, int ranks, double scale, MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::string text;
    collective_step(comm, [&] {
        if (rank != 0) return;
        const std::string conv = darshan_converter();
        char errname[] = "/tmp/iokernels-darshan-XXXXXX";
        const int fd = mkstemp(errname);
        if (fd < 0) throw Error("cannot make a temporary file for the Darshan converter's messages", "check /tmp");
        close(fd);
        std::ostringstream cmd;
        cmd << quoted(conv) << " trace " << quoted(path) << " --ranks " << ranks << " --scale " << scale << " 2>"
            << quoted(errname);
        FILE* p = popen(cmd.str().c_str(), "r");
        if (!p) {
            std::remove(errname);
            throw Error("cannot run the Darshan converter " + conv, "reinstall iokernels (scripts/setup.sh)");
        }
        char buf[1 << 16];
        std::size_t n = 0;
        while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
        const int status = pclose(p);
        std::ifstream err(errname);
        std::string line, last;
        while (std::getline(err, line))
            if (!line.empty()) last = line;
        std::remove(errname);
        if (status != 0) {
            const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            if (code == 2 && !last.empty()) throw Error(last, "give the log of an MPI job that read or wrote files");
            throw Error("the Darshan converter " + conv + " failed (status " + std::to_string(code) + ")" +
                            (last.empty() ? std::string() : ": " + last),
                        code == 127 ? "it is installed beside iokernels (set IOK_DARSHAN to run another)"
                                    : "is PyDarshan installed? scripts/setup.sh installs it");
        }
    });
    broadcast(text, comm);
    return text;
}

}  // namespace iok::replay
