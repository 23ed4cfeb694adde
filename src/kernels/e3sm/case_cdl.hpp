#pragma once
// The E3SM case descriptions (src/kernels/e3sm/cases/*.cdl) and their listing
// orders (cases/*.listing-order) compiled into the program, so an installed
// binary is self-contained.  The definitions are generated at build time by
// cases/embed_cases.py (see src/CMakeLists.txt).
#include <string>
#include <string_view>
#include <vector>

namespace iok::e3sm {

struct EmbeddedCdl {
    // Views of the program's string literals: building the table copies
    // nothing (it held 820 KB of copies, made by every rank of every run).
    std::string_view name;  // case stem: "f_h0", "f_h1", "g_hist", "i_h0", "i_h1"
    std::string_view text;  // the file's exact contents
};

// cases/<stem>.cdl: the headers E3SM-IO writes, in its define order.
const std::vector<EmbeddedCdl>& embedded_case_cdls();
// cases/<stem>.listing-order: the same variables in the order of the older
// listings of real E3SM output (--define-order listing).
const std::vector<EmbeddedCdl>& embedded_listing_orders();

}  // namespace iok::e3sm
