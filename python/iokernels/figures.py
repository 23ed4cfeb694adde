"""The HTML report's figures (matplotlib, returned as SVG text so the report
embeds them and needs no network): bandwidth bars with min/max whiskers and
the ceiling as lines, phase breakdown, scaling over ranks, measured advice."""
import io
import statistics
from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "iokernels"     # same input, same SVG
matplotlib.rcParams["svg.fonttype"] = "path"          # text as paths: no fonts needed to view
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from . import runs  # noqa: E402
from ._types import Doc  # noqa: E402

PHASE_COLOURS = {"open": "#4c72b0", "define": "#55a868", "fill": "#8c8c8c", "post": "#c44e52",
                 "post_read": "#dd8452", "flush": "#8172b3", "verify": "#937860", "close": "#da8bc3"}


def _svg(fig: Any) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _ceiling_lines(ax: Any, ceil: Doc | None, mode: str) -> None:
    if not ceil:
        return
    s = ceil["summary"]
    if mode == "write":
        ax.axhline(s["write_mib_s"], color="tab:red", linestyle="--",
                   label=f"ceiling MPI-IO write {s['write_mib_s']:.0f} MiB/s")
        ax.axhline(s["synced_write_mib_s"], color="tab:orange", linestyle=":",
                   label=f"ceiling synced write {s['synced_write_mib_s']:.0f} MiB/s")
    else:
        ax.axhline(s["read_mib_s"], color="tab:red", linestyle="--",
                   label=f"ceiling cold read {s['read_mib_s']:.0f} MiB/s")
    ax.legend(fontsize=7, loc="upper right")


def bandwidth(panel_title: str, bars: Sequence[tuple[str, list[float], float | None]], ceil: Doc | None,
              mode: str) -> str:
    """bars: [(label, [MiB/s of each repeat], % of ceiling or None)]; bars
    at the median, whiskers at min and max, each labelled with its median
    (and % of ceiling); the directory's ceiling as horizontal lines."""
    fig, ax = plt.subplots(figsize=(max(4.5, 1.0 + 0.9 * len(bars)), 4.0))
    med = [statistics.median(v) for _, v, _ in bars]
    lo = [m - min(v) for m, (_, v, _) in zip(med, bars, strict=False)]
    hi = [max(v) - m for m, (_, v, _) in zip(med, bars, strict=False)]
    ax.bar(range(len(bars)), med, yerr=[lo, hi], capsize=4, color="tab:blue")
    for i, (m, top, (_, _, pct)) in enumerate(zip(med, hi, bars, strict=False)):
        ax.annotate(f"{m:.3g}" + (f"\n{format_pct(pct)}" if pct is not None else ""), (i, m + top),
                    xytext=(0, 2), textcoords="offset points", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(bars)), [b for b, _, _ in bars], fontsize=7)
    ax.set_ylabel("MiB/s (median; whiskers min-max)")
    ax.set_title(panel_title, fontsize=10)
    _ceiling_lines(ax, ceil, mode)
    _log_when_dwarfed(ax, max(m + h for m, h in zip(med, hi, strict=False)), ceil)
    return _svg(fig)


def _log_when_dwarfed(ax: Any, top: float, ceil: Doc | None) -> None:
    """A logarithmic axis when the ceiling lines would flatten the data to
    a few pixels (a kernel at 0.2 % of the ceiling)."""
    if ceil and top > 0 and top < 0.1 * max(ceil["summary"]["write_mib_s"], ceil["summary"]["read_mib_s"]):
        ax.set_yscale("log")
        ax.set_ylabel(ax.get_ylabel() + ", log scale")


def format_pct(pct: float) -> str:
    """37% / 4.2% / 0.21%: two significant digits below 10 %."""
    return f"{pct:.0f}%" if pct >= 10 else f"{pct:.2g}%"


def phases(title: str, bars: Sequence[tuple[str, dict[str, float]]]) -> str:
    """bars: [(label, {phase: median seconds})]: stacked horizontal bars."""
    fig, ax = plt.subplots(figsize=(7.5, 0.9 + 0.45 * len(bars)))
    used = [p for p in runs.PHASES if any(ph.get(p) for _, ph in bars)]
    left = [0.0] * len(bars)
    for p in used:
        widths = [ph.get(p, 0.0) for _, ph in bars]
        ax.barh(range(len(bars)), widths, left=left, color=PHASE_COLOURS[p], label=p)
        left = [a + b for a, b in zip(left, widths, strict=False)]
    ax.set_yticks(range(len(bars)), [b.replace("\n", " ") for b, _ in bars], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("seconds (slowest rank per phase, median over repeats)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, ncol=len(used), loc="lower center", bbox_to_anchor=(0.5, 1.08), frameon=False)
    return _svg(fig)


def scaling(title: str, lines: Sequence[tuple[str, list[tuple[int, list[float]]]]], ceil: Doc | None,
            mode: str) -> str:
    """lines: [(label, [(ranks, [MiB/s of each repeat])])]: median over ranks
    with min/max error bars."""
    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    for label, points in lines:
        points = sorted(points)
        xs = [n for n, _ in points]
        med = [statistics.median(v) for _, v in points]
        err = [[m - min(v) for m, (_, v) in zip(med, points, strict=True)],
               [max(v) - m for m, (_, v) in zip(med, points, strict=True)]]
        ax.errorbar(xs, med, yerr=err, marker="o", capsize=3, label=label.replace("\n", " "))
    ax.set_xscale("log", base=2)
    ticks = sorted({n for _, points in lines for n, _ in points})
    ax.set_xticks(ticks, [str(n) for n in ticks])
    ax.minorticks_off()
    ax.set_xlabel("ranks")
    ax.set_ylabel("MiB/s (median)")
    ax.set_title(title, fontsize=10)
    _ceiling_lines(ax, ceil, mode)
    _log_when_dwarfed(ax, max(max(v) for _, points in lines for _, v in points), ceil)
    ax.legend(fontsize=7)
    return _svg(fig)


ADVICE_COLOURS = {"given": "#8c8c8c", "best": "#55a868", "ok": "#4c72b0", "unverified": "#c44e52"}


def advice(title: str, bars: Sequence[tuple[str, list[float], str]]) -> str:
    """bars: [(configuration, [seconds of each repeat], kind)], kind one of
    ADVICE_COLOURS (the run as given, the fastest verified, other verified,
    unverified): horizontal bars at the median, whiskers at min and max."""
    fig, ax = plt.subplots(figsize=(7.5, 1.0 + 0.42 * len(bars)))
    med = [statistics.median(v) for _, v, _ in bars]
    err = [[m - min(v) for m, (_, v, _) in zip(med, bars, strict=True)],
           [max(v) - m for m, (_, v, _) in zip(med, bars, strict=True)]]
    ax.barh(range(len(bars)), med, xerr=err, capsize=3, color=[ADVICE_COLOURS[k] for _, _, k in bars])
    for i, m in enumerate(med):
        ax.annotate(f"{m:.3g}", (m + err[1][i], i), xytext=(3, 0), textcoords="offset points", va="center",
                    fontsize=7)
    ax.set_yticks(range(len(bars)), [b for b, _, _ in bars], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("seconds in I/O calls (median; whiskers min-max)")
    ax.set_title(title, fontsize=10)
    used = sorted({k for _, _, k in bars}, key=list(ADVICE_COLOURS).index)
    names = {"given": "as given", "best": "fastest verified", "ok": "verified", "unverified": "not verified"}
    ax.legend(handles=[Patch(color=ADVICE_COLOURS[k], label=names[k]) for k in used],
              fontsize=7, loc="lower right")
    return _svg(fig)
