"""iokernels-darshan: a Darshan log as an iokernels trace, its counters
beside the plan's, and what they say (docs/darshan.md).

    iokernels-darshan trace LOG [--ranks N] [--scale F] [-o FILE]
    iokernels-darshan table LOG [--ranks N] [--scale F] [--json]
    iokernels-darshan diagnose LOG [--json]
    iokernels-darshan advise LOG [--ranks N] [--scale F] [--repeats R] [--json] [-o FILE]
    iokernels-darshan records LOG [-o FILE]          the log's records as JSON (logjson.py)
    iokernels-darshan write JSON -o LOG              a Darshan log of records in that JSON, written
                                                     by libdarshan-util (test data; jobs of any size)

(advise is the shared `python3 -m iokernels advise` for the log's replay.)

`iokernels replay LOG` runs `trace` on rank 0.  A log that cannot be
replayed: one line on stderr, exit status 2, nothing written.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from .advise import advice_text, advise
from .build import Job, build_job
from .compare import table, table_text
from .diagnose import diagnose, diagnosis_text
from .errors import LogError
from .logjson import as_json, from_json
from .logread import read_log
from .logwrite import write_log
from .scale import scale_job
from .trace import trace_text


def convert(path: str, ranks: int = 0, factor: float = 1.0) -> tuple[Job, dict[str, Any]]:
    """The job of a log (scaled as asked) and the report that goes with its trace."""
    t0 = time.perf_counter()
    log = read_log(path)
    job = build_job(log)
    if not job.files:
        raise LogError(f"{path} records no reads or writes of any file (only opens or standard streams)")
    tab = table(job)            # the log's counters against the plan at the log's own size
    scale_job(job, ranks, factor)
    found = diagnose(log)
    modes = sorted({f.mode for f in job.files})
    lines = [f"Darshan log {path}: format {log.version}, {log.nprocs} process(es), program {log.exe[:100]}",
             f"  {len(job.files)} file(s) replayed: " +
             ", ".join(f"{sum(f.mode == m for f in job.files)} {m}" for m in modes) +
             f" (PyDarshan {log.pydarshan}, converted in {time.perf_counter() - t0:.2f} s)"]
    lines += [f"  scaled: {s}" for s in job.scaled] or ["  not scaled: the log's own ranks and bytes"]
    report = {"log": path, "format": log.version, "pydarshan": log.pydarshan, "nprocs": log.nprocs,
              "replay_ranks": job.nprocs, "program": log.exe, "scaled": job.scaled,
              "files": [{"file": f.name, "mode": f.mode, "shared": f.shared, "notes": f.notes} for f in job.files],
              "table": tab, "diagnosis": found,
              "summary": lines, "table_text": table_text(tab), "diagnosis_text": diagnosis_text(found)}
    return job, report


def _jsonable(o: Any) -> Any:
    if isinstance(o, dict):
        return {str(k): _jsonable(v) for k, v in o.items()}
    if isinstance(o, list | tuple):
        return [_jsonable(v) for v in o]
    return o


def records_or_write(command: str, src: str, out: str) -> int:
    try:
        if command == "records":
            text = json.dumps(as_json(read_log(src)), indent=1) + "\n"
            if out == "-":
                sys.stdout.write(text)
            else:
                Path(out).write_text(text)
            return 0
        if out == "-":
            raise LogError("write needs -o LOG: where the Darshan log goes")
        try:
            doc = json.loads(Path(src).read_text())
        except (OSError, ValueError) as e:
            raise LogError(f"cannot read {src} as JSON: {e}") from None
        write_log(from_json(doc, src), out)
        return 0
    except LogError as e:
        print(f"iokernels-darshan: {e}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="iokernels-darshan", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["trace", "table", "diagnose", "advise", "records", "write"],
                    help="what to print (advise: runs the scaled workload through strategies, aggregators and "
                    "hints, with repeats; records: the log's records as JSON; write: a log from such JSON)")
    ap.add_argument("log", help="a Darshan log (format 3.x); write: the JSON of its records")
    ap.add_argument("--ranks", type=int, default=0, help="replay ranks (default 0: the log's process count)")
    ap.add_argument("--scale", type=float, default=1.0, help="divide the accesses (and so the bytes) by F (default 1)")
    ap.add_argument("-o", "--out", default="-", help="where the trace (records: the JSON) goes (default -: standard "
                    "output); advise: also write the advice JSON there (for `python3 -m iokernels html`); write: "
                    "the new log (required)")
    ap.add_argument("--json", action="store_true", help="table/diagnose/advise as JSON (default: text)")
    ap.add_argument("--repeats", type=int, default=3,
                    help="advise: runs of each configuration (default 3, alternating)")
    ap.add_argument("--iokernels", default=str(Path(sys.argv[0]).resolve().parent / "iokernels"),
                    help="advise: the iokernels program (default: beside this command)")
    ap.add_argument("--striping", action="store_true",
                    help="advise: also try Lustre striping hints (default: only for a log with LUSTRE records)")
    a = ap.parse_args(argv)
    if a.ranks < 0 or a.scale < 1:
        print(f"iokernels-darshan: --ranks must be >= 0 and --scale >= 1 (got {a.ranks}, {a.scale:g})",
              file=sys.stderr)
        return 2
    if a.command in ("records", "write"):
        return records_or_write(a.command, a.log, a.out)
    try:
        job, rep = convert(a.log, a.ranks, a.scale)
    except LogError as e:
        print(f"iokernels-darshan: {e}", file=sys.stderr)
        return 2
    if a.command == "advise":
        res = advise(a.iokernels, a.log, a.ranks or 4, a.scale, a.repeats, a.striping or bool(job.log.lustre),
                     quiet=a.json)
        if a.out != "-":
            Path(a.out).write_text(json.dumps(res, indent=1) + "\n")
        print(json.dumps(res, indent=1) if a.json else "\n".join(advice_text(res)))
        return 0 if res.get("best") else 1
    if a.command == "trace":
        text = trace_text(job, _jsonable(rep))
        if a.out == "-":
            sys.stdout.write(text)
        else:
            with open(a.out, "w") as fh:
                fh.write(text)
    elif a.command == "table":
        lines = rep["summary"] + rep["table_text"]
        print(json.dumps(_jsonable(rep["table"]), indent=1) if a.json else "\n".join(lines))
    else:
        print(json.dumps(_jsonable(rep["diagnosis"]), indent=1) if a.json else "\n".join(rep["diagnosis_text"]))
    return 0
