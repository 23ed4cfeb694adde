"""Each file's counters in the log beside the same counters of the replay
plan (what the trace asks of MPI-IO), and whether they agree."""
from __future__ import annotations

from collections import Counter
from typing import Any

from .build import Job
from .ops import BUCKET_NAMES, COLL, NB, SPLIT, WRITE, FileJob, bucket_of

Row = dict[str, Any]    # counter, log, plan, ok


def _kind(flags: int) -> str:
    if flags & SPLIT:
        return "SPLIT"
    if flags & NB:
        return "NB"
    if flags & COLL:
        return "COLL"
    return "INDEP"


def plan_counters(f: FileJob) -> dict[str, Any]:
    c: Counter[str] = Counter()
    sizes: Counter[int] = Counter()
    rank_bytes: dict[int, int] = {}
    consec = {True: 0, False: 0}
    seq = {True: 0, False: 0}
    opens = 0
    for r, sessions in f.sessions.items():
        prev_end = {True: 1, False: 1}      # Darshan: last byte starts at 0
        rb = 0
        for s in sessions:
            opens += 1
            for x in s.series:
                w = bool(x.flags & WRITE)
                d = "WRITES" if w else "READS"
                c[f"{_kind(x.flags)}_{d}"] += x.count
                c[f"OPS_{d}"] += x.count
                c["BYTES_WRITTEN" if w else "BYTES_READ"] += x.nbytes
                c[f"SIZE_{'WRITE' if w else 'READ'}_{BUCKET_NAMES[bucket_of(x.length)]}"] += x.count
                sizes[x.length] += x.count
                rb += x.nbytes
                if x.offset >= prev_end[w]:
                    seq[w] += 1
                    consec[w] += x.offset == prev_end[w]
                if x.count > 1:
                    if x.step >= x.length:
                        seq[w] += x.count - 1
                        consec[w] += (x.count - 1) if x.step == x.length else 0
                prev_end[w] = x.last_offset() + x.length
        rank_bytes[r] = rb
    c["CONSEC_WRITES"], c["SEQ_WRITES"] = consec[True], seq[True]
    c["CONSEC_READS"], c["SEQ_READS"] = consec[False], seq[False]
    c["OPENS"] = opens
    out: dict[str, Any] = dict(c)
    out["sizes"] = sizes
    active = [b for b in rank_bytes.values() if b]
    out["max_rank_bytes"] = max(active, default=0)
    out["min_rank_bytes"] = min(active, default=0)
    return out


def _sum(recs: list[Any], key: str) -> int:
    return sum(max(0, r.c.get(key, 0)) for r in recs)


