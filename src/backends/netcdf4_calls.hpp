#pragma once
// How the netcdf4 backend turns one selection into few nc_put_vara /
// nc_get_vara calls.  NetCDF-4 has no varn call and every call costs tens of
// microseconds of library work (and a record-count query over every variable
// of the file on each read of a record variable), so the number of calls is
// what decides the speed, not the bytes.
//
//   boxes():   the selection's blocks merged into the fewest hyper-rectangles
//              that are exactly their union (an E3SM column run repeated on
//              every level becomes one levels x run box).  Safe for writes:
//              nothing outside the selection is touched.
//   windows(): for reads, consecutive boxes read as one bounding box while
//              it stays within `max_elements` (data sieving, as ROMIO does
//              for independent reads with ind_rd_buffer_size): more bytes,
//              far fewer calls.
//
// A call whose data are one block of the user buffer as they are moves them
// directly; the others go through a staging buffer with the copies listed.
#include <cstdint>
#include <vector>

#include "model/selection.hpp"

namespace iok::nc4 {

struct Copy {                 // in elements
    std::uint64_t user = 0;   // offset in the user buffer (blocks packed in order)
    std::uint64_t local = 0;  // offset in the call's staging buffer (row-major box)
    std::uint64_t length = 0;
};

struct Call {
    std::vector<std::uint64_t> start, count;  // over the selection's dimensions
    std::uint64_t elements = 0;               // product of count
    std::int64_t direct = -1;                 // >= 0: user buffer offset of data moved as they are
    std::vector<Copy> copies;                 // direct < 0: user <-> staging copies
};

struct CallPlan {
    std::vector<Call> calls;     // in file order
    std::uint64_t staging = 0;   // largest staged call, elements
    std::uint64_t selected = 0;  // elements of the selection
    std::uint64_t moved = 0;     // elements the calls move (> selected when sieved)
};

// The selection's non-empty blocks merged into exact boxes.  Selections of
// zero dimensions (scalars) give one direct call per non-empty block.
CallPlan boxes(const Selection& sel);

// boxes(sel), then consecutive boxes joined while their bounding box holds at
// most `max_elements` elements (0: no joining).
CallPlan windows(const Selection& sel, std::uint64_t max_elements);

// Moves the call's elements between the user buffer and `staging`.
void gather(const Call& c, const char* user, char* staging, std::size_t element_bytes);
void scatter(const Call& c, const char* staging, char* user, std::size_t element_bytes);

}  // namespace iok::nc4
