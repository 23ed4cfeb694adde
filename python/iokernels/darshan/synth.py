"""Accesses synthesized from a file record's counters (no DXT).

The rules where the counters leave freedom (docs/darshan.md):
- sizes: sizes.py (histogram exact, common sizes with their counts, bytes);
- flavours: the accesses of a direction sorted by size are cut in the order
  collective, split, nonblocking, independent (the largest go to the
  collective calls, the way applications aggregate);
- ranks: a shared record's collective accesses are shared equally (each
  rank makes the same calls; a remainder becomes independent), the others
  in proportion to each rank's bytes: the slowest rank's and the fastest
  rank's bytes as recorded, the rest equal;
- offsets: each rank writes its own region of the file (regions in rank
  order); within it the first access starts the region, then come the
  consecutive accesses (each where the previous ended), then sequential
  ones that skip a gap of their own size, then non-sequential ones placed
  backwards below the region's forward part, so the consecutive and
  sequential shares are those of the file's POSIX record; reads lie over
  the bytes the same rank wrote (or their own regions when nothing was
  written);
- sessions: opens per rank = the record's opens (a shared record's divided
  by the ranks); writes first, then reads, cut evenly; with collective
  accesses at most one session writes and one reads, so ranks stay in step.
"""
from __future__ import annotations

from typing import Any

from .logread import Record
from .ops import COLL, EXPLICIT, NB, SPLIT, WRITE, FileJob, Series, Session
from .sessions import sessions_of
from .sizes import common_split, fill_sizes

Group = tuple[int, int, int]   # flags, size, count

MPI_FLAVOURS = (("COLL", COLL | EXPLICIT), ("SPLIT", SPLIT | COLL | EXPLICIT), ("NB", NB | EXPLICIT),
                ("INDEP", EXPLICIT))
BUCKETS = ("0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M", "1M_4M", "4M_10M", "10M_100M", "100M_1G", "1G_PLUS")


def hist(rec: Record, write: bool) -> list[int]:
    d = "WRITE" if write else "READ"
    if rec.module == "MPI-IO":
        return [max(0, rec.c.get(f"MPIIO_SIZE_{d}_AGG_{b}", 0)) for b in BUCKETS]
    return [max(0, rec.c.get(f"POSIX_SIZE_{d}_{b}", 0)) for b in BUCKETS]


def flavour_counts(rec: Record, write: bool) -> list[tuple[int, int]]:
    d = "WRITES" if write else "READS"
    w = WRITE if write else 0
    if rec.module == "MPI-IO":
        return [(flags | w, max(0, rec.c.get(f"MPIIO_{k}_{d}", 0))) for k, flags in MPI_FLAVOURS]
    return [(EXPLICIT | w, max(0, rec.c.get(f"POSIX_{d}", 0)))]


def prefix(rec: Record) -> str:
    return "MPIIO" if rec.module == "MPI-IO" else "POSIX"


def direction_groups(rec: Record, write: bool, common: list[tuple[int, int]], h: list[int]
                     ) -> tuple[list[Group], list[str]]:
    """The record's accesses of one direction as (flags, size, count) groups:
    the common sizes, and the histogram h left after them."""
    p = prefix(rec)
    nbytes = max(0, rec.c.get(f"{p}_BYTES_WRITTEN" if write else f"{p}_BYTES_READ", 0))
    sizes = sorted(common + fill_sizes(h, nbytes - sum(s * c for s, c in common)))
    notes = []
    got = sum(s * c for s, c in sizes)
    if got != nbytes:
        notes.append(f"{'write' if write else 'read'} bytes {got} where the log counts {nbytes} "
                     "(the histogram's buckets cannot hold them)")
    groups: list[Group] = []
    flav = [(f, n) for f, n in flavour_counts(rec, write) if n]
    n_ops = sum(c for _, c in sizes)
    if sum(n for _, n in flav) != n_ops:   # histogram and call counts disagree: the calls decide the flavours
        notes.append(f"{'write' if write else 'read'} calls {sum(n for _, n in flav)} vs histogram {n_ops}")
    sizes_desc = sorted(sizes, key=lambda sc: -sc[0])
    i = 0
    for flags, n in flav:
        while n > 0 and i < len(sizes_desc):
            s, c = sizes_desc[i]
            take = min(n, c)
            groups.append((flags, s, take))
            n -= take
            if take == c:
                i += 1
            else:
                sizes_desc[i] = (s, c - take)
    return groups, notes


