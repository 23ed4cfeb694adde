"""A Job as an iokernels-trace document (version 2, docs/capture_trace.md):
shape 0 only (contiguous views, no set_view), offsets in the view's data
(= file offsets), one `ops` entry per series."""
from __future__ import annotations

from typing import Any

from .build import Job

CONTIGUOUS = {"size": 1, "extent": 1, "runs": [0, 1, 0, 1]}


def trace_document(job: Job, extra: dict[str, Any]) -> dict[str, Any]:
    ranks: list[dict[str, Any]] = [{"rank": r, "shapes": [CONTIGUOUS], "sessions": []} for r in range(job.nprocs)]
    for fi, f in enumerate(job.files):
        for r, sessions in f.sessions.items():
            out = ranks[r]["sessions"]
            for si, s in enumerate(sessions):
                t_open = fi + si * 1e-3      # files replay in the log's order, sessions in theirs
                ops = [[x.flags, 0, 0, x.offset, x.length, x.count, 0, x.step if x.count > 1 else 0,
                        t_open, t_open, 0.0, 0, 0] for x in s.series]
                out.append({"file": f.name, "amode": s.amode, "comm_size": s.comm_size, "comm_rank": s.comm_rank,
                            "hints": {}, "open": t_open, "close": t_open + 5e-4, "set_views": 0,
                            "unknown_views": 0, "ops": ops})
    for rk in ranks:
        rk["sessions"].sort(key=lambda s: s["open"])
    return {"format": "iokernels-trace", "version": 2, "nranks": job.nprocs,
            "program": job.log.exe, "mpi": f"from a Darshan {job.log.version} log ({job.log.path})",
            "ranks": ranks, "darshan": extra}
