"""`python3 -m iokernels html RESULTS... -o report.html`: one self-contained
HTML file (no scripts, no network: the figures are matplotlib SVG embedded
as data URIs, the styles inline) that a reader can mail or attach to a CI
run.  Sections: the storage ceilings, bandwidth per kernel x library x
strategy (median, min-max whiskers, ceiling lines), repeats and variance
(flagged above 10 % CV), % of ceiling, phase breakdown, scaling over ranks
(when a series ran at several rank counts), the comparison with a base
result set (ratios highlighted), measured advice (`advise -o FILE` documents
given among the inputs), failed runs, and each run's manifest."""
import base64
import datetime
import html
import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from . import compare as cmp
from . import figures, results, runs, stats
from ._types import Doc
from .table import format_bytes

# runs.group(): {(series key, ranks): [summaries of its repeats]}
Groups = dict[tuple[tuple[Any, ...], int], list[runs.Summary]]

STYLE = """
body { font-family: DejaVu Sans, Helvetica, Arial, sans-serif; margin: 1.5em 2em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; margin-top: 1.6em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.flag td, td.flag { background: #fde2a8; }
td.slower { background: #f8c4c4; font-weight: bold; } td.faster { background: #c9ecc9; font-weight: bold; }
img.plot { margin: 0.3em 0.6em 0.3em 0; border: 1px solid #eee; vertical-align: top; }
.note { color: #555; font-size: 0.85em; } details { margin: 0.2em 0; } pre { font-size: 0.8em; white-space: pre-wrap; }
"""


def _e(x: object) -> str:
    return html.escape("" if x is None else str(x))


def _img(svg: str, alt: str) -> str:
    data = base64.b64encode(svg.encode()).decode()
    return f'<img class="plot" alt="{_e(alt)}" src="data:image/svg+xml;base64,{data}">'


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], classes: Sequence[Sequence[str]] | None = None,
           row_classes: Sequence[str] | None = None) -> str:
    """rows: lists of cells (already text); classes[i][j] a cell's class."""
    out = ["<table><tr>" + "".join(f"<th>{_e(h)}</th>" for h in headers) + "</tr>"]
    for i, r in enumerate(rows):
        rc = f' class="{row_classes[i]}"' if row_classes and row_classes[i] else ""
        cells = []
        for j, c in enumerate(r):
            cls = classes[i][j] if classes and classes[i][j] else ""
            cells.append(f'<td class="{cls}">{_e(c)}</td>' if cls else f"<td>{_e(c)}</td>")
        out.append(f"<tr{rc}>" + "".join(cells) + "</tr>")
    return "\n".join(out + ["</table>"])


def _num(v: float | None, fmt: str = "{:.1f}") -> str:
    return "" if v is None else fmt.format(v)


def _ceiling_section(ceilings: Sequence[Doc]) -> str:
    if not ceilings:
        return ("<h2>Storage ceiling</h2><p class='note'>No ceiling measured: run <code>python3 -m iokernels "
                "ceiling DIR --ranks N</code> (or <code>ceiling = true</code> in the suite) and pass its result "
                "here to see every run as a percentage of what the storage can do.</p>")
    rows = []
    for c in ceilings:
        info, s = c["ceiling"], c["summary"]
        rows.append([info["directory"], f"{info['filesystem']} on {info['mount_point']}", info.get("host", ""),
                     str(c["params"]["ranks"]), format_bytes(info["size"]),
                     _num(s["collective_write_mib_s"]), _num(s["independent_write_mib_s"]),
                     _num(s["collective_read_mib_s"]), _num(s["independent_read_mib_s"]),
                     _num(s["synced_write_mib_s"])])
    notes = "".join(f"<li>{_e(c['ceiling']['directory'])}: writes: {_e(c['ceiling']['write_cache_note'])}; "
                    f"reads made cold with {_e(c['ceiling']['read_cache'])}; layer "
                    f"{_e(c.get('manifest', {}).get('mpiio_layer', '?'))}</li>" for c in ceilings)
    return ("<h2>Storage ceiling</h2>"
            + _table(["directory", "file system", "host", "ranks", "size", "coll. write MiB/s",
                      "indep. write MiB/s", "coll. read MiB/s", "indep. read MiB/s", "synced write MiB/s"],
                     rows, [[""] * 5 + ["num"] * 5 for _ in rows])
            + f"<ul class='note'>{notes}</ul>")


