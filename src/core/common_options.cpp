#include "core/common_options.hpp"

#include <cstdio>

#include "core/error.hpp"

namespace iok {

std::string backend_list() {
    std::string s;
    for (const auto& b : registered_backends()) s += (s.empty() ? "" : ", ") + b.name;
    return s;
}

void CommonOptions::add_to(CLI::App& app, const std::string& default_backend) {
    backend = default_backend;
    app.add_option("-a,--api", backend, "I/O library (backend): " + backend_list())
        ->capture_default_str();
    app.add_option("--param", params,
                   "backend parameter KEY=VALUE, repeatable (e.g. api=vard for pnetcdf, "
                   "adios.NumAggregators=2)");
    app.add_option("--hint", hints, "MPI-IO hint KEY=VALUE, repeatable (e.g. cb_nodes=2)");
    app.add_flag("--independent", independent, "independent instead of collective data access")
        ->capture_default_str();
    app.add_flag("-k,--keep", keep, "keep the output files when the program exits")->capture_default_str();
    app.add_flag("--overwrite", overwrite, "replace existing output files this run did not create")
        ->capture_default_str();
    app.add_option("--json", json, "write the result (with manifest) as JSON to FILE");
    app.add_flag("-q,--quiet", quiet, "print only the final report")->capture_default_str();
    app.add_flag("-v,--verbose", verbose, "print progress details")->capture_default_str();
}

std::pair<std::string, std::string> split_key_value(const std::string& kv, const std::string& what) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
        throw Error("malformed " + what + " '" + kv + "'", "write it as KEY=VALUE");
    return {kv.substr(0, eq), kv.substr(eq + 1)};
}

BackendConfig CommonOptions::backend_config() const {
    BackendConfig cfg;
    cfg.collective = !independent;
    for (const auto& p : params) {
        auto [k, v] = split_key_value(p, "--param");
        cfg.params[k] = v;
    }
    MPI_Info_create(&cfg.hints);
    for (const auto& h : hints) {
        auto [k, v] = split_key_value(h, "--hint");
        MPI_Info_set(cfg.hints, k.c_str(), v.c_str());
    }
    return cfg;
}

void free_config(BackendConfig& cfg) {
    if (cfg.hints != MPI_INFO_NULL) MPI_Info_free(&cfg.hints);
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
