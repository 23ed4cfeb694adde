#include "kernels/gcrm/gcrm_format.hpp"

#include "core/command_line.hpp"

namespace iok::gcrm {
namespace {

// The length GCRM-IO gives a dimension keyword in its check; -1: left out
// (time, the record dimension).  Keywords are matched without case, as it does.
std::int64_t keyword_length(const std::string& keyword, const GridParams& g) {
    const std::string k = lowercase(keyword);
    if (k == "time") return -1;
    if (k == "cells") return g.cells;
    if (k == "i_uniq_edge" || k == "i_cell_edges") return g.edges;
    if (k == "i_uniq_corner" || k == "i_cell_corners") return g.corners;
    if (k == "vector") return 3;
    if (k == "cellneighbors" || k == "celledges" || k == "cellcorners") return 6;
    if (k == "ns_ew" || k == "endpoints") return 2;
    if (k == "layers") return g.km;
    if (k == "interfaces") return g.km + 1;
    return 0;  // an index dimension (nprog, ntend, ...): GCRM-IO leaves its length 0 here
}

}  // namespace

std::int64_t gcrm_io_largest_field(const Description& desc, const GridParams& g) {
    std::int64_t largest = 0;
    for (const Descriptor& d : desc.vars)
        for (const DimensionLine& line : d.dimension_lines) {
            std::int64_t n = 1;
            for (const std::string& k : line.dims) {
                const std::int64_t len = keyword_length(k, g);
                if (len >= 0) n *= len;
            }
            largest = std::max(largest, n * line.elem_bytes);
        }
    return largest;
}

std::string gcrm_io_file_format(const Description& desc, const GridParams& g) {
    return gcrm_io_largest_field(desc, g) > (std::int64_t{1} << 31) ? "cdf5" : "cdf2";
}

}  // namespace iok::gcrm
