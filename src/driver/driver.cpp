#include "driver/driver.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

#include "backends/io_stack.hpp"
#include "core/collective.hpp"
#include "core/command_line.hpp"
#include "core/error.hpp"
#include "core/hints_in_effect.hpp"
#include "core/manifest.hpp"
#include "core/result_csv.hpp"

namespace iok {

namespace {

std::string names(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

std::vector<std::string> strategy_names() {
    std::vector<std::string> v;
    for (const auto& s : registered_strategies()) v.push_back(s.name);
    return v;
}

// Adds an option unless the kernel already has one of its names.
bool free_name(CLI::App& app, const std::string& name) { return app.get_option_no_throw(name) == nullptr; }

}  // namespace

Driver::Driver(const char* kernel, MPI_Comm comm, CLI::App& app, int argc, char** argv, DriverDefaults d)
    : kernel_(kernel),
      comm_(comm),
      app_(app),
      argc_(argc),
      argv_(argv),
      result_(kernel, argv_vector(argc, argv)) {
    MPI_Comm_rank(comm, &rank_);
    MPI_Comm_size(comm, &size_);
    opt_.backend = d.backend;
    opt_.verify = d.verify;
    auto* g = app.add_option_group("I/O stack and run control (common to every kernel)");
    if (free_name(app, "-a"))
        g->add_option("-a,--api", opt_.backend, "I/O library (backend): " + names(backend_names()))
            ->capture_default_str();
    if (free_name(app, "-x"))
        g->add_option("-x,--strategy", opt_.strategy,
                      "request strategy: " + names(strategy_names()) + " (iokernels backends describes them)")
            ->capture_default_str();
    if (free_name(app, "-g"))
        g->add_option("-g,--subfiles", opt_.subfiles, "blob/log: number of subfiles (0 = one per node)")
            ->capture_default_str()
            ->check(CLI::NonNegativeNumber);
    if (free_name(app, "--param"))
        g->add_option("--param", opt_.params,
                      "backend or strategy setting KEY=VALUE, repeatable (e.g. pnetcdf.api=vard, "
                      "adios.NumAggregators=2, rearrange.aggregators=2; iokernels backends lists every key)")
            ->allow_extra_args(false);  // one KEY=VALUE per --param: a positional after it stays positional
    if (free_name(app, "--hint"))
        g->add_option("--hint", opt_.hints, "MPI-IO hint KEY=VALUE, repeatable (e.g. cb_nodes=2)")
            ->allow_extra_args(false);
    if (free_name(app, "--independent"))
        g->add_flag("--independent", opt_.independent, "independent instead of collective data access")
            ->capture_default_str();
    if (free_name(app, "-k"))
        g->add_flag("-k,--keep", opt_.keep, "keep the output files when the program exits")->capture_default_str();
    if (free_name(app, "--overwrite"))
        g->add_flag("--overwrite", opt_.overwrite, "replace existing output files this run did not create")
            ->capture_default_str();
    if (d.verify_option && free_name(app, "--verify"))
        // the kernel's default, spelt out: CLI11 shows {false} for a negatable flag whatever its value
        g->add_flag("--verify,!--no-verify", opt_.verify, d.verify_help)->default_str(opt_.verify ? "true" : "false");
    if (free_name(app, "--json"))
        g->add_option("--json", opt_.json, "write the result (with manifest) as JSON to FILE");
    if (free_name(app, "--csv")) g->add_option("--csv", opt_.csv, "write one CSV row per file of the result to FILE");
    if (free_name(app, "-q"))
        g->add_flag("-q,--quiet", opt_.quiet, "print only the final report")->capture_default_str();
    if (free_name(app, "-v"))
        g->add_flag("-v,--verbose", opt_.verbose, "print progress details")->capture_default_str();
    add_size_check_option(*g, opt_.no_size_check);
    if (free_name(app, "--dry-run"))
        g->add_flag("--dry-run", opt_.dry_run,
                    "plan only: print every file's requests and bytes per rank (at --ranks N where the kernel has "
                    "it) and open nothing")
            ->capture_default_str();
}

void Driver::check_resources(const ResourceNeeds& need, const std::string& what_to_shrink) const {
    iok::check_resources(comm_, need, opt_.no_size_check, what_to_shrink);
}

Driver::~Driver() {
    if (cfg_.hints != MPI_INFO_NULL) MPI_Info_free(&cfg_.hints);
    if (hints_in_effect_ != MPI_INFO_NULL) MPI_Info_free(&hints_in_effect_);
}

bool Driver::parse(const std::function<void()>& validate) {
    int code = 0;
    bool done = false;
    collective_step(comm_, [&] {
        done = parse_command_line(app_, argc_, argv_, comm_, &code);
        if (done) return;
        if (validate) validate();
        // Names and keys are checked before any file is touched.
        std::map<std::string, std::string> given;
        for (const auto& p : opt_.params) given.insert(split_key_value(p, "--param"));
        for (const auto& h : opt_.hints) split_key_value(h, "--hint");
        validated_params(opt_.backend, opt_.strategy, given);
    });
    if (done) return false;
    outputs_ = std::make_unique<OutputFiles>(comm_, opt_.keep, opt_.overwrite);
    // Before any file is opened (a kernel may read its input with MPI-IO):
    // the --hint keys ROMIO takes only at open reach it at every open
    // (core/hints_in_effect.hpp).
    give_open_time_hints(opt_.hints);
    return true;
}

void Driver::default_param(const std::string& key, const std::string& value) {
    default_params_.emplace_back(key, value);
    config_built_ = false;
}

void Driver::default_hint(const std::string& key, const std::string& value) {
    default_hints_.emplace_back(key, value);
    config_built_ = false;
}

const BackendInfo& Driver::library() const { return backend_info(opt_.backend); }
const StrategyInfo& Driver::strategy() const { return strategy_info(opt_.strategy); }

std::string Driver::writing_library() const {
    const std::string& w = strategy().writes_with;
    return w.empty() ? opt_.backend : w;
}

std::string Driver::stack_label() const {
    if (!strategy().writes_with.empty())
        return strategy().writes_with + " (" + opt_.strategy + " layout; -a " + opt_.backend + " is " + opt_.strategy +
               "_replay's target)";
    return strategy().library_alone ? opt_.backend : opt_.backend + " + " + opt_.strategy;
}

std::string Driver::library_label() const {
    const std::string name = writing_library();  // a named string: GCC warns of a dangling reference otherwise
    const BackendInfo& b = backend_info(name);   // a registry entry: lives for the program
    return b.library_version ? b.library_version() : b.name;
}

std::string Driver::extension() const { return library().extension; }

void Driver::build_config() {
    if (cfg_.hints != MPI_INFO_NULL) MPI_Info_free(&cfg_.hints);
    cfg_ = BackendConfig{};
    cfg_.collective = collective_ && !opt_.independent;
    cfg_.fill = fill_;
    // Kernel defaults first (only those this stack has), then the user's.
    std::map<std::string, std::string> merged;
    for (const auto& [k, v] : default_params_)
        if (has_param(k)) merged[k] = v;
    if (opt_.subfiles > 0 && has_param(opt_.strategy + ".subfiles"))
        merged[opt_.strategy + ".subfiles"] = std::to_string(opt_.subfiles);
    for (const auto& p : opt_.params) {
        auto kv = split_key_value(p, "--param");
        merged[kv.first] = kv.second;
    }
    cfg_.params = validated_params(opt_.backend, opt_.strategy, merged);
    MPI_Info_create(&cfg_.hints);
    for (const auto& h : opt_.hints) {
        auto [k, v] = split_key_value(h, "--hint");
        MPI_Info_set(cfg_.hints, k.c_str(), v.c_str());
    }
    for (const auto& [k, v] : default_hints_) set_default_hint(cfg_.hints, k, v);
    if (strategy().library_settings) strategy().library_settings(opt_.backend, cfg_);
    config_built_ = true;
}

const BackendConfig& Driver::config() {
    if (!config_built_) collective_step(comm_, [&] { build_config(); });
    return cfg_;
}

void Driver::require(bool have, const std::string& what, const std::string& capability) {
    collective_step(comm_, [&] {
        if (have) return;
        // Name the backends that have it (a capability flag or an option key).
        struct Named {
            const char* name;
            bool Capabilities::* flag;
        };
        static const Named kFlags[] = {{"compound files", &Capabilities::compound_files},
                                       {"chunking", &Capabilities::chunking},
                                       {"alignment", &Capabilities::alignment},
                                       {"object alignment", &Capabilities::aligns_objects},
                                       {"struct memory", &Capabilities::struct_memory},
                                       {"groups", &Capabilities::groups},
                                       {"names with '/' (groups)", &Capabilities::slash_names}};
        bool Capabilities::* flag = nullptr;
        for (const Named& n : kFlags)
            if (capability == n.name) flag = n.flag;
        std::string with;
        for (const auto& b : registered_backends()) {
            bool ok = flag && b.caps.*flag;
            for (const auto& o : b.options) ok = ok || o.key == capability;
            if (ok) with += (with.empty() ? "" : ", ") + b.name;
        }
        throw Unsupported(what + " needs " + capability + ", which backend " + opt_.backend + " does not have",
                          with.empty() ? "drop " + what : "use -a " + with + ", or drop " + what);
    });
}

bool Driver::has_param(const std::string& key) const {
    for (const auto& o : library().options)
        if (o.key == key) return true;
    for (const auto& o : strategy().options)
        if (o.key == key) return true;
    return false;
}

void Driver::check(bool ok, const std::string& what, const std::string& hint) {
    collective_step(comm_, [&] {
        if (!ok) throw Error(what, hint);
    });
}

void Driver::expressible(bool ok, const std::string& what, const std::string& hint) {
    collective_step(comm_, [&] {
        if (!ok) throw Unsupported(what, hint);
    });
}

std::unique_ptr<Backend> Driver::make_stack() {
    const BackendConfig& cfg = config();
    std::unique_ptr<Backend> be;
    collective_step(comm_, [&] { be = make_io_stack(opt_.backend, opt_.strategy, cfg); });
    return be;
}

OutputFiles& Driver::outputs() {
    if (!outputs_) throw Error("internal: Driver::outputs() before parse()");
    return *outputs_;
}

RunOptions Driver::run_options() const {
    RunOptions r;
    r.fill_mode = fill_;
    r.progress = !opt_.quiet;
    return r;
}

void Driver::record(FileOutcome& out, const nlohmann::json& extra) {
    if (rank_ == 0) {
        nlohmann::json j = out.json;
        j["strategy"] = opt_.strategy;
        for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
        result_.add_file(j);
    }
    if (out.mismatches && first_mismatch_.empty()) first_mismatch_ = out.metrics.path + ": " + out.first_mismatch;
    mismatches_ += out.mismatches;
    if (hints_in_effect_ == MPI_INFO_NULL)
        hints_in_effect_ = out.hints;
    else if (out.hints != MPI_INFO_NULL)
        MPI_Info_free(&out.hints);
    out.hints = MPI_INFO_NULL;
}

// Only the hints the user gave (--hint): a kernel's own defaults that the
// layer did not take are in the manifest, not on every run's screen.
void Driver::warn_hints_not_in_effect() const {
    if (rank_ != 0 || opt_.hints.empty() || hints_in_effect_ == MPI_INFO_NULL) return;
    nlohmann::json given = nlohmann::json::object();
    for (const auto& h : opt_.hints) {
        auto [k, v] = split_key_value(h, "--hint");
        given[k] = v;
    }
    const nlohmann::json lost = hints_not_in_effect(given, info_to_json(hints_in_effect_));
    if (lost.empty()) return;
    std::fprintf(stderr,
                 "iokernels: warning: MPI-IO hint(s) not in effect: %s\n"
                 "  hint: the figures above ran without them: ROMIO keeps one aggregator per node unless "
                 "cb_config_list=*:N allows more, and takes cb_buffer_size, cb_nodes, cb_config_list, "
                 "romio_no_indep_rw and striping only at a process's first open, or the MPI library dropped them "
                 "(docs/compatibility.md)\n",
                 describe_hints_not_in_effect(lost).c_str());
}

void Driver::finish(const std::string& mismatch_hint) {
    const BackendConfig& cfg = config();
    if (rank_ == 0) {
        nlohmann::json& p = result_.params();
        p["backend"] = writing_library();
        p["strategy"] = opt_.strategy;
        if (writing_library() != opt_.backend) p["requested_backend"] = opt_.backend;
        p["library"] = library_label();
        p["collective"] = cfg.collective;
        p["backend_params"] = cfg.params;
        result_.summary()["verification_mismatches"] = mismatches_;
    }
    result_.write(comm_, opt_.json, hints_in_effect_, cfg.hints);
    warn_hints_not_in_effect();
    if (!opt_.csv.empty())
        collective_step(comm_, [&] {
            if (rank_ == 0) write_result_csv(opt_.csv, kernel_, result_.params(), result_.files(), size_);
        });
    collective_step(comm_, [&] {
        if (mismatches_)
            throw Error("verification failed: " + std::to_string(mismatches_) + " element(s) differ; first: in " +
                            first_mismatch_,
                        mismatch_hint);
    });
}

}  // namespace iok