def apportion(count: int, weights: list[float]) -> list[int]:
    """count shared in proportion to weights (largest remainders)."""
    tot = sum(weights)
    if tot <= 0:
        weights = [1.0] * len(weights)
        tot = float(len(weights))
    exact = [count * w / tot for w in weights]
    out = [int(x) for x in exact]
    left = count - sum(out)
    if left:
        order = sorted(range(len(weights)), key=lambda i: out[i] - exact[i])[:left]
        for i in order:
            out[i] += 1
    return out


def rank_weights(rec: Record, nprocs: int) -> list[float]:
    p = prefix(rec)
    total = rec.c.get(f"{p}_BYTES_READ", 0) + rec.c.get(f"{p}_BYTES_WRITTEN", 0)
    fast, slow = rec.c.get(f"{p}_FASTEST_RANK", -1), rec.c.get(f"{p}_SLOWEST_RANK", -1)
    fb, sb = rec.c.get(f"{p}_FASTEST_RANK_BYTES", -1), rec.c.get(f"{p}_SLOWEST_RANK_BYTES", -1)
    w = [1.0] * nprocs
    if nprocs > 2 and 0 <= fast < nprocs and 0 <= slow < nprocs and fast != slow and fb >= 0 and sb >= 0:
        rest = (total - fb - sb) / (nprocs - 2)
        if rest >= 0:
            w = [rest] * nprocs
            w[fast], w[slow] = float(fb), float(sb)
    return w


def spread(groups: list[Group], nprocs: int, weights: list[float], notes: list[str]) -> list[list[Group]]:
    per: list[list[Group]] = [[] for _ in range(nprocs)]
    for flags, size, count in groups:
        if flags & COLL:
            each, left = divmod(count, nprocs)
            if each:
                for r in range(nprocs):
                    per[r].append((flags, size, each))
            if left:
                notes.append(f"{left} collective access(es) of {size} B do not divide over {nprocs} ranks: "
                             "replayed independent")
                flags = (flags & WRITE) | EXPLICIT
                count = left
            else:
                continue
        for r, c in enumerate(apportion(count, weights)):
            if c:
                per[r].append((flags, size, c))
    return per


def layout(groups: list[Group], base: int, f_consec: float, f_seq: float) -> tuple[list[Series], int]:
    """One rank's accesses of one direction from `base` (see the module doc).
    Returns the series and the end of the forward part."""
    n = sum(c for _, _, c in groups)
    if n == 0:
        return [], base
    nc = round(f_consec * n)
    ns = max(nc, round(f_seq * n))
    nb = n - ns                       # non-sequential: the last nb accesses
    if base == 0 and nb == 1:
        # A region at byte 0 (a file of its own, or rank 0's): the first
        # access, at byte 0, is the one not sequential (Darshan compares it
        # with byte 0), and every later one can be consecutive.
        nb = 0
    sizes_flat_tail = 0
    need = nb
    for _, s, c in reversed(groups):
        if need <= 0:
            break
        t = min(need, c)
        sizes_flat_tail += t * s
        need -= t
    top = base + sizes_flat_tail      # back part [base, top), forward from top
    # the first access starts the forward part (sequential when past byte 0:
    # Darshan's rule); the forward accesses after it are all sequential
    m = max(0, n - 1 - nb)
    n_consec = min(nc, m)
    n_gap = m - n_consec
    cursor = top
    out: list[Series] = []
    idx = 0
    for flags, s, c in groups:
        left = c
        while left:
            if idx == 0:
                out.append(Series(flags, cursor, s, 1, 0))
                cursor += s
                take = 1
            elif idx <= n_consec:
                take = min(left, n_consec - idx + 1)
                out.append(Series(flags, cursor, s, take, s))
                cursor += s * take
            elif idx <= n_consec + n_gap:
                take = min(left, n_consec + n_gap - idx + 1)
                out.append(Series(flags, cursor + s, s, take, 2 * s))
                cursor += 2 * s * take
            else:
                take = left
                top -= s
                out.append(Series(flags, top, s, take, -s))
                top -= s * (take - 1)
            left -= take
            idx += take
    return out, cursor


