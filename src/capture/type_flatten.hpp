#pragma once
// MPI derived datatypes turned into the byte runs they touch, so a file view
// (filetype) can be written down as offset/length runs.  Walks the type's
// constructor tree with MPI_Type_get_envelope/contents (every combiner the
// MPI standard defines except DARRAY and the Fortran-90 ones); anything else
// is flattened by unpacking a marker stream into a scratch buffer of the
// type's true extent (bounded).  Only PMPI_ calls: this runs inside the
// capture library's wrappers.
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace iokcap {

struct ByteRun {
    std::int64_t off;  // byte displacement from the type's origin
    std::int64_t len;  // bytes
};

// Appends the runs of one instance of `type` placed at byte `base`, merging
// a run that starts where the previous one ended.  Returns false when the
// type cannot be flattened (unknown combiner whose true extent exceeds the
// scratch limit); `out` is then unspecified.
bool flatten_type(MPI_Datatype type, std::int64_t base, std::vector<ByteRun>& out);

// Whether `count` consecutive instances of `type` in memory are one
// contiguous block of bytes (no gaps, no reordering).
bool contiguous_in_memory(MPI_Datatype type, int count);

}  // namespace iokcap
