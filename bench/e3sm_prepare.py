#!/usr/bin/env python3
"""E3SM request preparation as the map grows: does it stay a small share of
the write, and grow no faster than the requests (issue 19)?

    scripts/run.sh python3 bench/e3sm_prepare.py [--ncols 6075,12150,24301,48602,97204]
                                                 [--cols-per-process 95] [--nlev 72] [--repeat 3]
                                                 [--ranks 16] [--io-layer romio] [--dir DIR]

For each size, e3sm_mapgen writes an F-like map of that many columns (its
--ncol pattern: scattered 4-column elements, --nlev levels, one map process
per --cols-per-process columns: 48602 columns on 512 processes is the ne30
map of the issue), kept in RESULTS/maps; then `iokernels e3sm -f 1 -r 1`
writes h1 from it --repeat times on --ranks ranks.  Each run's own summary
gives the preparation (reading the map, planning the requests) and the write
(h1's open-to-close); the table shows their medians, the share
preparation / write, and the preparation per request of the busiest rank.
The last line fits preparation = c * requests^k over the sizes (least
squares on logs): k near 1 is linear growth, k < 1.2 over a 16x range is
what n log n allows.

Results are stored like suite runs (bench/README.md); e3sm_prepare.json
beside them holds the table as numbers.  Exit status 0 when every run
succeeded.
"""
import json
import math
import statistics
import subprocess

from benchlib import Bench, bench_arguments, main_guard
from iokernels import paths
from iokernels.errors import UsageError
from iokernels.table import render


def growth_exponent(xs, ys):
    """Least-squares slope of log(y) over log(x): y ~ x^k."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    den = sum((x - mx) ** 2 for x in lx)
    return sum((x - mx) * (y - my) for x, y in zip(lx, ly, strict=False)) / den if den else float("nan")


def main():
    p = bench_arguments("e3sm_prepare", ranks=16)
    p.add_argument("--ncols", default="6075,12150,24301,48602,97204",
                   help="map sizes: columns per level, comma-separated (default %(default)s)")
    p.add_argument("--cols-per-process", type=int, default=95,
                   help="columns per map process (default %(default)s: 48602 columns on 512 processes)")
    p.add_argument("--nlev", type=int, default=72, help="vertical levels (default %(default)s)")
    p.add_argument("--repeat", type=int, default=3, help="runs per size (default %(default)s)")
    a = p.parse_args()
    try:
        ncols = [int(x) for x in a.ncols.split(",") if x]
    except ValueError:
        raise UsageError(f"--ncols {a.ncols}: expected comma-separated integers", "e.g. --ncols 12150,48602") from None
    if len(ncols) < 2 or min(ncols) < 4 or a.cols_per_process < 1 or a.repeat < 1:
        raise UsageError("need two or more --ncols of at least 4, --cols-per-process >= 1, --repeat >= 1",
                         "e.g. --ncols 12150,48602 --repeat 3")
    if not a.io_layer:
        a.io_layer = "romio"  # OMPIO's iovec sort dominates large E3SM writes (60% of ne30 h1): not the subject
    b = Bench("e3sm_prepare", a)
    maps = b.results_dir / "maps"
    maps.mkdir(parents=True, exist_ok=True)
    mapgen = paths.program(b.build, "e3sm_mapgen")

    rows, numbers = [], []
    for ncol in ncols:
        nprocs = max(1, round(ncol / a.cols_per_process))
        mp = maps / f"F_{ncol}x{a.nlev}_{nprocs}p.nc"
        if not mp.exists():
            r = subprocess.run([str(mapgen), "--ncol", str(ncol), "--nlev", str(a.nlev), "--nprocs", str(nprocs),
                                "-o", str(mp)], capture_output=True, text=True)
            if r.returncode != 0:
                raise UsageError(f"e3sm_mapgen failed: {(r.stderr or r.stdout).strip()}", "check --ncols and --nlev")
        runs = [b.kernel(f"{ncol} columns, {nprocs} map processes", "e3sm",
                         ["-f", "1", "-r", "1", "-o", "{outdir}/h.nc", str(mp)], backend="pnetcdf")
                for _ in range(a.repeat)]
        ok = [r for r in runs if r.ok]
        if not ok:
            rows.append([str(ncol), str(nprocs), "", "", "", "", "", "", "FAILED: " + (runs[0].error or "")[:60]])
            continue
        prep = statistics.median(r.summary["prepare_seconds"]["max"] for r in ok)
        rmap = statistics.median(r.summary["prepare_map_seconds"]["max"] for r in ok)
        plan = statistics.median(r.summary["prepare_plan_seconds"]["max"] for r in ok)
        write = statistics.median(r.summary["prepare_seconds"]["max"] / r.summary["prepare_fraction_of_write"]
                                  for r in ok)
        req = ok[0].doc["files"][0]["requests"]
        numbers.append({"ncol": ncol, "map_processes": nprocs, "map_bytes": mp.stat().st_size,
                        "requests_total": req["total"], "requests_max_per_rank": req["max"],
                        "prepare_s": prep, "read_map_s": rmap, "plan_s": plan, "write_s": write,
                        "prepare_over_write": prep / write, "runs": len(ok)})
        rows.append([str(ncol), str(nprocs), f"{int(req['max']):,}", f"{prep:.4f}", f"{rmap:.4f}", f"{plan:.4f}",
                     f"{write:.4f}", f"{100 * prep / write:.1f}%", f"{1e9 * prep / req['max']:.0f}"])

    text = render(["columns", "map procs", "requests/rank", "prepare s", "map s", "plan s", "write s",
                   "prepare/write", "ns/request"], rows, numeric=range(0, 9))
    title = (f"E3SM h1 from F-like maps of {a.nlev} levels, {b.ranks} ranks, {a.io_layer}: medians of "
             f"{a.repeat} runs (each its own slowest rank)")
    if len(numbers) >= 2:
        k = growth_exponent([n["requests_max_per_rank"] for n in numbers], [n["prepare_s"] for n in numbers])
        text += (f"\npreparation grows as requests^{k:.2f} over {numbers[0]['requests_max_per_rank']:,.0f} .. "
                 f"{numbers[-1]['requests_max_per_rank']:,.0f} requests per rank (1 = linear)")
    print(f"\n{title}\n{text}", flush=True)
    b.store.index.setdefault("tables", []).append({"title": title, "text": text})
    b.store.save_index()
    with open(b.results_dir / "e3sm_prepare.json", "w") as f:
        json.dump({"ranks": b.ranks, "io_layer": a.io_layer, "nlev": a.nlev, "sizes": numbers}, f, indent=2)
    return b.finish()


if __name__ == "__main__":
    main_guard(main)