def posix_fractions(px: Record | None, write: bool) -> tuple[float, float]:
    if px is None:
        return 1.0, 1.0
    d = "WRITES" if write else "READS"
    n = px.c.get(f"POSIX_{d}", 0)
    if n <= 0:
        return 1.0, 1.0
    return (min(1.0, max(0, px.c.get(f"POSIX_CONSEC_{d}", 0)) / n),
            min(1.0, max(0, px.c.get(f"POSIX_SEQ_{d}", 0)) / n))


def synthesize(rec: Record, px: Record | None, nprocs: int, job: FileJob, t_base: float) -> None:
    """Adds rec's accesses (a shared record: every rank's) to job."""
    p = prefix(rec)
    common = [(rec.c.get(f"{p}_ACCESS{i}_ACCESS", -1), rec.c.get(f"{p}_ACCESS{i}_COUNT", 0)) for i in range(1, 5)]
    hw, hr = hist(rec, True), hist(rec, False)
    cw, cr = common_split(common, hw, hr)          # lowers hw, hr by the common sizes' counts
    gw, nw = direction_groups(rec, True, cw, hw)
    gr, nr = direction_groups(rec, False, cr, hr)
    job.notes += nw + nr
    shared = rec.rank < 0
    ranks = list(range(nprocs)) if shared else [rec.rank]
    weights = rank_weights(rec, nprocs) if shared else [1.0]
    per_w = spread(gw, len(ranks), weights, job.notes)
    per_r = spread(gr, len(ranks), weights, job.notes)
    opens = (rec.c.get("MPIIO_INDEP_OPENS", 0) + rec.c.get("MPIIO_COLL_OPENS", 0)) if rec.module == "MPI-IO" \
        else rec.c.get("POSIX_OPENS", 0)
    k = max(1, round(opens / len(ranks)))
    coll = any(f & COLL for f, _, _ in gw + gr)
    fw, fr = posix_fractions(px, True), posix_fractions(px, False)
    wbase = rbase = 0
    # Ranks with the same accesses have the same layout shifted to their
    # region: laid out once at offset 0 (65,536 ranks of a shared file).
    laid: dict[tuple[Any, ...], tuple[list[Session], int, int, bool]] = {}
    for i, r in enumerate(ranks):
        key = (tuple(per_w[i]), tuple(per_r[i]))
        if key not in laid:
            ws, wend = layout(per_w[i], 0, *fw)
            rs, rend = layout(per_r[i], 0, *fr)
            if coll or (ws and rs and k >= 2):
                kw = 1 if coll else max(1, k // 2)
                kr = 1 if coll else max(1, k - kw)
                sess = (sessions_of(ws, kw, 1, 0, t_base) if ws else []) + \
                    (sessions_of(rs, kr, 1, 0, t_base + 0.5) if rs else [])
            else:
                sess = sessions_of(ws + rs, k, 1, 0, t_base)
            laid[key] = (sess, wend, rend, bool(per_w[i]))
        sess, wlen, rlen, writes = laid[key]
        # reads lie over the rank's written bytes, or in their own region
        wshift, rshift = wbase, (wbase if writes else rbase)
        comm = (nprocs, r) if shared else (1, 0)
        job.sessions.setdefault(r, []).extend(
            Session(*comm, s.amode, [Series(x.flags, x.offset + (wshift if x.flags & WRITE else rshift), x.length,
                                            x.count, x.step) for x in s.series], s.t_open, s.t_close) for s in sess)
        wbase += wlen
        rbase = max(rbase + (0 if writes else rlen), wbase)
    if coll and k > 2:
        job.notes.append(f"{k} opens per rank in the log, replayed as one write and one read session "
                         "(collective calls keep the ranks in step)")


def empty_sessions(job: FileJob, nprocs: int) -> None:
    """A shared file is opened by every rank: ranks without accesses still
    open (and close) it, as many times as the others."""
    if not job.shared:
        return
    k = max((len(v) for v in job.sessions.values()), default=1)
    for r in range(nprocs):
        s = job.sessions.setdefault(r, [])
        while len(s) < k:
            s.append(Session(nprocs, r, 2, []))
