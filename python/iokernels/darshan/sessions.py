"""Cutting a rank's accesses into its sessions (opens) and laying them out."""
from __future__ import annotations

from .ops import WRITE, Series, Session

AMODE_CREATE_RDWR, AMODE_RDONLY = 9, 2   # MPI_MODE_CREATE|MPI_MODE_RDWR, MPI_MODE_RDONLY


def split_series(seq: list[Series], k: int) -> list[list[Series]]:
    """seq cut into k parts of (nearly) equal access counts, in order; a
    series is split where a cut falls inside it."""
    total = sum(s.count for s in seq)
    k = max(1, k)
    bounds = [total * (i + 1) // k for i in range(k)]
    parts: list[list[Series]] = [[] for _ in range(k)]
    done = 0
    part = 0
    for s in seq:
        left = s
        while left.count > 0:
            while part < k - 1 and done >= bounds[part]:
                part += 1
            room = bounds[part] - done if part < k - 1 else left.count
            take = min(left.count, max(room, 1) if part == k - 1 else room)
            if take <= 0:
                part += 1
                continue
            parts[part].append(Series(left.flags, left.offset, left.length, take, left.step if take > 1 else 0,
                                      left.t0, left.t1))
            done += take
            rest = left.count - take
            left = Series(left.flags, left.offset + take * left.step, left.length, rest, left.step, left.t0, left.t1)
    return parts


def sessions_of(seq: list[Series], k: int, comm_size: int, comm_rank: int, t_base: float) -> list[Session]:
    """k sessions holding seq in order; a session that writes opens with
    create|read-write, one that only reads read-only (so a file the job
    first read is prepared by the replay)."""
    out = []
    for i, part in enumerate(split_series(seq, k)):
        writes = any(s.flags & WRITE for s in part)
        t0 = min((s.t0 for s in part), default=t_base + i * 1e-3)
        t1 = max((s.t1 for s in part), default=t0)
        out.append(Session(comm_size, comm_rank, AMODE_CREATE_RDWR if writes else AMODE_RDONLY, part, t0, t1))
    return out


def split_at_gaps(seq: list[Series], k: int, comm_size: int, comm_rank: int, t_base: float) -> list[Session]:
    """DXT accesses into k sessions, cut at the k-1 longest pauses between
    consecutive accesses (where the job most likely closed and reopened)."""
    if k <= 1 or len(seq) <= 1:
        return sessions_of(seq, 1, comm_size, comm_rank, t_base) + \
            [Session(comm_size, comm_rank, AMODE_RDONLY, [], t_base, t_base) for _ in range(max(0, k - 1))]
    gaps = sorted(range(1, len(seq)), key=lambda i: seq[i].t0 - seq[i - 1].t1, reverse=True)[:k - 1]
    cuts = sorted(gaps)
    out = []
    prev = 0
    for c in [*cuts, len(seq)]:
        out += sessions_of(seq[prev:c], 1, comm_size, comm_rank, t_base)
        prev = c
    while len(out) < k:
        out.append(Session(comm_size, comm_rank, AMODE_RDONLY, [], t_base, t_base))
    return out
