#!/usr/bin/env python3
"""Two builds of iokernels on the same command lines: is the new one slower?

    scripts/run.sh python3 bench/compare_builds.py --base-build DIR [--build DIR] [--repeat 5]
                                                   [--case e3sm-pnetcdf,s3d] [--ranks 16] [--dir DIR]

Runs each case with the base build and the new build alternately (base, new,
base, new, ... --repeat times each; --warmup discarded base runs first) and
reports, per case, the median whole-process wall time of each build, the
ratio new / base of the medians, the median of the per-pair ratios, and the
spread (min-max).  Built-in cases (--case, default all):

    e3sm-pnetcdf       e3sm -a pnetcdf -x canonical -r 5 -o OUT MAP   (F case, --ranks ranks)
    e3sm-hdf5          e3sm -a hdf5    -x canonical -r 5 -o OUT MAP
    e3sm-blob-pnetcdf  e3sm -a pnetcdf -x blob      -r 5 -o OUT MAP
    e3sm-blob-adios    e3sm -a adios   -x blob      -r 5 -o OUT MAP
    s3d                s3d  -a pnetcdf --grid 100,100,100 --procs 2,2,2 -c 5 -o DIR --no-verify  (8 ranks)

Every form is accepted by builds from before and after the driver refactor
(issue 11), so one command line serves both.

Why whole-process wall time (a clock around `mpiexec -n R iokernels ...`):
a refactor of option parsing, setup, planning, verification or reporting
costs time outside the open-to-close interval the program reports about
itself; the wall time sees all of it.  The program's own open-to-close time
(summed over the files written, from its --json result) is shown in a second
table, so start-up and I/O can be told apart.

Why alternating and medians: on a shared 2-core VM the page cache, other
jobs and lazily re-backed memory move a run's time by tens of percent; runs
of the two builds interleaved see the same drift, and medians of several
discard the odd outlier.  Every run starts after os.sync() (no run pays for
another's dirty pages), in its own empty directory that is deleted
afterwards (no run finds another's files).  Each build's iokernels is
hashed before and after: a build rebuilt during the comparison is reported.

Every run is stored like a suite run (RESULTS/<id>.json, RESULTS/logs/,
RESULTS/index.json; `python3 -m iokernels report RESULTS` works), and the
comparison itself goes to RESULTS/compare_builds.json (--json).
Exit status: 0 when every run succeeded, 1 otherwise, 2 for usage errors.
"""
import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

from benchlib import Bench, main_guard
from iokernels import launch, paths, results, suite
from iokernels.errors import UsageError
from iokernels.table import format_bytes, render


@dataclass
class Case:
    name: str              # --case name
    label: str             # table label
    kernel: str
    backend: str
    strategy: str | None   # None: no -x (s3d before the refactor refuses it)
    args: list             # kernel arguments, {outdir} and {map} filled per run
    ranks: int = 0         # 0: --ranks


def cases(a):
    e3sm = ["-r", str(a.records), "-o", "{outdir}/f_case.nc", "{map}"]
    s3d = ["--grid", a.s3d_grid, "--procs", a.s3d_procs, "-c", str(a.s3d_checkpoints), "-o", "{outdir}",
           "--no-verify"]
    s3d_ranks = 1
    for n in a.s3d_procs.split(","):
        s3d_ranks *= int(n)
    return [
        Case("e3sm-pnetcdf", "e3sm F pnetcdf canonical", "e3sm", "pnetcdf", "canonical", e3sm),
        Case("e3sm-hdf5", "e3sm F hdf5 canonical", "e3sm", "hdf5", "canonical", e3sm),
        Case("e3sm-blob-pnetcdf", "e3sm F pnetcdf blob", "e3sm", "pnetcdf", "blob", e3sm),
        Case("e3sm-blob-adios", "e3sm F adios blob", "e3sm", "adios", "blob", e3sm),
        Case("s3d", f"s3d {a.s3d_grid.replace(',', 'x')} pnetcdf", "s3d", "pnetcdf", None, s3d, ranks=s3d_ranks),
    ]


CASE_NAMES = ("e3sm-pnetcdf", "e3sm-hdf5", "e3sm-blob-pnetcdf", "e3sm-blob-adios", "s3d")
MAP_NAME = "map_f_case_16p.nc"