def _median_pct(reps: Sequence[runs.Summary]) -> float | None:
    pct = [r["pct_ceiling"] for r in reps if r["pct_ceiling"] is not None]
    return statistics.median(pct) if pct else None


def _bandwidth_section(groups: Groups) -> str:
    panels: dict[tuple[Any, Any, Any, int], list[list[runs.Summary]]] = {}
    for (key, ranks), reps in groups.items():
        kernel, case, mode = key[0], key[1], key[2]
        panels.setdefault((kernel, case, mode, ranks), []).append(reps)
    imgs = []
    for (kernel, case, mode, ranks), series in sorted(panels.items(), key=lambda kv: str(kv[0])):
        bars = [(runs.series_label(reps[0]), [r["mib_s"] for r in reps], _median_pct(reps)) for reps in series]
        ceil = next((r["ceiling"] for reps in series for r in reps if r["ceiling"]), None)
        title = f"{kernel} {case if case != kernel else ''} {mode}, {ranks} ranks".replace("  ", " ")
        imgs.append(_img(figures.bandwidth(title, bars, ceil, mode), f"bandwidth {title}"))
    return "<h2>Bandwidth</h2>" + "".join(imgs)


def _variance_section(groups: Groups) -> str:
    headers = ["kernel", "case", "mode", "library", "strategy", "layer", "hints / matrix", "ranks", "runs",
               "median MiB/s", "min", "max", "CV %", "% of ceiling", ""]
    rows: list[list[str]] = []
    flags: list[str] = []
    classes: list[list[str]] = []
    for (key, ranks), reps in groups.items():
        s = stats.summarize(r["mib_s"] for r in reps)
        pct = _median_pct(reps)
        flag = stats.flagged(s)
        rows.append([key[0], key[1], key[2], key[3], key[4], key[5], " ".join(x for x in key[6:] if x), str(ranks),
                     str(s["n"]), _num(s["median"]), _num(s["min"]), _num(s["max"]),
                     _num(s["cv"] * 100, "{:.1f}"), figures.format_pct(pct) if pct is not None else "",
                     f"varies > {stats.CV_LIMIT * 100:.0f}%" if flag else ""])
        flags.append("flag" if flag else "")
        classes.append([""] * 7 + ["num"] * 7 + [""])
    n_flag = sum(1 for f in flags if f)
    note = (f"<p class='note'>{n_flag} case(s) vary more than {stats.CV_LIMIT * 100:.0f}% (coefficient of "
            "variation of the bandwidth over repeats): rerun with more repeats before drawing conclusions.</p>"
            if n_flag else "")
    return ("<h2>Repeats, variance and % of ceiling</h2>" + _table(headers, rows, classes, flags) + note)


def _phase_section(groups: Groups) -> str:
    by_case: dict[tuple[Any, Any, Any], list[tuple[str, dict[str, float]]]] = {}
    for (key, ranks), reps in groups.items():
        label = runs.series_label(reps[0]) + f"\n{ranks} ranks"
        med = {p: statistics.median(r["phases"].get(p, 0.0) for r in reps) for p in runs.PHASES}
        if any(med.values()):
            by_case.setdefault((key[0], key[1], key[2]), []).append((label, med))
    if not by_case:
        return ""
    imgs = [_img(figures.phases(f"{k} {c if c != k else ''} {m}: time per phase".replace("  ", " "), bars),
                 f"phases {k} {c} {m}") for (k, c, m), bars in sorted(by_case.items())]
    return "<h2>Phase breakdown</h2>" + "".join(imgs)


