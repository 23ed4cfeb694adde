"""Side-by-side comparison of two result sets, with ratios (other / base).

Rows are matched on (kernel, case, file, mode, backend, strategy, ranks) and
the MPI-IO layer; repeats are averaged.  A comparison across MPI-IO layers
(ROMIO vs OMPIO) is mostly a comparison of the layers — on the E3SM F case they
differ 3-8x — so when the manifests do not pin the same layer the comparison
says so loudly, and rows matched across layers are marked."""
import statistics

from . import results
from .table import render

KEY = ("kernel", "case", "label", "mode", "backend", "strategy", "ranks")


def layers(docs):
    return sorted({results.layer_of(d) for d in docs if results.status_of(d) == "ok"})


def layer_warning(base_layers, other_layers):
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


def banner(text):
    bar = "!" * 78
    return "\n".join([bar] + ["WARNING: " + text.splitlines()[0]] + text.splitlines()[1:] + [bar])


def _aggregate(rows, with_layer):
    groups = {}
    for r in rows:
        if r["status"] != "ok" or r.get("seconds") is None:
            continue
        key = tuple(r[k] for k in KEY) + ((r["layer"],) if with_layer else ())
        groups.setdefault(key, []).append(r)
    out = {}
    for key, rs in groups.items():
        out[key] = {"seconds": statistics.mean(r["seconds"] for r in rs),
                    "mib_s": statistics.mean(r["mib_s"] or 0.0 for r in rs),
                    "bytes": rs[0]["bytes"], "layer": "/".join(sorted({r["layer"] for r in rs})), "n": len(rs)}
    return out


def match(base_rows, other_rows):
    """Pairs (key, base, other, cross_layer): first on the same layer, then
    whatever is left on the layer-less key (flagged cross_layer)."""
    b1, o1 = _aggregate(base_rows, True), _aggregate(other_rows, True)
    pairs = [(k[:-1], b1[k], o1[k], False) for k in b1 if k in o1]
    done_b = {k for k in b1 if k in o1}
    done_o = set(done_b)
    b_left = [r for r in base_rows if tuple(r[k] for k in KEY) + (r["layer"],) not in done_b]
    o_left = [r for r in other_rows if tuple(r[k] for k in KEY) + (r["layer"],) not in done_o]
    b2, o2 = _aggregate(b_left, False), _aggregate(o_left, False)
    pairs += [(k, b2[k], o2[k], True) for k in b2 if k in o2]
    unmatched_b = [k for k in b2 if k not in o2]
    unmatched_o = [k for k in o2 if k not in b2]
    return pairs, unmatched_b, unmatched_o


def _ratio(a, b):
    return f"{b / a:.2f}x" if a else "-"


def compare_table(pairs):
    headers = ["kernel", "case", "file", "mode", "backend", "strategy", "ranks", "layer",
               "base s", "other s", "time x", "base MiB/s", "other MiB/s", "bw x"]
    body = []
    for key, b, o, cross in sorted(pairs, key=lambda p: tuple(str(x) for x in p[0])):
        layer = b["layer"] if not cross else f"{b['layer']}!={o['layer']} !"
        body.append([str(x) for x in key] + [layer, f"{b['seconds']:.3f}", f"{o['seconds']:.3f}",
                                            _ratio(b["seconds"], o["seconds"]), f"{b['mib_s']:.1f}",
                                            f"{o['mib_s']:.1f}", _ratio(b["mib_s"], o["mib_s"])])
    return render(headers, body, numeric=[6] + list(range(8, len(headers))))
