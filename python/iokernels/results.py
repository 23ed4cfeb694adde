"""Reading "iokernels-result/1" documents and flattening them into rows.

A document is what `iokernels <kernel> --json` or `raw_write --json` writes;
the suite runner adds a `suite_run` block (case, backend, strategy, status,
...).  One row per file entry (per run for raw_write and for failed runs)."""
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ._types import Doc, Row, StrPath
from .errors import UsageError, read_json

SCHEMA = "iokernels-result/1"
MiB = 1024.0 * 1024.0
INDEX = "index.json"

# Row fields, in table/CSV order.
FIELDS = ("run", "kernel", "case", "label", "mode", "backend", "strategy", "ranks", "layer",
          "bytes", "seconds", "mib_s", "data_mib_s", "rss_peak", "library_hwm", "verify", "status")


def load_doc(path: StrPath) -> Doc:
    path = Path(path)
    doc: Any = read_json(path, "give result JSON files or results directories",
                    "was the run interrupted while writing it?")
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise UsageError(f"{path} is not an iokernels result (schema {SCHEMA!r})",
                         "give files written with --json or by `python3 -m iokernels run`")
    doc.setdefault("_path", str(path))
    return doc


def load_dir(path: StrPath) -> list[Doc]:
    """The runs of a results directory (in index order), or every result JSON in it."""
    path = Path(path)
    index = path / INDEX
    if index.is_file():
        with open(index) as f:
            idx = json.load(f)
        extra = [idx["ceiling"]] if idx.get("ceiling") and (path / idx["ceiling"]).is_file() else []
        return [load_doc(path / f) for f in extra] + \
            [load_doc(path / r["result"]) for r in idx.get("runs", []) if (path / r["result"]).is_file()]
    docs: list[Doc] = []
    for p in sorted(path.rglob("*.json")):
        try:
            docs.append(load_doc(p))
        except UsageError:
            continue                    # other JSON (maps, configs) is not ours
    return docs


def load_many(paths: Iterable[StrPath]) -> list[Doc]:
    docs: list[Doc] = []
    for given in paths:
        p = Path(given)
        if p.is_dir():
            found = load_dir(p)
            if not found:
                raise UsageError(f"{p} holds no iokernels results", "give a directory made by `iokernels run`")
            docs += found
        else:
            docs.append(load_doc(p))
    return docs


def run_name(doc: Doc) -> str:
    sr = doc.get("suite_run", {})
    return str(sr.get("id") or Path(doc.get("_path", "?")).stem)


def layer_of(doc: Doc) -> str:
    """The manifest's MPI-IO layer (ROMIO/OMPIO); for a run that wrote no
    result, the layer the suite asked for; else "unknown"."""
    if "manifest" in doc:
        return str(doc["manifest"].get("mpiio_layer", "unknown"))
    asked = doc.get("suite_run", {}).get("io_layer")
    return str(asked).upper() if asked else "unknown"


def status_of(doc: Doc) -> str:
    return str(doc.get("suite_run", {}).get("status", "ok"))


def requested_hint_values(doc: Doc) -> dict[str, str]:
    """The MPI-IO hints the run asked for: --hint KEY=VALUE on its command
    line and the suite's hints; library defaults in the manifest's
    mpiio_hints are not requests and are left out."""
    argv = doc.get("manifest", {}).get("command_line") or doc.get("suite_run", {}).get("command") or []
    hints: dict[str, str] = {}
    for i, a in enumerate(argv):
        value = argv[i + 1] if a == "--hint" and i + 1 < len(argv) else a[7:] if a.startswith("--hint=") else None
        if value and "=" in value:
            k, v = value.split("=", 1)
            hints[k] = v
    for k, v in (doc.get("suite_run", {}).get("hints") or {}).items():
        hints[k] = str(v)
    return hints


def hints_not_in_effect(doc: Doc) -> dict[str, Any]:
    """The manifest's mpiio_hints_not_in_effect ({key: {requested, in_effect}})."""
    return doc.get("manifest", {}).get("mpiio_hints_not_in_effect") or {}


def requested_hints(doc: Doc) -> str:
    """requested_hint_values as "k=v k=v" sorted.  A hint the MPI library
    did not take (cb_nodes=2 on one node: ROMIO keeps one aggregator per
    node) reads "k=v(not in effect: w)", so a sweep over it is not mistaken
    for a measurement of it."""
    lost = hints_not_in_effect(doc)
    return " ".join(f"{k}={v}" + (f"(not in effect: {lost[k]['in_effect']})" if k in lost else "")
                    for k, v in sorted(requested_hint_values(doc).items()))


