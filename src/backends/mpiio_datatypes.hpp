#pragma once
// A Selection turned into the pair of MPI derived datatypes that move it in
// one call: a file type (where the elements go, relative to the variable's
// first byte) and a memory type (where they sit in the packed user buffer).
//
// MPI file views need monotonically non-decreasing displacements, but a
// selection lists its blocks in buffer order, which need not be file order
// (E3SM maps with sorting off).  So the runs are sorted by file offset and
// the memory type visits the buffer in that permuted order; when the buffer
// is already in file order the memory side is simply contiguous.
//
// Used by the mpiio backend (unit MPI_BYTE, as a view's filetype) and by
// PnetCDF's vard API (unit = the variable's element type, which vard insists
// on).  Block lengths are ints in MPI, so runs longer than 2^30 units are
// split; nothing is silently truncated.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>

#include "core/mpi_layer.hpp"  // check_mpi, for this header's users
#include "model/selection.hpp"

namespace iok {

class SelectionTypes {
public:
    SelectionTypes() = default;
    ~SelectionTypes();
    SelectionTypes(const SelectionTypes&) = delete;
    SelectionTypes& operator=(const SelectionTypes&) = delete;
    SelectionTypes(SelectionTypes&& o) noexcept { *this = std::move(o); }
    SelectionTypes& operator=(SelectionTypes&& o) noexcept;

    // `unit` is the MPI datatype the types are built from (MPI_BYTE or the
    // element type) and `unit_size` its size in bytes; `elem_size` is the
    // variable's element size.  elem_size must be a multiple of unit_size.
    // Throws iok::Error when runs overlap (a write would be undefined).
    static SelectionTypes build(const Selection& sel, std::size_t elem_size, MPI_Datatype unit, std::size_t unit_size);

    // File side: MPI_DATATYPE_NULL when the selection is empty.
    MPI_Datatype file() const { return file_; }
    // Memory side as (count, type) for the buffer's start: either
    // (units, unit) for a buffer already in file order, or (1, derived).
    MPI_Datatype memory() const { return mem_; }
    int memory_count() const { return mem_count_; }
    std::uint64_t bytes() const { return bytes_; }
    // One past the last byte the file side touches (relative to the variable).
    std::uint64_t file_end() const { return file_end_; }
    std::size_t file_blocks() const { return file_blocks_; }
    bool permuted() const { return permuted_; }

private:
    MPI_Datatype file_ = MPI_DATATYPE_NULL;
    MPI_Datatype mem_ = MPI_DATATYPE_NULL;
    bool mem_derived_ = false;
    int mem_count_ = 0;
    std::uint64_t bytes_ = 0;
    std::uint64_t file_end_ = 0;
    std::size_t file_blocks_ = 0;
    bool permuted_ = false;
    void release();
};

}  // namespace iok
