#!/usr/bin/env python3
"""iokernels beside each seed tool on the seed's own case: is the suite faster?

    scripts/run.sh python3 bench/versus.py [--e3sm-io PATH] [--h5bench-write PATH] [--h5bench-read PATH]
                                           [--s3d-io PATH] [--gcrm-io PATH] [--noncontig-buf PATH]
                                           [--repeat 3] [--case NAME[,NAME]] [--io-layer romio] [--dir DIR]
                                           [--ne30] [--map F] [--i-map F] [--g-map F] [--records N] [--hint K=V]
                                           [--no-verify-too | --no-no-verify-too]

A user switching from E3SM-IO, h5bench, S3D-IO, GCRM-IO or the noncontig
test must gain speed, not lose it (issue 19).  Every case runs the seed tool
(when its binary is given; a case whose tool is not given is skipped) and
`iokernels` on the same inputs, with the same number of ranks, in fresh
subdirectories of the same directory, alternating seed, iokernels, raw,
seed, iokernels, raw, ... (--repeat N each, after --warmup discarded runs of
both), and times the whole process (a clock around `mpiexec -n R PROGRAM`):
start-up, planning, verification and reporting count as well as I/O.  Beside
them runs raw MPI-IO of the same bytes (`raw_write`: contiguous writes of as
many bytes as iokernels wrote; for read cases `raw_write --read-only` of a
file of that size), the floor neither can beat by much.  The MPI-IO layer is
pinned for all three (--io-layer, default romio: OMPI_MCA_io for the seed
tools and raw_write, --io-layer for iokernels).

The start-up floor (issue 33): every repeat also times `mpi_floor`, a program
that only calls MPI_Init and MPI_Finalize on the same ranks (compiled with
mpicc from a six-line C source into RESULTS/floor/ when the script starts).
Its median is subtracted from both sides: work ratio = (iokernels - floor) /
(seed - floor), printed beside the whole-process ratio; on 16 ranks on 2 cores
the floor is most of a small case's time, so the whole-process ratio alone
says little there.  Peak RSS of both sides is the largest process of the run
(a rank, or the launcher), from wait4 of the launcher; ours also reports its
own per-rank peak in its JSON (memory_bytes.rss_peak, the largest rank).
The same wait4 gives the CPU seconds (user + sys) of all processes of a run:
"cpu work ratio" = (ours - floor) / (seed - floor) over CPU seconds, which
other load on the machine moves far less than wall time.
Where our kernel verifies by default and the seed tool does not (BDCATS, S3D,
GCRM, noncontig), iokernels also runs with --no-verify, one row each; the E3SM
rows of each library write a verifiable value per element (a hash of variable,
element and record) where E3SM-IO writes constants, so ours also runs with
--data rank (E3SM-IO's values: nothing to verify), one row each
(--no-no-verify-too leaves the second rows out).

Cases (--case, default all whose tool is given):

  e3sm-pnetcdf       E3SM F, 16 ranks, -r 5: e3sm_io -k -a pnetcdf -x canonical  vs iokernels e3sm (same
                     options; -k on both E3SM-IO and ours, as ours keeps its files until it exits: without it
                     E3SM-IO unlinks h0 before writing h1, and the page cache drops h0's dirty pages)
  e3sm-hdf5          E3SM F, 16 ranks, -r 5: -a hdf5 -x canonical
  e3sm-hdf5-md       E3SM F, 16 ranks, -r 5: -a hdf5_md -x canonical (HDF5 multi-dataset I/O, same file)
  e3sm-netcdf4       E3SM F,  4 ranks, -r 1: -a netcdf4 -x canonical
  e3sm-blob-pnetcdf  E3SM F, 16 ranks, -r 5: -a pnetcdf -x blob
  e3sm-blob-pnetcdf-aggregate  the same, ours with --param blob.aggregate=1: its subfile written with the hints
                     as given (ROMIO's collective buffering, E3SM-IO's way; by default each rank writes its own
                     pieces of the subfile)
  e3sm-blob-adios    E3SM F, 16 ranks, -r 5: -a adios -x blob
  e3sm-blob-adios-aggregate  the same, ours with --param blob.aggregate=1 (ADIOS2's default aggregation,
                     TwoLevelShm, E3SM-IO's way; by default each rank writes its own pieces: EveryoneWrites)
  e3sm-netcdf4-rearrange  E3SM F, 4 ranks, -r 1: seed -a netcdf4 -x canonical, ours -a netcdf4 -x rearrange
  e3sm-rearrange-vs-blob  E3SM F, 16 ranks, -r 5: seed -a pnetcdf -x blob, ours -a pnetcdf -x rearrange
  vpic               h5bench_write CONFIG FILE vs iokernels vpic CONFIG FILE (the h5bench form; 1-D
                     CONTIG/CONTIG, 4 ranks x --particles x --steps, no emulated compute)
  bdcats             h5bench_read CONFIG FILE vs iokernels bdcats CONFIG FILE, READ_OPTION=FULL, both
                     reading one file iokernels vpic wrote before the timed runs (h5bench's layout, the
                     suite's values: iokernels bdcats verifies every element it reads)
  s3d                s3d_io.x 100 100 100 2 2 2 1 F DIR vs iokernels s3d -a pnetcdf --grid 100,100,100
                     --procs 2,2,2 -c 5 -o DIR (8 ranks; S3D-IO's default 5 checkpoints)
  gcrm               gcrm_io zgrd.in vs iokernels gcrm zgrd.in (--gcrm-input, default level 5;
                     ZGrd.CP.lyr.fcfg.one, 16 ranks;
                     ../shared/datasets/gcrm copied into each run's directory, output paths pointed there)
  noncontig          noncontig_buf -q -n 100 -o FILE MAP vs iokernels noncontig -q -n 100 --map-processes own
                     -o FILE MAP (../shared/datasets/mpi_io_test/48602x72_512p_D1.nc, 16 ranks: rank r writes
                     map process r on both sides, as the reference does)

  e3sm-rearrange-vs-canonical  E3SM F, 16 ranks, -r 5: seed -a pnetcdf -x canonical, ours -a pnetcdf -x rearrange
                     (the same canonical file on both sides)
  e3sm-i-pnetcdf, e3sm-i-hdf5, e3sm-i-blob-pnetcdf, e3sm-i-rearrange-vs-canonical
                     the same on the I (land) map --i-map, 16 ranks, -r 1; ours with --map-reading
                     e3sm-io (E3SM-IO's reading of the map's fill runs, so both write the same bytes)
  e3sm-g-pnetcdf, e3sm-g-hdf5, e3sm-g-blob-pnetcdf, e3sm-g-rearrange-vs-canonical
                     the same on the G (ocean) map --g-map, 16 ranks, -r 1

The F, I and G maps are --map, --i-map, --g-map (default the seed's 16-process maps in
../shared/datasets/e3sm, else maps of the same size written by e3sm_mapgen).  iokernels runs
with its defaults (it verifies where the kernel verifies by default).

--ne30 (issue 33, realistic sizes), each map generated by e3sm_mapgen into DIR (--dir) and
deleted at the end unless given:
  F  the atmosphere of an ne30 run: --case F --ne 30 --nprocs 512 (48,602 columns x 72 levels;
     46.7 M noncontiguous requests on 16 ranks, 1.8 GiB per run of 5 records)
  I  the land of E3SM's half-degree r05 grid: --case I --nlat 360 --nlon 720 --nprocs 512
     (100,818 land cells; 2.9 M requests, 1.2 GiB per record of h1)
  G  E3SM's EC60to30 ocean mesh: --case G --ncells 235160 --nlev 60 --nprocs 512 (702,982
     edges, 467,815 vertices; 9.2 M requests, 3.8 GiB per record)
cases (default): F pnetcdf, hdf5 and netcdf4 (4 ranks) canonical, pnetcdf and adios blob, the
canonical file through rearrange; I and G pnetcdf canonical, blob, rearrange.  Each run then
writes gigabytes and takes seconds to minutes; give --dir a scratch directory with room for
two runs, and --repeat 1 --warmup 0 on a small machine.  --records N overrides every E3SM
case's -r.

Output: per case the median wall time of the seed tool, of iokernels and of raw, the ratio
iokernels / seed of the medians (< 1: the suite is faster), the median of the back-to-back pair
ratios, and min-max of each (the noise); everything in RESULTS/versus.json, one row per case in
RESULTS/versus.csv, logs in RESULTS/logs/.
Exit status: 0 when every run succeeded, 1 otherwise, 2 for usage errors.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from benchlib import Bench, main_guard
from iokernels import launch, paths, results
from iokernels.errors import UsageError
from iokernels.table import format_bytes, render, to_csv

TOOLS = {"e3sm_io": "--e3sm-io", "h5bench_write": "--h5bench-write", "h5bench_read": "--h5bench-read",
         "s3d_io": "--s3d-io", "gcrm_io": "--gcrm-io", "noncontig_buf": "--noncontig-buf"}
CASE_NAMES = ("e3sm-pnetcdf", "e3sm-hdf5", "e3sm-hdf5-md", "e3sm-netcdf4", "e3sm-blob-pnetcdf",
              "e3sm-blob-pnetcdf-aggregate", "e3sm-blob-adios", "e3sm-blob-adios-aggregate",
              "e3sm-netcdf4-rearrange", "e3sm-rearrange-vs-blob", "e3sm-rearrange-vs-canonical",
              "e3sm-i-pnetcdf", "e3sm-i-hdf5", "e3sm-i-blob-pnetcdf", "e3sm-i-rearrange-vs-canonical",
              "e3sm-g-pnetcdf", "e3sm-g-hdf5", "e3sm-g-blob-pnetcdf", "e3sm-g-rearrange-vs-canonical",
              "vpic", "bdcats", "s3d", "gcrm", "noncontig")
# --ne30: the rows issue 33 asks for at a realistic size (each F run writes ~1.8 GiB, I 2.4 GiB, G 3.8 GiB).
NE30_CASES = ("e3sm-pnetcdf", "e3sm-hdf5", "e3sm-netcdf4", "e3sm-blob-pnetcdf", "e3sm-blob-pnetcdf-aggregate",
              "e3sm-blob-adios", "e3sm-blob-adios-aggregate",
              "e3sm-rearrange-vs-canonical", "e3sm-i-pnetcdf", "e3sm-i-blob-pnetcdf", "e3sm-i-rearrange-vs-canonical",
              "e3sm-g-pnetcdf", "e3sm-g-blob-pnetcdf", "e3sm-g-rearrange-vs-canonical")
# The maps of --ne30, generated by e3sm_mapgen (key: the argv placeholder, name, options, the seed's map in ../shared).
NE30_MAPGEN = ["--case", "F", "--ne", "30", "--nprocs", "512"]
MAPS = {"map": ("F", "map_f_ne30_512p.nc", NE30_MAPGEN, "map_f_case_16p.nc"),
        # E3SM's half-degree land grid (r05, 360 x 720), land cells of a generated coast, on 512 processes.
        "imap": ("I", "map_i_r05_512p.nc", ["--case", "I", "--nlat", "360", "--nlon", "720", "--nprocs", "512"],
                 "map_i_case_16p.nc"),
        # E3SM's EC60to30 ocean mesh (235,160 cells, 702,982 edges, 467,815 vertices, 60 levels), 512 processes.
        "gmap": ("G", "map_g_ec60to30_512p.nc", ["--case", "G", "--ncells", "235160", "--nlev", "60",
                                                  "--nprocs", "512"], "map_g_case_16p.nc")}
# The floor: MPI started and finished, nothing else.
FLOOR_C = """/* versus.py's floor: a process that starts and finishes MPI and does nothing else. */
#include <mpi.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
"""


@dataclass
class Case:
    name: str
    label: str
    ranks: int
    tool: str                   # key of TOOLS
    seed: list                  # seed argv after the program ({dir}, {map}, {cfg}, {file}, {shared} filled per run)
    ours: list                  # iokernels argv after the program
    reads: bool = False         # raw reference is a read of the bytes, not a write
    # Ours verifies (reads) or writes verifiable values (a hash per element), the seed does neither: ours is
    # also run with these arguments, its own row ("iokernels-nv"): ["--no-verify"], or ["--data", "rank"].
    unverified: list = None
    setup: object = None        # fn(case, rundir) before each run of either side (untimed)
    notes: list = field(default_factory=list)


def h5bench_config(path, a, read=False):
    """The h5bench VPIC/BDCATS configuration both programs read (h5bench's key=value form)."""
    lines = ["MEM_PATTERN=CONTIG", "FILE_PATTERN=CONTIG", f"TIMESTEPS={a.steps}", "DELAYED_CLOSE_TIMESTEPS=2",
             "COLLECTIVE_DATA=YES", "COLLECTIVE_METADATA=YES", "EMULATED_COMPUTE_TIME_PER_TIMESTEP=0 s",
             "NUM_DIMS=1", f"DIM_1={a.particles}", "DIM_2=1", "DIM_3=1"]
    if read:
        lines.append("READ_OPTION=FULL")
    Path(path).write_text("\n".join(lines) + "\n")
    return str(path)


def gcrm_setup(a):
    src = paths.shared_dir() / "datasets" / "gcrm"

    def setup(case, rundir):
        """zgrd.in with its output paths pointed at the run's directory, beside ZGrd.desc and the fcfg."""
        for name in ("ZGrd.desc", a.gcrm_fcfg):
            shutil.copy(src / name, rundir / name)
        text = (src / a.gcrm_input).read_text()
        text = re.sub(r"(?m)^(output_path|cdf_output_path)\s+\S+", lambda m: f"{m.group(1)} {rundir}/", text)
        text = re.sub(r"(?m)^io_config_file\s+\S+", f"io_config_file {a.gcrm_fcfg}", text)
        (rundir / "zgrd.in").write_text(text)
    return setup


def cases(a):
    def e3(api, x, r, m="map"):
        r = a.records or r
        out = "{dir}/" + {"map": "f", "imap": "i", "gmap": "g"}[m] + "_case.nc"
        # -k on both: E3SM-IO otherwise unlinks each history file as soon as it is closed, so the page cache drops
        # h0's dirty pages before h1 is written (ours keeps its files until it exits); with -k both programs
        # leave every byte to be written back, and each run's directory is deleted after it, untimed.
        return (["-k", "-a", api, "-x", x, "-r", str(r), "-o", out, "{" + m + "}"],
                ["e3sm", "-k", "-a", api, "-x", x, "-r", str(r), "-o", out, "{" + m + "}"])

    def label(what, ranks, r, how):
        return f"E3SM {what} {ranks} ranks -r {a.records or r}, {how}"
    out = []
    for name, api, x, ranks, r in (("e3sm-pnetcdf", "pnetcdf", "canonical", 16, 5),
                                   ("e3sm-hdf5", "hdf5", "canonical", 16, 5),
                                   ("e3sm-hdf5-md", "hdf5_md", "canonical", 16, 5),
                                   ("e3sm-netcdf4", "netcdf4", "canonical", 4, 1),
                                   ("e3sm-blob-pnetcdf", "pnetcdf", "blob", 16, 5),
                                   ("e3sm-blob-adios", "adios", "blob", 16, 5)):
        seed, ours = e3(api, x, r)
        # E3SM-IO writes constants; ours a hash per element unless --data rank (E3SM-IO's values)
        out.append(Case(name, label("F", ranks, r, f"{api} {x}"), ranks, "e3sm_io", seed, ours,
                        unverified=["--data", "rank"]))
        if x == "blob":
            how = {"pnetcdf": "ROMIO's collective buffering", "adios": "ADIOS2's default aggregation"}[api]
            out.append(Case(name + "-aggregate", label("F", ranks, r, f"{api} {x}, ours blob.aggregate=1"), ranks,
                            "e3sm_io", seed, ours + ["--param", "blob.aggregate=1"],
                            notes=[f"ours with {how} on its subfile, as E3SM-IO's blob"]))
    # Issue 19's two cross-strategy goals: the same canonical file written
    # through -x rearrange beside E3SM-IO's own path (NetCDF-4 canonical, and
    # PnetCDF blob, which writes subfiles instead of the canonical file).
    seed, _ = e3("netcdf4", "canonical", 1)
    _, ours = e3("netcdf4", "rearrange", 1)
    out.append(Case("e3sm-netcdf4-rearrange", label("F", 4, 1, "netcdf4: seed canonical, ours rearrange"), 4,
                    "e3sm_io", seed, ours, notes=["the same canonical NetCDF-4 file on both sides"]))
    seed, _ = e3("pnetcdf", "blob", 5)
    _, ours = e3("pnetcdf", "rearrange", 5)
    out.append(Case("e3sm-rearrange-vs-blob", label("F", 16, 5, "pnetcdf: seed blob, ours rearrange (canonical)"),
                    16, "e3sm_io", seed, ours, notes=["ours writes the canonical file, the seed its blob subfiles"]))
    seed, _ = e3("pnetcdf", "canonical", 5)
    _, ours = e3("pnetcdf", "rearrange", 5)
    out.append(Case("e3sm-rearrange-vs-canonical", label("F", 16, 5, "pnetcdf: seed canonical, ours rearrange"),
                    16, "e3sm_io", seed, ours, notes=["the same canonical file on both sides"]))
    # The I (land) and G (ocean) cases, one record each (issue 33): their maps are --i-map and --g-map.
    # An I map has fill runs: E3SM-IO gives each rank a window of the concatenated runs counted by the fill
    # runs' starts (some fill runs get data, the last real runs none); ours reads it so too here, so both write
    # the same bytes (by default ours writes each map process's real runs: 57% of those bytes on the seed's map).
    for what, m, same in (("I", "imap", ["--map-reading", "e3sm-io"]), ("G", "gmap", [])):
        low = what.lower()
        notes = ["ours with --map-reading e3sm-io: E3SM-IO's bytes"] if same else []
        for name, api, x in ((f"e3sm-{low}-pnetcdf", "pnetcdf", "canonical"), (f"e3sm-{low}-hdf5", "hdf5", "canonical"),
                             (f"e3sm-{low}-blob-pnetcdf", "pnetcdf", "blob")):
            seed, ours = e3(api, x, 1, m)
            out.append(Case(name, label(what, 16, 1, f"{api} {x}"), 16, "e3sm_io", seed, ours + same, notes=notes))
        seed, _ = e3("pnetcdf", "canonical", 1, m)
        _, ours = e3("pnetcdf", "rearrange", 1, m)
        out.append(Case(f"e3sm-{low}-rearrange-vs-canonical",
                        label(what, 16, 1, "pnetcdf: seed canonical, ours rearrange"), 16, "e3sm_io", seed, ours + same,
                        notes=["the same canonical file on both sides"] + notes))
    # Ours with -k wherever the seed tool leaves its files (h5bench, S3D-IO, GCRM-IO, noncontig_buf): without it
    # ours unlinks them at exit, inside the timed process, and the kernel drops their dirty pages there (3.9 % of
    # rank 0's time for noncontig's 39 MB, more for S3D's 4.8 GiB).  Each run's directory is deleted after it.
    out.append(Case("vpic", f"VPIC 1-D CONTIG {a.vpic_ranks} ranks x {a.particles} x {a.steps} steps",
                    a.vpic_ranks, "h5bench_write", ["{cfg}", "{dir}/vpic.h5"],
                    ["vpic", "-k", "{cfg}", "{dir}/vpic.h5"]))
    out.append(Case("bdcats", "BDCATS FULL read of that file", a.vpic_ranks, "h5bench_read",
                    ["{rcfg}", "{file}"], ["bdcats", "{rcfg}", "{file}"], reads=True,
                    unverified=["--no-verify"]))  # h5bench_read reads and times, it compares nothing
    s3d = a.s3d_grid.split(",") + a.s3d_procs.split(",")
    s3d_ranks = 1
    for n in a.s3d_procs.split(","):
        s3d_ranks *= int(n)
    out.append(Case("s3d", f"S3D {a.s3d_grid.replace(',', 'x')} on {a.s3d_procs.replace(',', 'x')}, 5 checkpoints",
                    s3d_ranks, "s3d_io", s3d + ["1", "F", "{dir}"],
                    ["s3d", "-k", "-a", "pnetcdf", "--grid", a.s3d_grid, "--procs", a.s3d_procs, "-c", "5",
                     "-o", "{dir}"],
                    unverified=["--no-verify"]))
    out.append(Case("gcrm", f"GCRM {a.gcrm_input}, {a.gcrm_fcfg}, 16 ranks", 16, "gcrm_io", ["zgrd.in"],
                    ["gcrm", "-k", "zgrd.in", "-a", "pnetcdf", "-o", "{dir}"], setup=gcrm_setup(a),
                    unverified=["--no-verify"]))
    nc_map = str(paths.shared_dir() / "datasets" / "mpi_io_test" / "48602x72_512p_D1.nc")
    # The reference's rank r writes map process r (16 of the map's 512 here); ours by default spreads all
    # 512 over the ranks (the whole array, 30x the bytes): --map-processes own makes the same file.
    out.append(Case("noncontig", "noncontig D1, 100 variables, 16 ranks", 16, "noncontig_buf",
                    ["-q", "-n", "100", "-o", "{dir}/testfile", nc_map],
                    ["noncontig", "-k", "-q", "-n", "100", "--map-processes", "own", "-o", "{dir}/testfile", nc_map],
                    unverified=["--no-verify"], notes=["ours with --map-processes own: the reference's bytes"]))
    return out


def arguments():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="The module docstring (bench/versus.py) gives every case's command lines.",
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    for tool, flag in TOOLS.items():
        p.add_argument(flag, metavar="PATH", default=None, help=f"the seed tool's {tool} binary (its cases are "
                                                                "skipped without it)")
    p.add_argument("--repeat", type=int, default=3, metavar="N", help="timed runs of each side per case, alternating")
    p.add_argument("--warmup", type=int, default=1, metavar="N", help="discarded runs of each side before a case")
    p.add_argument("--case", action="append", metavar="NAME[,NAME...]",
                   help="cases to run (default: every case whose tool is given): " + ", ".join(CASE_NAMES))
    p.add_argument("--map", metavar="FILE", help="E3SM F map (default ../shared/datasets/e3sm/map_f_case_16p.nc, "
                                                 "else one written by e3sm_mapgen)")
    p.add_argument("--i-map", metavar="FILE", help="E3SM I map (default ../shared/datasets/e3sm/map_i_case_16p.nc, "
                                                   "else one written by e3sm_mapgen)")
    p.add_argument("--g-map", metavar="FILE", help="E3SM G map (default ../shared/datasets/e3sm/map_g_case_16p.nc, "
                                                   "else one written by e3sm_mapgen)")
    p.add_argument("--ne30", action="store_true",
                   help="realistic sizes: the ne30 F map (e3sm_mapgen " + " ".join(NE30_MAPGEN) + "), the I map of "
                        "the r05 land grid (" + " ".join(MAPS["imap"][2]) + ") and the G map of the EC60to30 ocean "
                        "mesh (" + " ".join(MAPS["gmap"][2]) + "), generated into --dir and deleted after, unless "
                        "--map/--i-map/--g-map give them; without --case, the cases " + ", ".join(NE30_CASES))
    p.add_argument("--records", type=int, default=None, metavar="N",
                   help="records (-r) of every E3SM case (default: each case's own, 5 or 1)")
    p.add_argument("--no-verify-too", action=argparse.BooleanOptionalAction, default=True,
                   help="where ours verifies by default and the seed does not, also run ours with --no-verify "
                        "(E3SM rows: --data rank, E3SM-IO's values)")
    p.add_argument("--particles", default="4194304", help="VPIC/BDCATS particles per rank (h5bench DIM_1)")
    p.add_argument("--steps", type=int, default=5, help="VPIC/BDCATS time steps")
    p.add_argument("--vpic-ranks", type=int, default=4, help="ranks of the VPIC/BDCATS cases")
    p.add_argument("--s3d-grid", default="100,100,100", help="S3D global grid")
    p.add_argument("--s3d-procs", default="2,2,2", help="S3D process grid (its product is the ranks)")
    p.add_argument("--gcrm-fcfg", default="ZGrd.CP.lyr.fcfg.one", help="GCRM field configuration from "
                                                                        "../shared/datasets/gcrm")
    p.add_argument("--gcrm-input", default="zgrd.in",
                   help="GCRM input from ../shared/datasets/gcrm: zgrd.in (level 5, the seed's sample) or "
                        "zgrd.in.r6 .. r11 (at level 6 GCRM-IO needs 1.5 GB per rank: 16 ranks exceed 24 GiB)")
    p.add_argument("--io-layer", choices=("romio", "ompio"), default="romio",
                   help="MPI-IO layer of every run (seed, iokernels, raw)")
    p.add_argument("--hint", action="append", default=[], metavar="KEY=VALUE",
                   help="an I/O hint given to every run alike (seed, iokernels, raw), repeatable: PnetCDF's own "
                        "(nc_*, e.g. nc_num_aggrs_per_node=1) through PNETCDF_HINTS, MPI-IO's (cb_buffer_size=..., "
                        "romio_cb_write=disable) through ROMIO_HINTS (a file in RESULTS)")
    p.add_argument("--open-hints", choices=("reapply", "as-mpi"), default="reapply",
                   help="reapply: every run (the seed tool by `env LD_PRELOAD=`) opens files through "
                        "libiok_open_hints.so, which gives the hints a program asked for again after MPI_File_open "
                        "where the MPI library dropped them (Open MPI 5.0's ROMIO drops all); as-mpi: none does "
                        "(IOK_OPEN_HINTS=as-mpi)")
    p.add_argument("--build-dir", default=None, help="iokernels build (default $IOK_BUILD_DIR or <checkout>/build)")
    p.add_argument("--dir", metavar="DIR", help="where runs write, one fresh subdirectory per run, deleted after it "
                                                "(default RESULTS/data)")
    p.add_argument("--results", metavar="DIR", help="results directory (default results/bench/versus-<time>)")
    p.add_argument("--launcher", default="mpiexec", help='"mpiexec", "srun" or a command with {ranks}')
    p.add_argument("--timeout", type=float, default=1800, help="seconds per run")
    p.add_argument("--drop-caches", action="store_true", help="drop the page cache before every run (root)")
    return p


class Versus:
    def __init__(self, a, b, tools, maps):
        self.a, self.b, self.tools, self.maps = a, b, tools, maps
        self.count = 0
        self.layer_env = {"OMPI_MCA_io": launch.layer_env(a.io_layer)} if a.io_layer else {}
        self.layer_env.update(hint_env(a.hint, b.results_dir))
        self.layer_env["IOK_OPEN_HINTS"] = a.open_hints
        self.seed_prefix = open_hints_prefix(a.open_hints, b.build)
        self.iok = str(paths.program(b.build, "iokernels"))
        self.raw_prog = str(paths.program(b.build, "raw_write"))
        self.cfg = h5bench_config(b.results_dir / "vpic.cfg", a)
        self.rcfg = h5bench_config(b.results_dir / "bdcats.cfg", a, read=True)
        self.read_file = None   # the file both BDCATS sides read
        self.floor = build_floor(b.results_dir / "floor")

    def fill(self, argv, rundir):
        v = {"dir": str(rundir), **{k: self.maps.get(k, "") for k in MAPS}, "cfg": self.cfg, "rcfg": self.rcfg,
             "file": self.read_file or ""}
        return [x.format(**v) for x in argv]

    def launch_argv(self, ranks):
        return [x.format(ranks=ranks) for x in self.b.launcher]

    def execute(self, case, side, tag, argv, rundir, ranks):
        """One timed process; returns a run record."""
        self.count += 1
        run_id = f"{self.count:03d}-{case.name}-{side}-{tag}"
        logs = self.b.results_dir / "logs"
        logs.mkdir(exist_ok=True)
        so, se = logs / f"{run_id}.stdout", logs / f"{run_id}.stderr"
        self.b.quiesce()
        usage = {}
        rc, wall = launch.execute(argv, str(rundir), self.layer_env, self.a.timeout, so, se, usage)
        status = "ok" if rc == 0 else ("timeout" if rc is None else "failed")
        rec = {"id": run_id, "side": side, "tag": tag, "status": status, "returncode": rc, "wall_s": round(wall, 4),
               "maxrss_bytes": usage.get("maxrss_bytes"), "cpu_s": round(usage["user_s"] + usage["sys_s"], 3)
               if "user_s" in usage else None, "sys_s": usage.get("sys_s"), "minor_faults": usage.get("minor_faults"),
               "command": argv, "cwd": str(rundir)}
        if status != "ok":
            rec["error"] = why_failed(se, so)
        print(f"[{self.count}] {case.label} [{side} {tag}] ... " +
              (f"{wall:.2f} s wall" if status == "ok" else f"{status.upper()}: {rec.get('error', '')}"), flush=True)
        return rec

    def seed_run(self, case, tag):
        rundir = self.fresh(case, "seed", tag)
        if case.setup:
            case.setup(case, rundir)
        argv = (self.launch_argv(case.ranks) + self.seed_prefix + [self.tools[case.tool]]
                + self.fill(case.seed, rundir))
        rec = self.execute(case, "seed", tag, argv, rundir, case.ranks)
        shutil.rmtree(rundir, ignore_errors=True)
        return rec

    def ours_run(self, case, tag, side="iokernels"):
        """Our run; side "iokernels-nv" adds the case's `unverified` arguments."""
        rundir = self.fresh(case, side, tag)
        if case.setup:
            case.setup(case, rundir)
        js = self.b.results_dir / f"{self.count + 1:03d}-{case.name}-{side}-{tag}.json"
        argv = (self.launch_argv(case.ranks) + [self.iok] + (["--io-layer", self.a.io_layer] if self.a.io_layer else [])
                + self.fill(case.ours, rundir) + (case.unverified if side == "iokernels-nv" else [])
                + ["--json", str(js)])
        rec = self.execute(case, side, tag, argv, rundir, case.ranks)
        if rec["status"] == "ok" and js.is_file():
            doc = results.load_doc(js)
            h = results.headline(doc)
            rec["bytes"], rec["io_s"] = (h[0], h[1]) if h else (None, None)
            rec["verified"] = verified(doc)
            peaks = [r["rss_peak"] for r in results.rows(doc) if r.get("rss_peak")]
            rec["rss_peak_rank_bytes"] = max(peaks) if peaks else None
        shutil.rmtree(rundir, ignore_errors=True)
        return rec

    def raw_run(self, case, tag, nbytes):
        rundir = self.fresh(case, "raw", tag)
        base = self.launch_argv(case.ranks) + [self.raw_prog, "-n", str(int(nbytes)), "-o", f"{rundir}/raw.dat"]
        if case.reads:  # the file first (untimed), then the timed read
            self.execute(case, "raw-prepare", tag, base + ["-k", "--overwrite"], rundir, case.ranks)
            rec = self.execute(case, "raw", tag, base + ["--read-only"], rundir, case.ranks)
        else:
            rec = self.execute(case, "raw", tag, base, rundir, case.ranks)
        shutil.rmtree(rundir, ignore_errors=True)
        return rec

    def floor_run(self, case, tag):
        """MPI_Init + MPI_Finalize on the case's ranks: the start-up floor under both sides."""
        rundir = self.fresh(case, "floor", tag)
        rec = self.execute(case, "floor", tag, self.launch_argv(case.ranks) + [self.floor], rundir, case.ranks)
        shutil.rmtree(rundir, ignore_errors=True)
        return rec

    def fresh(self, case, side, tag):
        d = self.b.data / f"{self.count + 1:03d}-{case.name}-{side}-{tag}"
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        return d

    def prepare_read(self, case):
        """The particle file both BDCATS sides read, written once (untimed) by iokernels vpic: h5bench's
        layout, so h5bench_read reads it, and the suite's data pattern, so iokernels bdcats verifies
        it (a file of h5bench_write's values would fail that verification).  Kept until the case ends."""
        d = self.b.data / "bdcats-input"
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        self.read_file = str(d / "particles.h5")
        argv = (self.launch_argv(case.ranks) + [self.iok] + (["--io-layer", self.a.io_layer] if self.a.io_layer else [])
                + ["vpic", self.cfg, self.read_file])
        rec = self.execute(case, "input", "iokernels-vpic", argv, d, case.ranks)
        case.notes.append("both read one file written by iokernels vpic")
        return rec["status"] == "ok"

    def case(self, case):
        runs = []
        if case.reads and not self.prepare_read(case):
            return summarize(case, runs + [{"side": "iokernels", "tag": "input", "status": "failed",
                                            "error": "the input particle file could not be written"}])
        nbytes = None
        nv = bool(case.unverified) and self.a.no_verify_too
        for i in range(self.a.warmup):
            runs.append(self.seed_run(case, f"warmup{i + 1}"))
            runs.append(self.ours_run(case, f"warmup{i + 1}"))
        for i in range(self.a.repeat):
            tag = f"r{i + 1}"
            runs.append(self.seed_run(case, tag))
            ours = self.ours_run(case, tag)
            runs.append(ours)
            if nv:
                runs.append(self.ours_run(case, tag, "iokernels-nv"))
            nbytes = nbytes or ours.get("bytes")
            if nbytes:
                runs.append(self.raw_run(case, tag, nbytes))
            runs.append(self.floor_run(case, tag))
        if case.reads:
            shutil.rmtree(Path(self.read_file).parent, ignore_errors=True)
        return summarize(case, runs)


def why_failed(*logs):
    """The program's own error line (not the launcher's MPI_ABORT banner), else the stderr tail."""
    lines = [ln.strip() for f in logs for ln in f.read_text(errors="replace").splitlines()]
    for ln in lines:
        low = ln.lower()
        if "error" in low and "errorcode" not in low and "mpi_abort" not in low:
            return ln[:200]
    return launch.first_error(lines[-20:]) or " ".join(lines[-3:])[:200]


def verified(doc):
    """What the iokernels run says about its verification (summary or files), as text."""
    s = doc.get("summary", {})
    for k in ("verification", "verify", "verified"):
        if k in s:
            return str(s[k])
    return None


def stats(xs):
    return {"n": len(xs), "median": statistics.median(xs) if xs else None, "min": min(xs, default=None),
            "max": max(xs, default=None), "all": xs}


SIDES = ("seed", "iokernels", "iokernels-nv", "raw", "floor")


def median_of(runs, key):
    xs = [r[key] for r in runs if r.get(key) is not None and r["status"] == "ok"]
    return statistics.median(xs) if xs else None


def work_ratio(ours, seed, floor):
    """(ours - floor) / (seed - floor): the time above MPI start-up, ours over the seed's."""
    if ours is None or seed is None or floor is None or seed - floor <= 0:
        return None
    return (ours - floor) / (seed - floor)


def summarize(case, runs):
    timed = [r for r in runs if r.get("tag", "").startswith("r")]
    out = {"case": case.name, "label": case.label, "ranks": case.ranks, "notes": case.notes, "runs": runs,
           "unverified": case.unverified or []}
    for side in SIDES:
        mine = [r for r in timed if r["side"] == side]
        out[side] = stats([r["wall_s"] for r in mine if r["status"] == "ok"])
        out[side]["failed"] = sum(1 for r in mine if r["status"] != "ok")
        out[side]["maxrss_bytes"] = median_of(mine, "maxrss_bytes")
        out[side]["rss_peak_rank_bytes"] = median_of(mine, "rss_peak_rank_bytes")
        for k in ("cpu_s", "sys_s", "minor_faults"):
            out[side][k] = median_of(mine, k)
    s, f = out["seed"]["median"], out["floor"]["median"]
    seeds = [r for r in timed if r["side"] == "seed"]
    for side, key in (("iokernels", ""), ("iokernels-nv", "nv_")):
        o = out[side]["median"]
        out[f"{key}ratio"] = o / s if s and o else None
        out[f"{key}work_ratio"] = work_ratio(o, s, f)
        # CPU seconds of all processes (user + sys, from wait4): unlike wall time, barely moved by other
        # load on the machine; the floor's CPU is subtracted as its wall time is.
        oc, sc, fc = (out[x]["cpu_s"] for x in (side, "seed", "floor"))
        out[f"{key}cpu_work_ratio"] = work_ratio(oc, sc, fc)
        ours = [r for r in timed if r["side"] == side]
        pairs = [y["wall_s"] / x["wall_s"] for x, y in zip(seeds, ours, strict=False)
                 if x["status"] == y["status"] == "ok" and x["wall_s"] > 0]
        out[f"{key}pair_ratios"] = pairs
        out[f"{key}pair_ratio_median"] = statistics.median(pairs) if pairs else None
    ours = [r for r in timed if r["side"] == "iokernels"]
    out["bytes"] = next((r.get("bytes") for r in ours if r.get("bytes")), None)
    out["errors"] = [f"{r['side']} {r.get('tag')}: {r.get('error', '')}" for r in runs if r["status"] != "ok"]
    return out


def fmt(x, d=2):
    return "-" if x is None else f"{x:.{d}f}"


def rss(x):
    return format_bytes(x) if x else "-"


def table(summaries):
    head = ["case", "ranks", "bytes", "seed s", "iokernels s", "ratio", "pairs", "floor s", "work ratio", "raw s",
            "seed cpu s", "ours cpu s", "cpu work ratio", "seed RSS", "ours RSS", "ours RSS/rank", "seed min-max",
            "iokernels min-max", "note"]
    body = []
    for s in summaries:
        sd, r, fl = s["seed"], s["raw"], s["floor"]
        note = "; ".join(s["notes"] + (["FAILED: " + s["errors"][0][:80]] if s["errors"] else []))
        for side, key, suffix in (("iokernels", "", ""),
                                  ("iokernels-nv", "nv_", " [ours " + " ".join(s.get("unverified", [])) + "]")):
            o = s[side]
            if side == "iokernels-nv" and not o["n"] and not o["failed"]:
                continue
            body.append([s["label"] + suffix, str(s["ranks"]), format_bytes(s["bytes"]) if s["bytes"] else "-",
                         fmt(sd["median"]), fmt(o["median"]), fmt(s[f"{key}ratio"]), fmt(s[f"{key}pair_ratio_median"]),
                         fmt(fl["median"]), fmt(s[f"{key}work_ratio"]), fmt(r["median"]), fmt(sd["cpu_s"], 1),
                         fmt(o["cpu_s"], 1), fmt(s[f"{key}cpu_work_ratio"]), rss(sd["maxrss_bytes"]),
                         rss(o["maxrss_bytes"]), rss(o["rss_peak_rank_bytes"]), f"{fmt(sd['min'])}-{fmt(sd['max'])}",
                         f"{fmt(o['min'])}-{fmt(o['max'])}", note])
    return render(head, body, numeric=range(1, 18))


CSV_FIELDS = ("case", "label", "ranks", "bytes", "seed_median_s", "seed_min_s", "seed_max_s", "iokernels_median_s",
              "iokernels_min_s", "iokernels_max_s", "raw_median_s", "floor_median_s", "ratio", "pair_ratio_median",
              "work_ratio", "nv_iokernels_median_s", "nv_ratio", "nv_work_ratio", "seed_cpu_s", "iokernels_cpu_s",
              "floor_cpu_s", "cpu_work_ratio", "seed_maxrss_bytes", "iokernels_maxrss_bytes",
              "iokernels_rss_peak_rank_bytes", "failed_runs")


def csv_rows(summaries):
    """One row per case, plain numbers (seconds, bytes), for spreadsheets and scripts."""
    rows = []
    for s in summaries:
        row = {k: s[k] for k in ("case", "label", "ranks", "bytes", "ratio", "pair_ratio_median", "work_ratio",
                                 "nv_ratio", "nv_work_ratio", "cpu_work_ratio")}
        for side in ("seed", "iokernels"):
            for k in ("median", "min", "max"):
                row[f"{side}_{k}_s"] = s[side].get(k)
            row[f"{side}_maxrss_bytes"] = s[side].get("maxrss_bytes")
            row[f"{side}_cpu_s"] = s[side].get("cpu_s")
        row["floor_cpu_s"] = s["floor"].get("cpu_s")
        row["iokernels_rss_peak_rank_bytes"] = s["iokernels"].get("rss_peak_rank_bytes")
        row["nv_iokernels_median_s"] = s["iokernels-nv"].get("median")
        row["raw_median_s"] = s["raw"].get("median")
        row["floor_median_s"] = s["floor"].get("median")
        row["failed_runs"] = sum(1 for r in s["runs"] if r["status"] != "ok")
        rows.append(row)
    return rows


def mapgen(build, out, args=()):
    r = subprocess.run([str(paths.program(build, "e3sm_mapgen")), *args, "-o", str(out)], capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise UsageError(f"e3sm_mapgen failed: {(r.stderr or r.stdout).strip()}", "give --map FILE")
    return str(out)


def default_map(build, results_dir, what="F", seed_name="map_f_case_16p.nc"):
    """The seed's own 16-process map from ../shared, else e3sm_mapgen's default of the same size."""
    shared = paths.shared_dir() / "datasets" / "e3sm" / seed_name
    if shared.is_file():
        return str(shared)
    return mapgen(build, Path(results_dir) / f"map_{what.lower()}_like_16p.nc", ["--case", what])


def hint_env(hints, where):
    """The environment that gives every program of a run the same hints, whatever its library: PnetCDF's own
    (nc_*) through PNETCDF_HINTS ("k=v;k=v"), read by PnetCDF at each create and open; MPI-IO's through the
    file named by ROMIO_HINTS ("k v" lines), read by ROMIO at each MPI_File_open (and, where the program gives
    MPI_File_open hints of its own, which Open MPI 5.0's ROMIO then drops with ROMIO_HINTS, by
    libiok_open_hints.so: open_hints_prefix); a program's own value of a key wins, as in ROMIO.  So the seed tool
    and iokernels get them without a command-line option of their own."""
    if not hints:
        return {}
    pairs = []
    for h in hints:
        k, eq, v = h.partition("=")
        if not eq or not k.strip() or not v.strip() or any(c in h for c in "; \t\n"):
            raise UsageError(f"--hint {h!r}: not KEY=VALUE", "give one hint per --hint, e.g. --hint cb_nodes=2")
        pairs.append((k.strip(), v.strip()))
    env = {}
    pnetcdf = [f"{k}={v}" for k, v in pairs if k.startswith("nc_")]
    if pnetcdf:
        env["PNETCDF_HINTS"] = ";".join(pnetcdf)
    mpiio = [(k, v) for k, v in pairs if not k.startswith("nc_")]
    if mpiio:
        romio = Path(where) / "romio_hints"
        romio.write_text("".join(f"{k} {v}\n" for k, v in mpiio))
        env["ROMIO_HINTS"] = str(romio)
    return env


def open_hints_prefix(mode, build):
    """What runs a seed tool's ranks with libiok_open_hints.so (src/open_hints), which keeps the MPI-IO hints a
    program gives MPI_File_open: Open MPI 5.0's ROMIO drops them all, and with them ROMIO_HINTS, so without it
    the seed tool's own hints (E3SM-IO's romio_cb_write=enable) and --hint would reach neither side.  Our
    programs link the library.  A command prefix (`env LD_PRELOAD=LIB`), not the launch's environment: in
    that, the launcher itself (mpiexec) would load the library and the MPI library under it, 0.3 s a run on
    16 ranks here; the prefix costs 5-8 ms (mpi_floor through it, 16 ranks).  "as-mpi": nothing (and
    IOK_OPEN_HINTS=as-mpi turns ours off)."""
    if mode == "as-mpi":
        return []
    lib = paths.bin_dir(build) / "open_hints" / "libiok_open_hints.so"
    if not lib.is_file():  # an install prefix: P/lib beside P/bin
        lib = paths.bin_dir(build).parent / "lib" / "libiok_open_hints.so"
    if not lib.is_file():
        raise UsageError(f"libiok_open_hints.so is not in the build {build}",
                         "build it (scripts/iok build), or run with --open-hints as-mpi")
    preload = os.environ.get("LD_PRELOAD", "")
    return ["env", f"LD_PRELOAD={lib}:{preload}" if preload else f"LD_PRELOAD={lib}"]


def build_floor(where):
    """mpi_floor compiled from FLOOR_C with the MPI C compiler of the stack (mpicc, or $MPICC)."""
    where.mkdir(parents=True, exist_ok=True)
    src, exe = where / "mpi_floor.c", where / "mpi_floor"
    src.write_text(FLOOR_C)
    cc = os.environ.get("MPICC", "mpicc")
    try:
        r = subprocess.run([cc, "-O2", "-o", str(exe), str(src)], capture_output=True, text=True)
    except OSError as e:
        raise UsageError(f"cannot compile the floor program with {cc}: {e}", "run inside scripts/run.sh, "
                                                                            "or set MPICC") from e
    if r.returncode != 0:
        raise UsageError(f"{cc} {src} failed: {(r.stderr or r.stdout).strip()[:300]}", "check the MPI stack")
    return str(exe)


def main():
    p = arguments()
    a = p.parse_args()
    if a.repeat < 1 or a.warmup < 0:
        p.error("--repeat must be at least 1 and --warmup at least 0")
    tools = {}
    for tool, flag in TOOLS.items():
        v = getattr(a, flag[2:].replace("-", "_"))
        if v is None:
            continue
        path = Path(v).resolve()
        if not (path.is_file() and os.access(path, os.X_OK)):
            p.error(f"{flag} {v}: not an executable file")
        tools[tool] = str(path)
    every = cases(a)
    if a.ne30 and not a.case:
        every = [c for c in every if c.name in NE30_CASES]
    if a.case:
        names = [n.strip() for c in a.case for n in c.split(",") if n.strip()]
        bad = [n for n in names if n not in CASE_NAMES]
        if bad:
            p.error(f"unknown case(s) {', '.join(bad)}; choose from {', '.join(CASE_NAMES)}")
        every = [c for c in every if c.name in names]
    chosen = []
    for c in every:
        if c.tool not in tools:
            print(f"skipping {c.name}: no {TOOLS[c.tool]} given", flush=True)
        else:
            chosen.append(c)
    if not chosen:
        p.error("no case to run: give at least one seed tool (" + ", ".join(TOOLS.values()) + ")")
    b = Bench("versus", None, ranks=16, dir=a.dir, results=a.results, io_layer=a.io_layer, build_dir=a.build_dir,
              launcher=a.launcher, timeout=a.timeout, drop_caches=a.drop_caches)
    maps, generated = {}, []
    given = {"map": a.map, "imap": a.i_map, "gmap": a.g_map}
    for key, (what, name, gen_args, seed_name) in MAPS.items():
        if not any(c.tool == "e3sm_io" and "{" + key + "}" in c.seed for c in chosen):
            continue
        if given[key]:
            maps[key] = str(Path(given[key]).resolve())
        elif a.ne30:
            print(f"generating the {what} map: e3sm_mapgen {' '.join(gen_args)} (into {b.data})", flush=True)
            maps[key] = mapgen(b.build, b.data / name, gen_args)
            generated.append(maps[key])
        else:
            maps[key] = default_map(b.build, b.results_dir, what, seed_name)
        if not Path(maps[key]).is_file():
            p.error(f"{what} map {maps[key]}: no such file")
        print(f"{what} map: {maps[key]}", flush=True)
    v = Versus(a, b, tools, maps)
    started = launch.utc_now()
    try:
        summaries = [v.case(c) for c in chosen]
    finally:
        for m in generated:
            Path(m).unlink(missing_ok=True)
    text = table(summaries)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    title = (f"Whole-process wall time, median of {a.repeat} alternating runs (seed, iokernels, raw, floor) after "
             f"{a.warmup} warm-up; ratio = iokernels / seed (< 1: faster); pairs = median of back-to-back ratios; "
             f"floor = MPI_Init+MPI_Finalize only; work ratio = (iokernels - floor) / (seed - floor); cpu = user+sys "
             f"seconds of all processes (wait4), cpu work ratio the same over CPU; RSS = largest "
             f"process of the run (wait4), ours RSS/rank = our JSON's largest rank; MPI-IO layer: "
             f"{a.io_layer or 'OpenMPI default'}; hints: {', '.join(a.hint) or 'none'} (open hints: {a.open_hints}); "
             f"load average at the end {load}")
    print(f"\n{title}\n{text}", flush=True)
    doc = {"schema": "iokernels-versus/1", "command": [sys.executable, *sys.argv], "started_utc": started,
           "finished_utc": launch.utc_now(), "repeat": a.repeat, "warmup": a.warmup, "io_layer": a.io_layer,
           "hints": a.hint, "open_hints": a.open_hints, "maps": maps, "tools": tools, "iokernels": v.iok,
           "floor": v.floor,
           "loadavg_end": os.getloadavg(), "cases": summaries, "table": text}
    with open(b.results_dir / "versus.json", "w") as f:
        json.dump(doc, f, indent=2)
    (b.results_dir / "versus.csv").write_text(to_csv(csv_rows(summaries), CSV_FIELDS))
    b.store.index.setdefault("tables", []).append({"title": title, "text": text})
    b.store.save_index()
    print(f"\nversus: {b.results_dir / 'versus.json'} (and versus.csv)")
    failed = any(r["status"] != "ok" for s in summaries for r in s["runs"])
    b.finish()
    return 1 if failed else 0


if __name__ == "__main__":
    main_guard(main)
