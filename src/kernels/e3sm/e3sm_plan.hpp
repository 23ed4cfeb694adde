#pragma once
// Turns an E3SM case description (FileSpecs whose variables name their
// decomposition) and a decomposition map into this rank's FilePlan: one
// Selection per decomposition, shared by every variable that uses it.
#include <string>

#include "formats/decomp_map.hpp"
#include "model/plan.hpp"

namespace iok::e3sm {

struct PlanSettings {
    int io_rank = 0, io_size = 1;          // this rank among the I/O ranks
    bool sort = true;                      // sort + coalesce each rank's runs
    bool fill = false;                     // also build fill selections (I case)
    MapReading reading = MapReading::Map;  // --map-reading (fill mode: always by process)
    int records = 1;
    int flush_every = 1;
    bool two_d_first = false;  // 2-D (and smaller) variables before 3-D ones
};

// Records a history file writes: the case's rule (F h0 and I h1 hold one
// record; every other file holds -r records).
int records_of(const std::string& case_name, const std::string& label, int records);

// `base` with the records `spec` holds in this case (records_of).
PlanSettings settings_for(const FileSpec& spec, const std::string& case_name, int records, PlanSettings base);

FilePlan make_file_plan(const FileSpec& spec, const DecompMap& map, const PlanSettings& s);

}  // namespace iok::e3sm
