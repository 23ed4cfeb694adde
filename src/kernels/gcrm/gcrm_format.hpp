#pragma once
// The file format GCRM-IO creates, from its own size check: CDF-2 (64-bit
// offsets), or CDF-5 when its "largest field" passes 2 GiB.  The check is
// GCRM-IO's, not the files' real sizes: while reading the description it
// multiplies, for every descriptor (those the .fcfg writes or not), the
// lengths its dimension keywords stand for (time left out, an unknown
// keyword such as nprog counting 0), by 4 bytes or 8 after "type double".
// i_cell_edges stands for all the edges, so "cells i_cell_edges layers"
// counts cells x edges x layers: past 2 GiB from level 4 on.
#include <cstdint>
#include <string>

#include "kernels/gcrm/gcrm_grid.hpp"
#include "kernels/gcrm/gcrm_inputs.hpp"

namespace iok::gcrm {

// GCRM-IO's largest field, in bytes, as its check counts it.
std::int64_t gcrm_io_largest_field(const Description& desc, const GridParams& g);

// "cdf5" when that exceeds 2^31 bytes, else "cdf2" (pnetcdf.format values).
std::string gcrm_io_file_format(const Description& desc, const GridParams& g);

}  // namespace iok::gcrm
