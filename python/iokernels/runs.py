"""One summary per run (the unit of the HTML report and of its plots): what
ran (kernel, case, library, strategy, ranks, MPI-IO layer, hints, matrix
values) and its headline — the files written (or read, for a read-only
kernel) as total bytes over the summed slowest-rank open-to-close times —
with the per-phase times of those files, the time of the verification
read-back when the run did one, and the run's % of its directory's ceiling.

Repeats of one series (everything equal but the repeat) are grouped by
`series_key`."""
from collections.abc import Iterable, Sequence
from typing import Any

from . import ceiling, results
from ._types import Doc

# A run's summary (summary() below); the HTML report's unit.
Summary = dict[str, Any]

PHASES = ("open", "define", "fill", "post", "post_read", "flush", "verify", "close")


def summary(doc: Doc, ceilings: Sequence[Doc] = ()) -> Summary | None:
    """The run's summary dict, or None for a failed run or one without timings."""
    if results.status_of(doc) != "ok" or ceiling.is_ceiling(doc):
        return None
    h = results.headline(doc)
    if not h:
        return None
    rows = results.rows(doc)
    first = rows[0]
    files = doc.get("files", [])
    written = [f for f in files if f.get("mode") == "write"]
    mode = "write" if written or doc.get("kernel") == "raw_write" else "read"
    if doc.get("kernel") == "raw_write" and not doc.get("summary", {}).get("write_seconds"):
        mode = "read"
    chosen = written or [f for f in files if f.get("mode") == "read"]
    phases: dict[str, float] = {}
    for f in chosen:
        for p, s in (f.get("seconds") or {}).items():
            if p in PHASES and isinstance(s, dict) and s.get("max") is not None:
                phases[p] = phases.get(p, 0.0) + s["max"]
    if written:        # a write run's read-back (--verify): its whole time is the verify phase
        back = sum((f.get("seconds", {}).get("end_to_end") or {}).get("max") or 0.0
                   for f in files if f.get("mode") == "read")
        if back:
            phases["verify"] = phases.get("verify", 0.0) + back
    backends = sorted({r["backend"] for r in rows if r["backend"]})
    s = {"run": first["run"], "kernel": first["kernel"], "case": first["case"],
         "backend": "/".join(backends) or "-", "strategy": first["strategy"], "ranks": first["ranks"],
         "layer": first["layer"], "hints": first["hints"], "axes": first["axes"], "mode": mode,
         "bytes": h[0], "seconds": h[1], "mib_s": h[2], "phases": phases, "doc": doc}
    c = ceiling.find(doc, ceilings)
    s["ceiling"] = c
    ref = ceiling.reference(c, mode) if c else None
    s["pct_ceiling"] = 100.0 * h[2] / ref if ref else None
    return s


def summaries(docs: Iterable[Doc]) -> tuple[list[Summary], list[Doc]]:
    docs = list(docs)
    ceilings = [d for d in docs if ceiling.is_ceiling(d)]
    out = [summary(d, ceilings) for d in docs]
    return [s for s in out if s], ceilings


def series_key(s: Summary) -> tuple[Any, ...]:
    """Everything that identifies a series but the rank count."""
    return (s["kernel"], s["case"], s["mode"], s["backend"], s["strategy"], s["layer"], s["hints"], s["axes"])


def series_label(s: Summary) -> str:
    """Bar label: library, strategy (when not canonical), layer, hints, matrix values."""
    parts = [s["backend"]]
    if s["strategy"] not in ("canonical", "-"):
        parts.append(s["strategy"])
    if s["layer"] not in ("unknown", ""):
        parts.append(s["layer"])
    parts += [x for x in (s["hints"], s["axes"]) if x]
    return "\n".join(parts)


def group(sums: Iterable[Summary]) -> dict[tuple[tuple[Any, ...], int], list[Summary]]:
    """{(series key, ranks): [summaries of its repeats]} in first-seen order."""
    out: dict[tuple[tuple[Any, ...], int], list[Summary]] = {}
    for s in sums:
        out.setdefault((series_key(s), s["ranks"]), []).append(s)
    return out
