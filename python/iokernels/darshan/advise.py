"""Measured advice: a log's (scaled) workload run through the strategies,
aggregator counts and MPI-IO hints that matter, with repeats; the fastest
configuration whose data verified, its speed-up over the job's own way and
the spread of both (docs/darshan.md).

The job's own way is `--calls recorded` (the application's MPI-IO calls:
its opens, flavours and collectiveness; exact for DXT logs, synthesized
otherwise).  The time of a run is the sum over the replayed files of the
slowest rank's seconds in the I/O calls (open, view, accesses, flush,
close) of its write and read steps (not the read-back verification).  Repeats alternate over the configurations.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Config:
    label: str
    args: list[str]
    hints: dict[str, str] = field(default_factory=dict)
    times: list[float] = field(default_factory=list)
    failed: str = ""


def configs(ranks: int, striping: bool) -> list[Config]:
    out = [Config("the job's own calls (--calls recorded)", ["--calls", "recorded"])]
    out.append(Config("one collective call per file (-a mpiio -x canonical)", []))
    for n in sorted({1, max(1, ranks // 2), ranks}):
        out.append(Config(f"collective, cb_nodes={n}", [], {"cb_nodes": str(n), "romio_cb_write": "enable",
                                                              "romio_cb_read": "enable"}))
    out.append(Config("collective, cb_buffer_size=64 MiB", [], {"cb_buffer_size": str(64 << 20)}))
    out.append(Config("independent calls, no collective buffering", ["--independent"],
                      {"romio_cb_write": "disable", "romio_cb_read": "disable"}))
    out.append(Config("rearranged to contiguous blocks (-x rearrange)", ["-x", "rearrange"]))
    if striping:
        out.append(Config("Lustre: striping_factor=4, striping_unit=4 MiB", [],
                          {"striping_factor": "4", "striping_unit": str(4 << 20)}))
    return out


IO_PHASES = ("open", "define", "post", "post_read", "flush", "close")


def _time(doc: dict[str, Any]) -> float:
    """Seconds in I/O calls: per write/read step and phase the slowest rank's
    (the recorded calls' write and read share one end-to-end time, and
    end-to-end includes making the data, so it is not used)."""
    t = 0.0
    for f in doc.get("files", []):
        if f.get("role") in ("write", "read"):
            t += sum(float(v["max"]) for k, v in f["seconds"].items() if k in IO_PHASES)
    return t


def run_one(c: Config, program: str, log: str, ranks: int, scale: float, workdir: Path) -> None:
    out = workdir / "r.json"
    d = workdir / "out"
    d.mkdir(exist_ok=True)
    cmd = ["mpiexec", "--oversubscribe", "-n", str(ranks), program, "replay", "-q", "-o", str(d), "--ranks",
           str(ranks), "--scale", f"{scale:g}", "--json", str(out), *c.args]
    for k, v in c.hints.items():
        cmd += ["--hint", f"{k}={v}"]
    p = subprocess.run([*cmd, log], capture_output=True, text=True, env={**os.environ, "OMPI_MCA_io": "romio341"})
    for f in d.iterdir():
        f.unlink()
    if p.returncode != 0:
        c.failed = (p.stderr.strip().splitlines() or ["failed"])[0][:200]
        return
    doc = json.loads(out.read_text())
    if doc.get("summary", {}).get("verification_mismatches", 1) != 0 or not doc.get("valid", False):
        c.failed = "verification failed"
        return
    c.times.append(_time(doc))


def advise(program: str, log: str, ranks: int, scale: float, repeats: int, striping: bool) -> dict[str, Any]:
    cs = configs(ranks, striping)
    with tempfile.TemporaryDirectory(prefix="iok-advise-") as tmp:
        for _ in range(repeats):
            for c in cs:
                if not c.failed:
                    run_one(c, program, log, ranks, scale, Path(tmp))
    base = cs[0]
    done = [c for c in cs if c.times and not c.failed]
    rows = [{"config": c.label, "args": c.args, "hints": c.hints, "times_s": c.times,
             "median_s": statistics.median(c.times) if c.times else None, "failed": c.failed} for c in cs]
    res: dict[str, Any] = {"log": log, "ranks": ranks, "scale": scale, "repeats": repeats, "configs": rows}
    if done and base.times:
        best = min(done, key=lambda c: statistics.median(c.times))
        b, m = statistics.median(base.times), statistics.median(best.times)
        flags = " ".join(best.args + [f"--hint {k}={v}" for k, v in best.hints.items()])
        res["best"] = {"config": best.label, "median_s": m, "spread_s": [min(best.times), max(best.times)],
                       "baseline_median_s": b, "baseline_spread_s": [min(base.times), max(base.times)],
                       "speedup": b / m if m > 0 else None, "flags": flags,
                       "hints_file": "".join(f"{k} {v}\n" for k, v in best.hints.items())}
    return res


def advice_text(res: dict[str, Any]) -> list[str]:
    out = [f"Measured advice: {res['log']} on {res['ranks']} ranks, 1/{res['scale']:g} of its accesses, "
           f"{res['repeats']} repeats (time: seconds in I/O calls of the write and read steps, "
           "slowest rank per phase, summed)"]
    for r in res["configs"]:
        t = f"median {r['median_s']:.4f} s over {len(r['times_s'])}" if r["times_s"] else ""
        out.append(f"  {r['config']:58} {t}{'  FAILED: ' + r['failed'] if r['failed'] else ''}")
    b = res.get("best")
    if b:
        out.append(f"Fastest verified: {b['config']}: {b['median_s']:.4f} s (spread {b['spread_s'][0]:.4f}-"
                   f"{b['spread_s'][1]:.4f}) vs the job's own calls {b['baseline_median_s']:.4f} s (spread "
                   f"{b['baseline_spread_s'][0]:.4f}-{b['baseline_spread_s'][1]:.4f}): speed-up {b['speedup']:.2f}x")
        out.append(f"  flags: {b['flags'] or '(none: the defaults)'}")
        if b["hints_file"]:
            out.append("  hints file (ROMIO_HINTS=FILE):")
            out += ["    " + line for line in b["hints_file"].splitlines()]
    return out
