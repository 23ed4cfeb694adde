"""Executing runs: the command line of a RunSpec, launching it with a time
limit, and storing its result document (with a `suite_run` block) in a
results directory:

    DIR/index.json             the suite, and one entry per run (written after every run)
    DIR/<run id>.json          the run's iokernels-result/1 document + suite_run
    DIR/logs/<run id>.stdout   what the program printed
    DIR/logs/<run id>.stderr
    DIR/out/<run id>/          the run's working and output directory ({outdir});
                               removed afterwards when the program left it empty
"""
import datetime
import functools
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from . import paths, results
from ._types import Doc, StrPath
from .errors import UsageError
from .suite import RunSpec, Suite

STDERR_TAIL_LINES = 40


def exit_on_sigterm() -> None:
    """SIGTERM becomes SystemExit, so a running launch is killed on the way out."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def utc_now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def placeholders(spec: RunSpec, outdir: StrPath, build: StrPath) -> dict[str, Any]:
    return {"outdir": str(outdir), "shared": str(paths.shared_dir()), "source": str(paths.source_dir()),
            "build": str(build), "bin": str(paths.bin_dir(build)), "cwd": os.getcwd(), "ranks": spec.ranks,
            "backend": spec.backend or "",
            "strategy": spec.strategy or "", "io_layer": spec.io_layer or "", "repeat": spec.repeat + 1,
            "case": spec.case, "kernel": spec.kernel, **spec.inputs, **spec.matrix}


def make_inputs(suite: Suite, directory: StrPath, build: StrPath, dry_run: bool = False) -> list[Doc]:
    """Writes the suite's [[input]] files into `directory` (once: an existing
    file is kept) and tells every run where they are.  Returns the index
    entries; a failing command is a UsageError with its output's tail."""
    directory = Path(directory)
    entries = []
    for inp in suite.inputs:
        path = directory / inp.file
        values = {"build": str(build), "bin": str(paths.bin_dir(build)), "source": str(paths.source_dir()),
                  "shared": str(paths.shared_dir()), "path": str(path)}
        argv = [a.format(**values) for a in inp.command]
        made = False
        if not dry_run and not path.exists():
            directory.mkdir(parents=True, exist_ok=True)
            try:
                p = subprocess.run(argv, capture_output=True, text=True, timeout=3600)
            except OSError as e:
                raise UsageError(f"input {inp.name}: cannot run {argv[0]}: {e.strerror}",
                                 "check the input's command (is the program built?)") from e
            if p.returncode != 0 or not path.exists():
                tail = "\n".join((p.stderr or p.stdout).strip().splitlines()[-5:])
                raise UsageError(f"input {inp.name}: {shlex.join(argv)} failed (exit {p.returncode}) or wrote no "
                                 f"{path}:\n{tail}", "fix the input's command in the suite file")
            made = True
        entries.append({"name": inp.name, "path": str(path), "command": argv, "made": made})
        for r in suite.runs:
            r.inputs[inp.name] = str(path)
    return entries


def command(spec: RunSpec, outdir: StrPath, json_path: StrPath, build: StrPath) -> list[str]:
    """The full argv: launcher, program, kernel options, args, --json."""
    values = placeholders(spec, outdir, build)
    argv = [a.format(**values) for a in spec.launcher]
    if spec.is_tool:
        argv.append(str(paths.program(build, spec.kernel)))
    else:
        argv.append(str(paths.program(build, "iokernels")))
        if spec.io_layer:
            argv += ["--io-layer", spec.io_layer]
        argv.append(spec.kernel)
        if spec.backend:
            argv += [spec.backend_flag, spec.backend]
        if spec.strategy:
            argv += [spec.strategy_flag, spec.strategy]
    argv += [a.format(**values) for a in spec.args]
    for k, v in spec.hints.items():       # iokernels and raw_write both take --hint KEY=VALUE
        argv += ["--hint", f"{k}={v}"]
    argv += ["--json", str(json_path)]
    return argv