def _scaling_section(groups: Groups) -> str:
    lines: dict[tuple[Any, ...], list[tuple[int, list[float], Doc | None]]] = {}
    for (key, ranks), reps in groups.items():
        lines.setdefault(key, []).append((ranks, [r["mib_s"] for r in reps], reps[0]["ceiling"]))
    per_case: dict[tuple[Any, Any, Any], list[tuple[str, list[tuple[int, list[float]]], Doc | None]]] = {}
    for key, points in lines.items():
        if len(points) > 1:
            per_case.setdefault((key[0], key[1], key[2]), []).append((runs.series_label(dict(zip(
                ("kernel", "case", "mode", "backend", "strategy", "layer", "hints", "axes"), key, strict=False))),
                [(n, v) for n, v, _ in points], next((c for _, _, c in points if c), None)))
    if not per_case:
        return ""
    imgs = []
    for (k, c, m), series in sorted(per_case.items()):
        ceil = next((ce for _, _, ce in series if ce), None)
        title = f"{k} {c if c != k else ''} {m}: scaling over ranks".replace("  ", " ")
        imgs.append(_img(figures.scaling(title, [(lab, pts) for lab, pts, _ in series], ceil, m), title))
    return "<h2>Scaling</h2>" + "".join(imgs)


def _compare_section(base_docs: Sequence[Doc], docs: Sequence[Doc], limit: float) -> str:
    b_rows = [r for d in base_docs for r in results.rows(d)]
    o_rows = [r for d in docs for r in results.rows(d)]
    pairs, only_b, only_o = cmp.match(b_rows, o_rows)
    warning = cmp.layer_warning(cmp.layers(base_docs), cmp.layers(docs))
    headers = ["kernel", "case", "file", "mode", "backend", "strategy", "ranks", "hints / matrix", "layer",
               "base s", "other s", "time x", "base MiB/s", "other MiB/s", "bw x"]
    rows: list[list[str]] = []
    classes: list[list[str]] = []
    for key, b, o, cross in sorted(pairs, key=lambda p: tuple(str(x) for x in p[0])):
        ratio = o["seconds"] / b["seconds"] if b["seconds"] else None
        bw = o["mib_s"] / b["mib_s"] if b["mib_s"] else None
        verdict = "slower" if ratio and ratio > limit else "faster" if ratio and ratio < 1 / limit else ""
        rows.append([str(x) for x in key[:7]] + [" ".join(x for x in key[7:] if x),
                     b["layer"] if not cross else f"{b['layer']} vs {o['layer']}",
                     f"{b['seconds']:.3f}", f"{o['seconds']:.3f}", _num(ratio, "{:.2f}x"),
                     _num(b["mib_s"]), _num(o["mib_s"]), _num(bw, "{:.2f}x")])
        classes.append([""] * 9 + ["num", "num", f"num {verdict}".strip(), "num", "num", f"num {verdict}".strip()])
    out = ["<h2>Comparison with the base results</h2>",
           f"<p class='note'>Ratios are other / base of the medians over repeats; cells are red when the other "
           f"side is more than {(limit - 1) * 100:.0f}% slower, green when more than that faster.</p>"]
    if warning:
        out.append(f"<p class='note flag'>WARNING: {_e(warning)}</p>")
    out.append(_table(headers, rows, classes) if rows else "<p>No runs in common.</p>")
    diffs = cmp.manifest_differences(pairs)
    if diffs:
        out.append("<p>Manifests differ:</p><ul class='note'>" + "".join(f"<li>{_e(d)}</li>" for d in diffs)
                   + "</ul>")
    left = [cmp.describe(k) + " (base only)" for k in only_b] + [cmp.describe(k) + " (other only)" for k in only_o]
    if left:
        out.append("<p class='note'>Not matched: " + "; ".join(_e(x) for x in left) + "</p>")
    return "".join(out)


