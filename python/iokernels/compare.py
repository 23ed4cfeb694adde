"""Side-by-side comparison of two result sets, with ratios (other / base),
and the regression verdict of `compare --fail-above`.

Rows are matched on (kernel, case, file, mode, backend, strategy, ranks,
requested MPI-IO hints, suite matrix values) and the MPI-IO layer; repeats
are reduced to their median (robust to one slow repeat), with the spread
kept for the verdict.  A comparison across MPI-IO layers (ROMIO vs OMPIO) is
mostly a comparison of the layers — on the E3SM F case they differ 3-8x —
so when the manifests do not pin the same layer the comparison says so
loudly, and rows matched across layers are marked.  Matched rows whose
manifests differ in what shapes I/O (MPI, library versions, effective
hints, node count, host) are named, so a ratio is never read without its
cause in view."""
from collections.abc import Iterable, Sequence
from typing import Any

from . import results, stats
from ._types import Doc, Row
from .table import render

KEY = ("kernel", "case", "label", "mode", "backend", "strategy", "ranks", "hints", "axes")
KEY_TITLES = ("kernel", "case", "file", "mode", "backend", "strategy", "ranks", "hints", "axes")

# One side of a matched row: medians over its repeats (_aggregate).
Aggregate = dict[str, Any]
# (key, base, other, matched across MPI-IO layers)
Pair = tuple[tuple[Any, ...], Aggregate, Aggregate, bool]


def layers(docs: Iterable[Doc]) -> list[str]:
    return sorted({results.layer_of(d) for d in docs if results.status_of(d) == "ok"})


def layer_warning(base_layers: list[str], other_layers: list[str]) -> str | None:
    """None when both sides pinned the same single layer; else the warning text."""
    if base_layers == other_layers and len(base_layers) == 1 and base_layers != ["unknown"]:
        return None
    if base_layers == other_layers:
        if base_layers == ["unknown"]:
            return ("the manifests do not say which MPI-IO layer ran; comparisons must pin the same layer: "
                    "rerun with --io-layer romio|ompio")
        return None                  # both sides ran the same set of layers: rows are matched per layer
    b, o = "/".join(base_layers) or "none", "/".join(other_layers) or "none"
    return (f"the MPI-IO layers differ: base ran {b}, other ran {o}.\n"
            "Comparisons must pin the same layer (on the E3SM F case ROMIO and OMPIO differ 3-8x);\n"
            "rerun one side with --io-layer romio|ompio (in a suite: io_layer = \"romio\").")


def banner(text: str) -> str:
    bar = "!" * 78
    return "\n".join([bar] + ["WARNING: " + text.splitlines()[0]] + text.splitlines()[1:] + [bar])


def _key(r: Row, with_layer: bool) -> tuple[Any, ...]:
    return tuple(r.get(k, "") for k in KEY) + ((r["layer"],) if with_layer else ())


def _aggregate(rows: Iterable[Row], with_layer: bool) -> dict[tuple[Any, ...], Aggregate]:
    groups: dict[tuple[Any, ...], list[Row]] = {}
    for r in rows:
        if r["status"] != "ok" or r.get("seconds") is None:
            continue
        groups.setdefault(_key(r, with_layer), []).append(r)
    out: dict[tuple[Any, ...], Aggregate] = {}
    for key, rs in groups.items():
        secs = stats.summarize(r["seconds"] for r in rs)
        out[key] = {"seconds": secs["median"], "mib_s": stats.summarize(r["mib_s"] or 0.0 for r in rs)["median"],
                    "seconds_stats": secs, "bytes": rs[0]["bytes"],
                    "layer": "/".join(sorted({r["layer"] for r in rs})), "n": len(rs),
                    "manifests": [r.get("manifest") or {} for r in rs]}
    return out