@functools.cache
def romio_component() -> str:
    """OpenMPI's ROMIO component (romio341 in OpenMPI 5, romio321 in 4), from
    ompi_info: OMPI_MCA_io may name only a component that exists."""
    try:
        out = subprocess.run(["ompi_info"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        out = ""
    m = re.search(r"MCA io: (romio\d+)", out)
    if not m:
        raise UsageError("io_layer = \"romio\" needs OpenMPI with a ROMIO component (ompi_info lists none)",
                         "remove io_layer from the suite, or run where OpenMPI's ompi_info is on PATH")
    return m.group(1)


def layer_env(layer: str) -> str:
    """OMPI_MCA_io value that makes OpenMPI use `layer` (as src/core/mpi_layer.cpp)."""
    return romio_component() if layer == "romio" else "ompio"


def environment(spec: RunSpec, base_env: Mapping[str, str] | None = None) -> dict[str, str]:
    """Variables the run sets on top of the current environment."""
    env = dict(base_env or {})
    if spec.io_layer:
        # iokernels gets --io-layer too; tools (raw_write) only see this.
        env["OMPI_MCA_io"] = layer_env(spec.io_layer)
    env.update(spec.env)
    return env


def execute(argv: Sequence[str], cwd: StrPath, extra_env: Mapping[str, str], timeout: float | None,
            stdout_path: StrPath, stderr_path: StrPath,
            usage: dict[str, float] | None = None) -> tuple[int | None, float]:
    """Runs argv in its own process group; on timeout kills that group.
    Returns (returncode or None on timeout, wall seconds).  With `usage`, sets
    from wait4 of the launcher (which folds in its reaped descendants, the
    ranks; earlier runs of this process do not leak in as with RUSAGE_CHILDREN):
    maxrss_bytes, the peak resident set of the largest process of the tree (the
    launcher or one rank); user_s, sys_s and minor_faults, summed over the tree."""
    env = {**os.environ, **extra_env}
    t0 = time.monotonic()
    with open(stdout_path, "w") as out, open(stderr_path, "w") as err:
        # SIGINT/SIGTERM wait while the launch starts: arriving inside Popen
        # (the child already running, p not yet known) they would leave it
        # orphaned.  The child gets the usual mask back before it execs.
        stop = {signal.SIGINT, signal.SIGTERM}
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, stop)
        try:
            p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=err, start_new_session=True,
                                 preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_SETMASK, mask))
        except OSError as e:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            err.write(f"cannot start {argv[0]}: {e}\n")
            return 127, time.monotonic() - t0
        # The time limit is a timer that kills the run, and the wait blocks in
        # waitpid: Popen.wait(timeout=...) polls with sleeps of up to 50 ms,
        # which rounded every measured wall time up to the next poll (whole
        # processes of 0.5 s measured in steps of 0.05 s: issue 19).
        expired = threading.Event()

        def kill_on_expiry() -> None:
            try:
                os.killpg(p.pid, signal.SIGKILL)    # the launcher and its ranks, nothing else
                expired.set()
            except ProcessLookupError:              # it ended as the limit came
                pass

        timer = threading.Timer(timeout, kill_on_expiry) if timeout else None
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a signal that came meanwhile is handled here
            if timer:
                timer.start()
            # wait4, not p.wait(): the same blocking wait, plus this child's rusage
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)   # Popen must not reap it again
            rc: int | None = p.returncode
            t1 = time.monotonic()
            if timer:
                timer.cancel()
            if usage is not None:
                usage.update(maxrss_bytes=ru.ru_maxrss * 1024,   # Linux reports KiB
                             user_s=ru.ru_utime, sys_s=ru.ru_stime, minor_faults=ru.ru_minflt)
            if expired.is_set():
                err.write(f"\niokernels run: killed after the {timeout:g} s time limit\n")
                rc = None
        except BaseException:
            # interrupted (Ctrl-C, SIGTERM via exit_on_sigterm): the run lives
            # in its own session, so take its launcher and ranks down with us
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            raise
        finally:
            if timer:
                timer.cancel()
    return rc, t1 - t0


