"""Reading a Darshan log (format 3.x) through PyDarshan into plain records.

Refused with one LogError line: a file that is not a Darshan log (its
header's magic number), a format version PyDarshan cannot read, a truncated
log (the header's region map reaches past the end of the file), a log with
no I/O, a log of a non-MPI program, a log whose file names were anonymised.
"""
from __future__ import annotations

import ctypes
import os
import re
import struct
from dataclasses import dataclass, field
from typing import Any

from .errors import LogError

MAGIC = 6567223
# Modules whose records are I/O on files (the rest: job-level or derived).
IO_MODULES = ("MPI-IO", "POSIX")
STREAMS = ("<STDIN>", "<STDOUT>", "<STDERR>")


@dataclass
class Record:
    module: str
    name: str
    rank: int                 # -1: a shared record (every rank, reduced)
    c: dict[str, int]
    f: dict[str, float]


@dataclass
class Dxt:
    """One DXT record (one file, one rank): segments of each direction."""
    module: str               # DXT_MPIIO | DXT_POSIX
    name: str
    rank: int
    writes: list[dict[str, Any]]
    reads: list[dict[str, Any]]
    write_count: int
    read_count: int


@dataclass
class Log:
    path: str
    version: str
    nprocs: int
    exe: str
    jobid: int
    run_time: float
    pydarshan: str
    modules: dict[str, bool]                  # present modules -> partial flag
    records: list[Record] = field(default_factory=list)
    dxt: list[Dxt] = field(default_factory=list)
    lustre: dict[str, tuple[int, int]] = field(default_factory=dict)   # name -> (stripe size, count)
    hints: str = ""


def _check_header(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
    except OSError as e:
        raise LogError(f"cannot read {path}: {e.strerror}") from None
    if len(head) < 16:
        raise LogError(f"{path} is not a Darshan log (only {len(head)} bytes)")
    magic_le, = struct.unpack("<q", head[8:16])
    magic_be, = struct.unpack(">q", head[8:16])
    if MAGIC not in (magic_le, magic_be):
        raise LogError(f"{path} is not a Darshan log (no Darshan magic number in its header)")
    version = head[:8].split(b"\0")[0].decode("ascii", "replace")
    if not re.fullmatch(r"3\.\d+", version):
        raise LogError(f"{path} is a Darshan log of format version {version!r}: PyDarshan reads format 3.x "
                       "(Darshan 3.0 and later) only; convert it with darshan-convert of its own Darshan release")
    return version


class _Map(ctypes.Structure):
    _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]


class _Fd(ctypes.Structure):
    # darshan_fd_s of libdarshan-util 3.5 (darshan-logutils.h): the regions of the log
    _fields_ = [("version", ctypes.c_char * 8), ("swap", ctypes.c_int), ("partial", ctypes.c_uint64),
                ("comp", ctypes.c_int), ("job", _Map), ("name", _Map), ("mods", _Map * 64),
                ("ver", ctypes.c_uint32 * 64)]


def _check_complete(path: str, backend: Any) -> None:
    """A truncated log reads without error in libdarshan-util (fewer records,
    or a crash): the header's map of regions must fit in the file."""
    h = backend.log_open(path)
    if not h or h.get("handle") in (None, backend.ffi.NULL):
        raise LogError(f"{path}: libdarshan-util cannot open it (a damaged Darshan log)")
    try:
        fd = _Fd.from_address(int(backend.ffi.cast("uintptr_t", h["handle"])))
        end = max(m.off + m.len for m in [fd.job, fd.name, *fd.mods])
    finally:
        backend.log_close(h)
    size = os.path.getsize(path)
    if end > size:
        raise LogError(f"{path} is truncated: its header maps {end} bytes, the file has {size}")


def _anonymised(names: list[str]) -> bool:
    """Darshan's anonymisation replaces each path by a number (hash)."""
    return bool(names) and all(re.fullmatch(r"/*\d+", n) for n in names)