def _advice_section(advice: Sequence[Doc]) -> str:
    """Per advice document: its configurations (median, spread, verified,
    speed-up over the run as given), a plot of the same, and the settings
    of the fastest verified one."""
    out = ["<h2>Measured advice</h2>",
           "<p class='note'>Each configuration run --repeats times, alternating; time: seconds in I/O calls, "
           "slowest rank per phase (read-back not counted); speed-up: the run as given's median over the "
           "configuration's.  Only configurations whose data verified are recommended.</p>"]
    for doc in advice:
        subject = doc.get("subject") or " ".join(doc.get("command", []))
        b: Doc = doc.get("best") or {}
        rows: list[list[str]] = []
        classes: list[list[str]] = []
        flags: list[str] = []
        for r in doc["configs"]:
            timed = r["median_s"] is not None
            rows.append([r["config"] + (" (as given)" if r["baseline"] and "as given" not in r["config"] else ""),
                         _num(r["median_s"], "{:.4f}"), _num(r["min_s"], "{:.4f}"), _num(r["max_s"], "{:.4f}"),
                         str(len(r["times_s"])), "yes" if r["verified"] else ("FAILED" if r["failed"] else "NO"),
                         _num(r["speedup"], "{:.2f}x"), r["failed"] or r["unverified"] or r["note"]])
            best = bool(b) and r["config"] == b.get("config")
            classes.append([""] + ["num"] * 4 + ["" if r["verified"] else "flag",
                                                 "num faster" if best else "num", ""])
            flags.append("" if timed else "flag")
        out.append(f"<h3>{_e(subject)}: {_e(doc['ranks'])} ranks, {_e(doc['repeats'])} repeat(s)</h3>")
        out.append(_table(["configuration", "median s", "min s", "max s", "runs", "verified", "speed-up", "note"],
                          rows, classes, flags))
        bars = [(r["config"] + (" (as given)" if r["baseline"] and "as given" not in r["config"] else ""), r["times_s"],
                 "given" if r["baseline"] else "best" if r["config"] == b.get("config") else
                 "ok" if r["verified"] else "unverified") for r in doc["configs"] if r["times_s"] and not r["failed"]]
        if bars:
            out.append(_img(figures.advice(f"{subject[:80]}: time per configuration", bars),
                            f"advice {subject}"))
        if b:
            lo, hi = b["speedup_range"]
            verdict = ("the run as given is already the fastest" if b["is_baseline"] else
                       "the spreads overlap: not a clear win at these repeats" if b["spreads_overlap"] else
                       "the spreads do not overlap")
            out.append(f"<p>Fastest verified: <b>{_e(b['config'])}</b>, median {b['median_s']:.4f} s "
                       f"(min-max {b['spread_s'][0]:.4f}-{b['spread_s'][1]:.4f}) against "
                       f"{b['baseline_median_s']:.4f} s as given: speed-up <b>{b['speedup']:.2f}x</b> "
                       f"(worst-best {lo:.2f}-{hi:.2f}x; {_e(verdict)}).</p>")
            ru = b.get("runner_up")
            if ru:
                out.append(f"<p class='note'>Next: {_e(ru['config'])}, median {ru['median_s']:.4f} s (min-max "
                           f"{ru['spread_s'][0]:.4f}-{ru['spread_s'][1]:.4f}): "
                           + ("spreads overlap with the fastest's." if ru["spreads_overlap"] else
                              "every repeat slower than every repeat of the fastest.") + "</p>")
            out.append(f"<p>Flags: <code>{_e(b['flags'] or '(none)')}</code><br>Command: <code>{_e(b['command'])}"
                       "</code></p>")
            if b["hints_file"]:
                out.append(f"<p>Or a hints file (<code>export ROMIO_HINTS=FILE</code>):</p><pre>{_e(b['hints_file'])}"
                           "</pre>")
        else:
            out.append("<p class='flag'>No verified configuration to recommend.</p>")
    return "".join(out)


