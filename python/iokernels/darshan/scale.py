"""A smaller runnable version of a job.

--scale F keeps 1/F of each file's accesses: series by series in rank
order, each keeps count/F accesses with the fractions carried on to the
next (error diffusion), so a series of 8 accesses at F = 4096 mostly drops
out while the file keeps 1/F of its accesses of each size (sizes, offsets
of the kept accesses and flavours unchanged; at least one access per file).
--ranks N folds the log's P ranks onto N (log rank r -> r*N // P, its
sessions appended to that rank's).  A shared file whose ranks no longer
make the same number of collective calls has them made independent.
"""
from __future__ import annotations

from .build import Job
from .ops import COLL, SPLIT, Series, Session


def _thin(job: Job, factor: float) -> tuple[int, int]:
    before = after = 0
    for f in job.files:
        carry = 0.0
        kept = 0
        first: Session | None = None
        before_of: dict[int, list[Series]] = {}
        for _, v in sorted(f.sessions.items()):
            for s in v:
                out = []
                for x in s.series:
                    before += x.nbytes
                    if first is None:
                        first = s
                    exact = x.count / factor + carry
                    n = int(exact)
                    carry = exact - n
                    if n:
                        out.append(Series(x.flags, x.offset, x.length, n, x.step if n > 1 else 0, x.t0, x.t1))
                        after += out[-1].nbytes
                        kept += n
                before_of[id(s)] = s.series
                s.series = out
        if not kept and first is not None:     # at least one access of the file
            x = before_of[id(first)][0]
            first.series = [Series(x.flags, x.offset, x.length, 1, 0, x.t0, x.t1)]
            after += x.length
    return before, after


def _fold(job: Job, ranks: int) -> None:
    p = job.nprocs
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
                out.append(Session(*comm, max(s.amode for s in parts), series, parts[0].t_open, parts[-1].t_close))
            new[nr] = out
        f.sessions = new
        if f.shared:        # every rank opens a shared file, as often as the others
            k = max(len(v) for v in new.values())
            for r in range(ranks):
                v = new.setdefault(r, [])
                v += [Session(ranks, r, 2, []) for _ in range(k - len(v))]


def _collectives_in_step(job: Job) -> None:
    for f in job.files:
        counts = {sum(x.count for s in v for x in s.series if x.flags & COLL) for v in f.sessions.values()}
        if len(counts) > 1:
            for v in f.sessions.values():
                for s in v:
                    for x in s.series:
                        x.flags &= ~(COLL | SPLIT)
            f.notes.append("scaled, the ranks no longer make the same collective calls: replayed independent")


def scale_job(job: Job, ranks: int, factor: float) -> None:
    p = job.nprocs
    if factor > 1:
        before, after = _thin(job, factor)
        job.scaled.append(f"--scale {factor:g}: 1/{factor:g} of each file's accesses kept (sizes unchanged): "
                          f"{before} -> {after} bytes")
    if ranks and ranks != p:
        _fold(job, ranks)
        job.scaled.append(f"--ranks {ranks}: the log's {p} ranks folded onto {ranks} (log rank r -> r*{ranks}//{p}, "
                          "its accesses after the lower ranks')")
        job.nprocs = ranks
    if factor > 1 or (ranks and ranks != p):
        _collectives_in_step(job)
