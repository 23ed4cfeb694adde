#include "kernels/metadata/metadata_report.hpp"

#include <cstdio>
#include <memory>

#include "core/error.hpp"

namespace iok::metadata {

Span span(const FileMetrics& m, std::initializer_list<Phase> phases) {
    Span s;
    for (Phase p : phases)
        if (m.ran[static_cast<int>(p)]) {
            s.min += m.seconds[static_cast<int>(p)].min;
            s.max += m.seconds[static_cast<int>(p)].max;
        }
    return s;
}

void write_csv(const std::string& path, const Config& c, const Figures& f) {
    std::unique_ptr<FILE, int (*)(FILE*)> out(std::fopen(path.c_str(), "w"), std::fclose);
    if (!out) throw Error("cannot write the CSV file '" + path + "'", "check csv-file's directory exists");
    std::fputs(
        "steps,arrays,rows,cols,scaling,proc-rows,proc-cols,slowdim,rank,layout,mpi-io,wall [s],fsize [B],"
        "write-phase-min [s],write-phase-max [s],creat-min [s],creat-max [s],write-min [s],write-max [s],"
        "write-rate-min [MiB/s],write-rate-max [MiB/s],read-phase-min [s],read-phase-max [s],read-min [s],"
        "read-max [s],read-rate-min [MiB/s],read-rate-max [MiB/s]\n",
        out.get());
    std::fprintf(out.get(),
                 "%llu,%llu,%llu,%llu,%s,%llu,%llu,%s,%d,%s,%s,%.2f,%.0f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,"
                 "%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n",
                 static_cast<unsigned long long>(c.steps), static_cast<unsigned long long>(c.arrays),
                 static_cast<unsigned long long>(c.rows), static_cast<unsigned long long>(c.cols), c.scaling.c_str(),
                 static_cast<unsigned long long>(c.proc_rows), static_cast<unsigned long long>(c.proc_cols),
                 c.slowest_dimension.c_str(), c.rank, c.layout.c_str(), c.mpi_io.c_str(), f.wall, f.file_size,
                 f.write_phase.min, f.write_phase.max, f.create.min, f.create.max, f.write.min, f.write.max,
                 f.rate(f.write.max), f.rate(f.write.min), f.read_phase.min, f.read_phase.max, f.read.min, f.read.max,
                 f.rate(f.read.max), f.rate(f.read.min));
    if (std::fflush(out.get()) != 0) throw Error("cannot write the CSV file '" + path + "'");
}

}  // namespace iok::metadata
