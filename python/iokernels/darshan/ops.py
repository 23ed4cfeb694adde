"""Operation series: the common form of DXT segments and synthesized accesses.

A Series is `count` accesses of `length` bytes, access k at file offset
`offset + k*step`, all of one kind (flags as in the iokernels trace:
1 write, 2 collective, 4 explicit offset, 32 nonblocking, 64 split).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

WRITE, COLL, EXPLICIT, NB, SPLIT = 1, 2, 4, 32, 64

# Darshan's 10 access-size buckets: upper bounds (inclusive) of the first 9.
BUCKET_HI = (100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824)
BUCKET_NAMES = ("0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M", "10M_100M", "100M_1G",
                "1G_PLUS")


def bucket_of(size: int) -> int:
    for i, hi in enumerate(BUCKET_HI):
        if size <= hi:
            return i
    return 9


def bucket_range(b: int) -> tuple[int, int]:
    """Smallest and largest size of bucket b (the last: up to 2^40)."""
    lo = 0 if b == 0 else BUCKET_HI[b - 1] + 1
    hi = BUCKET_HI[b] if b < 9 else 1 << 40
    return lo, hi


@dataclass
class Series:
    flags: int
    offset: int
    length: int
    count: int = 1
    step: int = 0
    t0: float = 0.0
    t1: float = 0.0

    @property
    def write(self) -> bool:
        return bool(self.flags & WRITE)

    @property
    def nbytes(self) -> int:
        return self.length * self.count

    def last_offset(self) -> int:
        return self.offset + (self.count - 1) * self.step


@dataclass
class Session:
    """One open..close of a file on one rank; comm_size 1 = MPI_COMM_SELF."""
    comm_size: int
    comm_rank: int
    amode: int
    series: list[Series] = field(default_factory=list)
    t_open: float = 0.0
    t_close: float = 0.0


@dataclass
class FileJob:
    """What the replay does to one file: per rank, its sessions."""
    name: str
    mode: str                      # exact | partial | synthesized
    shared: bool                   # opened by every rank together
    sessions: dict[int, list[Session]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    module: str = "MPI-IO"                                  # counters from MPI-IO or POSIX
    records: list[Any] = field(default_factory=list)        # the log's records of the module (logread.Record)
    posix: list[Any] = field(default_factory=list)          # the file's POSIX records
    sig: int = -1     # files with the same sig have the same counters and plan (one rank's record each)


def fold(flags: list[int], offsets: list[int], lengths: list[int], t0: list[float], t1: list[float]) -> list[Series]:
    """Accesses in order -> series: consecutive accesses of one kind and size
    whose offsets advance by one step become one Series (a strided loop of a
    million accesses is one entry)."""
    out: list[Series] = []
    n = len(offsets)
    i = 0
    while i < n:
        f, ln = flags[i], lengths[i]
        j = i + 1
        step = 0
        if j < n and lengths[j] == ln and flags[j] == f:
            step = offsets[j] - offsets[i]
            j += 1
            while j < n and lengths[j] == ln and flags[j] == f and offsets[j] - offsets[j - 1] == step:
                j += 1
        out.append(Series(f, offsets[i], ln, j - i, step, t0[i], t1[j - 1]))
        i = j
    return out
