#pragma once
// The start/count arrays PnetCDF's varn API wants for one Selection, built
// once and reused for every variable that shares the selection (E3SM F case:
// ~190k blocks per rank shared by hundreds of variables).  Record variables
// get a leading record index (count 1) that is patched in place when the
// record changes; PnetCDF copies start/count when a request is posted, so a
// patch never disturbs a pending request.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "model/selection.hpp"

namespace iok {

class VarnRequests {
public:
    VarnRequests(const Selection& sel, bool record) : record_(record) {
        if (sel.nblocks() > static_cast<std::size_t>(INT_MAX))
            throw Error("a selection of " + std::to_string(sel.nblocks()) + " blocks exceeds PnetCDF's varn limit");
        const std::size_t fixed = static_cast<std::size_t>(sel.ndims());
        nd_ = fixed + (record ? 1 : 0);
        num_ = static_cast<int>(sel.nblocks());
        // at least one slot so that every pointer is valid, even for scalars
        start_.assign(std::max<std::size_t>(1, nd_ * sel.nblocks()), 0);
        count_.assign(start_.size(), 1);
        for (std::size_t b = 0; b < sel.nblocks(); ++b) {
            MPI_Offset* s = start_.data() + b * nd_;
            MPI_Offset* c = count_.data() + b * nd_;
            const std::size_t o = record ? 1 : 0;
            for (std::size_t d = 0; d < fixed; ++d) {
                s[o + d] = static_cast<MPI_Offset>(sel.start(b)[d]);
                c[o + d] = static_cast<MPI_Offset>(sel.count(b)[d]);
            }
        }
        sp_.resize(sel.nblocks());
        cp_.resize(sel.nblocks());
        for (std::size_t b = 0; b < sel.nblocks(); ++b) {
            sp_[b] = start_.data() + b * nd_;
            cp_[b] = count_.data() + b * nd_;
        }
    }

    int num() const { return num_; }
    // Start pointers with the record index set to `record` (record variables).
    MPI_Offset* const* starts(std::int64_t record) {
        if (record_ && record != patched_) {
            for (int b = 0; b < num_; ++b) start_[static_cast<std::size_t>(b) * nd_] = record;
            patched_ = record;
        }
        return sp_.empty() ? nullptr : sp_.data();
    }
    MPI_Offset* const* counts() const { return cp_.empty() ? nullptr : const_cast<MPI_Offset* const*>(cp_.data()); }

private:
    bool record_;
    std::size_t nd_ = 0;
    int num_ = 0;
    std::int64_t patched_ = 0;
    std::vector<MPI_Offset> start_, count_;
    std::vector<MPI_Offset*> sp_, cp_;
};

}  // namespace iok
