#include "core/build_info.hpp"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

namespace iok {

std::string executable_path() {
    char buf[PATH_MAX + 1];
    const ssize_t n = readlink("/proc/self/exe", buf, PATH_MAX);
    if (n <= 0) return "";
    buf[n] = '\0';
    return buf;
}

static std::string parent_dir(const std::string& path) {
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos) return "";
    return slash == 0 ? "/" : path.substr(0, slash);
}

static bool is_dir(const std::string& path) {
    struct stat st{};
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string install_prefix() {
    // An installation is P/bin/<program> beside P/share/iokernels (the data
    // `cmake --install` writes); a build directory has neither.
    const std::string bin = parent_dir(executable_path());
    const auto slash = bin.find_last_of('/');
    if (bin.empty() || slash == std::string::npos || bin.substr(slash + 1) != "bin") return "";
    std::string prefix = parent_dir(bin);
    if (prefix.empty()) prefix = "/";
    return is_dir((prefix == "/" ? "" : prefix) + "/share/iokernels") ? prefix : "";
}

nlohmann::json build_info() {
    nlohmann::json b;
    b["version"] = iokernels_version();
    b["git_revision"] = git_revision();
    const std::string prefix = install_prefix();
    b["install_prefix"] = prefix.empty() ? nlohmann::json(nullptr) : nlohmann::json(prefix);
    b["executable"] = executable_path();
    b["build"] = build_description();
    nlohmann::json libs = nlohmann::json::object();
    for (const auto& [name, version] : build_libraries()) libs[name] = version;
    b["libraries_found"] = libs;
    return b;
}

std::string version_text() {
    std::string t = std::string("iokernels ") + iokernels_version() + " (git " + git_revision() + ", " +
                    build_description() + ")\n";
    const std::string prefix = install_prefix();
    if (!prefix.empty())
        t += "installed in " + prefix + "\n";
    else
        t += "not installed: running from " + parent_dir(executable_path()) + "\n";
    t += "built with:\n";
    for (const auto& [name, version] : build_libraries())
        t += "  " + name + std::string(name.size() < 10 ? 10 - name.size() : 1, ' ') + version + "\n";
    return t;
}

}  // namespace iok
