#pragma once
// Options of the GCRM kernel (the parameter file first, then overrides of
// what it says); -a -x --param --hint -k --json -v ... come from the driver.
#include <CLI/CLI.hpp>
#include <string>

namespace iok::gcrm {

struct Options {
    std::string paramfile = "zgrd.in";
    std::string desc, fcfg, output_path, iotype;
    int level = 0;
    bool model_memory = false;
    int model_arrays = 250;
    bool dry_run = false;
    bool verify = true;  // the driver's --verify/--no-verify
    bool read_only = false;

    void add_to(CLI::App& app);
};

}  // namespace iok::gcrm
