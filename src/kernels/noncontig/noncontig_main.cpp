// iokernels noncontig: MPI collective write through a file view of many
// small noncontiguous runs (a real E3SM decomposition), once from a
// contiguous user buffer and once from a noncontiguous one (gaps between
// variables), as the mpi_io_test/noncontig_buf reference; both tiles are
// read back and verified.  Reference command line: [-q] [-n nvars] [-o file] input_file.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <string>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "driver/kernel.hpp"
#include "core/resource_check.hpp"
#include "core/result.hpp"
#include "driver/driver.hpp"
#include "kernels/noncontig/noncontig_native.hpp"
#include "kernels/noncontig/noncontig_stack.hpp"

namespace iok::noncontig {
namespace {

int noncontig_main(int argc, char** argv) {
    MPI_Comm comm = MPI_COMM_WORLD;
    return run_kernel_main("noncontig", comm, [&] {
        CLI::App app{"MPI-IO collective write of a noncontiguous file view (E3SM decomposition over nvars variables) "
                     "from a contiguous and from a noncontiguous user buffer; the reference's "
                     "[-q] [-n nvars] [-o file] input_file works as is. With -a mpiio -x canonical (the default) "
                     "the hints default to romio_ds_write=disable, romio_cb_write=enable, romio_no_indep_rw=true "
                     "(collective only); --independent uses MPI_File_write instead of MPI_File_write_all.",
                     "iokernels noncontig"};
        NativeSetup s;
        app.add_option("input_file", s.input, "decomposition: mpi_io_test format (off_NNNNN/len_NNNNN) or an E3SM map")
            ->required();
        app.add_option("-n,--nvars", s.nvars, "number of variables")->capture_default_str();
        app.add_option("-o,--output", s.output, "output file")->capture_default_str();
        app.add_option("--decomp", s.decomp, "decomposition of an E3SM map to use (D1, D2, ...)")->capture_default_str();
        app.add_option("--gap", s.gap, "floats between variables in the noncontiguous buffer")
            ->capture_default_str()->check(CLI::NonNegativeNumber);
        app.add_flag("--verify-existing", s.verify_existing,
                     "write nothing: read the existing output file (-o) back and verify both tiles")
            ->capture_default_str();
        DriverDefaults defaults;
        defaults.backend = "mpiio";
        defaults.verify = true;
        Driver drv("noncontig", comm, app, argc, argv, defaults);
        if (!drv.parse([&] {
                if (s.nvars <= 0)
                    throw Error("number of variables (-n) is " + std::to_string(s.nvars) + ", must be positive",
                                "e.g. -n 100");
            }))
            return;
        // Its own MPI-IO path is not a plan of steps yet (driver/kernel.hpp), so
        // the driver's census has nothing to count.
        drv.expressible(!drv.options().dry_run, "noncontig has no --dry-run yet",
                        "the plan is one file of nvars variables over the decomposition; run it without --dry-run");
        // The driver owns the common options on both paths.
        const CommonOptions& c = drv.options();
        s.quiet = c.quiet;
        s.independent = c.independent;
        s.hints = c.hints;
        s.verify = c.verify;
        s.keep = c.keep;
        s.overwrite = c.overwrite;
        s.json = c.json;
        s.no_size_check = c.no_size_check;
        // The seed's own MPI-IO calls measure what only they can (MPI_Pack,
        // a derived buffer type); every other stack runs as a plan.
        if (drv.options().backend != "mpiio" || drv.options().strategy != "canonical")
            return run_through_stack(
                drv, StackSetup{s.input, s.output, s.decomp, s.nvars, s.gap, s.verify, s.verify_existing, s.quiet});
        run_native(comm, s, argv_vector(argc, argv));
    });
}

}  // namespace
}  // namespace iok::noncontig

IOK_REGISTER_KERNEL_MAIN(noncontig, "noncontig",
                    "MPI-IO collective write of an E3SM noncontiguous view, contiguous vs noncontiguous buffer",
                    iok::noncontig::noncontig_main)
