#!/usr/bin/env python3
"""Darshan logs at scale (issue 31): a counters-only log of a 65,536-process
job and a log of 1,000,000 DXT_MPIIO operations, each written as a real
Darshan log and planned by `iokernels replay --dry-run LOG` on one process.

    scripts/run.sh /opt/iokernels-venv/bin/python bench/darshan_scale.py [--nprocs 65536] [--dxt-ops 1000000]
                                                                 [--max-seconds 60] [--max-gib 4] [--dxt-max-seconds 10]

No job here can run on 65,536 processes, so the logs are written by
libdarshan-util's own log writer (python/iokernels/darshan/logwrite.py, the
functions darshan-convert uses) from records in the reader's form.  What is
timed is the whole process a user runs: `iokernels replay --dry-run -q
LOG.darshan`, which reads the log with PyDarshan in iokernels-darshan on
rank 0, converts it, and plans the replay.  The counters-only job: one
shared file written collectively by every rank (16 x 1 MiB each) and read
back, plus one file per process (4 x 4 MiB writes each, POSIX).  The DXT
job: 4 ranks, each 250,000 strided 4 KiB writes of one shared file.  Prints
wall time and peak resident memory (the largest process, converter
included); exit status 1 above a limit.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import checkout  # noqa: F401  (the checkout's python/ when iokernels is not installed)
from iokernels import paths
from iokernels.darshan.logread import Dxt, Log, Record
from iokernels.darshan.logwrite import write_log
from iokernels.table import format_bytes

MiB = 1 << 20


def counters_log(nprocs):
    coll = nprocs * 16
    shared = Record("MPI-IO", "/lustre/run/shared.h5", -1, {
        "MPIIO_COLL_OPENS": nprocs * 2, "MPIIO_COLL_WRITES": coll, "MPIIO_COLL_READS": coll,
        "MPIIO_BYTES_WRITTEN": coll * MiB, "MPIIO_BYTES_READ": coll * MiB,
        "MPIIO_SIZE_WRITE_AGG_100K_1M": coll, "MPIIO_SIZE_READ_AGG_100K_1M": coll,
        "MPIIO_ACCESS1_ACCESS": MiB, "MPIIO_ACCESS1_COUNT": 2 * coll}, {})
    pshared = Record("POSIX", "/lustre/run/shared.h5", -1, {
        "POSIX_OPENS": nprocs * 2, "POSIX_WRITES": coll, "POSIX_READS": coll, "POSIX_SEQ_WRITES": coll - 1,
        "POSIX_CONSEC_WRITES": coll - nprocs, "POSIX_SEQ_READS": coll - 1, "POSIX_CONSEC_READS": coll - nprocs,
        "POSIX_BYTES_WRITTEN": coll * MiB, "POSIX_BYTES_READ": coll * MiB,
        "POSIX_SIZE_WRITE_100K_1M": coll, "POSIX_SIZE_READ_100K_1M": coll}, {})
    recs = [shared, pshared]
    for r in range(nprocs):
        recs.append(Record("POSIX", f"/lustre/run/ckpt.{r:06d}", r, {
            "POSIX_OPENS": 1, "POSIX_WRITES": 4, "POSIX_BYTES_WRITTEN": 16 * MiB, "POSIX_SIZE_WRITE_1M_4M": 4,
            "POSIX_CONSEC_WRITES": 3, "POSIX_SEQ_WRITES": 3, "POSIX_ACCESS1_ACCESS": 4 * MiB,
            "POSIX_ACCESS1_COUNT": 4}, {}))
    return Log("in-memory-65536.darshan", "3.41", nprocs, "bench", 0, 0.0, "-", {"MPI-IO": False, "POSIX": False},
               recs)


def dxt_log(ops, nprocs=4):
    per = ops // nprocs
    size, stride = 4096, 4096 * nprocs
    recs = [Record("MPI-IO", "/scratch/strided.dat", -1, {
        "MPIIO_INDEP_OPENS": nprocs, "MPIIO_INDEP_WRITES": per * nprocs,
        "MPIIO_BYTES_WRITTEN": per * nprocs * size, "MPIIO_SIZE_WRITE_AGG_1K_10K": per * nprocs}, {})]
    dxt = []
    for r in range(nprocs):
        segs = [{"offset": r * size + k * stride, "length": size, "start_time": k * 1e-6, "end_time": k * 1e-6 + 5e-7}
                for k in range(per)]
        dxt.append(Dxt("DXT_MPIIO", "/scratch/strided.dat", r, segs, [], per, 0))
    return Log("in-memory-dxt.darshan", "3.41", nprocs, "bench", 0, 0.0, "-",
               {"MPI-IO": False, "DXT_MPIIO": False}, recs, dxt)


def write(log, out):
    t0 = time.monotonic()
    write_log(log, str(out))
    return time.monotonic() - t0


def dry_run(build, trace):
    t0 = time.monotonic()
    p = subprocess.Popen([str(build / "src" / "iokernels"), "replay", "--dry-run", "-q", str(trace)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"darshan_scale: dry run of {trace} failed:\n{out[-3000:]}")
    return time.monotonic() - t0, usage.ru_maxrss * 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--nprocs", type=int, default=65536, help="processes of the counters-only job")
    ap.add_argument("--dxt-ops", type=int, default=1000000, help="DXT operations of the traced job")
    ap.add_argument("--build-dir", default=None, help="build directory (default: $IOK_BUILD_DIR or ./build)")
    ap.add_argument("--max-seconds", type=float, default=60.0, help="counters-only job: limit, s")
    ap.add_argument("--max-gib", type=float, default=4.0, help="counters-only job: memory limit, GiB")
    ap.add_argument("--dxt-max-seconds", type=float, default=10.0, help="DXT job: limit, s")
    a = ap.parse_args()
    build = paths.build_dir(a.build_dir)
    failed = False
    with tempfile.TemporaryDirectory() as d:
        big, dxt = Path(d) / f"job-{a.nprocs}.darshan", Path(d) / f"dxt-{a.dxt_ops}.darshan"
        t_write = write(counters_log(a.nprocs), big)
        t_plan, rss = dry_run(build, big)
        print(f"counters-only, {a.nprocs} processes, {a.nprocs + 1} files: log {format_bytes(big.stat().st_size)} "
              f"(written in {t_write:.1f} s); replay --dry-run {t_plan:.1f} s, peak {format_bytes(rss)}")
        if t_plan > a.max_seconds or rss > a.max_gib * (1 << 30):
            print(f"  over the limit ({a.max_seconds:g} s, {a.max_gib:g} GiB)")
            failed = True
        t_write = write(dxt_log(a.dxt_ops), dxt)
        t_plan, rss = dry_run(build, dxt)
        print(f"DXT, {a.dxt_ops} operations on 4 ranks: log {format_bytes(dxt.stat().st_size)} "
              f"(written in {t_write:.1f} s); replay --dry-run {t_plan:.1f} s, peak {format_bytes(rss)}")
        if t_plan > a.dxt_max_seconds:
            print(f"  over the limit ({a.dxt_max_seconds:g} s)")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
