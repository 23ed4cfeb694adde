"""Measured advice for any kernel's run (`python3 -m iokernels advise -- KERNEL
ARGS...`) and for a replayed Darshan log (`iokernels-darshan advise LOG`,
which builds its replay command and calls this): the run is repeated through
the strategies, aggregator counts and MPI-IO hints that matter, alternating
over the configurations; the fastest configuration whose data verified is
reported with its speed-up over the run as given, the spread (min / median /
max) of both, and the exact settings to use (flags, a ROMIO hints file).

Time of a run: per file the slowest rank's seconds in the I/O calls (open,
define, post, post_read, flush, close; not the making of the data nor the
read-back verification), summed over the files it wrote (or read, when it
wrote nothing; a replay's recorded-call steps count their write and read
roles).  A run counts as verified when its result has a read-back with no
mismatch and is marked valid.
"""
import json
import os
import shlex
import statistics
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import results
from ._types import Doc, StrPath

SCHEMA = "iokernels-advice/1"
IO_PHASES = ("open", "define", "post", "post_read", "flush", "close")
STRATEGY_NOTES = {"blob": "file in blob layout: blob_replay makes the canonical file",
                  "log": "file in log layout: log_replay makes the canonical file"}


@dataclass
class Config:
    label: str
    args: list[str] = field(default_factory=list)       # added to the command (after removing what they replace)
    hints: dict[str, str] = field(default_factory=dict)
    collective: bool | None = None                       # True: drop --independent; False: add it; None: as given
    note: str = ""
    times: list[float] = field(default_factory=list)
    failed: str = ""
    unverified: str = ""                                 # why a run that completed does not count
    not_in_effect: str = ""                              # its hints the MPI library did not take (manifest)


