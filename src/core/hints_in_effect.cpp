#include "core/hints_in_effect.hpp"

#include <dlfcn.h>
#include <mpi.h>

#include "core/command_line.hpp"

namespace iok {

nlohmann::json hints_not_in_effect(const nlohmann::json& requested, const nlohmann::json& in_effect) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = requested.begin(); it != requested.end(); ++it) {
        // PnetCDF's own hints read back as what it derived from them, not as
        // given (nc_var_align_size=1, no alignment, reads back 4: the same
        // layout), and the open does not drop them: only MPI-IO's are judged.
        if (it.key().rfind("nc_", 0) == 0) continue;
        const auto have = in_effect.find(it.key());
        if (have == in_effect.end() || *have == it.value()) continue;
        out[it.key()] = {{"requested", it.value()}, {"in_effect", *have}};
    }
    return out;
}

std::string describe_hints_not_in_effect(const nlohmann::json& not_in_effect) {
    std::string s;
    for (auto it = not_in_effect.begin(); it != not_in_effect.end(); ++it) {
        if (!s.empty()) s += ", ";
        s += it.key() + "=" + it.value()["requested"].get<std::string>() +
             " (in effect: " + it.value()["in_effect"].get<std::string>() + ")";
    }
    return s;
}

void give_open_time_hints(const std::vector<std::string>& hints) {
    using Install = int (*)(MPI_Info);
    auto install = reinterpret_cast<Install>(dlsym(RTLD_DEFAULT, "iok_open_hints_install"));
    if (!install || hints.empty()) return;
    MPI_Info info;
    MPI_Info_create(&info);
    for (const auto& h : hints) {
        auto [k, v] = split_key_value(h, "--hint");
        MPI_Info_set(info, k.c_str(), v.c_str());
    }
    install(info);
    MPI_Info_free(&info);
}

std::string open_hints_state() {
    // Looked up, not linked: core serves programs built without the library
    // (unit tests), and a program may get it by LD_PRELOAD.
    using State = const char* (*)();
    auto state = reinterpret_cast<State>(dlsym(RTLD_DEFAULT, "iok_open_hints_state"));
    return state ? state() : "absent";
}

}  // namespace iok