def axes_of(doc: Doc) -> str:
    """The suite's matrix values of a run ("records=5"), which tell runs of
    one case apart."""
    m = doc.get("suite_run", {}).get("matrix") or {}
    return " ".join(f"{k}={v}" for k, v in sorted(m.items()))


def _common(doc: Doc) -> Row:
    sr = doc.get("suite_run", {})
    params = doc.get("params", {})
    kernel = doc.get("kernel", "?")
    case = sr.get("case") or str(params.get("case", "")) or kernel
    strategy = sr.get("strategy") or params.get("strategy") or ("-" if kernel == "raw_write" else "canonical")
    ranks = doc.get("manifest", {}).get("processes") or sr.get("ranks") or 0
    return {"run": run_name(doc), "kernel": kernel, "case": case, "strategy": strategy, "ranks": int(ranks),
            "layer": layer_of(doc), "status": status_of(doc), "hints": requested_hints(doc), "axes": axes_of(doc),
            "manifest": doc.get("manifest", {})}


def _stat_max(d: Any, *keys: str) -> Any:
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d.get("max") if isinstance(d, dict) else d


def rows(doc: Doc) -> list[Row]:
    """One dict per file entry (keys FIELDS); raw_write and failures give one row."""
    base = _common(doc)
    sr = doc.get("suite_run", {})
    if doc.get("kernel") == "raw_write" and "summary" in doc:
        s = doc["summary"]
        return [{**base, "label": "raw", "mode": "write", "backend": "raw-mpiio", "bytes": s.get("bytes"),
                 "seconds": s.get("write_seconds"), "mib_s": s.get("write_mib_s"), "data_mib_s": None,
                 "rss_peak": None, "library_hwm": None, "verify": ""}]
    out: list[Row] = []
    for f in doc.get("files", []):
        v = f.get("verify")
        out.append({**base, "label": f.get("label", ""), "mode": f.get("mode", ""),
                    "backend": f.get("backend") or sr.get("backend") or "",
                    "bytes": _stat_total(f.get("bytes")),
                    "seconds": _stat_max(f, "seconds", "end_to_end"),
                    "mib_s": f.get("bandwidth_mib_s", {}).get("open_to_close"),
                    "data_mib_s": f.get("bandwidth_mib_s", {}).get("data_only"),
                    "rss_peak": _stat_max(f, "memory_bytes", "rss_peak"),
                    "library_hwm": _stat_max(f, "memory_bytes", "library_hwm"),
                    "verify": "" if v is None else ("ok" if not v.get("mismatches") else f"{int(v['mismatches'])} bad"),
                    "phases": {k: s.get("max") for k, s in (f.get("seconds") or {}).items()
                               if k != "end_to_end" and isinstance(s, dict) and s.get("max") is not None}})
    if not out:
        out.append({**base, "label": "", "mode": "", "backend": sr.get("backend") or "", "bytes": None,
                    "seconds": None, "mib_s": None, "data_mib_s": None, "rss_peak": None,
                    "library_hwm": None, "verify": ""})
    return out


def _stat_total(b: Any) -> Any:
    v = b.get("total") if isinstance(b, dict) else b
    return int(v) if isinstance(v, float) and v.is_integer() else v   # sums come as doubles


def headline(doc: Doc) -> tuple[Any, Any, Any] | None:
    """(bytes, seconds, MiB/s) of a run: raw_write's write (its read with
    --read-only), or the sum over the
    files written (read files when nothing was written); None when unknown."""
    if doc.get("kernel") == "raw_write":
        s = doc.get("summary", {})
        if "write_seconds" not in s:
            return None
        if not s["write_seconds"] and s.get("read_seconds"):  # raw_write --read-only
            return s.get("bytes", 0), s["read_seconds"], s.get("read_mib_s", 0.0)
        return s.get("bytes", 0), s["write_seconds"], s.get("write_mib_s", 0.0)
    files = doc.get("files", [])
    if doc.get("kernel") == "ceiling":            # its collective write; the others are alternatives
        files = files[:1]
    chosen = [f for f in files if f.get("mode") == "write"] or [f for f in files if f.get("mode") == "read"]
    if not chosen:
        return None
    nbytes = sum(_stat_total(f.get("bytes")) or 0 for f in chosen)
    secs = sum(_stat_max(f, "seconds", "end_to_end") or 0 for f in chosen)
    return nbytes, secs, (nbytes / MiB / secs if secs > 0 else 0.0)
