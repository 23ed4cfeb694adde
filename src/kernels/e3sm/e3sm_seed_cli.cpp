#include "kernels/e3sm/e3sm_seed_cli.hpp"

#include <cstdlib>

#include "core/error.hpp"

namespace iok::e3sm {

namespace {

// Where option -s/--long's value sits: {index of the token, index of the
// value token or -1 when inline, offset of an inline value}.  -1 when absent.
struct Found {
    int token = -1;
    int value_token = -1;
    std::size_t inline_at = 0;
};

Found find_option(const std::vector<std::string>& args, const std::string& s, const std::string& l) {
    Found f;
    for (std::size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") break;
        if (a == s || a == l) {
            f = {static_cast<int>(i), i + 1 < args.size() ? static_cast<int>(i + 1) : -1, 0};
        } else if (a.rfind(l + "=", 0) == 0) {
            f = {static_cast<int>(i), -1, l.size() + 1};
        } else if (a.size() > 2 && a.rfind(s, 0) == 0 && a[1] != '-') {
            f = {static_cast<int>(i), -1, 2};
        }
    }
    return f;  // the last occurrence wins, as with getopt
}

std::string value_of(const std::vector<std::string>& args, const Found& f) {
    if (f.token < 0) return "";
    if (f.value_token >= 0) return args[static_cast<std::size_t>(f.value_token)];
    if (f.inline_at == 0) return "";
    return args[static_cast<std::size_t>(f.token)].substr(f.inline_at);
}

// Replaces the value in place, keeping the user's spelling of the option.
void set_value(std::vector<std::string>& args, const Found& f, const std::string& v) {
    if (f.value_token >= 0)
        args[static_cast<std::size_t>(f.value_token)] = v;
    else {
        std::string& t = args[static_cast<std::size_t>(f.token)];
        t = t.substr(0, f.inline_at) + v;
    }
}

}  // namespace

std::string option_value(const std::vector<std::string>& args, const std::string& short_name,
                         const std::string& long_name) {
    return value_of(args, find_option(args, short_name, long_name));
}

SeedCommandLine::SeedCommandLine(int argc, char** argv) : args_(argv, argv + argc) {
    const Found api = find_option(args_, "-a", "--api");
    const std::string a = value_of(args_, api);
    struct Pair {
        const char* seed;
        const char* library;
        const char* strategy;
        const char* what;
    };
    static const Pair pairs[] = {
        {"hdf5_ra", "hdf5", "rearrange", "HDF5 with the request rearranger"},
        {"hdf5_log", "hdf5", "log", "HDF5 with the log-based layout (E3SM-IO's Log VOL)"},
    };
    for (const Pair& p : pairs) {
        if (a != p.seed) continue;
        const Found x = find_option(args_, "-x", "--strategy");
        const std::string given = value_of(args_, x);
        // E3SM-IO pairs hdf5_ra with canonical (its layout) and hdf5_log with log.
        const std::string seed_layout = std::string(p.strategy) == "log" ? "log" : "canonical";
        if (!given.empty() && given != seed_layout && given != p.strategy) {
            error_ = std::string("-a ") + p.seed + " (" + p.what + ") with -x " + given;
            hint_ = std::string("E3SM-IO runs ") + p.seed + " with -x " + seed_layout + "; drop -x, or use -a " +
                    p.library + " -x " + given;
            set_value(args_, api, p.library);  // parseable; the error is reported after parsing
            break;
        }
        set_value(args_, api, p.library);
        if (x.token >= 0)
            set_value(args_, x, p.strategy);
        else {
            args_.insert(args_.begin() + 1, p.strategy);
            args_.insert(args_.begin() + 1, "-x");
        }
        notes_.push_back(std::string("-a ") + p.seed + " is E3SM-IO's name for " + p.what + ": running -a " +
                         p.library + " -x " + p.strategy);
    }
    for (auto& s : args_) ptrs_.push_back(s.data());
    ptrs_.push_back(nullptr);
    for (auto& n : seed_environment_notes()) notes_.push_back(std::move(n));
}

std::vector<std::string> seed_environment_notes() {
    std::vector<std::string> notes;
    auto set = [](const char* name) -> std::string {
        const char* v = std::getenv(name);
        return v ? std::string(v) : std::string();
    };
    const std::string merge = set("E3SM_IO_HDF5_MERGE_VARN");
    if (merge == "1")
        notes.push_back(
            "E3SM_IO_HDF5_MERGE_VARN=1: as always here, the HDF5 backends merge a rank's hyperslabs of "
            "a variable into one selection per H5Dwrite");
    else if (!merge.empty())
        notes.push_back(
            "E3SM_IO_HDF5_MERGE_VARN=" + merge +
            " is without effect: the HDF5 backends always merge a "
            "rank's hyperslabs into one selection (E3SM-IO's 1); one H5Dwrite per hyperslab is not offered");
    if (!set("E3SM_IO_HDF5_USE_LOGVOL_WRITEN").empty())
        notes.push_back(
            "E3SM_IO_HDF5_USE_LOGVOL_WRITEN is without effect: there is no Log VOL here; -a hdf5_log "
            "runs the log strategy (-x log), which writes each rank's requests as they come");
    if (!set("H5VL_LOG_PASSTHRU").empty())
        notes.push_back("H5VL_LOG_PASSTHRU is without effect: there is no Log VOL here");
    return notes;
}

}  // namespace iok::e3sm
