"""Helpers for bench scripts: run kernel cases beside raw_write of the same
number of bytes, in the same directory, in the same invocation, and print
aligned tables of times, bandwidths and ratios (ours / raw).

    from benchlib import Bench, bench_arguments
    args = bench_arguments("s3d", ranks=16).parse_args()
    b = Bench("s3d", args)
    run, raw = b.pair("s3d pnetcdf", "s3d", ["--local", "64,64,64", "-o", "{outdir}"], backend="pnetcdf")
    b.table([run], raw, title="S3D beside raw MPI-IO")
    b.finish()

Everything a Bench runs is stored like a suite run (python/iokernels/launch.py):
RESULTS/<id>.json (the program's iokernels-result/1 document + suite_run),
RESULTS/logs/, RESULTS/index.json, so `python3 -m iokernels report|compare|plot
RESULTS` work on bench results too.  See bench/README.md.
"""
import argparse
import datetime
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from checkout import SOURCE
from iokernels import launch, paths, results, suite
from iokernels.errors import UsageError
from iokernels.table import format_bytes, render


@dataclass
class Run:
    """One finished run: its stored document and headline numbers (the
    files written: total bytes, summed slowest-rank open-to-close time)."""
    label: str
    doc: dict

    @property
    def ok(self):
        return self.doc["suite_run"]["status"] == "ok"

    @property
    def id(self):
        return self.doc["suite_run"]["id"]

    def _h(self, i):
        h = results.headline(self.doc) if self.ok else None
        return h[i] if h else None

    @property
    def bytes(self):
        return self._h(0)

    @property
    def seconds(self):
        return self._h(1)

    @property
    def mib_s(self):
        return self._h(2)

    @property
    def sync_seconds(self):
        """os.sync() right after the run: its dirty pages reaching storage."""
        return self.doc["suite_run"].get("sync_seconds", 0.0)

    @property
    def durable_mib_s(self):
        """Bytes over run time + the sync after it: the rate to storage."""
        t = (self.seconds or 0) + self.sync_seconds
        return self.bytes / results.MiB / t if self.bytes and t > 0 else 0.0

    @property
    def layer(self):
        return results.layer_of(self.doc)

    @property
    def summary(self):
        return self.doc.get("summary", {})

    @property
    def error(self):
        return launch.first_error(self.doc["suite_run"].get("stderr_tail", []))


def bench_arguments(name, ranks=16, description=None):
    """An argparse parser with the options every bench script shares; add your own."""
    p = argparse.ArgumentParser(description=description or f"{name} benchmark beside raw_write")
    p.add_argument("--ranks", type=int, default=ranks, help=f"MPI ranks (default {ranks})")
    p.add_argument("--dir", help="where the runs write their files (default RESULTS/data); "
                                 "kernel and raw_write share it")
    p.add_argument("--results", help=f"results directory (default results/bench/{name}-<time>)")
    p.add_argument("--io-layer", choices=("romio", "ompio"), help="MPI-IO layer (default: OpenMPI's choice)")
    p.add_argument("--build-dir", help="build directory (default $IOK_BUILD_DIR or <checkout>/build)")
    p.add_argument("--launcher", default="mpiexec", help='"mpiexec", "srun" or a command with {ranks}')
    p.add_argument("--timeout", type=float, default=1800, help="seconds per run (default 1800)")
    p.add_argument("--drop-caches", action="store_true",
                   help="drop the page cache before every run (needs root: /proc/sys/vm/drop_caches), so reads "
                        "come from storage and no run inherits another's cached pages")
    return p


