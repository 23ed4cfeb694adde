#include "kernels/noncontig/noncontig_native.hpp"

#include <cstdio>

#include "core/collective.hpp"
#include "core/error.hpp"
#include "kernels/noncontig/noncontig_report.hpp"

namespace iok::noncontig {

void native_defaults(Driver& d, bool independent) {
    d.default_hint("romio_ds_write", "disable");
    d.default_hint("romio_cb_write", "enable");
    if (!independent) d.default_hint("romio_no_indep_rw", "true");
    d.default_param("mpiio.aggregate", "1");
}

std::string describe_mismatch(const MismatchAt& at, int nvars, std::int64_t array_size) {
    const auto byte = ((static_cast<std::uint64_t>(at.record) * static_cast<std::uint64_t>(nvars) +
                        static_cast<std::uint64_t>(at.var)) *
                           static_cast<std::uint64_t>(array_size) +
                       at.element) *
                      4;
    char msg[256];
    std::snprintf(msg, sizeof msg, "tile %lld, variable %d, element %llu (file byte %llu): expected %.9g, read %.9g",
                  static_cast<long long>(at.record), at.var, static_cast<unsigned long long>(at.element),
                  static_cast<unsigned long long>(byte), at.expected, at.actual);
    return std::string(msg) + " on rank " + std::to_string(at.rank);
}

void report_native(Driver& d, const NativeSetup& s, const Decomposition& dc, const Measured& m) {
    const std::vector<Run> runs = rank_runs(dc, d.rank(), d.size());
    const Figures f = reduce_figures(d.comm(), s, dc, runs, m);
    d.result().add_input("decomposition", s.input);
    if (d.rank() == 0) {
        d.result().params().update({{"input", s.input},
                                    {"output", s.output},
                                    {"nvars", s.nvars},
                                    {"format", dc.format},
                                    {"map_processes", dc.nprocs},
                                    {"map_process_assignment", s.map_processes},
                                    {"array_size", dc.array_size},
                                    {"gap_floats", s.gap},
                                    {"verify", s.verify}});
        d.result().summary() = summary_json(s, m, f, d.size());
        print_report(s, dc, m, f, d.config().hints, d.size());
    }
    collective_step(d.comm(), [&] {
        if (!f.pack_ok && !s.verify_existing)
            throw Error("MPI_Pack produced other bytes than the noncontiguous buffer holds",
                        "this is an MPI library problem; report it with the manifest");
        if (s.verify && m.file_size != f.expect_size)
            throw Error(s.output + " is " + std::to_string(m.file_size) + " bytes, expected " +
                        std::to_string(f.expect_size));
    });
}

}  // namespace iok::noncontig