def compare_file(f: FileJob, nprocs: int) -> list[Row]:
    p = plan_counters(f)
    rows: list[Row] = []
    recs = f.records
    pre = "MPIIO" if f.module == "MPI-IO" else "POSIX"

    def row(name: str, logv: Any, planv: Any, ok: bool | None = None, note: str = "") -> None:
        rows.append({"counter": name, "log": logv, "plan": planv,
                     "ok": (logv == planv) if ok is None else ok, "note": note})

    for d in ("WRITES", "READS"):
        if f.module == "MPI-IO":
            for k in ("INDEP", "COLL", "SPLIT", "NB"):
                lv = _sum(recs, f"MPIIO_{k}_{d}")
                if lv or p.get(f"{k}_{d}", 0):
                    row(f"MPIIO_{k}_{d}", lv, p.get(f"{k}_{d}", 0))
        else:
            row(f"POSIX_{d}", _sum(recs, f"POSIX_{d}"), p.get(f"OPS_{d}", 0))
    row(f"{pre}_BYTES_WRITTEN", _sum(recs, f"{pre}_BYTES_WRITTEN"), p.get("BYTES_WRITTEN", 0))
    row(f"{pre}_BYTES_READ", _sum(recs, f"{pre}_BYTES_READ"), p.get("BYTES_READ", 0))
    for d in ("WRITE", "READ"):
        for b in BUCKET_NAMES:
            key = f"MPIIO_SIZE_{d}_AGG_{b}" if pre == "MPIIO" else f"POSIX_SIZE_{d}_{b}"
            lv, pv = _sum(recs, key), p.get(f"SIZE_{d}_{b}", 0)
            if lv or pv:
                row(key, lv, pv)
    if len(recs) == 1:      # the common sizes of one record (per-rank records each have their own)
        for i in range(1, 5):
            size, cnt = recs[0].c.get(f"{pre}_ACCESS{i}_ACCESS", 0), recs[0].c.get(f"{pre}_ACCESS{i}_COUNT", 0)
            if cnt > 0:
                row(f"{pre}_ACCESS{i} ({size} B)", cnt, p["sizes"].get(size, 0))
    opens = (_sum(recs, "MPIIO_INDEP_OPENS") + _sum(recs, "MPIIO_COLL_OPENS")) if pre == "MPIIO" \
        else _sum(recs, "POSIX_OPENS")
    row(f"{pre} opens", opens, p.get("OPENS", 0), ok=f.mode != "synthesized" or opens == p.get("OPENS", 0)
        or any(s.series and s.series[0].flags & COLL for v in f.sessions.values() for s in v),
        note="sessions per rank" if f.mode != "synthesized" else "")
    px = f.posix
    if px:
        for d in ("WRITES", "READS"):
            n = _sum(px, f"POSIX_{d}")
            m = p.get(f"OPS_{d}", 0)
            if not n or not m:
                continue
            for k in ("CONSEC", "SEQ"):
                lf, pf = 100.0 * _sum(px, f"POSIX_{k}_{d}") / n, 100.0 * p.get(f"{k}_{d}", 0) / m
                row(f"POSIX_{k}_{d} %", round(lf, 1), round(pf, 1), ok=abs(lf - pf) <= 5.0, note="within 5 points")
        stats = _sum(px, "POSIX_STATS")
        if stats:
            row("POSIX_STATS", stats, 0, ok=True, note="not replayed (MPI-IO has no stat)")
    shared = [r for r in recs if r.rank < 0]
    if shared and nprocs > 1:
        r0 = shared[0]
        for k, pk in (("SLOWEST_RANK_BYTES", "max_rank_bytes"), ("FASTEST_RANK_BYTES", "min_rank_bytes")):
            lv = r0.c.get(f"{pre}_{k}", -1)
            if lv >= 0:
                row(f"{pre}_{k}", lv, p[pk], ok=True,
                    note="plan: max/min bytes of a rank (the log's slowest/fastest by time)")
    return rows


def table(job: Job) -> list[dict[str, Any]]:
    """Per file its rows; files with the same counters (one entry per
    signature, `files` of them) once."""
    out: list[dict[str, Any]] = []
    seen: dict[int, dict[str, Any]] = {}
    for f in job.files:
        if f.sig >= 0 and f.sig in seen:
            seen[f.sig]["files"] += 1
            continue
        e = {"file": f.name, "files": 1, "mode": f.mode, "shared": f.shared, "notes": f.notes,
             "rows": compare_file(f, job.nprocs)}
        if f.sig >= 0:
            seen[f.sig] = e
        out.append(e)
    return out


def table_text(tab: list[dict[str, Any]], limit: int = 50) -> list[str]:
    out = []
    for i, f in enumerate(tab[:limit]):
        more = f" and {f['files'] - 1} more file(s) of the same counters" if f.get("files", 1) > 1 else ""
        out.append(f"file {i}: {f['file']}{more}  [{f['mode']}{', shared' if f['shared'] else ''}]")
        out.append(f"  {'counter':36} {'log':>16} {'replay plan':>16}")
        for r in f["rows"]:
            mark = "" if r["ok"] else "  <- differs"
            note = f"  ({r['note']})" if r["note"] else ""
            out.append(f"  {r['counter']:36} {r['log']!s:>16} {r['plan']!s:>16}{mark}{note}")
        out += [f"  note: {n}" for n in f["notes"]]
    if len(tab) > limit:
        out.append(f"... and {len(tab) - limit} more files (all in the JSON)")
    return out
