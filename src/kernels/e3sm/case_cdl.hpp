#pragma once
// The E3SM case descriptions (src/kernels/e3sm/cases/*.cdl) compiled into the
// program, so an installed binary is self-contained.  The definition is
// generated at build time by cases/embed_cases.py (see src/CMakeLists.txt).
#include <string>
#include <string_view>
#include <vector>

namespace iok::e3sm {

struct EmbeddedCdl {
    // Views of the program's string literals: building the table copies
    // nothing (it held 820 KB of copies, made by every rank of every run).
    std::string_view name;  // file stem: "f_h0", "f_h1", "g_hist", "i_h0", "i_h1"
    std::string_view text;  // the file's exact contents
};

const std::vector<EmbeddedCdl>& embedded_case_cdls();

}  // namespace iok::e3sm
