"""A smaller runnable version of a job: --ranks N folds the log's ranks onto
N (log rank r -> r*N // P, its sessions appended to that rank's), --scale F
keeps 1/F of each series' accesses (sizes, offsets and flavours kept, so the
histogram's proportions stay; bytes fall by F)."""
from __future__ import annotations

from .build import Job
from .ops import COLL, SPLIT, Series, Session


def scale_job(job: Job, ranks: int, factor: float) -> None:
    p = job.nprocs
    if factor > 1:
        before = after = 0
        for f in job.files:
            for v in f.sessions.values():
                for s in v:
                    out = []
                    for x in s.series:
                        before += x.nbytes
                        n = max(1, int(x.count / factor + 0.5))
                        out.append(Series(x.flags, x.offset, x.length, n, x.step if n > 1 else 0, x.t0, x.t1))
                        after += out[-1].nbytes
                    s.series = out
        job.scaled.append(f"--scale {factor:g}: each series keeps 1/{factor:g} of its accesses (at least one): "
                          f"{before} -> {after} bytes, access sizes unchanged")
    if ranks and ranks != p:
        for f in job.files:
            merged: dict[int, list[list[Session]]] = {}
            for r, v in sorted(f.sessions.items()):
                merged.setdefault(r * ranks // p, []).append(v)
            new: dict[int, list[Session]] = {}
            for nr, lists in merged.items():
                k = max(len(v) for v in lists)
                out = []
                for i in range(k):
                    parts = [v[i] for v in lists if i < len(v)]
                    series = [x for s in parts for x in s.series]
                    comm = (ranks, nr) if parts[0].comm_size > 1 else (1, 0)
                    out.append(Session(*comm, max(s.amode for s in parts), series, parts[0].t_open,
                                       parts[-1].t_close))
                new[nr] = out
            f.sessions = new
            if f.shared:        # every rank opens a shared file, as often as the others
                k = max(len(v) for v in new.values())
                for r in range(ranks):
                    v = new.setdefault(r, [])
                    v += [Session(ranks, r, 2, []) for _ in range(k - len(v))]
            if f.shared:
                counts = {sum(x.count for s in v for x in s.series if x.flags & COLL) for v in new.values()}
                if len(counts) > 1 or len(new) < ranks:
                    for v in new.values():
                        for s in v:
                            for x in s.series:
                                x.flags &= ~(COLL | SPLIT)
                    f.notes.append(f"folded onto {ranks} ranks the collective calls no longer match: independent")
        job.scaled.append(f"--ranks {ranks}: the log's {p} ranks folded onto {ranks} (log rank r -> r*{ranks}//{p}, "
                          "its accesses after the lower ranks')")
        job.nprocs = ranks
