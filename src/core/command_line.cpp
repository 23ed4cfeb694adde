#include "core/command_line.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "core/error.hpp"

namespace iok {

std::pair<std::string, std::string> split_key_value(const std::string& kv, const std::string& what) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw Error("malformed " + what + " '" + kv + "'", "write it as KEY=VALUE");
    return {kv.substr(0, eq), kv.substr(eq + 1)};
}

void set_default_hint(MPI_Info info, const std::string& key, const std::string& value) {
    if (info == MPI_INFO_NULL) return;
    int len = 0, flag = 0;
    MPI_Info_get_valuelen(info, key.c_str(), &len, &flag);
    if (!flag) MPI_Info_set(info, key.c_str(), value.c_str());
}

std::string lowercase(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

bool parse_command_line(CLI::App& app, int argc, char** argv, MPI_Comm comm, int* exit_code) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        if (rank == 0) std::fputs(app.help().c_str(), stdout);
        *exit_code = 0;
        return true;
    } catch (const CLI::CallForAllHelp& e) {
        if (rank == 0) std::fputs(app.help("", CLI::AppFormatMode::All).c_str(), stdout);
        *exit_code = 0;
        return true;
    } catch (const CLI::ParseError& e) {
        throw Error(e.what(), "see " + app.get_name() + " --help");
    }
    return false;
}

}  // namespace iok
