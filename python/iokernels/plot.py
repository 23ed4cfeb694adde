"""Bar charts of bandwidth per backend/strategy, one panel per kernel/case/
rank count, with the raw_write reference (same rank count when available)
drawn as a horizontal line.  Bars are the mean over repeats, whiskers the
min and max."""
import statistics
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import results  # noqa: E402
from ._types import Doc, StrPath  # noqa: E402

# (kernel, case, ranks) -> {bar label: [MiB/s per repeat]}
Panels = dict[tuple[str, str, int], dict[str, list[float]]]


def series(docs: Sequence[Doc]) -> tuple[Panels, dict[tuple[int, str], list[float]]]:
    """{(kernel, case, ranks): {bar label: [MiB/s per repeat]}} and the raw
    references {(ranks, layer): [MiB/s]}."""
    panels: Panels = {}
    raw: dict[tuple[int, str], list[float]] = {}
    for d in docs:
        if results.status_of(d) != "ok" or d.get("kernel") == "ceiling":
            continue
        h = results.headline(d)
        if not h:
            continue
        row = results.rows(d)[0]
        if d.get("kernel") == "raw_write":
            raw.setdefault((row["ranks"], row["layer"]), []).append(h[2])
            continue
        backends = sorted({r["backend"] for r in results.rows(d) if r["backend"]}) or ["?"]
        bar = "/".join(backends) + ("" if row["strategy"] in ("canonical", "-") else f"\n{row['strategy']}")
        if row["layer"] not in ("unknown", ""):
            bar += f"\n{row['layer']}"
        panels.setdefault((row["kernel"], row["case"], row["ranks"]), {}).setdefault(bar, []).append(h[2])
    return panels, raw


def plot(docs: Sequence[Doc], out: StrPath, title: str | None = None) -> list[tuple[str, str, int]]:
    panels, raw = series(docs)
    if not panels and not raw:
        raise ValueError("no successful runs with timings to plot")
    if not panels:                       # only raw_write runs: one panel of them
        panels = {}
        for (n, layer), v in raw.items():
            panels.setdefault(("raw_write", "raw", n), {})[layer] = v
    n = len(panels)
    fig, axes = plt.subplots(1, n, figsize=(max(4.5, 2.0 + 1.1 * max(len(p) for p in panels.values())) * n, 4.8),
                             squeeze=False)
    ordered = sorted(panels.items(), key=lambda kv: str(kv[0]))
    for ax, ((kernel, case, ranks), bars) in zip(axes[0], ordered, strict=True):      # one column per panel
        labels = list(bars)
        means = [statistics.mean(bars[b]) for b in labels]
        lo = [m - min(bars[b]) for m, b in zip(means, labels, strict=False)]
        hi = [max(bars[b]) - m for m, b in zip(means, labels, strict=False)]
        ax.bar(range(len(labels)), means, yerr=[lo, hi], capsize=4, color="tab:blue")
        ax.set_xticks(range(len(labels)), labels, fontsize=8)
        ax.set_ylabel("MiB/s (open to close)")
        ax.set_title(f"{kernel} {case if case != kernel else ''} {ranks} ranks".replace("  ", " "))
        refs = sorted((layer, v) for (n, layer), v in raw.items() if n == ranks)
        if refs and kernel != "raw_write":
            for (layer, v), style in zip(refs, ("--", ":", "-.", "-"), strict=False):
                r = statistics.mean(v)
                ax.axhline(r, color="tab:red", linestyle=style, label=f"raw_write {layer} {r:.1f} MiB/s")
            ax.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return sorted(panels)
