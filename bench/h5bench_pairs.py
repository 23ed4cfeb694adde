#!/usr/bin/env python3
"""h5bench's metadata stress test, exerciser, MACSio and AMReX beside iokernels' kernels.

    scripts/run.sh python3 bench/h5bench_pairs.py [--hdf5-iotest PATH] [--exerciser PATH] [--macsio PATH]
                                                  [--amrex PATH] [--repeat 5] [--case NAME[,NAME]] [--dir DIR]

The originals are built outside this repository from h5bench's public
source (nothing of them is committed), e.g. in the root's /tmp/h5ref:

    h5pcc -O2 -o hdf5_iotest metadata_stress/*.c commons/h5bench_util.c -lm
    h5pcc -O2 -o h5bench_exerciser exerciser/h5bench_exerciser.c -lm

MACSio (h5bench's h5bench_macsio) needs json-cwx (github.com/LLNL/json-cwx:
autoreconf -i; ./configure --prefix=J; make install) and its CMake build:

    cmake MACSIO_SRC -DENABLE_HDF5_PLUGIN=ON -DENABLE_SILO_PLUGIN=OFF -DBUILD_DOCS=OFF \\
          -DWITH_HDF5_PREFIX=/usr/lib/x86_64-linux-gnu/hdf5/openmpi -DWITH_JSON-CWX_PREFIX=J \\
          -DCMAKE_C_COMPILER=mpicc -DCMAKE_CXX_COMPILER=mpicxx && make    # -> macsio/macsio

h5bench_amrex is AMReX's Tests/HDF5Benchmark/main.cpp against libamrex
(AMReX at h5bench 1.6's commit 9c41297; ~15 minutes on one core):

    cmake AMREX_SRC -DAMReX_HDF5=YES -DAMReX_PARTICLES=YES -DAMReX_FORTRAN=NO -DAMReX_LINEAR_SOLVERS=NO \\
          -DAMReX_AMRLEVEL=NO -DAMReX_EB=NO -DAMReX_MPI=YES -DAMReX_OMP=NO -DAMReX_SPACEDIM=3 \\
          -DCMAKE_CXX_COMPILER=mpicxx -DCMAKE_C_COMPILER=mpicc && make               # -> Src/libamrex_3d.a
    mpicxx -O1 -std=c++17 -I. -I AMREX_SRC/Src/{Base,Base/Parser,Boundary,AmrCore,Particle,Extern/HDF5} \\
          -I/usr/include/hdf5/openmpi AMREX_SRC/Tests/HDF5Benchmark/main.cpp -o h5bench_amrex \\
          Src/libamrex_3d.a -L/usr/lib/x86_64-linux-gnu/hdf5/openmpi -lhdf5

Each case runs the original (when its path is given) and `iokernels` with the
same configuration and rank count, alternately (original, iokernels, ...
--repeat times each, after one discarded warm-up pair), each in a fresh
directory, and times the whole process (a clock around `mpiexec -n R ...`).
Then, from one more kept run of each, the structure: `h5dump -H` of both
files with the file names taken out, diffed (the originals write the same
objects, shapes and types: the diff should be empty).

Cases (--case, default all whose original is given):

  metadata-sample   h5bench's sync-metadata sample: 20 steps x 500 arrays of 2 x 2 tiles, 2 x 2 ranks,
                    one 4-D contiguous dataset, independent
  metadata-rank3    the same as 3-D datasets per array (slowest-dimension array), chunked, collective
  metadata-rank2    the same as 2-D datasets in a group per step, 20 x 100 (2,000 datasets)
  exerciser-sample  h5bench's sync-exerciser sample: --numdims 2 --minels 8 8 --nsizes 3 --bufmult 2 2
                    --dimranks 8 4 on 2 ranks (the dimranks fall-back)
  exerciser-full    4 ranks, --numdims 2 --minels 64 64 --nsizes 3 --dimranks 2 2 --rshift 1 --addattr
                    --derivedtype --usechunked
  macsio-sample     h5bench's sync-macsio sample: --parallel_file_mode MIF 8 --part_size 1M on 2 ranks
                    (a file per rank per dump), 2 dumps instead of 10
  macsio-sif        4 ranks, SIF 1, 3-D parts of 24000 bytes, 3 parts per rank, 20 variables, 2 dumps
  macsio-mif2       4 ranks, MIF 2 (2 ranks per file), 2 parts per rank of 64K, 2 dumps

  amrex-sample      h5bench's sync-amrex sample on 2 ranks (ncells 64, max_grid_size 8, ncomp 6, nppc 2,
                    2 plot files, 2 particle files, restart_check 1) without its 2 s sleeps

(Every file of a MACSio or AMReX run is compared, by name.)

Output: per case the median wall time of each program, the ratio iokernels / original of the medians
(< 1: iokernels is faster), the median of the pair ratios, min-max of each, and the structure diff
(`same` or the differing lines).  Exit status 0 when every run succeeded, 1 otherwise.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IOKERNELS = Path(os.environ.get("IOK_BUILD_DIR", ROOT / "build")) / "src" / "iokernels"

METADATA = {"version": 0, "steps": 20, "arrays": 500, "rows": 2, "columns": 2, "process-rows": 2,
            "process-columns": 2, "scaling": "weak", "dataset-rank": 4, "slowest-dimension": "step",
            "layout": "contiguous", "mpi-io": "independent"}
CASES = {
    "metadata-sample": ("metadata", 4, dict(METADATA)),
    "metadata-rank3": ("metadata", 4, dict(METADATA, **{"dataset-rank": 3, "slowest-dimension": "array",
                                                         "layout": "chunked", "mpi-io": "collective"})),
    "metadata-rank2": ("metadata", 4, dict(METADATA, **{"dataset-rank": 2, "arrays": 100})),
    "exerciser-sample": ("exerciser", 2, ["--numdims", "2", "--minels", "8", "8", "--nsizes", "3", "--bufmult", "2",
                                          "2", "--dimranks", "8", "4"]),
    "exerciser-full": ("exerciser", 4, ["--numdims", "2", "--minels", "64", "64", "--nsizes", "3", "--dimranks",
                                        "2", "2", "--rshift", "1", "--addattr", "--derivedtype", "--usechunked"]),
    "macsio-sample": ("macsio", 2, ["--parallel_file_mode", "MIF", "8", "--part_size", "1M", "--num_dumps", "2"]),
    "macsio-sif": ("macsio", 4, ["--parallel_file_mode", "SIF", "1", "--part_size", "24000", "--part_dim", "3",
                                 "--avg_num_parts", "3", "--vars_per_part", "20", "--num_dumps", "2"]),
    "macsio-mif2": ("macsio", 4, ["--parallel_file_mode", "MIF", "2", "--part_size", "64K", "--avg_num_parts", "2",
                                  "--num_dumps", "2"]),
    "amrex-sample": ("amrex", 2, {"ncells": 64, "max_grid_size": 8, "nlevs": 1, "ncomp": 6, "nppc": 2,
                                  "nplotfile": 2, "nparticlefile": 2, "sleeptime": 0, "restart_check": 1}),
}


def mpiexec(ranks, argv, cwd):
    cmd = ["mpiexec", "--oversubscribe", "--allow-run-as-root", "-n", str(ranks), *map(str, argv)]
    env = dict(os.environ)
    env.setdefault("OMPI_MCA_btl", "self,sm")
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=1800)
    seconds = time.monotonic() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return seconds


def commands(kind, config, original, d):
    """(original argv, iokernels argv, original's output file, iokernels' output file) in directory d."""
    if kind == "metadata":
        ini = d / "hdf5_iotest.ini"
        lines = ["[DEFAULT]"] + [f"{k} = {v}" for k, v in config.items()]
        ini.write_text("\n".join(lines + [f"hdf5-file = {d / 'orig.h5'}", f"csv-file = {d / 'orig.csv'}"]) + "\n")
        ours = [IOKERNELS, "metadata", ini, "--hdf5-file", d / "ours.h5", "--csv-file", d / "ours.csv"]
        return [original, ini], ours, d / "orig.h5", d / "ours.h5"
    if kind == "amrex":  # plt%05d.h5 and plt%05d/particle0/particle0.h5 in directories orig/ and ours/
        for who in ("orig", "ours"):
            lines = [f"{k} = {v}" for k, v in config.items()] + [f"directory = {d / who}"]
            (d / f"{who}.ini").write_text("\n".join(lines) + "\n")
            (d / who).mkdir()
        # the original reads its file again for restart_check; iokernels' --no-verify keeps that read only
        ours = [IOKERNELS, "amrex", d / "ours.ini", "--no-verify"]
        return [original, d / "orig.ini"], ours, d / "orig", d / "ours"
    if kind == "macsio":  # files <base>_hdf5_...: compared by the names after the base
        orig = [original, "--interface", "hdf5", *config, "--filebase", d / "orig"]
        # MACSio only writes: iokernels' read-back is left out of the timed run
        ours = [IOKERNELS, "macsio", *config, "--filebase", d / "ours", "--no-verify"]
        return orig, ours, d / "orig", d / "ours"
    ours = [IOKERNELS, "exerciser", *config, "-o", d / "ours.h5"]
    return [original, *config], ours, None, d / "ours.h5"


def structure(path):
    """h5dump -H without the file's name."""
    out = subprocess.run(["h5dump", "-H", str(path)], capture_output=True, text=True, check=True).stdout
    return [re.sub(r'^HDF5 ".*" \{', 'HDF5 "FILE" {', ln) for ln in out.splitlines()]


