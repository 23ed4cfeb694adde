#pragma once
// A kernel's plan: every file it writes, and for this rank the selection of
// each variable, plus how records are grouped into flushes.  The runner turns
// a plan into backend calls; kernels build plans and never call a library.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/file_spec.hpp"
#include "model/selection.hpp"

namespace iok {

struct FilePlan {
    FileSpec spec;
    // This rank's selection per variable (same index as spec.vars).  A null
    // pointer or an empty selection means the rank accesses nothing of it
    // but still joins every collective call.
    std::vector<SelectionPtr> selection;
    // Fill-mode only: elements no process owns, written with the variable's
    // fill value by the rank listed in the map (I case).
    std::vector<SelectionPtr> fill_selection;
    int nrecords = 1;        // records of the record variables
    int flush_every = 1;     // records per flush; 0 = flush once at the end
    std::vector<int> order;  // variable write order (defaults to 0..n-1)
    // Per variable (same index as spec.vars): the one rank that accesses it,
    // all others holding empty selections, or -1 (any number of ranks; the
    // default when empty).  Handed to the backend as File::sole_accessor.
    std::vector<int> sole_rank;
    std::uint64_t requests = 0;  // this rank's request count (blocks), for the report
    // Mixed into every variable's pattern key: files of one run that share
    // variable names (S3D checkpoints) then hold different data, so reading
    // the wrong file cannot pass verification.
    std::uint64_t pattern_seed = 0;
    // Instead of the pattern, one value in every element this rank writes
    // (fill selections aside): `number` in numeric variables, `text` in char
    // ones.  E3SM-IO fills its buffers so (the writing rank; 'a' + rank), and
    // files written alike compare with cmp; verification checks that each
    // element read holds the reading rank's value (so read back with the
    // writer's rank count).
    struct ConstantData {
        double number = 0, text = 0;
    };
    std::optional<ConstantData> constant_data;
    // Variables whose user buffers are one array of structs, the way a
    // particle code keeps them (h5bench MEM_PATTERN=INTERLEAVED) or a code
    // its parameters (h5bench_exerciser's sim_params_t): fields packed in
    // this order, no padding.  They must share one selection and be all
    // record or all fixed variables.  Empty: every variable has its own
    // packed buffer.
    std::vector<int> memory_struct;

    std::vector<int> write_order() const;
    // Bytes this rank moves for the whole file: every selected element (fill
    // selections included) of every record it writes.
    std::uint64_t bytes() const;
    // Byte offset of each memory_struct field, and the struct's size.
    std::vector<std::size_t> struct_offsets() const;
    std::size_t struct_size() const;
};

struct Plan {
    std::string kernel;     // "e3sm", "s3d", ...
    std::string case_name;  // "F", "G", "I", ...
    std::vector<FilePlan> files;
};

}  // namespace iok
