#include "core/interrupt_cleanup.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace iok {

namespace {

// Signals are blocked while the list changes, so the handler never sees it
// half-updated.
std::vector<std::string>& paths() {
    static std::vector<std::string> p;
    return p;
}

struct BlockSignals {
    sigset_t old;
    BlockSignals() {
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGINT);
        sigaddset(&s, SIGTERM);
        sigprocmask(SIG_BLOCK, &s, &old);
    }
    ~BlockSignals() { sigprocmask(SIG_SETMASK, &old, nullptr); }
};

// Depth-first removal with plain system calls (no allocation by us beyond
// the path buffer on the stack): the process is about to exit anyway.
void remove_tree(const char* path, int depth) {
    struct stat st{};
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode) && depth < 16) {
        if (DIR* d = opendir(path)) {
            while (dirent* e = readdir(d)) {
                if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
                char child[4096];
                const std::size_t n = std::strlen(path), m = std::strlen(e->d_name);
                if (n + 1 + m + 1 > sizeof child) continue;
                std::memcpy(child, path, n);
                child[n] = '/';
                std::memcpy(child + n + 1, e->d_name, m + 1);
                remove_tree(child, depth + 1);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

extern "C" void on_interrupt(int sig) {
    for (const auto& p : paths()) remove_tree(p.c_str(), 0);
    _exit(128 + sig);
}

void install_once() {
    static bool installed = false;
    if (installed) return;
    installed = true;
    struct sigaction sa{};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace

void remove_on_interrupt(const std::string& path) {
    BlockSignals b;
    install_once();
    paths().push_back(path);
}

void forget_on_interrupt(const std::string& path) {
    BlockSignals b;
    auto& p = paths();
    p.erase(std::remove(p.begin(), p.end(), path), p.end());
}

}  // namespace iok