def structure_diff(kind, config, original, ranks, base):
    d = Path(tempfile.mkdtemp(dir=base))
    orig, ours, orig_file, ours_file = commands(kind, config, original, d)
    if kind == "exerciser":
        orig, ours = orig + ["--keepfile"], ours + ["--keepfile"]
    mpiexec(ranks, orig, d)
    mpiexec(ranks, ours, d)
    if orig_file is None:  # the exerciser names its file hdf5TestFile-<random>
        orig_file, = d.glob("hdf5TestFile-*")
    if kind == "amrex":
        def files(base):
            return {str(p.relative_to(base)): p for p in sorted(base.rglob("*.h5"))}
        fa, fb = files(orig_file), files(ours_file)
        a = [f"files {sorted(fa)}"] + [ln for k in sorted(fa) for ln in [k, *structure(fa[k])]]
        b = [f"files {sorted(fb)}"] + [ln for k in sorted(fb) for ln in [k, *structure(fb[k])]]
    elif kind == "macsio":
        def files(base):
            return {p.name[len(base.name):]: p for p in sorted(d.glob(base.name + "_hdf5_*"))}
        fa, fb = files(orig_file), files(ours_file)
        a = [f"files {sorted(fa)}"] + [ln for k in sorted(fa) for ln in [k, *structure(fa[k])]]
        b = [f"files {sorted(fb)}"] + [ln for k in sorted(fb) for ln in [k, *structure(fb[k])]]
    else:
        a, b = structure(orig_file), structure(ours_file)
    shutil.rmtree(d, ignore_errors=True)
    if a == b:
        return "same", len(a)
    import difflib
    return "\n".join(difflib.unified_diff(a, b, "original", "iokernels", lineterm="")), len(a)


