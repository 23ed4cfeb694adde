"""A Job as an iokernels-trace document (version 2, docs/capture_trace.md):
shape 0 only (contiguous views, no set_view), offsets in the view's data
(= file offsets), one `ops` entry per series.  Written as text directly
(a 65,536-rank job's dicts would cost more than the JSON itself)."""
from __future__ import annotations

import json
from typing import Any

from .build import Job

CONTIGUOUS = '{"size":1,"extent":1,"runs":[0,1,0,1]}'


def trace_text(job: Job, extra: dict[str, Any]) -> str:
    per_rank: list[list[tuple[float, str]]] = [[] for _ in range(job.nprocs)]
    for fi, f in enumerate(job.files):
        name = json.dumps(f.name)
        for r, sessions in f.sessions.items():
            out = per_rank[r]
            for si, s in enumerate(sessions):
                t = fi + si * 1e-3      # files replay in the log's order, sessions in theirs
                ops = ",".join(f"[{x.flags},0,0,{x.offset},{x.length},{x.count},0,{x.step if x.count > 1 else 0},"
                               f"{t!r},{t!r},0.0,0,0]" for x in s.series)
                out.append((t, f'{{"file":{name},"amode":{s.amode},"comm_size":{s.comm_size},'
                               f'"comm_rank":{s.comm_rank},"hints":{{}},"open":{t!r},"close":{t + 5e-4!r},'
                               f'"set_views":0,"unknown_views":0,"ops":[{ops}]}}'))
    ranks = []
    for r, sess in enumerate(per_rank):
        sess.sort(key=lambda x: x[0])
        ranks.append(f'{{"rank":{r},"shapes":[{CONTIGUOUS}],"sessions":[{",".join(s for _, s in sess)}]}}')
    head = {"format": "iokernels-trace", "version": 2, "nranks": job.nprocs, "program": job.log.exe,
            "mpi": f"from a Darshan {job.log.version} log ({job.log.path})"}
    return json.dumps(head, separators=(",", ":"))[:-1] + ',"ranks":[' + ",".join(ranks) + '],"darshan":' + \
        json.dumps(extra, separators=(",", ":")) + "}"


def trace_document(job: Job, extra: dict[str, Any]) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(trace_text(job, extra))
    return doc