def _failed_section(docs: Iterable[Doc]) -> str:
    bad = [d for d in docs if results.status_of(d) != "ok"]
    if not bad:
        return ""
    items = []
    for d in bad:
        sr = d.get("suite_run", {})
        items.append(f"<details><summary>{_e(results.run_name(d))}: {_e(sr.get('status'))} "
                     f"(exit {_e(sr.get('returncode'))})</summary><pre>{_e(chr(10).join(sr.get('stderr_tail', [])))}"
                     "</pre></details>")
    return f"<h2>Failed runs ({len(bad)})</h2>" + "".join(items)


def _manifest_section(docs: Iterable[Doc]) -> str:
    items = []
    for d in docs:
        m = d.get("manifest", {})
        sr = d.get("suite_run", {})
        libs = ", ".join(f"{k}: {v}" for k, v in sorted((m.get("libraries") or {}).items()))
        hints = ", ".join(f"{k}={v}" for k, v in sorted((m.get("mpiio_hints") or {}).items()))
        command = " ".join(sr.get("command") or m.get("command_line") or [])
        env = ", ".join(f"{k}={v}" for k, v in sorted((sr.get("env") or {}).items()))
        rows = [["MPI", m.get("mpi", "")], ["MPI-IO layer", m.get("mpiio_layer", "")], ["libraries", libs],
                ["requested hints", results.requested_hints(d)], ["hints in effect", hints],
                ["processes / nodes", f"{m.get('processes', '')} / {m.get('nodes', '')}"],
                ["host", m.get("host", "")], ["iokernels", f"{m.get('iokernels_version', '')} "
                                                           f"({m.get('git_revision', '')})"],
                ["started", m.get("started_utc", "")], ["command", command], ["environment", env],
                ["inputs", ", ".join(f"{i.get('role')}: {i.get('path')} ({i.get('crc32', i.get('fnv1a64'))})"
                                     for i in m.get("inputs", []))]]
        items.append(f"<details><summary>{_e(results.run_name(d))} ({_e(d.get('kernel'))}, "
                     f"{_e(results.status_of(d))})</summary>{_table(['field', 'value'], rows)}</details>")
    return "<h2>Manifests</h2>" + "".join(items)


def render(docs: Sequence[Doc], title: str = "iokernels report", base_docs: Sequence[Doc] | None = None,
           limit: float = 1.10, sources: Sequence[object] = (), advice: Sequence[Doc] = ()) -> str:
    sums, ceilings = runs.summaries(docs)
    groups = runs.group(sums)
    n_ok = sum(1 for d in docs if results.status_of(d) == "ok" and not d.get("kernel") == "ceiling")
    n_runs = sum(1 for d in docs if d.get("kernel") != "ceiling")
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<link rel='icon' href='data:,'>",     # no favicon request: the file stands alone
        f"<title>{_e(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p class='note'>{n_ok} of {n_runs} runs succeeded; {len(ceilings)} ceiling measurement(s). "
        f"Sources: {_e(', '.join(map(str, sources)))}. Generated "
        f"{datetime.datetime.now(datetime.UTC).strftime('%Y-%m-%d %H:%M UTC')}.</p>",
        _ceiling_section(ceilings) if docs or not advice else "",
    ]
    if groups:
        parts += [_bandwidth_section(groups), _variance_section(groups), _phase_section(groups),
                  _scaling_section(groups)]
    if base_docs is not None:
        parts.append(_compare_section(base_docs, docs, limit))
    if advice:
        parts.append(_advice_section(advice))
    parts += [_failed_section(docs), _manifest_section(docs), "</body></html>"]
    return "\n".join(p for p in parts if p)

