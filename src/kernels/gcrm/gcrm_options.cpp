#include "kernels/gcrm/gcrm_options.hpp"

namespace iok::gcrm {

void Options::add_to(CLI::App& app) {
    app.add_option("paramfile", paramfile, "GCRM parameter file (zgrd.in syntax)")->capture_default_str();
    app.add_option("--desc", desc, "variable description file (default: io_desc_file beside the parameter file)");
    app.add_option("--fcfg", fcfg, "file configuration (default: io_config_file beside the parameter file)");
    app.add_option("-o,--output-path", output_path,
                   "output directory (default: $GCRM_OUTPUT_PATH, else cdf_output_path of the parameter file)");
    app.add_option("--iotype", iotype,
                   "override iotype: nonblocking_collective, nonblocking_independent, blocking_collective, "
                   "blocking_independent");
    app.add_option("--level", level, "override level_max (0 = from the parameter file)")
        ->capture_default_str()
        ->check(CLI::Range(0, 13));
    app.add_flag("--model-memory", model_memory,
                 "allocate the model's memory footprint (nsdm*im*jm*km doubles per array) and refill it each dump")
        ->capture_default_str();
    app.add_option("--model-arrays", model_arrays, "number of model arrays with --model-memory")
        ->capture_default_str()
        ->check(CLI::Range(1, 10000));
    app.add_flag("--read-only", read_only,
                 "write nothing: read and verify the files an earlier run (with --keep) wrote")
        ->capture_default_str();
}

}  // namespace iok::gcrm