def read_log(path: str) -> Log:
    version = _check_header(path)
    try:
        import darshan  # type: ignore[import-untyped]  # (no stubs) only the converter needs PyDarshan
        from darshan.backend import cffi_backend as backend  # type: ignore[import-untyped]
    except (ImportError, RuntimeError) as e:
        raise LogError(f"PyDarshan is not usable here ({e}); scripts/setup.sh installs it") from None
    _check_complete(path, backend)
    try:
        rep = darshan.DarshanReport(path, read_all=False)
    except Exception as e:  # libdarshan-util says only "Failed to open file."
        raise LogError(f"{path}: PyDarshan cannot read this log ({e})") from None
    job = rep.metadata["job"]
    log = Log(path=path, version=version, nprocs=int(job["nprocs"]), exe=str(rep.metadata.get("exe", "")),
              jobid=int(job.get("jobid", 0)), run_time=float(job.get("run_time", 0.0)),
              pydarshan=str(getattr(darshan, "__version__", "?")),
              modules={m: bool(v.get("partial_flag", False)) for m, v in rep.modules.items()},
              hints=str(job.get("metadata", {}).get("h", "")))
    if not any(m in log.modules for m in IO_MODULES):
        raise LogError(f"{path} records no I/O (no POSIX or MPI-IO module data: the job opened no file "
                       "Darshan instrumented)")
    rep.read_name_records()
    names = rep.name_records
    for mod in IO_MODULES:
        if mod not in log.modules:
            continue
        rep.mod_read_all_records(mod, dtype="numpy")
        cn, fn = backend.counter_names(mod), backend.fcounter_names(mod)
        for r in rep.records[mod]._records:   # the plain dicts (indexing wraps each in a collection)
            name = names.get(r["id"], str(r["id"]))
            if name in STREAMS:
                continue
            c = dict(zip(cn, (int(x) for x in r["counters"]), strict=False))
            f = dict(zip(fn, (float(x) for x in r["fcounters"]), strict=False))
            log.records.append(Record(mod, name, int(r["rank"]), c, f))
    io_names = sorted({r.name for r in log.records})
    nonmpi = "MPI-IO" not in log.modules and log.nprocs == 1
    anon = _anonymised(io_names)
    if nonmpi or anon:
        why = []
        if nonmpi:
            why.append("a non-MPI program (one process, no MPI-IO module)")
        if anon:
            why.append(f"anonymised file names (all {len(io_names)} are numbers, e.g. {io_names[0]!r})")
        raise LogError(f"{path} cannot be replayed: it is a log of " + " with ".join(why) +
                       "; replay needs an MPI job's log with its file names")
    if not log.records:
        raise LogError(f"{path} records no I/O (only standard streams)")
    for mod in ("DXT_MPIIO", "DXT_POSIX"):
        if mod not in log.modules:
            continue
        rep.mod_read_all_dxt_records(mod, dtype="dict")
        for r in rep.records[mod]._records:
            name = names.get(r["id"], str(r["id"]))
            log.dxt.append(Dxt(mod, name, int(r["rank"]), r["write_segments"], r["read_segments"],
                               int(r["write_count"]), int(r["read_count"])))
    if "LUSTRE" in log.modules:
        rep.mod_read_all_lustre_records(dtype="dict")
        for r in rep.records["LUSTRE"]._records:
            name = names.get(r["id"], str(r["id"]))
            comps = r.get("components")
            cnt = comps[0]["counters"] if comps else r.get("counters", {})
            if not isinstance(cnt, dict):
                continue
            size = next((int(v) for k, v in cnt.items() if k.endswith("STRIPE_SIZE")), 0)
            count = next((int(v) for k, v in cnt.items() if k.endswith(("STRIPE_COUNT", "STRIPE_WIDTH"))), 0)
            log.lustre[name] = (size, count)
    return log
