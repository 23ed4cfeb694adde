#pragma once
// Figures the E3SM report shows per output file, computed on one rank from
// the FileSpec and the map alone (no MPI): variables per decomposition,
// requests per rank, and bytes written.
//
// Counting rules (they reproduce the reference's numbers, see the spec):
// - requests: a partitioned variable costs each rank as many requests as it
//   has runs in the variable's decomposition (after distribution, sorting and
//   coalescing), once for a fixed-size variable and once per record for a
//   record variable; a non-partitioned variable costs rank 0 one request
//   (per record if it is a record variable).  Each run is one request because
//   a run never crosses a row of the fastest dimension.
// - bytes: a partitioned variable contributes the elements its
//   decomposition's real runs cover (plus the fill runs' elements in fill
//   mode) times its element size, summed over all ranks; a non-partitioned
//   variable contributes its whole size once (rank 0 writes it).
#include <cstdint>
#include <vector>

#include "formats/decomp_map.hpp"
#include "model/file_spec.hpp"

namespace iok::e3sm {

struct VarCounts {
    std::vector<int> per_decomp;  // variables per decomposition D1..Dn
    int not_partitioned = 0;
    int total = 0;
};
VarCounts count_vars(const FileSpec& f, int ndecomps);

struct RequestCounts {
    std::vector<std::uint64_t> per_rank;
    std::uint64_t total = 0, max = 0, min = 0;
};
// runs[k][r]: runs of rank r in decomposition k (runs_per_rank()).
RequestCounts request_counts(const FileSpec& f, const std::vector<std::vector<std::uint64_t>>& runs, int nrecords);

struct ByteCounts {
    std::uint64_t fixed = 0;       // fixed-size variables, written once
    std::uint64_t per_record = 0;  // record variables, per record
    std::uint64_t total(int nrecords) const { return fixed + per_record * static_cast<std::uint64_t>(nrecords); }
};
ByteCounts byte_counts(const FileSpec& f, const DecompMap& m, bool fill_mode = false);

}  // namespace iok::e3sm