def _tail(path: StrPath, n: int = STDERR_TAIL_LINES) -> list[str]:
    try:
        with open(path, errors="replace") as f:
            return f.read().splitlines()[-n:]
    except OSError:
        return []


def first_error(lines: Sequence[str]) -> str:
    """The line that says what went wrong: the first naming an error, else
    the last with words (launchers frame their messages in ----- rules)."""
    for line in lines:
        if "error" in line.lower():
            return line.strip()
    return next((line.strip() for line in reversed(lines) if any(c.isalpha() for c in line)), "")


class ResultsDir:
    """A results directory being filled by one `run` invocation."""

    def __init__(self, root: StrPath, suite: Suite, scratch: StrPath | None = None) -> None:
        self.root = Path(root).resolve()
        if self.root.exists() and not self.root.is_dir():
            raise UsageError(f"results directory {self.root} is a file",
                             "choose a new directory with --results DIR")
        if self.root.exists() and any(self.root.iterdir()):
            raise UsageError(f"results directory {self.root} is not empty",
                             "choose a new one with --results DIR (results are never overwritten)")
        (self.root / "logs").mkdir(parents=True, exist_ok=True)
        self.out_root = Path(scratch).resolve() if scratch else self.root / "out"
        self.index: Doc = {"schema": "iokernels-suite-index/1", "suite": suite.name, "suite_file": str(suite.path),
                      "description": suite.description, "started_utc": utc_now(), "runs": []}
        self.save_index()

    def save_index(self) -> None:
        tmp = self.root / (results.INDEX + ".tmp")
        with open(tmp, "w") as f:
            json.dump(self.index, f, indent=2)
        tmp.replace(self.root / results.INDEX)

    def run(self, spec: RunSpec, build: StrPath, outdir: StrPath | None = None) -> Doc:
        """Executes one run (in `outdir`, by default its own directory under
        the scratch root); returns its stored document."""
        where = Path(outdir).resolve() if outdir else self.out_root / spec.run_id
        where.mkdir(parents=True, exist_ok=True)
        json_path = self.root / f"{spec.run_id}.json"
        argv = command(spec, where, json_path, build)
        env = environment(spec)
        so, se = self.root / "logs" / f"{spec.run_id}.stdout", self.root / "logs" / f"{spec.run_id}.stderr"
        started = utc_now()
        rc, wall = execute(argv, where, env, spec.timeout, so, se)
        doc: Doc | None = None
        if json_path.is_file():
            try:
                doc = results.load_doc(json_path)
            except UsageError:
                doc = None
        status = "timeout" if rc is None else ("ok" if rc == 0 and doc is not None else "failed")
        launched = (doc or {}).get("manifest", {}).get("processes")
        if status == "ok" and launched is not None and launched != spec.ranks:
            # e.g. srun without PMIx: N singleton processes that each think they are alone
            status = "failed"
            with open(se, "a") as f:
                f.write(f"iokernels run: error: the program ran as {launched} MPI process(es), the suite asked for "
                        f"{spec.ranks}: the launcher did not start one MPI job (srun needs --mpi=pmix for "
                        "OpenMPI; see the launcher setting)\n")
        if doc is None:
            doc = {"schema": results.SCHEMA, "kernel": spec.kernel, "files": []}
            if rc == 0:
                with open(se, "a") as f:
                    f.write("iokernels run: the program exited 0 but wrote no JSON result\n")
        doc.pop("_path", None)
        tail = _tail(se)
        doc["suite_run"] = {
            "id": spec.run_id, "suite": self.index["suite"], "case": spec.case, "kernel": spec.kernel,
            "backend": spec.backend, "strategy": spec.strategy, "ranks": spec.ranks, "io_layer": spec.io_layer,
            "matrix": spec.matrix, "hints": spec.hints, "env": env, "repeat": spec.repeat + 1, "command": argv,
            "cwd": str(where),
            "status": status, "returncode": rc, "started_utc": started, "wall_seconds": round(wall, 3),
            "stdout_log": str(so.relative_to(self.root)), "stderr_log": str(se.relative_to(self.root)),
            "stderr_tail": tail if status != "ok" else [],
        }
        with open(json_path, "w") as f:
            json.dump(doc, f, indent=2)
        try:
            where.rmdir()                   # only if the program cleaned up after itself
        except OSError:
            pass
        entry = {"id": spec.run_id, "result": json_path.name, "status": status, "returncode": rc,
                 "case": spec.case, "kernel": spec.kernel, "backend": spec.backend, "strategy": spec.strategy,
                 "ranks": spec.ranks, "io_layer": spec.io_layer, "matrix": spec.matrix, "hints": spec.hints,
                 "repeat": spec.repeat + 1,
                 "wall_seconds": round(wall, 3)}
        h = results.headline(doc) if status == "ok" else None
        if h:
            entry.update(bytes=h[0], seconds=h[1], mib_s=h[2])
        self.index["runs"].append(entry)
        self.save_index()
        doc["_path"] = str(json_path)
        return doc

    def finish(self) -> None:
        self.index["finished_utc"] = utc_now()
        self.save_index()
        if self.out_root == self.root / "out":
            try:
                self.out_root.rmdir()
            except OSError:
                pass


