#!/usr/bin/env python3
"""Cost of capturing: the E3SM F case with and without libiok_capture.so.

    scripts/run.sh python3 bench/capture_overhead.py [--ranks 16] [--records 5] [--repeats 5]
                   [--map MAP] [--dir DIR] [--build-dir BUILD] [--json OUT]

Runs `iokernels e3sm -a pnetcdf` (canonical, the F case's h0 and h1 files)
alternately plain and under LD_PRELOAD=libiok_capture.so, --repeats times
each, and times the whole process (mpiexec start to exit: capture's cost at
open, set_view, every access and the trace gathered and written at
MPI_Finalize).  Prints per variant the median, minimum and maximum wall
time, the overhead of the medians and of the minima, and the trace size.
The map: --map, else ../shared's map_f_case_16p.nc when --ranks is 16, else
an ne4 F map for --ranks generated with e3sm_mapgen.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ranks", type=int, default=16, help="MPI ranks (default 16)")
    p.add_argument("--records", type=int, default=5, help="records per file (default 5)")
    p.add_argument("--repeats", type=int, default=5, help="runs of each variant, alternating (default 5)")
    p.add_argument("--map", help="F-case map (default: see above)")
    p.add_argument("--dir", help="scratch directory for outputs and traces (default: a new one under the build dir)")
    p.add_argument("--build-dir", default=os.environ.get("IOK_BUILD_DIR", str(SOURCE / "build")),
                   help="build directory (default $IOK_BUILD_DIR or <checkout>/build)")
    p.add_argument("--json", help="also write the figures as JSON to this file")
    a = p.parse_args()
    build = Path(a.build_dir).resolve()
    iokernels, lib = build / "src" / "iokernels", build / "src" / "capture" / "libiok_capture.so"
    for f in (iokernels, lib):
        if not f.exists():
            p.error(f"{f} is not built: run scripts/iok build")
    work = Path(a.dir) if a.dir else Path(tempfile.mkdtemp(prefix="capture_overhead_", dir=build))
    work.mkdir(parents=True, exist_ok=True)
    mp = a.map
    shared = SOURCE.parent / "shared" / "datasets" / "e3sm" / "map_f_case_16p.nc"
    if not mp and a.ranks == 16 and shared.is_file():
        mp = str(shared)
    if not mp:
        mp = str(work / f"map_f_ne4_{a.ranks}p.nc")
        subprocess.run([str(build / "src" / "e3sm_mapgen"), "--case", "F", "--ne", "4", "--nprocs", str(a.ranks),
                        "-o", mp], check=True, capture_output=True)
    env = dict(os.environ)
    env.setdefault("OMPI_MCA_btl", "self,sm")
    base = ["mpiexec", "--oversubscribe", "-n", str(a.ranks)]
    kernel = [str(iokernels), "e3sm", "-a", "pnetcdf", "-q", "-r", str(a.records), "--overwrite",
              "-o", str(work / "f_case.nc"), mp]
    trace = work / "trace.json"
    variants = {
        "plain": base + kernel,
        "captured": base + ["-x", f"LD_PRELOAD={lib}", "-x", f"IOK_CAPTURE_TRACE={trace}",
                            "-x", "IOK_CAPTURE_QUIET=1"] + kernel,
    }
    times = {k: [] for k in variants}
    subprocess.run(variants["plain"], check=True, capture_output=True, env=env)  # warm-up (page cache, loader)
    for i in range(a.repeats):
        order = list(variants) if i % 2 == 0 else list(reversed(variants))
        for name in order:
            t0 = time.perf_counter()
            r = subprocess.run(variants[name], capture_output=True, text=True, env=env)
            dt = time.perf_counter() - t0
            if r.returncode:
                sys.exit(f"{name} run failed ({r.returncode}):\n{r.stderr}")
            times[name].append(dt)
            print(f"  run {i + 1} {name:8s} {dt:8.3f} s", file=sys.stderr)
    med = {k: statistics.median(v) for k, v in times.items()}
    mins = {k: min(v) for k, v in times.items()}
    out = {
        "ranks": a.ranks, "records": a.records, "repeats": a.repeats, "map": mp,
        "seconds": times, "median": med, "min": mins,
        "overhead_median_percent": 100.0 * (med["captured"] / med["plain"] - 1.0),
        "overhead_min_percent": 100.0 * (mins["captured"] / mins["plain"] - 1.0),
        "trace_bytes": trace.stat().st_size,
    }
    print(f"E3SM F case, pnetcdf, {a.ranks} ranks, {a.records} records, map {mp}, {a.repeats} alternating runs each "
          "(whole process wall time)")
    for k in variants:
        print(f"  {k:9s} median {med[k]:8.3f} s   min {mins[k]:8.3f} s   max {max(times[k]):8.3f} s")
    print(f"  capture overhead: {out['overhead_median_percent']:+.1f} % (medians), "
          f"{out['overhead_min_percent']:+.1f} % (minima); trace {out['trace_bytes']:,} bytes")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