def arguments():
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="cases: " + ", ".join(CASE_NAMES) + ".  The module docstring (bench/compare_builds.py) gives "
               "their command lines and why whole-process wall time, alternation and medians.")
    p.add_argument("--base-build", required=True, metavar="DIR", help="build directory of the base (before) version")
    p.add_argument("--build", default=str(paths.build_dir()), metavar="DIR",
                   help="build directory of the new (after) version (default $IOK_BUILD_DIR or <checkout>/build)")
    p.add_argument("--repeat", type=int, default=5, metavar="N",
                   help="timed runs of each build per case, alternating (default 5)")
    p.add_argument("--warmup", type=int, default=1, metavar="N",
                   help="discarded runs (base build) before each case's timed runs (default 1)")
    p.add_argument("--case", action="append", metavar="NAME[,NAME...]",
                   help="case(s) to run, comma-separated or repeated: " + ", ".join(CASE_NAMES) + " (default: all)")
    p.add_argument("--ranks", type=int, default=16, metavar="N", help="MPI ranks of the E3SM cases (default 16)")
    p.add_argument("--records", type=int, default=5, metavar="N",
                   help="E3SM records (time steps) per file, -r (default 5)")
    p.add_argument("--map", metavar="FILE",
                   help=f"E3SM decomposition map (default: ../shared/datasets/e3sm/{MAP_NAME} when it exists, else "
                        "one written with the base build's e3sm_mapgen: F-like, 866 columns, 16 processes)")
    p.add_argument("--s3d-grid", default="100,100,100", metavar="NX,NY,NZ",
                   help="S3D global grid NX,NY,NZ (default 100,100,100)")
    p.add_argument("--s3d-procs", default="2,2,2", metavar="PX,PY,PZ",
                   help="S3D process grid; its product is S3D's ranks (default 2,2,2)")
    p.add_argument("--s3d-checkpoints", type=int, default=5, metavar="N",
                   help="S3D checkpoints (files) per run (default 5)")
    p.add_argument("--dir", metavar="DIR",
                   help="where runs write their files, one fresh subdirectory per run, deleted after it "
                        "(default RESULTS/data)")
    p.add_argument("--results", metavar="DIR", help="results directory (default results/bench/compare_builds-<time>)")
    p.add_argument("--json", metavar="FILE", help="comparison JSON (default RESULTS/compare_builds.json)")
    p.add_argument("--io-layer", choices=("romio", "ompio"), help="MPI-IO layer (default: OpenMPI's choice)")
    p.add_argument("--launcher", default="mpiexec", metavar="L",
                   help='"mpiexec", "srun" or a command with {ranks} (default mpiexec)')
    p.add_argument("--timeout", type=float, default=1800, metavar="S", help="seconds per run (default 1800)")
    p.add_argument("--drop-caches", action="store_true",
                   help="drop the page cache before every run (needs root; default off)")
    return p


