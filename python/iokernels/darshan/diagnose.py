"""What the log's counters say about the job's I/O: each finding with its
figures and the counters it comes from (thresholds as Drishti's where it
has one: small = at most 1 MiB, 10% of requests)."""
from __future__ import annotations

from typing import Any

from .logread import Log, Record
from .ops import BUCKET_NAMES

SMALL_BUCKETS = BUCKET_NAMES[:5]      # up to 1 MiB


def _s(recs: list[Record], key: str) -> int:
    return sum(max(0, r.c.get(key, 0)) for r in recs)


def _fs(recs: list[Record], key: str) -> float:
    return sum(max(0.0, r.f.get(key, 0.0)) for r in recs)


def diagnose(log: Log) -> list[dict[str, Any]]:
    px = [r for r in log.records if r.module == "POSIX"]
    mp = [r for r in log.records if r.module == "MPI-IO"]
    out: list[dict[str, Any]] = []

    def finding(key: str, flagged: bool, text: str, source: str, **figs: Any) -> None:
        out.append({"finding": key, "flagged": flagged, "text": text, "source": source, "figures": figs})

    ops = _s(px, "POSIX_READS") + _s(px, "POSIX_WRITES")
    if ops:
        small = sum(_s(px, f"POSIX_SIZE_{d}_{b}") for d in ("READ", "WRITE") for b in SMALL_BUCKETS)
        share = 100.0 * small / ops
        finding("small_requests", share > 10, f"{small} of {ops} POSIX requests ({share:.1f}%) are 1 MiB or smaller",
                "POSIX_SIZE_{READ,WRITE}_0_100..100K_1M / POSIX_READS+POSIX_WRITES", small=small, requests=ops,
                percent=round(share, 1))
        seq = _s(px, "POSIX_SEQ_READS") + _s(px, "POSIX_SEQ_WRITES")
        con = _s(px, "POSIX_CONSEC_READS") + _s(px, "POSIX_CONSEC_WRITES")
        rnd = 100.0 * (ops - seq) / ops
        finding("random_access", rnd > 20, f"{ops - seq} of {ops} requests ({rnd:.1f}%) are not sequential; "
                f"{100.0 * con / ops:.1f}% consecutive", "POSIX_SEQ_*, POSIX_CONSEC_*", random=ops - seq,
                sequential=seq, consecutive=con, requests=ops)
        na = _s(px, "POSIX_FILE_NOT_ALIGNED")
        finding("file_alignment", na > 0.1 * ops, f"{na} of {ops} requests ({100.0 * na / ops:.1f}%) not aligned "
                f"to the file system's block", "POSIX_FILE_NOT_ALIGNED, POSIX_FILE_ALIGNMENT", not_aligned=na,
                alignment=max((r.c.get("POSIX_FILE_ALIGNMENT", 0) for r in px), default=0))
    for name, (ssize, scount) in log.lustre.items():
        recs = [r for r in px if r.name == name]
        n = _s(recs, "POSIX_READS") + _s(recs, "POSIX_WRITES")
        na = _s(recs, "POSIX_FILE_NOT_ALIGNED")
        finding("lustre_stripe", bool(n) and na > 0.1 * n,
                f"{name}: stripe size {ssize} B over {scount} OST(s); {na} of {n} requests not stripe-aligned",
                "LUSTRE stripe size/count, POSIX_FILE_NOT_ALIGNED", stripe_size=ssize, stripe_count=scount,
                not_aligned=na, requests=n)
    for r in mp + px:
        if r.rank >= 0 or log.nprocs < 2:
            continue
        p = "MPIIO" if r.module == "MPI-IO" else "POSIX"
        sb, fb = r.c.get(f"{p}_SLOWEST_RANK_BYTES", -1), r.c.get(f"{p}_FASTEST_RANK_BYTES", -1)
        st, ft = r.f.get(f"{p}_F_SLOWEST_RANK_TIME", 0.0), r.f.get(f"{p}_F_FASTEST_RANK_TIME", 0.0)
        if sb >= 0 and st > 0:
            finding("rank_imbalance", st > 2 * ft and st > 0.1,
                    f"{r.name} ({r.module}): slowest rank {st:.3f} s for {sb} B, fastest {ft:.3f} s for {fb} B",
                    f"{p}_F_SLOWEST_RANK_TIME, {p}_F_FASTEST_RANK_TIME, {p}_*_RANK_BYTES",
                    slowest_s=st, fastest_s=ft, slowest_bytes=sb, fastest_bytes=fb)
    for r in mp:
        shared = r.rank < 0 and log.nprocs > 1
        if shared and r.c.get("MPIIO_INDEP_WRITES", 0) > 0 and r.c.get("MPIIO_COLL_WRITES", 0) == 0:
            finding("shared_file_independent", True,
                    f"{r.name}: shared by {log.nprocs} ranks, written with {r.c['MPIIO_INDEP_WRITES']} independent "
                    "calls and no collective one", "MPIIO_INDEP_WRITES, MPIIO_COLL_WRITES (rank -1 record)",
                    independent_writes=r.c["MPIIO_INDEP_WRITES"], ranks=log.nprocs)
        if shared and r.c.get("MPIIO_INDEP_READS", 0) > 0 and r.c.get("MPIIO_COLL_READS", 0) == 0:
            finding("shared_file_independent_reads", True,
                    f"{r.name}: shared by {log.nprocs} ranks, read with {r.c['MPIIO_INDEP_READS']} independent "
                    "calls and no collective one", "MPIIO_INDEP_READS, MPIIO_COLL_READS (rank -1 record)",
                    independent_reads=r.c["MPIIO_INDEP_READS"], ranks=log.nprocs)
    names = {r.name for r in px}
    opens = _s(px, "POSIX_OPENS")
    small_files = {r.name for r in px if max(r.c.get("POSIX_MAX_BYTE_WRITTEN", -1), r.c.get("POSIX_MAX_BYTE_READ", -1))
                   < (1 << 20)}
    if names:
        finding("many_small_files", len(small_files) > 100 or opens > 1000,
                f"{len(names)} files ({len(small_files)} under 1 MiB), {opens} opens",
                "POSIX records, POSIX_OPENS, POSIX_MAX_BYTE_*", files=len(names), small_files=len(small_files),
                opens=opens)
    meta = _fs(px, "POSIX_F_META_TIME")
    io = _fs(px, "POSIX_F_READ_TIME") + _fs(px, "POSIX_F_WRITE_TIME")
    if meta + io > 0:
        share = 100.0 * meta / (meta + io)
        finding("metadata_time", share > 30,
                f"metadata {meta:.3f} s of {meta + io:.3f} s in POSIX calls ({share:.1f}%)",
                "POSIX_F_META_TIME, POSIX_F_READ_TIME, POSIX_F_WRITE_TIME", meta_s=meta, io_s=io,
                percent=round(share, 1))
    ranks = {r.rank for r in px + mp if (r.c.get(f"{'MPIIO' if r.module == 'MPI-IO' else 'POSIX'}_BYTES_WRITTEN", 0)
                                         + r.c.get(f"{'MPIIO' if r.module == 'MPI-IO' else 'POSIX'}_BYTES_READ", 0))}
    if log.nprocs > 1 and ranks == {0}:
        finding("rank0_only", True, f"only rank 0 of {log.nprocs} moved data", "the records' ranks, *_BYTES_*",
                ranks=log.nprocs)
    return out


def diagnosis_text(found: list[dict[str, Any]]) -> list[str]:
    return [f"  {'!' if f['flagged'] else ' '} {f['finding']}: {f['text']}  [{f['source']}]" for f in found]
