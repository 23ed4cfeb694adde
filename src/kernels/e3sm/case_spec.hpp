#pragma once
// The files E3SM writes in each case (F atmosphere, G ocean, I land): their
// dimensions, variables and attributes as FileSpecs, built from the embedded
// case descriptions (cases/*.cdl: the headers E3SM-IO writes; the older
// listings of real E3SM output hold the same header with the variables in the
// order of cases/*.listing-order) and sized by the decomposition map.  Each
// VarSpec's `decomp` is the index of the map decomposition that partitions
// it, or -1 when rank 0 writes it whole; each carries its `fill_value`.
#include <string>
#include <string_view>
#include <vector>

#include "formats/decomp_map.hpp"
#include "model/file_spec.hpp"

namespace iok::e3sm {

enum class CaseKind { F, G, I };

const char* case_name(CaseKind c);                 // "F", "G", "I"
CaseKind case_from_name(const std::string& name);  // "F"/"f"...; throws iok::Error
// By the map's number of decompositions: 3 -> F, 6 -> G, 5 -> I; otherwise
// iok::Error telling the user to choose the case explicitly.
CaseKind case_for_map(const DecompMap& m);

struct CaseOptions {
    // The reference's -j: keep float variables float.  By default float
    // record variables (F, G) / all float variables (I) are written as double,
    // with _FillValue retyped to double holding the widened float constant and
    // missing_value left float.
    bool float_vars = false;
    // Define order (and so every offset): false = E3SM-IO's as it is today
    // (cases/<stem>.cdl, what its def_F/G/I_case define, in that order);
    // true = the older listing of real E3SM output the seed documents carry
    // (cases/<stem>.cdl's variables in the order of cases/<stem>.listing-order).
    // Same dimensions, variables and attributes either way.
    bool listing_order = false;
};

// Every file of the case in write order, with dimension lengths taken from
// the map (F: ncol, lev and ilev = lev + 1; G: nCells, nEdges, nVertices,
// nVertLevels, nVertLevelsP1; I: lat, lon, levgrnd, levdcmp, levlak, ltype,
// natpft).  Labels: F and I "h0", "h1"; G "hist".  `path` is left empty for
// the runner.  Throws iok::Error if the map does not fit the case (too few
// decompositions, dimension counts or lengths that disagree).
std::vector<FileSpec> case_files(CaseKind c, const DecompMap& m, const CaseOptions& opt = {});

// One file of a case by the stem of its description ("f_h0", "g_hist", ...),
// for tests and tools.
FileSpec case_file(const std::string& stem, const DecompMap& m, const CaseOptions& opt = {});

// Puts f's variables in the order the text `order` lists them (a
// cases/*.listing-order file): one name a line, blank lines and lines starting
// with '#' ignored, every variable of f exactly once.  Throws iok::Error naming
// `source` (and the line) for a name that is no variable of f, a name listed
// twice, or variables left out.
void order_variables(FileSpec& f, std::string_view order, const std::string& source);

// The NetCDF default fill value of a type (used when a variable has no
// _FillValue attribute); float's is the float constant widened.
double default_fill_value(DType t);

}  // namespace iok::e3sm
