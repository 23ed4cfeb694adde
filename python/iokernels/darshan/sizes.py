"""Access sizes from Darshan's counters: the 10-bucket histogram exactly,
the four common sizes with their counts, the bytes in all.

Rule (docs/darshan.md): the common sizes take their counts first (writes
before reads, each within the bucket the size falls in); every other access
of a bucket gets one size of that bucket, the same for all buckets as far
as the bucket allows (found by bisection), plus one byte on some accesses,
so that the sizes add up to the bytes counted.  When the counters cannot be
met together (a damaged or inconsistent record) the bytes give way and the
difference is reported.
"""
from __future__ import annotations

from .ops import bucket_of, bucket_range


def common_split(common: list[tuple[int, int]], hist_w: list[int], hist_r: list[int]
                 ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The common (size, count) pairs of a record, shared out to writes and
    reads as the histograms allow.  Returns (writes', reads') pairs and
    lowers the histograms by what they took."""
    w, r = [], []
    for size, cnt in common:
        if size < 0 or cnt <= 0:
            continue
        b = bucket_of(size)
        tw = min(cnt, hist_w[b])
        hist_w[b] -= tw
        tr = min(cnt - tw, hist_r[b])
        hist_r[b] -= tr
        if tw:
            w.append((size, tw))
        if tr:
            r.append((size, tr))
    return w, r


def fill_sizes(hist: list[int], nbytes: int) -> list[tuple[int, int]]:
    """(size, count) pairs for hist[b] accesses in each bucket b adding up to
    nbytes (or as close as the buckets allow)."""
    n = sum(hist)
    if n == 0:
        return []
    ranges = [bucket_range(b) for b in range(10)]

    def total(v: int) -> int:
        return sum(h * min(max(v, lo), hi) for h, (lo, hi) in zip(hist, ranges, strict=True) if h)

    lo_v, hi_v = 0, 1 << 40
    while lo_v < hi_v:                       # the largest v with total(v) <= nbytes
        mid = (lo_v + hi_v + 1) // 2
        if total(mid) <= nbytes:
            lo_v = mid
        else:
            hi_v = mid - 1
    v = lo_v
    extra = max(0, nbytes - total(v))
    out: list[tuple[int, int]] = []
    for h, (lo, hi) in zip(hist, ranges, strict=True):
        if not h:
            continue
        base = min(max(v, lo), hi)
        plus = min(h, extra) if base < hi else 0
        extra -= plus
        if h - plus:
            out.append((base, h - plus))
        if plus:
            out.append((base + 1, plus))
    return out
