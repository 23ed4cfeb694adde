#!/usr/bin/env python3
"""The E3SM pattern at scale without the ranks: time and memory of
`iokernels e3sm --dry-run --ranks N MAP` on one process.

    scripts/run.sh python3 bench/e3sm_dry_run.py [--ne 120] [--nprocs 21632] [--ranks N]
                                                  [--dir DIR] [--max-seconds 60] [--max-gib 4]

Generates the F-case map of a cubed sphere of --ne elements per face edge
decomposed over --nprocs processes with e3sm_mapgen (kept in DIR and reused
when it exists), then runs the dry run as --ranks ranks (default: --nprocs)
would, and reports the whole process's wall time and peak resident memory
(getrusage of the child), the map's size and the planned requests and bytes
per file.  Exit status 1 when a limit is exceeded (issue 12: the ne120 F
case at 21,632 ranks within 60 s and 4 GiB on a 2-core machine).
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import checkout  # noqa: F401  (the checkout's python/ when iokernels is not installed)
from iokernels import paths
from iokernels.table import format_bytes, render


def timed(cmd):
    """Runs cmd; returns (wall seconds, peak resident bytes of that child).
    os.wait4 gives the child's own rusage (RUSAGE_CHILDREN would be the
    largest child so far)."""
    t0 = time.monotonic()
    p = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    seconds = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"e3sm_dry_run: {' '.join(map(str, cmd))} failed:\n{out[-3000:]}")
    return seconds, usage.ru_maxrss * 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--ne", type=int, default=120, help="cubed-sphere elements per face edge")
    ap.add_argument("--nprocs", type=int, default=21632, help="processes of the E3SM run the map describes")
    ap.add_argument("--ranks", type=int, default=0, help="ranks the dry run imagines (0: --nprocs)")
    ap.add_argument("--dir", default=str(paths.build_dir() / "bench-dry-run"), help="where the map is kept")
    ap.add_argument("--build-dir", default=None, help="build directory (default: $IOK_BUILD_DIR or ./build)")
    ap.add_argument("--max-seconds", type=float, default=60.0, help="fail above this wall time")
    ap.add_argument("--max-gib", type=float, default=4.0, help="fail above this peak resident memory")
    a = ap.parse_args()
    build = paths.build_dir(a.build_dir)
    ranks = a.ranks or a.nprocs
    d = Path(a.dir)
    d.mkdir(parents=True, exist_ok=True)
    mapfile = d / f"map_f_ne{a.ne}_{a.nprocs}p.nc"
    if not mapfile.exists():
        print(f"generating {mapfile} ...", flush=True)
        gen_s, _ = timed([paths.program(build, "e3sm_mapgen"), "--case", "F", "--ne", a.ne, "--nprocs", a.nprocs,
                          "-o", mapfile])
        print(f"  {gen_s:.1f} s, {format_bytes(mapfile.stat().st_size)}", flush=True)
    result = d / "dry_run.json"
    seconds, rss = timed([paths.program(build, "iokernels"), "e3sm", "--dry-run", "--ranks", ranks, "-q",
                          "--json", result, mapfile])
    doc = json.loads(result.read_text())
    rows = [[f["label"], str(f["variables"]), str(f["records"]), f"{f['requests']['total']:,}",
             f"{f['requests']['max']:,}",
             f"{f['requests']['min']:,}", format_bytes(f["bytes"]["total"]), format_bytes(f["bytes"]["max"])]
            for f in doc["files"]]
    print(f"\nE3SM F case, ne{a.ne} map of {a.nprocs} processes ({format_bytes(mapfile.stat().st_size)}), "
          f"dry run as {ranks:,} ranks")
    print(render(["file", "vars", "recs", "requests", "max/rank", "min/rank", "bytes", "max bytes/rank"], rows))
    print(f"\nwhole process: {seconds:.1f} s wall, peak resident {format_bytes(rss)}")
    failed = seconds > a.max_seconds or rss > a.max_gib * 2**30
    print(f"limits: {a.max_seconds:g} s, {a.max_gib:g} GiB -> {'EXCEEDED' if failed else 'within'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