def selected(a, p):
    if not a.case:
        return list(CASE_NAMES)
    names = [n.strip() for c in a.case for n in c.split(",") if n.strip()]
    bad = [n for n in names if n not in CASE_NAMES]
    if bad:
        p.error(f"unknown case(s) {', '.join(bad)}; choose from {', '.join(CASE_NAMES)}")
    return list(dict.fromkeys(names))


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _git(src, *args):
    """git's output in `src`, or None (no git in the library root, not a checkout)."""
    try:
        r = subprocess.run(["git", "-c", f"safe.directory={src}", "-C", src, *args], capture_output=True,
                           text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout.strip() if r.returncode == 0 else None


def describe_build(build):
    """The build's program hash and the source it was configured from (commit, dirty)."""
    prog = paths.program(build, "iokernels")
    info = {"dir": str(build), "iokernels": str(prog), "sha256": sha256(prog),
            "mtime_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(prog.stat().st_mtime))}
    cache = Path(build) / "CMakeCache.txt"
    src = None
    if cache.is_file():
        for line in cache.read_text(errors="replace").splitlines():
            if line.startswith("CMAKE_HOME_DIRECTORY:"):
                src = line.split("=", 1)[1].strip()
    if src:
        info["source"] = src
        head = _git(src, "rev-parse", "--short", "HEAD")
        if head is not None:
            info["commit"] = head
            dirty = _git(src, "status", "--porcelain", "--untracked-files=normal", "--", "src", "CMakeLists.txt",
                         "cmake")
            info["source_modified"] = bool(dirty) if dirty is not None else None
    return info


def default_map(base_build, results_dir):
    shared = paths.shared_dir() / "datasets" / "e3sm" / MAP_NAME
    if shared.is_file():
        return str(shared)
    out = Path(results_dir) / "map_f_like_16p.nc"
    gen = [str(paths.program(base_build, "e3sm_mapgen")), "-o", str(out)]
    print(f"no {shared}: writing a map with {' '.join(gen)}", flush=True)
    r = subprocess.run(gen, capture_output=True, text=True)
    if r.returncode != 0:
        raise UsageError(f"e3sm_mapgen failed: {(r.stderr or r.stdout).strip()}", "give --map FILE")
    return str(out)


def median(xs):
    return statistics.median(xs) if xs else None


def fmt(t, digits=2):
    return "-" if t is None else f"{t:.{digits}f}"


class Comparison:
    def __init__(self, a, b, builds):
        self.a, self.b, self.builds = a, b, builds     # builds: {"base": Path, "new": Path}
        self.count = 0

    def run(self, case, side, repeat, map_path, warmup=False):
        """One run of `case` with build `side` in a fresh directory, deleted afterwards."""
        self.count += 1
        ranks = case.ranks or self.a.ranks
        tag = "warmup" if warmup else f"r{repeat + 1}"
        run_id = f"{self.count:03d}-{case.name}-{side}-{tag}"
        args = [x.replace("{map}", map_path or "") for x in case.args]
        spec = suite.RunSpec(index=self.count, case=case.name, kernel=case.kernel, ranks=ranks,
                             backend=case.backend, strategy=case.strategy, io_layer=self.a.io_layer, matrix={},
                             env={}, repeat=repeat, args=args, launcher=self.b.launcher, timeout=self.a.timeout,
                             title=f"{case.label} [{side}{' warm-up' if warmup else ''}]", run_id=run_id)
        spec.total = "?"
        outdir = self.b.data / run_id
        self.b.quiesce()                                  # os.sync() (and --drop-caches)
        doc = self.b.store.run(spec, self.builds[side], outdir=outdir)
        shutil.rmtree(outdir, ignore_errors=True)         # the run's files: no run finds another's
        sr = doc["suite_run"]
        h = results.headline(doc) if sr["status"] == "ok" else None
        line = launch.progress_line(spec, doc).replace("/?]", "]")
        print(f"{line}  ({sr['wall_seconds']:.2f} s wall)" if sr["status"] == "ok" else line, flush=True)
        return {"id": run_id, "side": side, "warmup": warmup, "status": sr["status"], "wall_s": sr["wall_seconds"],
                "io_s": h[1] if h else None, "bytes": h[0] if h else None, "command": sr["command"],
                "error": launch.first_error(sr.get("stderr_tail", [])) if sr["status"] != "ok" else None}

    def case(self, case, map_path):
        runs = []
        for i in range(self.a.warmup):
            runs.append(self.run(case, "base", i, map_path, warmup=True))
        for i in range(self.a.repeat):
            for side in ("base", "new"):
                runs.append(self.run(case, side, i, map_path))
        return summarize(case, runs)


def summarize(case, runs):
    timed = [r for r in runs if not r["warmup"]]
    out = {"case": case.name, "label": case.label, "kernel": case.kernel, "backend": case.backend,
           "strategy": case.strategy, "runs": runs}
    for side in ("base", "new"):
        ok = [r for r in timed if r["side"] == side and r["status"] == "ok"]
        wall = [r["wall_s"] for r in ok]
        io = [r["io_s"] for r in ok if r["io_s"] is not None]
        out[side] = {"n": len(ok), "failed": sum(1 for r in timed if r["side"] == side and r["status"] != "ok"),
                     "wall_s": wall, "wall_median": median(wall), "wall_min": min(wall, default=None),
                     "wall_max": max(wall, default=None), "io_s": io, "io_median": median(io),
                     "io_min": min(io, default=None), "io_max": max(io, default=None),
                     "bytes": ok[0]["bytes"] if ok else None}
    bm, nm = out["base"]["wall_median"], out["new"]["wall_median"]
    out["ratio"] = nm / bm if bm and nm else None
    bi, ni = out["base"]["io_median"], out["new"]["io_median"]
    out["io_ratio"] = ni / bi if bi and ni else None
    # pairs: the i-th base run and the i-th new run ran back to back
    base = [r for r in timed if r["side"] == "base"]
    new = [r for r in timed if r["side"] == "new"]
    pairs = [n["wall_s"] / b["wall_s"] for b, n in zip(base, new, strict=False)
             if b["status"] == n["status"] == "ok" and b["wall_s"] > 0]
    out["pair_ratios"] = pairs
    out["pair_ratio_median"] = median(pairs)
    return out


def tables(summaries, ranks_of):
    head = ["case", "ranks", "n", "base s (median)", "new s (median)", "new/base", "pairs new/base",
            "base min-max", "new min-max"]
    body, io_body = [], []
    for s in summaries:
        b, n = s["base"], s["new"]
        note = ""
        if b["failed"] or n["failed"]:
            err = next((r["error"] for r in s["runs"] if r["status"] != "ok"), "")
            note = f"  FAILED base {b['failed']}, new {n['failed']}: {err}"[:120]
        body.append([s["label"] + note, str(ranks_of[s["case"]]), f"{b['n']}+{n['n']}", fmt(b["wall_median"]),
                     fmt(n["wall_median"]), fmt(s["ratio"], 3), fmt(s["pair_ratio_median"], 3),
                     f"{fmt(b['wall_min'])}-{fmt(b['wall_max'])}", f"{fmt(n['wall_min'])}-{fmt(n['wall_max'])}"])
        io_body.append([s["label"], format_bytes(b["bytes"] or n["bytes"]), fmt(b["io_median"], 3),
                        fmt(n["io_median"], 3), fmt(s["io_ratio"], 3),
                        f"{fmt(b['io_min'], 3)}-{fmt(b['io_max'], 3)}", f"{fmt(n['io_min'], 3)}-{fmt(n['io_max'], 3)}"])
    wall = render(head, body, numeric=range(1, 9))
    io = render(["case", "bytes", "base s (median)", "new s (median)", "new/base", "base min-max", "new min-max"],
                io_body, numeric=range(1, 7))
    return wall, io


def main():
    p = arguments()
    a = p.parse_args()
    names = selected(a, p)
    if a.repeat < 1 or a.warmup < 0:
        p.error("--repeat must be at least 1 and --warmup at least 0")
    builds = {"base": paths.build_dir(a.base_build), "new": paths.build_dir(a.build)}
    for side, d in builds.items():
        if not paths.program(d, "iokernels").is_file():
            p.error(f"{'--base-build' if side == 'base' else '--build'} {d}: no src/iokernels in it")
    b = Bench("compare_builds", None, ranks=a.ranks, dir=a.dir, results=a.results, io_layer=a.io_layer,
              build_dir=str(builds["new"]), launcher=a.launcher, timeout=a.timeout, drop_caches=a.drop_caches)
    chosen = [c for c in cases(a) if c.name in names]
    map_path = None
    if any(c.kernel == "e3sm" for c in chosen):
        map_path = str(Path(a.map).resolve()) if a.map else default_map(builds["base"], b.results_dir)
        if not Path(map_path).is_file():
            p.error(f"--map {map_path}: no such file")
    # A case whose backend either build lacks is skipped, not failed.
    have = {side: set(Bench.backends(SimpleNamespace(build=d))) for side, d in builds.items()}
    runnable = []
    for c in chosen:
        missing = [side for side in ("base", "new") if c.backend not in have[side]]
        if missing:
            print(f"skipping {c.name}: the {' and '.join(missing)} build has no {c.backend} backend", flush=True)
        else:
            runnable.append(c)
    before = {side: describe_build(d) for side, d in builds.items()}
    for side in ("base", "new"):
        i = before[side]
        src = f"{i.get('source', '?')} @ {i.get('commit', '?')}" + (" + uncommitted src changes"
                                                                     if i.get("source_modified") else "")
        print(f"{side:4}: {i['dir']}  (iokernels {i['sha256'][:12]}, built {i['mtime_utc']}; source {src})",
              flush=True)
    if map_path:
        print(f"map : {map_path}", flush=True)

    cmp = Comparison(a, b, builds)
    started = launch.utc_now()
    summaries = [cmp.case(c, map_path) for c in runnable]
    after = {side: describe_build(d) for side, d in builds.items()}
    changed = [side for side in builds if after[side]["sha256"] != before[side]["sha256"]]

    ranks_of = {c.name: c.ranks or a.ranks for c in runnable}
    wall, io = tables(summaries, ranks_of)
    layer = a.io_layer or "OpenMPI's choice"
    title = (f"Whole-process wall time (mpiexec ... iokernels ...), {a.repeat} alternating runs per build, "
             f"MPI-IO layer: {layer}")
    print(f"\n{title}\n{wall}", flush=True)
    print(f"\nThe program's own open-to-close time (summed over the files written)\n{io}", flush=True)
    if changed:
        print(f"\nWARNING: the {' and '.join(changed)} build's iokernels changed during the comparison "
              "(rebuilt by someone?): its figures mix two programs", flush=True)
    b.store.index.setdefault("tables", []).extend([{"title": title, "text": wall},
                                                   {"title": "open-to-close", "text": io}])
    b.store.save_index()

    doc = {"schema": "iokernels-compare-builds/1", "command": [sys.executable, *sys.argv], "cwd": os.getcwd(),
           "started_utc": started, "finished_utc": launch.utc_now(), "repeat": a.repeat, "warmup": a.warmup,
           "order": "warm-up (base) then base, new, base, new, ...; os.sync() before each run",
           "io_layer": a.io_layer, "map": map_path, "builds": {"base": before["base"], "new": before["new"]},
           "builds_after": after, "builds_changed": changed, "cases": summaries,
           "tables": {"wall": wall, "open_to_close": io}}
    out = Path(a.json) if a.json else b.results_dir / "compare_builds.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w") as f:
        json.dump(doc, f, indent=2)
    print(f"\ncomparison: {out}")
    status = b.finish()
    return 1 if status or changed else 0


if __name__ == "__main__":
    main_guard(main)
