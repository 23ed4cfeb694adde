"""A log's files as FileJobs: exact from DXT where it traced them, else
synthesized from the counters."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from .dxt import rank_series
from .logread import Dxt, Log, Record
from .ops import FileJob, Session
from .sessions import split_at_gaps
from .synth import empty_sessions, synthesize


@dataclass
class Job:
    log: Log
    nprocs: int
    files: list[FileJob] = field(default_factory=list)
    scaled: list[str] = field(default_factory=list)   # what --ranks/--scale changed


def _opens(rec: Record) -> int:
    if rec.module == "MPI-IO":
        return rec.c.get("MPIIO_INDEP_OPENS", 0) + rec.c.get("MPIIO_COLL_OPENS", 0)
    return rec.c.get("POSIX_OPENS", 0)


def _counted(recs: list[Record]) -> int:
    n = 0
    for r in recs:
        if r.module == "MPI-IO":
            n += sum(max(0, r.c.get(f"MPIIO_{k}_{d}", 0)) for k in ("INDEP", "COLL", "SPLIT", "NB")
                     for d in ("READS", "WRITES"))
        else:
            n += max(0, r.c.get("POSIX_READS", 0)) + max(0, r.c.get("POSIX_WRITES", 0))
    return n


def _exact(name: str, recs: list[Record], dxts: list[Dxt], posix_dxt: dict[int, Dxt], log: Log) -> FileJob:
    mod = dxts[0].module
    shared = any(r.rank < 0 for r in recs)
    job = FileJob(name, "exact", shared, module="MPI-IO" if mod == "DXT_MPIIO" else "POSIX")
    c = recs[0].c if recs else {}
    coll_w = coll_r = False
    if mod == "DXT_MPIIO":
        # DXT does not mark collective calls; the counters do when all are
        coll_w = c.get("MPIIO_COLL_WRITES", 0) > 0 and c.get("MPIIO_INDEP_WRITES", 0) == 0
        coll_r = c.get("MPIIO_COLL_READS", 0) > 0 and c.get("MPIIO_INDEP_READS", 0) == 0
        if (c.get("MPIIO_COLL_WRITES", 0) and not coll_w) or (c.get("MPIIO_COLL_READS", 0) and not coll_r):
            job.notes.append("collective and independent calls mixed: DXT does not say which is which, "
                             "replayed independent")
    k_total = sum(_opens(r) for r in recs)
    per_rank = {d.rank: d for d in dxts}
    for rank, d in sorted(per_rank.items()):
        seq = rank_series(d, posix_dxt.get(rank) if mod == "DXT_MPIIO" else None, coll_w, coll_r)
        k = max(1, round(k_total / log.nprocs)) if shared else max(1, _opens(recs[0]) if recs else 1)
        comm = (log.nprocs, rank) if shared and mod == "DXT_MPIIO" else (1, 0)
        job.sessions[rank] = split_at_gaps(seq, min(k, 64), *comm, 0.0)
    if shared and mod == "DXT_MPIIO":
        empty_sessions(job, log.nprocs)
        # collective calls must be made by every rank the same number of times
        counts = {sum(s.count for ss in v for s in ss.series if s.flags & 2) for v in job.sessions.values()}
        if len(counts) > 1:
            for v in job.sessions.values():
                for ss in v:
                    for s in ss.series:
                        s.flags &= ~2
            job.notes.append("ranks traced different numbers of collective calls: replayed independent")
    else:
        job.shared = False
    recorded = sum(d.write_count + d.read_count for d in dxts)
    counted = _counted([r for r in recs if r.module == job.module])
    traced = sum(len(d.writes) + len(d.reads) for d in dxts)
    if log.modules.get(mod) or traced < recorded or (counted and traced < counted):
        job.mode = "partial"
        job.notes.append(f"DXT traced {traced} of {counted or recorded} accesses "
                         f"({100.0 * traced / max(1, counted or recorded):.1f}% of the job's accesses of this file)")
    return job


def build_job(log: Log) -> Job:
    recs: dict[str, list[Record]] = defaultdict(list)
    for r in log.records:
        recs[r.name].append(r)
    dxt: dict[tuple[str, str], list[Dxt]] = defaultdict(list)
    for d in log.dxt:
        if d.writes or d.reads:
            dxt[(d.module, d.name)].append(d)
    job = Job(log, log.nprocs)
    # A file-per-process job has one record per rank, mostly with the same
    # counters: those are synthesized once and copied (65,536 files).
    same: dict[tuple[Any, ...], FileJob] = {}
    for i, name in enumerate(recs):
        rs = recs[name]
        mpi = [r for r in rs if r.module == "MPI-IO"]
        px = [r for r in rs if r.module == "POSIX"]
        if _counted(mpi or px) == 0 and not dxt.get(("DXT_MPIIO", name)) and not dxt.get(("DXT_POSIX", name)):
            continue
        pd = {d.rank: d for d in dxt.get(("DXT_POSIX", name), [])}
        if dxt.get(("DXT_MPIIO", name)):
            fj = _exact(name, mpi, dxt[("DXT_MPIIO", name)], pd, log)
        elif mpi:
            fj = FileJob(name, "synthesized", any(r.rank < 0 for r in mpi), module="MPI-IO")
            for r in mpi:
                p = next((x for x in px if x.rank == r.rank), None)
                synthesize(r, p, log.nprocs, fj, float(i))
            empty_sessions(fj, log.nprocs)
        elif pd:
            fj = _exact(name, px, list(pd.values()), {}, log)
        elif len(px) == 1 and px[0].rank >= 0:
            key = (tuple(sorted(px[0].c.items())),)
            if key not in same:
                t = FileJob(name, "synthesized", False, module="POSIX", sig=len(same))
                synthesize(px[0], px[0], log.nprocs, t, 0.0)
                same[key] = t
            t = same[key]
            fj = FileJob(name, t.mode, False, {px[0].rank: [Session(s.comm_size, s.comm_rank, s.amode, list(s.series))
                                                           for s in t.sessions[px[0].rank if px[0].rank in t.sessions
                                                                               else next(iter(t.sessions))]]},
                         list(t.notes), "POSIX", sig=t.sig)
        else:
            fj = FileJob(name, "synthesized", any(r.rank < 0 for r in px), module="POSIX")
            for r in px:
                synthesize(r, r, log.nprocs, fj, float(i))
            empty_sessions(fj, log.nprocs)
        fj.records = mpi if fj.module == "MPI-IO" else px
        fj.posix = px
        if any(s.series for v in fj.sessions.values() for s in v):
            job.files.append(fj)
    return job
