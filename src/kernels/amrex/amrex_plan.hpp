#pragma once
// What h5bench_amrex writes, as FileSpecs and each rank's plans.
//
// Plot files (WriteMultiLevelPlotfileHDF5SingleDset, AMReX
// Src/Extern/HDF5/AMReX_PlotFileUtilHDF5.cpp): <dir>plt%05d.h5 with the
// root attributes (version_name, plotfile_type, num_components,
// component_<i>, dim, time, finest_level, coordinate_system, num_levels),
// the group Chombo_global (SpaceDim) and per level the group level_<l> with
// its attributes (ref_ratio, Vec_dx, dx, prob_lo, prob_hi, prob_domain,
// domain_type, steps, ngrid, time, ngrow) holding boxes (a compound
// {lo_i..hi_k} per box), data:offsets=0 (int64, one per box + 1), boxcenter
// (a compound {i,j,k}) -- written by rank 0 -- and data:datatype=0, every
// box's cells x components of doubles, each rank its boxes' run.
//
// Particle files (CheckpointHDF5, AMReX_WriteBinaryParticleDataHDF5.H and
// AMReX_ParticleHDF5.H): <dir>plt%05d/particle0/particle0.h5 with its root
// attributes, Chombo_global, and per level level_<l> (ngrids) holding boxes,
// data:datatype=0 (ints: id, cpu and 4 int components per particle),
// data:datatype=1 (doubles: 3 positions and 12 real components) and
// nparticles_grid (an int per grid), each rank its grids' runs.
//
// Where this differs from the original (README.md): boxes go to ranks in
// contiguous runs of the box list (AMReX: a space-filling curve), each grid
// holds nppc particles per cell (AMReX: nppc x cells placed at random), and
// every dataset holds the suite's verifiable pattern, not the box
// coordinates, the constant level number or the random particles.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/amrex/amrex_config.hpp"
#include "model/plan.hpp"

namespace iok::amrex {

struct Box {
    std::array<int, 3> lo{}, hi{};
    std::uint64_t cells() const;
};

// The level's boxes, in AMReX's order, and the rank that owns each.
struct Level {
    Box domain;
    std::vector<Box> boxes;
    std::vector<int> owner;
};

// BoxList::maxSize of the domain [0, ncells-1]^3 (the same boxes, same order).
std::vector<Box> chop(const Box& domain, int max_grid_size);

// set_grids_nested's hierarchy over `nprocs` ranks.
std::vector<Level> levels(const Config& c, int nprocs);

// How the file is written on the library at hand.
struct Style {
    bool compound = true;  // boxes/boxcenter as compounds; else int arrays [n][6] and [n][3]
};

FilePlan plotfile_plan(const Config& c, const std::vector<Level>& lv, int rank, const Style& s, int file);
FilePlan particle_plan(const Config& c, const std::vector<Level>& lv, int rank, int nprocs, const Style& s, int file);

// Bytes of data this rank writes per file (the data datasets; the boxes and
// offsets of rank 0 aside), for the report.
std::uint64_t plot_bytes(const Config& c, const std::vector<Level>& lv, int rank);
std::uint64_t particle_bytes(const Config& c, const std::vector<Level>& lv, int rank);

// Per particle: ints (id, cpu, 1 struct + 3 array ints) and doubles (3
// positions, 4 struct + 8 array reals) -- the benchmark's MyPC.
constexpr int kParticleInts = 6, kParticleReals = 15;

}  // namespace iok::amrex
