#pragma once
// Parses the header part of CDL text, as printed by `ncdump -h` /
// `ncmpidump -h` (dimensions, variables, attributes; no data section), into a
// FileSpec.  The E3SM case descriptions are such listings of real E3SM output.
//
// Attribute values keep their CDL types: 1.e+20f is a float attribute holding
// the float constant widened to double (1.00000002004088e+20), 72 is an int,
// 6371229. a double, -5s a short, 3b a byte, 7LL an int64; several strings
// separated by commas are concatenated (ncdump splits long text after "\n").
#include <string>

#include "model/file_spec.hpp"

namespace iok {

// Throws iok::Error naming `source` and the line for any syntax error.
FileSpec parse_cdl_header(const std::string& text, const std::string& source);

}  // namespace iok
