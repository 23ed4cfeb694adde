#include "core/output_lock.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <sstream>

namespace iok {

namespace {

std::string host_name() {
    char buf[HOST_NAME_MAX + 1] = {};
    if (gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
    return buf;
}

std::string my_stamp() { return host_name() + " " + std::to_string(static_cast<long>(getpid())); }

// "HOST PID" of the lock's holder ("" when it cannot be read: being written).
std::string holder(const std::string& lock) {
    std::ifstream in(lock);
    std::string host, pid;
    in >> host >> pid;
    return host.empty() || pid.empty() ? "" : host + " " + pid;
}

// A holder on this host whose process is gone.
bool stale(const std::string& stamp) {
    std::istringstream in(stamp);
    std::string host;
    long pid = 0;
    if (!(in >> host >> pid) || host != host_name() || pid <= 0) return false;
    return kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

bool create_exclusive(const std::string& lock, int& err) {
    const int fd = open(lock.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        err = errno;
        return false;
    }
    const std::string stamp = my_stamp() + "\n";
    const bool ok = write(fd, stamp.data(), stamp.size()) == static_cast<ssize_t>(stamp.size());
    close(fd);
    if (!ok) {
        err = EIO;
        unlink(lock.c_str());
    }
    return ok;
}

}  // namespace

std::string output_lock_path(const std::string& output) { return output + ".iok-lock"; }

std::string take_output_lock(const std::string& output) {
    const std::string lock = output_lock_path(output);
    for (int attempt = 0; attempt < 2; ++attempt) {
        int err = 0;
        if (create_exclusive(lock, err)) return "";
        if (err != EEXIST)
            return "cannot create the lock " + lock + " beside output " + output + " (" + std::strerror(err) + ")";
        const std::string who = holder(lock);
        if (who == my_stamp()) return "";  // this run claimed it before
        if (attempt == 0 && !who.empty() && stale(who)) {
            unlink(lock.c_str());  // its run was killed: the next attempt takes it
            continue;
        }
        return "output " + output + " is being written by another run" +
               (who.empty() ? std::string()
                            : " (pid " + who.substr(who.find(' ') + 1) + " on " + who.substr(0, who.find(' ')) + ")");
    }
    return "output " + output + " is being written by another run";
}

void release_output_lock(const std::string& output) {
    const std::string lock = output_lock_path(output);
    if (holder(lock) == my_stamp()) unlink(lock.c_str());
}

}  // namespace iok
