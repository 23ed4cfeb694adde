"""Aligned text tables and CSV of result rows (see results.FIELDS)."""
import csv
import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ._types import Row

Column = tuple[str, str, Callable[[Any], str]]

# (row key, column title, formatter) of the text report.
REPORT_COLUMNS: tuple[Column, ...] = (
    ("kernel", "kernel", str),
    ("case", "case", str),
    ("label", "file", str),
    ("mode", "mode", str),
    ("backend", "backend", str),
    ("strategy", "strategy", str),
    ("ranks", "ranks", str),
    ("layer", "layer", str),
    ("hints", "hints", str),
    ("axes", "matrix", str),
    ("bytes", "bytes", lambda v: format_bytes(v)),
    ("seconds", "max s", lambda v: f"{v:.3f}"),
    ("mib_s", "MiB/s", lambda v: f"{v:.1f}"),
    ("pct_ceiling", "% ceil", lambda v: f"{v:.0f}%"),
    ("rss_peak", "RSS max", lambda v: format_bytes(v)),
    ("library_hwm", "lib mem", lambda v: format_bytes(v)),
    ("verify", "verify", str),
    ("status", "status", str),
)


def format_bytes(n: float | None) -> str:
    """1536 -> '1.5 KiB' (binary units, as the C++ reports)."""
    if n is None:
        return ""
    x = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(x) < 1024 or unit == "TiB":
            return f"{int(x)} B" if unit == "B" else f"{x:.1f} {unit}"
        x /= 1024
    return f"{x:.1f} TiB"


def is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def render(headers: Sequence[str], rows: Sequence[Sequence[str]], numeric: Iterable[int] | None = None) -> str:
    """Aligned table: `rows` are lists of strings; columns listed in
    `numeric` (indices) are right-aligned."""
    right = set(numeric or ())
    widths = [len(h) for h in headers]
    for r in rows:
        for i, cell in enumerate(r):
            widths[i] = max(widths[i], len(cell))

    def line(cells: Sequence[str]) -> str:
        out = [c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(cells)]
        return "  ".join(out).rstrip()
    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), sep] + [line(r) for r in rows])


def report_table(rows: Sequence[Row], columns: Sequence[Column] = REPORT_COLUMNS) -> str:
    """The `report` table.  Columns that are empty in every row are left out."""
    cols = [c for c in columns if any(r.get(c[0]) not in (None, "") for r in rows)]
    body = [[("" if r.get(k) is None else fmt(r[k])) for k, _, fmt in cols] for r in rows]
    numeric = [i for i, (k, _, _) in enumerate(cols) if any(is_number(r.get(k)) for r in rows) and k != "ranks"]
    numeric += [i for i, (k, _, _) in enumerate(cols) if k == "ranks"]
    return render([t for _, t, _ in cols], body, numeric)


def repeats_table(groups: Mapping[Any, tuple[Row, dict[str, Any]]]) -> str:
    """Median, min, max and coefficient of variation of the bandwidth of
    each case over its repeats (stats.group); cases above the CV limit are
    marked."""
    from . import stats
    headers = ["kernel", "case", "file", "mode", "backend", "strategy", "ranks", "layer", "hints/matrix", "runs",
               "median MiB/s", "min", "max", "CV", ""]
    body = []
    for row, s in groups.values():
        if s["n"] < 2:
            continue
        body.append([str(row[k]) for k in ("kernel", "case", "label", "mode", "backend", "strategy", "ranks", "layer")]
                    + [" ".join(x for x in (row.get("hints"), row.get("axes")) if x), str(s["n"]),
                       f"{s['median']:.1f}", f"{s['min']:.1f}", f"{s['max']:.1f}", f"{s['cv'] * 100:.1f}%",
                       f"VARIES > {stats.CV_LIMIT * 100:.0f}%" if stats.flagged(s) else ""])
    return render(headers, body, numeric=[6] + list(range(10, 14)))


def to_csv(rows: Iterable[Row], fields: Sequence[str]) -> str:
    """CSV text with plain numbers (bytes in bytes, seconds, MiB/s)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(fields), extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if r.get(k) is None else r[k]) for k in fields})
    return buf.getvalue()