def progress_line(spec: RunSpec, doc: Doc) -> str:
    sr = doc["suite_run"]
    head = f"[{spec.index}/{spec.total}] {spec.label()} ... "
    if sr["status"] != "ok":
        why = "timed out" if sr["status"] == "timeout" else f"FAILED (exit {sr['returncode']})"
        msg = first_error(sr["stderr_tail"])
        return head + why + (f": {msg}" if msg else "")
    h = results.headline(doc)
    if not h:
        return head + f"{sr['wall_seconds']:.2f} s wall (no timings in the result)"
    lost = results.hints_not_in_effect(doc)
    asked = set(lost) & set(results.requested_hint_values(doc))   # the run's own hints, not the kernel's defaults
    note = ""
    if asked:
        note = " (not in effect: " + ", ".join(f"{k}={lost[k]['requested']}" for k in sorted(asked)) + ")"
    return head + f"{format_seconds(h[1])} s, {h[2]:.1f} MiB/s" + note


class Progress:
    """Runs done / total and the time left.  A run's duration is predicted
    from the earlier repeats of the same combination (runs alternate, so from
    the second round on every combination has one), else from the mean of the
    runs done so far."""

    def __init__(self, runs: Iterable[RunSpec]) -> None:
        self.runs = list(runs)
        self.done = 0
        self.started = time.monotonic()
        self.walls: dict[tuple[Any, ...], list[float]] = {}   # combination -> wall seconds of its repeats so far

    @staticmethod
    def combination(spec: RunSpec) -> tuple[Any, ...]:
        return (spec.case, spec.ranks, spec.backend, spec.strategy, spec.io_layer,
                tuple(sorted(spec.axes().items())))

    def record(self, spec: RunSpec, wall: float) -> None:
        self.done += 1
        self.walls.setdefault(self.combination(spec), []).append(wall)

    def seconds_left(self) -> float | None:
        if not self.done:
            return None
        every = [w for ws in self.walls.values() for w in ws]
        mean = sum(every) / len(every)
        left = 0.0
        for spec in self.runs[self.done:]:
            ws = self.walls.get(self.combination(spec))
            left += sum(ws) / len(ws) if ws else mean
        return left

    def status(self) -> str:
        """'3/12 done, 0:41 elapsed, ~2:05 left'"""
        left = self.seconds_left()
        elapsed = time.monotonic() - self.started
        text = f"{self.done}/{len(self.runs)} done, {format_clock(elapsed)} elapsed"
        if left is not None and self.done < len(self.runs):
            text += f", ~{format_clock(left)} left"
        return text


def format_clock(seconds: float) -> str:
    """75 -> '1:15', 3725 -> '1:02:05'."""
    s = int(round(seconds))
    h, m = divmod(s, 3600)
    m, s = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def format_seconds(t: float) -> str:
    """0.85, 12.3, 0.0042: two decimals, or two significant digits below 0.1 s."""
    return f"{t:.1f}" if t >= 10 else f"{t:.2f}" if t >= 0.1 else f"{t:.2g}"

