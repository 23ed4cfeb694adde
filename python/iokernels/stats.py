"""Repeats of one case: median, min, max and coefficient of variation of
the bandwidth, and the flag for a case that varies too much to trust.

A case here is a result row's identity without the run: kernel, case, file,
mode, backend, strategy, ranks, MPI-IO layer, requested hints and the
suite's matrix values; its repeats are the rows that share it."""
import statistics
from collections.abc import Iterable
from typing import Any

from ._types import Row

# The row fields that make a case (everything that may change the result).
CASE_KEY = ("kernel", "case", "label", "mode", "backend", "strategy", "ranks", "layer", "hints", "axes")
CV_LIMIT = 0.10           # coefficient of variation above which a case is flagged


def case_key(row: Row) -> tuple[Any, ...]:
    return tuple(row.get(k, "") for k in CASE_KEY)


def summarize(values: Iterable[float]) -> dict[str, Any]:
    """{n, median, min, max, mean, cv} of positive numbers (cv = sample
    standard deviation / mean; 0 for a single value)."""
    vals = [float(v) for v in values]
    mean = statistics.mean(vals)
    cv = statistics.stdev(vals) / mean if len(vals) > 1 and mean > 0 else 0.0
    return {"n": len(vals), "median": statistics.median(vals), "min": min(vals), "max": max(vals),
            "mean": mean, "cv": cv, "values": vals}


def group(rows: Iterable[Row], field: str = "mib_s") -> dict[tuple[Any, ...], tuple[Row, dict[str, Any]]]:
    """{case key: (first row, summary of `field`)} over successful rows that
    have the field, in first-seen order."""
    groups: dict[tuple[Any, ...], list[Row]] = {}
    for r in rows:
        if r.get("status") != "ok" or r.get(field) is None:
            continue
        groups.setdefault(case_key(r), []).append(r)
    return {k: (rs[0], summarize(r[field] for r in rs)) for k, rs in groups.items()}


def flagged(summary: dict[str, Any], limit: float = CV_LIMIT) -> bool:
    """True when the repeats vary more than `limit` (coefficient of variation)."""
    return bool(summary["n"] > 1 and summary["cv"] > limit)
