#!/usr/bin/env python3
"""Every Darshan log of a directory beside its replay (issue 31's table):
processes, files, operations and bytes in the log and in the replay plan,
exact (DXT) or synthesized (counters), and a scaled run on 4 ranks with its
data verified.

    scripts/run.sh python3 bench/darshan_logs.py [DIR (default ../shared/datasets/darshan)]
                   [--ranks 4] [--max-ops 20000] [--out DIR] [--json FILE]

The log side sums, over each file of the log-vs-plan table
(`iokernels replay --dry-run --json`), the call counters (MPIIO_*_READS/
WRITES, else POSIX_READS/WRITES) and the bytes, a group of files with the
same counters counted as often as it has files; the plan side the same
counters computed from the replay's accesses.  The scaled run replays the
log on --ranks ranks with --scale chosen so that at most --max-ops
operations remain (1 when the log has fewer); its bytes are those its
plan moved: one call per file and phase, so bytes accessed more than once
(mpi-io-test -b 1 reads the same byte a million times) count once
(`--calls recorded` repeats them).  A log iokernels refuses (no I/O, a
non-MPI program, anonymised names) is listed with its message.
"""
import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import checkout  # noqa: F401  (the checkout's python/ when iokernels is not installed)
from iokernels import paths
from iokernels.table import render


def ops_and_bytes(table):
    """(ops, bytes) of the log and of the plan, summed over the table's files."""
    tot = {"log": [0, 0], "plan": [0, 0]}
    for f in table:
        mult = f.get("files", 1)
        for r in f["rows"]:
            c = r["counter"]
            op = (c.startswith("MPIIO_") and c.endswith(("_READS", "_WRITES")) and "SIZE" not in c) or \
                c in ("POSIX_READS", "POSIX_WRITES")
            by = c.endswith(("_BYTES_READ", "_BYTES_WRITTEN"))
            for side in ("log", "plan"):
                if op:
                    tot[side][0] += mult * int(r[side])
                elif by:
                    tot[side][1] += mult * int(r[side])
    return tot


def run(argv, timeout=900):
    t0 = time.monotonic()
    p = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout)
    return p, time.monotonic() - t0


def one_line(text):
    lines = [x for x in text.splitlines() if "error:" in x] or text.strip().splitlines() or ["?"]
    return lines[0].split("error:", 1)[-1].strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("dir", nargs="?", default=None, help="directory of .darshan logs "
                    "(default: ../shared/datasets/darshan beside the checkout)")
    ap.add_argument("--ranks", type=int, default=4, help="ranks of the scaled run")
    ap.add_argument("--max-ops", type=int, default=20000, help="operations the scaled run keeps at most")
    ap.add_argument("--build-dir", default=None, help="build directory (default: $IOK_BUILD_DIR or ./build)")
    ap.add_argument("--out", default=None, help="where the scaled runs write (default: a temporary directory)")
    ap.add_argument("--json", default=None, help="also write the rows as JSON here")
    a = ap.parse_args()
    build = paths.build_dir(a.build_dir)
    iok = build / "src" / "iokernels"
    d = Path(a.dir) if a.dir else Path(__file__).resolve().parents[1].parent / "shared" / "datasets" / "darshan"
    logs = sorted(d.glob("*.darshan"))
    if not logs:
        sys.exit(f"darshan_logs: no .darshan logs in {d}")
    rows, out = [], []
    with tempfile.TemporaryDirectory(dir=a.out) as tmp:
        for log in logs:
            dry = Path(tmp) / "dry.json"
            p, _ = run([iok, "replay", "--dry-run", "-q", "--json", dry, log])
            if p.returncode != 0:
                msg = one_line(p.stderr).replace(f"iokernels-darshan: {log} ", "").replace(str(log), "the log")
                rows.append([log.stem] + [""] * 7 + ["refused: " + msg])
                out.append({"log": log.name, "refused": one_line(p.stderr)})
                continue
            dz = json.loads(dry.read_text())["params"]["darshan"]
            tot = ops_and_bytes(dz["table"])
            modes = sorted({f["mode"] for f in dz["files"]})
            nfiles = sum(f.get("files", 1) for f in dz["table"])
            scale = max(1, math.ceil(tot["plan"][0] / a.max_ops))
            res = Path(tmp) / "run.json"
            data = Path(tmp) / "data"
            data.mkdir(exist_ok=True)
            p, secs = run(["mpiexec", "--oversubscribe", "-n", a.ranks, iok, "replay", "--ranks", a.ranks,
                           "--scale", scale, "-o", data, "-q", "--json", res, log])
            if p.returncode == 0:
                r = json.loads(res.read_text())
                # the replay's own accesses (a file the log only reads is prepared first: not counted)
                moved = int(sum(f["bytes"]["total"] for f in r["files"] if f.get("role") in ("write", "read")))
                ok = r["summary"]["verification_mismatches"] == 0 and r.get("valid", False)
                scaled = f"1/{scale}: {'verified' if ok else 'MISMATCH'}, {moved:,} B, {secs:.1f} s"
            else:
                ok, moved, scaled = False, 0, "failed: " + one_line(p.stderr)
            for f in data.iterdir():
                f.unlink()
            rows.append([log.stem, dz["nprocs"], nfiles, "/".join(modes), f"{tot['log'][0]:,}", f"{tot['plan'][0]:,}",
                         f"{tot['log'][1]:,}", f"{tot['plan'][1]:,}", scaled])
            out.append({"log": log.name, "nprocs": dz["nprocs"], "files": nfiles, "modes": modes,
                        "ops": tot["log"][0], "plan_ops": tot["plan"][0], "bytes": tot["log"][1],
                        "plan_bytes": tot["plan"][1], "scale": scale, "verified": ok, "bytes_moved": moved,
                        "seconds": secs})
    print(render(["log", "procs", "files", "replay", "ops (log)", "ops (plan)", "bytes (log)", "bytes (plan)",
                  f"scaled run on {a.ranks} ranks"], [[str(c) for c in r] for r in rows], numeric=range(1, 8)))
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0 if all(o.get("verified", True) for o in out) else 1


if __name__ == "__main__":
    sys.exit(main())
