#pragma once
// One iteration of h5bench_exerciser as plans: the file it leaves behind
// (group /Data; with --addattr its 64 attributes "Attribute <i> Name", 1024
// chars each; the double dataset /Data/hdf5DataSet1-iter<i>-size<n>; with
// --derivedtype the compound dataset /Data/derivedData/simulation
// parameters) and this rank's blocks: written at the place of rank
// r + rshift, read back at the place of rank r + 2 rshift (mod ranks),
// where rank r + rshift's value (its rank + 1) must be.  Every element a
// rank writes holds rank + 1, the original's buffer (the derived dataset's
// fields too: there its values differ from the original's).
#include <cstdint>

#include "kernels/exerciser/exerciser_options.hpp"
#include "model/plan.hpp"

namespace iok::exerciser {

struct Layout {
    bool groups = true;       // names with '/' (HDF5, ADIOS2, MPI-IO); else the bare dataset names
    bool group_attrs = true;  // the attributes on /Data (HDF5); else on the file
    // The strategy reads back only the blocks each rank wrote (blob, log):
    // the derived dataset is read too (the original reads only the double one).
    bool read_derived = false;
};

std::string dataset_name(const Geometry& g, int iteration);  // "hdf5DataSet1-iter3-size64"

// The write of iteration `it`: the double dataset (+ derived) by this rank.
FilePlan write_plan(const Options& o, const Geometry& g, int it, int rank, int nprocs, const Layout& l);
// Its read-back: the double dataset at the double-shifted place.
FilePlan read_plan(const Options& o, const Geometry& g, int it, int rank, int nprocs, const Layout& l);

}  // namespace iok::exerciser