def configs(ranks: int, striping: bool, strategies: Sequence[str] = (),
            given_strategy: str = "canonical", api: str = "") -> list[Config]:
    """The configurations tried on top of the command (besides the run as given)."""
    out = [Config(f"-x {s}", ["-x", s], note=STRATEGY_NOTES.get(s, "")) for s in strategies if s != given_strategy]
    if api == "pnetcdf":
        # PnetCDF 1.14's intra-node aggregation: the processes of a node hand their requests to n of them, which
        # call MPI-IO with the requests merged and sorted (older PnetCDF ignores the hint). On an E3SM F map it
        # cut the collective write 2-3x at ne30 size (issue 33).
        for n in sorted({1, 2} & set(range(1, ranks))):
            out.append(Config(f"PnetCDF intra-node aggregation, {n} per node", [], {"nc_num_aggrs_per_node": str(n)},
                              note="PnetCDF >= 1.14"))
    for n in sorted({1, max(1, ranks // 2), ranks}):
        # cb_config_list: ROMIO places one aggregator per node unless told more may share one
        out.append(Config(f"collective, cb_nodes={n}", [], {"cb_nodes": str(n), "cb_config_list": f"*:{n}",
                                                              "romio_cb_write": "enable", "romio_cb_read": "enable"},
                          collective=True))
    out.append(Config("collective, cb_buffer_size=64 MiB", [], {"cb_buffer_size": str(64 << 20)}, collective=True))
    out.append(Config("independent calls, no collective buffering", [],
                      {"romio_cb_write": "disable", "romio_cb_read": "disable"}, collective=False))
    if striping:
        out.append(Config("Lustre: striping_factor=4, striping_unit=4 MiB", [],
                          {"striping_factor": "4", "striping_unit": str(4 << 20)}))
    return out


def given_option(argv: Sequence[str], short: str, long: str, default: str) -> str:
    """The value of an option given as `-x V`, `-xV`, `--long V` or `--long=V` (the last one wins), else default."""
    v = default
    for i, a in enumerate(argv):
        if a in (short, long) and i + 1 < len(argv):
            v = argv[i + 1]
        elif a.startswith(long + "="):
            v = a.split("=", 1)[1]
        elif a.startswith(short) and len(a) > len(short) and not a.startswith("--"):
            v = a[len(short):]
    return v


def given_strategy(argv: Sequence[str]) -> str:
    """The -x/--strategy of a command line (canonical when it has none)."""
    return given_option(argv, "-x", "--strategy", "canonical")


def given_api(argv: Sequence[str]) -> str:
    """The -a/--api of a command line ("" when it has none: the kernel's default)."""
    return given_option(argv, "-a", "--api", "")


def command_for(argv: Sequence[str], c: Config) -> list[str]:
    """`argv` (a kernel's arguments) with c's settings: what c sets is removed
    from argv first (a strategy, --independent, hints of the same keys), and
    so are --json and --keep (advise writes its own result; kept files would
    stop the next repeat)."""
    sets_strategy = "-x" in c.args
    out: list[str] = []
    skip = False
    for i, a in enumerate(argv):
        if skip:
            skip = False
            continue
        nxt = argv[i + 1] if i + 1 < len(argv) else ""
        if a in ("--json", "--csv") or (sets_strategy and a in ("-x", "--strategy")):
            skip = True
        elif a.startswith(("--json=", "--csv=")) or (sets_strategy and (a.startswith("--strategy=") or
                                                                        (a.startswith("-x") and len(a) > 2))):
            pass
        elif a in ("-k", "--keep") or (a == "--independent" and c.collective is not None):
            pass
        elif a == "--hint" and nxt.split("=", 1)[0] in c.hints:
            skip = True
        elif a.startswith("--hint=") and a[7:].split("=", 1)[0] in c.hints:
            pass
        else:
            out.append(a)
    out += c.args + (["--independent"] if c.collective is False else [])
    for k, v in c.hints.items():
        out += ["--hint", f"{k}={v}"]
    return out


def io_seconds(doc: Doc) -> float:
    """The time of a run (module docstring)."""
    files = [f for f in doc.get("files", []) if isinstance(f, dict)]
    chosen = ([f for f in files if f.get("role") in ("write", "read")]
              or [f for f in files if f.get("mode") == "write"] or [f for f in files if f.get("mode") == "read"])
    return sum(float(v["max"]) for f in chosen for k, v in (f.get("seconds") or {}).items()
               if k in IO_PHASES and isinstance(v, dict) and v.get("max") is not None)


def unverified_reason(doc: Doc) -> str:
    """Empty when the run read its data back and found it as written."""
    if not doc.get("valid", False):
        return str(doc.get("invalid_reason") or "the result is marked invalid")
    if doc.get("summary", {}).get("verification_mismatches", 0):
        return "verification failed"
    if not any(isinstance(f, dict) and "verify" in f for f in doc.get("files", [])):
        return "no read-back verification in the result (the kernel has no --verify?)"
    return ""


@dataclass
class Runner:
    """How to launch one configuration: launcher (with {ranks}), program,
    environment, time limit, and what to clean after each run."""
    program: StrPath
    ranks: int
    launcher: Sequence[str] = ("mpiexec", "--oversubscribe", "-n", "{ranks}")
    env: dict[str, str] = field(default_factory=dict)
    timeout: float = 1800
    after_run: Callable[[], None] | None = None

    def argv(self, args: Sequence[str]) -> list[str]:
        return [a.replace("{ranks}", str(self.ranks)) for a in self.launcher] + [str(self.program), *args]

    def run(self, c: Config, args: Sequence[str], workdir: Path) -> None:
        out = workdir / "result.json"
        out.unlink(missing_ok=True)
        try:
            p = subprocess.run(self.argv([*args, "--json", str(out)]), capture_output=True, text=True,
                               timeout=self.timeout, env={**os.environ, **self.env})
        except subprocess.TimeoutExpired:
            c.failed = f"no result within {self.timeout:g} s"
            return
        finally:
            if self.after_run:
                self.after_run()
        if p.returncode != 0 or not out.is_file():
            lines = [ln for ln in (p.stderr or p.stdout).strip().splitlines() if "error" in ln.lower()]
            c.failed = f"exit {p.returncode}: " + (lines or (p.stderr or p.stdout).strip().splitlines()
                                                   or ["no output"])[0][:200]
            return
        doc = json.loads(out.read_text())
        why = unverified_reason(doc)
        if why:
            c.unverified = why
        lost = {k: v for k, v in results.hints_not_in_effect(doc).items() if k in c.hints}
        if lost:  # e.g. cb_nodes on Open MPI 5.0's ROMIO: the run measured something else than the label says
            c.not_in_effect = ", ".join(f"{k}={v['requested']} (in effect: {v['in_effect']})" for k, v in lost.items())
        c.times.append(io_seconds(doc))


def _spread(t: list[float]) -> dict[str, float]:
    return {"min_s": min(t), "median_s": statistics.median(t), "max_s": max(t)}


def advise(runner: Runner, argv: Sequence[str], baseline: Config, tried: Sequence[Config], repeats: int,
           describe: dict[str, Any] | None = None, log: Callable[[str], object] | None = None) -> Doc:
    """Runs the baseline (the run as given) and every configuration `repeats`
    times, alternating; returns the advice document (SCHEMA)."""
    cs = [baseline, *tried]
    with tempfile.TemporaryDirectory(prefix="iok-advise-") as tmp:
        for r in range(repeats):
            for c in cs:
                if c.failed:
                    continue
                runner.run(c, command_for(argv, c), Path(tmp))
                if log:
                    log(f"advise: repeat {r + 1}/{repeats}: {c.label}: "
                        + (f"FAILED {c.failed}" if c.failed else f"{c.times[-1]:.4f} s"))
    base = baseline.times and not baseline.failed
    b_med = statistics.median(baseline.times) if base else None
    rows = []
    for c in cs:
        row: dict[str, Any] = {"config": c.label, "args": c.args, "hints": c.hints,
                               "independent": {None: "as given", True: False, False: True}[c.collective],
                               "command": runner.argv(command_for(argv, c)), "times_s": c.times,
                               "median_s": None, "min_s": None, "max_s": None, "verified": bool(c.times) and not
                               c.unverified and not c.failed, "unverified": c.unverified, "failed": c.failed,
                               "not_in_effect": c.not_in_effect, "note": c.note, "speedup": None,
                               "baseline": c is baseline}
        if c.times and not c.failed:
            row.update(_spread(c.times))
            row["speedup"] = b_med / row["median_s"] if b_med and row["median_s"] > 0 else None
        rows.append(row)
    doc: Doc = {"schema": SCHEMA, **(describe or {}), "command": list(argv), "ranks": runner.ranks,
                "repeats": repeats, "env": runner.env,
                "time": "seconds in I/O calls (open, define, post, flush, close) of the files written (else read), "
                        "slowest rank per phase, summed; read-back verification not counted",
                "configs": rows}
    # A configuration whose hints did not take effect is not what its label says: never the advice.
    ok = [r for r in rows if r["verified"] and r["median_s"] is not None and not r["not_in_effect"]]
    if ok and b_med is not None:
        best = min(ok, key=lambda r: r["median_s"])
        b = next(r for r in rows if r["baseline"])
        hints_file = "".join(f"{k} {v}\n" for k, v in best["hints"].items())
        doc["best"] = {
            "config": best["config"], "median_s": best["median_s"], "spread_s": [best["min_s"], best["max_s"]],
            "baseline_median_s": b["median_s"], "baseline_spread_s": [b["min_s"], b["max_s"]],
            "speedup": best["speedup"],
            "speedup_range": [b["min_s"] / best["max_s"] if best["max_s"] else None,
                              b["max_s"] / best["min_s"] if best["min_s"] else None],
            "spreads_overlap": best["min_s"] <= b["max_s"] and b["min_s"] <= best["max_s"],
            "is_baseline": best["baseline"], "note": best["note"],
            "flags": " ".join(best["args"] + (["--independent"] if best["independent"] is True else [])
                              + [f"--hint {k}={v}" for k, v in best["hints"].items()]),
            "command": shlex.join(str(a) for a in best["command"]), "hints_file": hints_file}
        rest = [r for r in ok if r is not best]
        if rest:                                # is the fastest clearly ahead of the next one?
            ru = min(rest, key=lambda r: r["median_s"])
            doc["best"]["runner_up"] = {"config": ru["config"], "median_s": ru["median_s"],
                                        "spread_s": [ru["min_s"], ru["max_s"]],
                                        "spreads_overlap": ru["min_s"] <= best["max_s"]}
    return doc


def advice_text(doc: Doc) -> list[str]:
    out = [f"Measured advice: {doc.get('subject') or shlex.join(doc['command'])} on {doc['ranks']} ranks, "
           f"{doc['repeats']} repeat(s) alternating over the configurations",
           f"  time: {doc['time']}",
           f"  {'configuration':52} {'min s':>8} {'median s':>9} {'max s':>8}  {'verified':8} speed-up"]
    for r in doc["configs"]:
        label = r["config"] + (" [as given]" if r["baseline"] and "as given" not in r["config"] else "")
        if r["failed"]:
            out.append(f"  {label:52} FAILED: {r['failed']}")
            continue
        sp = f"{r['speedup']:.2f}x" if r["speedup"] else ""
        ver = "yes" if r["verified"] else "NO"
        out.append(f"  {label:52} {r['min_s']:8.4f} {r['median_s']:9.4f} {r['max_s']:8.4f}  {ver:8} {sp}"
                   + (f"  ({r['unverified']})" if r["unverified"] else
                      f"  (not in effect: {r['not_in_effect']}; not advised)" if r["not_in_effect"] else
                      f"  ({r['note']})" if r["note"] else ""))
    b = doc.get("best")
    if not b:
        out.append("No verified configuration to recommend (see FAILED / NO above).")
        return out
    lo, hi = b["speedup_range"]
    out.append(f"Fastest verified: {b['config']}: median {b['median_s']:.4f} s (min-max {b['spread_s'][0]:.4f}-"
               f"{b['spread_s'][1]:.4f}) vs as given {b['baseline_median_s']:.4f} s ({b['baseline_spread_s'][0]:.4f}-"
               f"{b['baseline_spread_s'][1]:.4f}): speed-up {b['speedup']:.2f}x (worst-best {lo:.2f}-{hi:.2f}x)")
    if b["is_baseline"]:
        out.append("  the run as given is already the fastest verified configuration: keep its settings")
    elif b["spreads_overlap"]:
        out.append("  the spreads overlap: not a clear win at these repeats (run more with --repeats)")
    else:
        out.append("  the spreads do not overlap: every repeat of it beat every repeat of the run as given")
    ru = b.get("runner_up")
    if ru:
        out.append(f"  next: {ru['config']}: median {ru['median_s']:.4f} s (min-max {ru['spread_s'][0]:.4f}-"
                   f"{ru['spread_s'][1]:.4f}): " + ("spreads overlap with the fastest's" if ru["spreads_overlap"]
                                                    else "every repeat slower than every repeat of the fastest"))
    if b["note"]:
        out.append(f"  note: {b['note']}")
    out.append(f"  flags: {b['flags'] or '(none: as given)'}")
    out.append(f"  command: {b['command']}")
    if b["hints_file"]:
        out.append("  or the hints in a file (export ROMIO_HINTS=FILE; on Open MPI 5.0's ROMIO only for a program that "
                   "opens with MPI_INFO_NULL, or with libiok_open_hints.so in LD_PRELOAD), FILE:")
        out += ["    " + line for line in b["hints_file"].splitlines()]
    return out


def is_advice(path: StrPath) -> bool:
    """A JSON file written by `advise --json`."""
    p = Path(path)
    if not p.is_file() or p.suffix != ".json":
        return False
    try:
        with open(p) as f:
            head = f.read(200)
    except OSError:
        return False
    return f'"schema": "{SCHEMA}"' in head


def load(path: StrPath) -> Doc:
    with open(path) as f:
        doc: Doc = json.load(f)
    doc.setdefault("_path", str(path))
    return doc