class Bench:
    def __init__(self, name, args=None, **overrides):
        """`args` from bench_arguments(); keyword overrides win (ranks=, dir=,
        results=, io_layer=, build_dir=, launcher=, timeout=)."""
        o = {"ranks": 16, "dir": None, "results": None, "io_layer": None, "build_dir": None,
             "launcher": "mpiexec", "timeout": 1800.0, "drop_caches": False}
        if args is not None:
            o.update({k: getattr(args, k) for k in o if hasattr(args, k)})
        o.update(overrides)
        self.name, self.ranks, self.io_layer, self.timeout = name, o["ranks"], o["io_layer"], o["timeout"]
        self.drop_caches = o["drop_caches"]
        self.launcher = suite.launcher_argv(o["launcher"], [], "--launcher")
        self.build = paths.build_dir(o["build_dir"])
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        root = o["results"] or str(SOURCE / "results" / "bench" / f"{name}-{stamp}")
        meta = suite.Suite(path=Path(sys.argv[0]), name=name, description=" ".join(sys.argv), build_dir=None)
        self.store = launch.ResultsDir(root, meta)
        self.data = Path(o["dir"]).resolve() if o["dir"] else self.store.root / "data"
        self.data.mkdir(parents=True, exist_ok=True)
        self.count = 0
        self.raw_cache = {}
        print(f"{name}: results in {self.store.root}, files written in {self.data}", flush=True)

    @property
    def results_dir(self):
        return self.store.root

    def backends(self):
        """Backends this build has (from `iokernels e3sm --help`, or any kernel's)."""
        for kernel in ("e3sm", "s3d", "gcrm"):
            out = subprocess.run([str(paths.program(self.build, "iokernels")), kernel, "--help"],
                                 capture_output=True, text=True).stdout
            for line in out.splitlines():
                if "I/O library (backend):" in line:
                    names = line.split("I/O library (backend):", 1)[1]
                    return [n.strip().split()[0] for n in names.split(",") if n.strip()]
        return []

    def kernels(self):
        """Kernel names this build has (from `iokernels --help`)."""
        out = subprocess.run([str(paths.program(self.build, "iokernels")), "--help"],
                             capture_output=True, text=True).stdout
        names, inside = [], False
        for line in out.splitlines():
            if line.startswith("kernels:"):
                inside = True
            elif inside and line.startswith("  ") and line.strip():
                names.append(line.split()[0])
            elif inside:
                inside = bool(line.strip()) and line.startswith("  ")
        return names

    def kernel(self, label, kernel, args, backend=None, strategy=None, ranks=None, io_layer=None, env=None,
               strategy_flag="-x"):
        """Runs `iokernels [--io-layer L] KERNEL [-a BACKEND] [-x STRATEGY] ARGS --json F`
        in the shared data directory ({outdir} in ARGS); prints a progress line."""
        return self._run(label, kernel, [str(a) for a in args], backend, strategy, ranks, io_layer, env,
                         strategy_flag)

    def raw(self, nbytes, ranks=None, io_layer=None, extra=(), label=None):
        """raw_write -n NBYTES -o DIR/raw.dat in the shared data directory."""
        args = ["-n", str(int(nbytes)), "-o", "{outdir}/raw.dat", *map(str, extra)]
        return self._run(label or "raw_write", "raw_write", args, None, None, ranks, io_layer, None, "-x")

    def raw_for(self, run, ranks=None, io_layer=None):
        """raw_write of as many bytes as `run` wrote, same ranks and layer (one
        per distinct bytes/ranks/layer within this bench; reused after)."""
        if not run.ok:
            return None
        ranks = ranks or run.doc["suite_run"]["ranks"]
        io_layer = io_layer if io_layer is not None else run.doc["suite_run"]["io_layer"]
        key = (run.bytes, ranks, io_layer)
        if key not in self.raw_cache:
            self.raw_cache[key] = self.raw(run.bytes, ranks=ranks, io_layer=io_layer)
        return self.raw_cache[key]

    def pair(self, label, kernel, args, **kw):
        """The kernel run, then raw_write of the same bytes: (run, raw)."""
        run = self.kernel(label, kernel, args, **kw)
        return run, self.raw_for(run)

    def _run(self, label, kernel, args, backend, strategy, ranks, io_layer, env, strategy_flag):
        self.count += 1
        layer = io_layer if io_layer is not None else self.io_layer
        spec = suite.RunSpec(index=self.count, case=label, kernel=kernel, ranks=ranks or self.ranks,
                             backend=backend, strategy=strategy, io_layer=layer, matrix={}, env=dict(env or {}),
                             repeat=0, args=args, launcher=self.launcher, timeout=self.timeout,
                             strategy_flag=strategy_flag, title=label)
        spec.total = "?"
        spec.run_id = "-".join([f"{self.count:03d}", suite.slug(label)] + ([layer] if layer else []) +
                               [f"{spec.ranks}p"])
        self.quiesce()
        doc = self.store.run(spec, self.build, outdir=self.data)
        # What the run left in the page cache reaching storage: with the run's
        # own time this is its durable write time (page-cache rates on a VM
        # swing several-fold; the device's do much less).
        t0 = time.monotonic()
        os.sync()
        doc["suite_run"]["sync_seconds"] = time.monotonic() - t0
        print(launch.progress_line(spec, doc).replace(f"/{spec.total}]", "]") +
              f" (+{doc['suite_run']['sync_seconds']:.2f} s sync)", flush=True)
        return Run(label, doc)

    def quiesce(self):
        """Before a run: no dirty pages of an earlier run (their writeback
        would be charged to whoever runs next) and, with --drop-caches, no
        cached pages at all (reads then come from storage)."""
        os.sync()
        if self.drop_caches:
            try:
                with open("/proc/sys/vm/drop_caches", "w") as f:
                    f.write("3\n")
            except OSError as e:
                raise SystemExit(f"{self.name}: error: --drop-caches: cannot write /proc/sys/vm/drop_caches ({e})"
                                 "; run as root or leave --drop-caches out") from e

    def table(self, runs, reference=None, title=None, refs=None):
        """Prints (and returns) an aligned table of runs: bytes, time,
        bandwidth, and ratios ours/raw to `reference` (a raw Run) or to
        refs[i] per run.  Failed runs show their error."""
        headers = ["run", "layer", "bytes", "time s", "MiB/s", "time / raw", "bw / raw", "note"]
        body = []
        refs = refs or [reference] * len(runs)
        for run, ref in zip(runs, refs, strict=False):
            if not run.ok:
                body.append([run.label, run.layer, "", "", "", "", "", f"FAILED: {run.error}"[:100]])
                continue
            good = ref is not None and ref.ok and ref.seconds and ref.mib_s
            body.append([run.label, run.layer, format_bytes(run.bytes), f"{run.seconds:.3f}", f"{run.mib_s:.1f}",
                         f"{run.seconds / ref.seconds:.2f}" if good else "-",
                         f"{run.mib_s / ref.mib_s:.2f}" if good else "-", "" if good else "no raw reference"])
        shown = [r for r in refs if r is not None]
        for ref in dict.fromkeys(id(r) for r in shown):
            r = next(x for x in shown if id(x) == ref)
            if r.ok:
                body.append([f"{r.label} ({r.doc['suite_run']['ranks']} ranks)", r.layer, format_bytes(r.bytes),
                             f"{r.seconds:.3f}", f"{r.mib_s:.1f}", "1.00", "1.00", "reference"])
            else:
                body.append([r.label, r.layer, "", "", "", "", "", f"FAILED: {r.error}"[:100]])
        text = render(headers, body, numeric=range(2, 7))
        if title:
            text = f"\n{title}\n" + text
        print(text, flush=True)
        self.store.index.setdefault("tables", []).append({"title": title or "", "text": text})
        self.store.save_index()
        return text

    def finish(self):
        """Writes the index's end time; returns 0 if every run succeeded, else 1."""
        self.store.finish()
        try:
            self.data.rmdir()               # only when the programs cleaned up
        except OSError:
            pass
        failed = [r["id"] for r in self.store.index["runs"] if r["status"] != "ok"]
        print(f"\nresults: {self.store.root}" + (f"  ({len(failed)} failed: {', '.join(failed)})" if failed else ""))
        return 1 if failed else 0


def main_guard(fn):
    """Runs fn(), turning UsageError into one clear message and exit 2
    (SIGTERM ends the running launch too)."""
    launch.exit_on_sigterm()
    try:
        sys.exit(fn())
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