def match(base_rows: Sequence[Row], other_rows: Sequence[Row]
          ) -> tuple[list[Pair], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Pairs (key, base, other, cross_layer): first on the same layer, then
    whatever is left on the layer-less key (flagged cross_layer)."""
    b1, o1 = _aggregate(base_rows, True), _aggregate(other_rows, True)
    pairs = [(k[:-1], b1[k], o1[k], False) for k in b1 if k in o1]
    done = {k for k in b1 if k in o1}
    b_left = [r for r in base_rows if _key(r, True) not in done]
    o_left = [r for r in other_rows if _key(r, True) not in done]
    b2, o2 = _aggregate(b_left, False), _aggregate(o_left, False)
    pairs += [(k, b2[k], o2[k], True) for k in b2 if k in o2]
    unmatched_b = [k for k in b2 if k not in o2]
    unmatched_o = [k for k in o2 if k not in b2]
    return pairs, unmatched_b, unmatched_o


def _ratio(a: float, b: float) -> str:
    return f"{b / a:.2f}x" if a else "-"


def describe(key: Sequence[Any]) -> str:
    """'e3sm F h0 write pnetcdf canonical 16 ranks cb_nodes=2'"""
    parts = dict(zip(KEY, key, strict=False))
    words = [str(parts[k]) for k in ("kernel", "case", "label", "mode", "backend", "strategy") if parts[k]]
    words.append(f"{parts['ranks']} ranks")
    words += [parts[k] for k in ("hints", "axes") if parts[k]]
    return " ".join(words)


def compare_table(pairs: Sequence[Pair], fail_above: float | None = None) -> str:
    """The side-by-side table; key columns that are empty in every pair
    (no hints, no matrix) are left out; with `fail_above` a last column
    says SLOWER for a pair over the limit."""
    keep = [i for i, k in enumerate(KEY) if k not in ("hints", "axes") or any(p[0][i] for p in pairs)]
    headers = [KEY_TITLES[i] for i in keep] + ["layer", "base s", "other s", "time x", "base MiB/s",
                                                "other MiB/s", "bw x"]
    if fail_above:
        headers.append("verdict")
    body = []
    for key, b, o, cross in sorted(pairs, key=lambda p: tuple(str(x) for x in p[0])):
        layer = b["layer"] if not cross else f"{b['layer']}!={o['layer']} !"
        row = [str(key[i]) for i in keep] + [layer, f"{b['seconds']:.3f}", f"{o['seconds']:.3f}",
                                             _ratio(b["seconds"], o["seconds"]), f"{b['mib_s']:.1f}",
                                             f"{o['mib_s']:.1f}", _ratio(b["mib_s"], o["mib_s"])]
        if fail_above:
            row.append("SLOWER" if slower(b, o, fail_above) else "")
        body.append(row)
    first_num = headers.index("base s")
    numeric = [headers.index("ranks")] + list(range(first_num, first_num + 6))
    return render(headers, body, numeric=numeric)


def slower(b: Aggregate, o: Aggregate, limit: float) -> bool:
    """The other side's median time exceeds `limit` x the base's."""
    return bool(b["seconds"] > 0 and o["seconds"] / b["seconds"] > limit)


def regressions(pairs: Sequence[Pair], limit: float) -> list[str]:
    """Lines naming every pair whose median time grew by more than `limit`,
    with the spread of both sides (a noisy base makes a verdict weak)."""
    out = []
    for key, b, o, cross in sorted(pairs, key=lambda p: tuple(str(x) for x in p[0])):
        if not slower(b, o, limit):
            continue
        noisy = [f"{side} CV {s['seconds_stats']['cv'] * 100:.0f}%" for side, s in (("base", b), ("other", o))
                 if stats.flagged(s["seconds_stats"])]
        out.append(f"SLOWER {describe(key)}: {b['seconds']:.3f} s -> {o['seconds']:.3f} s "
                   f"({o['seconds'] / b['seconds']:.2f}x > {limit:.2f}x; medians of {b['n']} and {o['n']} runs)"
                   + (f" [{', '.join(noisy)}: repeat more before trusting this]" if noisy else "")
                   + (" [across MPI-IO layers]" if cross else ""))
    return out


def _manifest_facts(m: Doc, backend: str) -> dict[str, Any]:
    """What in a manifest shapes I/O, flattened: mpi, the backend's library,
    effective hints, nodes, host, iokernels version."""
    facts = {"mpi": m.get("mpi"), "nodes": m.get("nodes"), "host": m.get("host"),
             "iokernels": m.get("iokernels_version")}
    libs = m.get("libraries") or {}
    if backend in libs:
        facts[f"library {backend}"] = libs[backend]
    for k, v in (m.get("mpiio_hints") or {}).items():
        facts[f"hint {k}"] = v
    return facts


def _facts_seen(side: Aggregate, backend: str) -> dict[str, set[str]]:
    """{fact: {values}} over the manifests of one side of a pair."""
    seen: dict[str, set[str]] = {}
    for m in side["manifests"]:
        for k, v in _manifest_facts(m, backend).items():
            if v is not None:
                seen.setdefault(k, set()).add(str(v))
    return seen


def manifest_differences(pairs: Sequence[Pair]) -> list[str]:
    """['e3sm F h0 write pnetcdf ...: library pnetcdf PnetCDF 1.14.0 vs PnetCDF 1.13.0; ...']"""
    lines = []
    for key, b, o, _ in sorted(pairs, key=lambda p: tuple(str(x) for x in p[0])):
        backend = dict(zip(KEY, key, strict=False))["backend"]
        bv, ov = _facts_seen(b, backend), _facts_seen(o, backend)
        diffs = [f"{k} {'/'.join(sorted(bv.get(k, {'(none)'})))} vs {'/'.join(sorted(ov.get(k, {'(none)'})))}"
                 for k in sorted(set(bv) | set(ov)) if bv.get(k) != ov.get(k)]
        if diffs:
            lines.append(f"{describe(key)}: " + "; ".join(diffs))
    return lines
