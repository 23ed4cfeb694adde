"""Exact accesses from DXT: every traced read and write of a rank, in order.

DXT_MPIIO gives the application's MPI-IO requests; where an early Darshan
(3.1) wrote offset -1 for them, the offsets come from the same rank's
DXT_POSIX segments of the file when they correspond one to one, else each
request follows the previous one of its direction.  Files with only
DXT_POSIX are replayed as independent MPI-IO of the same bytes.
"""
from __future__ import annotations

from typing import Any

from .logread import Dxt
from .ops import COLL, EXPLICIT, WRITE, Series, fold


def _offsets(segs: list[dict[str, Any]], posix: list[dict[str, Any]] | None) -> list[int]:
    offs = [int(s["offset"]) for s in segs]
    if all(o >= 0 for o in offs):
        return offs
    if posix is not None and len(posix) == len(segs) and \
            all(int(p["length"]) == int(s["length"]) for p, s in zip(posix, segs, strict=True)):
        return [int(p["offset"]) for p in posix]
    out, pos = [], 0
    for s, o in zip(segs, offs, strict=True):
        o = o if o >= 0 else pos
        out.append(o)
        pos = o + int(s["length"])
    return out


def rank_series(rec: Dxt, posix: Dxt | None, collective_w: bool, collective_r: bool) -> list[Series]:
    """One DXT record's accesses (both directions, by start time) as series."""
    acc: list[tuple[float, float, int, int, int]] = []
    wflag = WRITE | EXPLICIT | (COLL if collective_w else 0)
    rflag = EXPLICIT | (COLL if collective_r else 0)
    for segs, psegs, flag in ((rec.writes, posix.writes if posix else None, wflag),
                              (rec.reads, posix.reads if posix else None, rflag)):
        offs = _offsets(segs, psegs)
        for s, o in zip(segs, offs, strict=True):
            acc.append((float(s["start_time"]), float(s["end_time"]), flag, o, int(s["length"])))
    acc.sort(key=lambda a: a[0])
    return fold([a[2] for a in acc], [a[3] for a in acc], [a[4] for a in acc], [a[0] for a in acc],
                [a[1] for a in acc])
