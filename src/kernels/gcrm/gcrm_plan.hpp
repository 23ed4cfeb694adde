#pragma once
// Turns the GCRM inputs into the run's files: the dump schedule, one FilePlan
// per output file (grid, history, restart) with this rank's selections, and
// the byte totals the reference reports.  No I/O and no MPI calls here.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/gcrm/gcrm_grid.hpp"
#include "kernels/gcrm/gcrm_inputs.hpp"
#include "model/plan.hpp"

namespace iok::gcrm {

// Whether the model registers data for a variable (the reference's
// ZGrd_register: 19 float fields always, 22 more with physics; 21 restart
// doubles always, 15 more with physics; every grid variable but "grid").
bool has_data(const Descriptor& d, bool physics);

struct Dump {
    int index = 0;         // 0-based
    double seconds = 0;    // simulated time
    bool history = false;  // a history record is written
    bool restart = false;  // a restart file is written
};
// Model steps of model_step_seconds(level) from 0 to end_seconds; a history
// dump when the time is a multiple of the output frequency, a restart dump
// when restart_interval > 0 and the time is a multiple of it.
std::vector<Dump> dump_schedule(const RunParams& p, int level);

// "19010101_000000" for a time in seconds since 1901-01-01 (365-day years).
std::string time_stamp(double seconds);

enum class FileKind { Grid, History, Restart };

struct OutputFile {
    FileKind kind = FileKind::History;
    std::string path;
    FilePlan plan;                     // nrecords = records the file holds
    std::vector<int> dumps;            // dump index of each record (restart: the one dump)
    int group = -1;                    // fcfg group (history files)
    std::uint64_t data_bytes = 0;      // all ranks, all records
    std::vector<std::string> no_data;  // fields of the group the model has no data for
    std::vector<int> attribute_only;   // variables defined but never written ("grid")

    // The plan to read the file back: attribute-only variables are not read,
    // as some libraries (ADIOS2) never store a variable no rank wrote.
    FilePlan read_plan() const;
};

struct RunPlan {
    GridParams grid;
    std::vector<Dump> dumps;
    std::vector<OutputFile> files;  // in the order they are first written
    std::uint64_t data_bytes = 0;   // sum over files
    int history_dumps = 0, restart_dumps = 0;
    int grid_vars = 0, field_vars = 0;  // distinct variables with data written
};

// `dir` ends with '/' (or is empty), `ext` is the backend's extension (".nc").
RunPlan build_run_plan(const RunParams& p, const GridParams& g, const Description& desc,
                       const std::vector<FileGroup>& groups, int rank, const std::string& dir, const std::string& ext);

}  // namespace iok::gcrm