def timed(kind, config, original, ranks, base, repeat):
    times = {"original": [], "iokernels": []}
    for i in range(repeat + 1):  # the first pair warms up
        for who in ("original", "iokernels"):
            d = Path(tempfile.mkdtemp(dir=base))
            orig, ours, _, _ = commands(kind, config, original, d)
            os.sync()
            t = mpiexec(ranks, orig if who == "original" else ours, d)
            shutil.rmtree(d, ignore_errors=True)
            if i > 0:
                times[who].append(t)
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hdf5-iotest", help="h5bench's hdf5_iotest binary (metadata-* cases)")
    ap.add_argument("--exerciser", help="h5bench's h5bench_exerciser binary (exerciser-* cases)")
    ap.add_argument("--macsio", help="MACSio's macsio binary built with its HDF5 plugin (macsio-* cases)")
    ap.add_argument("--amrex", help="h5bench_amrex (AMReX's Tests/HDF5Benchmark) binary (amrex-* cases)")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs of each program per case [5]")
    ap.add_argument("--case", default="", help="comma-separated cases [all whose original is given]")
    ap.add_argument("--dir", default=None, help="scratch directory [a temporary one]")
    a = ap.parse_args()
    originals = {"metadata": a.hdf5_iotest, "exerciser": a.exerciser, "macsio": a.macsio, "amrex": a.amrex}
    names = [c for c in (a.case.split(",") if a.case else CASES) if c]
    for n in names:
        if n not in CASES:
            ap.error(f"unknown case {n!r}; cases: {', '.join(CASES)}")
    names = [n for n in names if originals[CASES[n][0]]]
    if not names:
        ap.error("give --hdf5-iotest, --exerciser, --macsio and/or --amrex: nothing to compare")
    base = Path(a.dir or tempfile.mkdtemp(prefix="h5bench-pairs-"))
    base.mkdir(parents=True, exist_ok=True)
    rows, failed = [], False
    for n in names:
        kind, ranks, config = CASES[n]
        original = Path(originals[kind]).resolve()
        try:
            diff, nlines = structure_diff(kind, config, original, ranks, base)
            t = timed(kind, config, original, ranks, base, a.repeat)
        except (RuntimeError, subprocess.SubprocessError, ValueError) as e:
            print(f"{n}: FAILED: {e}", file=sys.stderr)
            failed = True
            continue
        mo, mi = statistics.median(t["original"]), statistics.median(t["iokernels"])
        pairs = statistics.median(b / o for o, b in zip(t["original"], t["iokernels"], strict=True))
        rows.append((n, ranks, mo, mi, mi / mo, pairs, t, diff, nlines))
        print(f"{n}: original {mo:.2f} s, iokernels {mi:.2f} s, ratio {mi / mo:.3f}, h5dump -H "
              f"{'same' if diff == 'same' else 'DIFFERENT'}", flush=True)
    print(f"{'case':18} {'ranks':>5} {'original s':>11} {'iokernels s':>12} {'ratio':>6} {'pairs':>6}"
          f"  {'original min-max':>17}  {'iokernels min-max':>17}  h5dump -H")
    for n, ranks, mo, mi, ratio, pairs, t, diff, nlines in rows:
        o, b = t["original"], t["iokernels"]
        same = f"same ({nlines} lines)" if diff == "same" else "DIFFERENT (below)"
        print(f"{n:18} {ranks:5d} {mo:11.2f} {mi:12.2f} {ratio:6.3f} {pairs:6.3f}  {min(o):7.2f}-{max(o):<9.2f}"
              f"  {min(b):7.2f}-{max(b):<9.2f}  {same}")
    for n, *_, diff, _ in rows:
        if diff != "same":
            print(f"\n{n}: h5dump -H differs\n{diff}")
    if not a.dir:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
