"""Writing a Darshan log (format 3.41) from records in logread's form.

For logs no job here can produce — a 65,536-process job, a million DXT
operations, a DXT buffer that overflowed — written by libdarshan-util's own
writer, the functions darshan-convert writes with (darshan_log_create,
darshan_log_put_job/exe/mounts/namehash/mod, darshan_log_close), in the
copy of the library PyDarshan loads.  What is written is a real log: it is
read back by the same path as any job's (read_log, darshan-parser).

Written: the job (processes, job id, run time, MPI-IO hints), the
executable line, one mount point ("/"), the name records, and the POSIX, MPI-IO, DXT_POSIX and
DXT_MPIIO modules, each module's partial flag as in `Log.modules`.  Not
written: the job's mount table and LUSTRE records.
"""
from __future__ import annotations

import hashlib
import os
from collections import defaultdict
from typing import Any

import numpy as np

from .errors import LogError
from .logread import Dxt, Log, Record

# Module ids and record versions of the format (darshan-log-format.h and the
# module headers of Darshan 3.4; DXT's are the versions before the
# segment's pthread id, which libdarshan-util 3.5 reads).
MODULE_ID = {"POSIX": 1, "MPI-IO": 2, "DXT_POSIX": 10, "DXT_MPIIO": 11}
MODULE_VER = {"POSIX": 4, "MPI-IO": 3, "DXT_POSIX": 1, "DXT_MPIIO": 2}
STRUCT = {"POSIX": "struct darshan_posix_file", "MPI-IO": "struct darshan_mpiio_file"}
ZLIB = 0                                       # enum darshan_comp_type: DARSHAN_ZLIB_COMP
EXE_LEN = 4096 - 1080 - 1                      # DARSHAN_EXE_LEN: the job region less struct darshan_job

# The writer's functions, which PyDarshan does not declare.  The name
# hash is a uthash list: darshan_log_put_namehash walks it by hlink.next
# alone (HASH_ITER), so a list linked through that field is all it needs.
_WRITER_CDEF = """
void *darshan_log_create(const char *name, int comp_type, int partial_flag);
int darshan_log_put_job(void *fd, void *job);
int darshan_log_put_exe(void *fd, char *buf);
int darshan_log_put_mounts(void *fd, void *mnts, int count);
int darshan_log_put_namehash(void *fd, void *hash);
int darshan_log_put_mod(void *fd, int mod_id, void *buf, int size, int ver);
void darshan_log_close(void *fd);
typedef struct { void *tbl; void *prev; void *next; void *hh_prev; void *hh_next;
                 const void *key; unsigned keylen; unsigned hashv; } iok_ut_hash_handle;
typedef struct { void *name_record; iok_ut_hash_handle hlink; } iok_name_ref;
"""

_SEGMENT = np.dtype([("offset", "<i8"), ("length", "<i8"), ("start_time", "<f8"), ("end_time", "<f8")])
_DXT_HEAD = np.dtype([("id", "<u8"), ("rank", "<i8"), ("shared_record", "<i8"), ("hostname", "S64"),
                      ("write_count", "<i8"), ("read_count", "<i8")])


def record_id(name: str) -> int:
    """A 64-bit id per file name (Darshan hashes the name too; readers only
    match ids between the name records and the modules)."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "little")


def _library() -> tuple[Any, Any, Any]:
    """(PyDarshan's backend, a cffi FFI with the writer, the library PyDarshan loaded)."""
    try:
        import cffi  # type: ignore[import-untyped]  # (no stubs) PyDarshan's own dependency
        from darshan.backend import cffi_backend as backend  # type: ignore[import-untyped]
    except (ImportError, RuntimeError) as e:
        raise LogError(f"PyDarshan is not usable here ({e}); scripts/setup.sh installs it") from None
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "libdarshan-util" in line}
    if not paths:
        raise LogError("PyDarshan loaded no libdarshan-util that this process can see")
    ffi = cffi.FFI()
    ffi.cdef(_WRITER_CDEF)
    return backend, ffi, ffi.dlopen(sorted(paths)[0])


def _counter_records(backend: Any, module: str, recs: list[Record]) -> np.ndarray[Any, Any]:
    cn, fn = backend.counter_names(module), backend.fcounter_names(module)
    dt = np.dtype([("id", "<u8"), ("rank", "<i8"), ("c", "<i8", (len(cn),)), ("f", "<f8", (len(fn),))])
    if dt.itemsize != backend.ffi.sizeof(STRUCT[module]):
        raise LogError(f"{module}: {len(cn)} + {len(fn)} counters do not make PyDarshan's "
                       f"{STRUCT[module]} ({backend.ffi.sizeof(STRUCT[module])} bytes)")
    ci, fi = {n: i for i, n in enumerate(cn)}, {n: i for i, n in enumerate(fn)}
    out = np.zeros(len(recs), dt)
    for k, r in enumerate(recs):
        out["id"][k], out["rank"][k] = record_id(r.name), r.rank
        try:
            for n, v in r.c.items():
                out["c"][k, ci[n]] = v
            for n, x in r.f.items():
                out["f"][k, fi[n]] = x
        except KeyError as e:
            raise LogError(f"{r.name}: {module} has no counter {e.args[0]!r} (the names are Darshan's, "
                           "as `iokernels-darshan records LOG` prints them)") from None
    return out


def _dxt_record(d: Dxt, shared: bool) -> bytes:
    head = np.zeros(1, _DXT_HEAD)
    head["id"], head["rank"] = record_id(d.name), d.rank
    head["shared_record"] = -1 if shared else 0
    head["hostname"] = f"node{d.rank:05d}".encode()
    head["write_count"], head["read_count"] = len(d.writes), len(d.reads)
    segs = [np.array([(s["offset"], s["length"], s["start_time"], s["end_time"]) for s in side], _SEGMENT)
            for side in (d.writes, d.reads)]
    return head.tobytes() + segs[0].tobytes() + segs[1].tobytes()


def write_log(log: Log, path: str, start_time: int = 1_700_000_000) -> None:
    """Write `log` (records, DXT records, job) as a Darshan log at `path`;
    an existing file there is replaced only when the log is complete."""
    backend, ffi, lib = _library()
    mods: dict[str, list[Any]] = defaultdict(list)
    for r in log.records:
        if r.module not in STRUCT:
            raise LogError(f"{r.name}: module {r.module} is not written (only {', '.join(STRUCT)})")
        mods[r.module].append(r)
    for d in log.dxt:
        mods[d.module].append(d)
    shared = {r.name for r in log.records if r.rank == -1}
    partial = sum(1 << MODULE_ID[m] for m, p in log.modules.items() if p and m in MODULE_ID)
    names = sorted({x.name for recs in mods.values() for x in recs})

    tmp = f"{path}.part{os.getpid()}"
    fd = lib.darshan_log_create(tmp.encode(), ZLIB, partial)
    if fd == ffi.NULL:
        raise LogError(f"libdarshan-util cannot create {tmp}")
    ok = False
    try:
        job = backend.ffi.new("struct darshan_job *")
        job.nprocs, job.jobid, job.uid = log.nprocs, log.jobid, os.getuid()
        ns = max(0, round(log.run_time * 1e9))
        job.start_time_sec, job.end_time_sec, job.end_time_nsec = start_time, start_time + ns // 10**9, ns % 10**9
        meta = "lib_ver=3.5.0\n" + (f"h={log.hints}\n" if log.hints else "")
        job.metadata = meta.encode()[:1023]
        exe = ffi.new("char[]", log.exe.encode()[:EXE_LEN - 64])
        # one mount point, "/": the reader finds the executable line's end at
        # the mount table's first line break
        mnt = ffi.new(f"char[{2 * EXE_LEN}]", b"unknown")
        mnt[EXE_LEN] = b"/"
        # name records: [id (8 bytes), name, NUL] each, listed through hlink.next
        blob = b"".join(record_id(n).to_bytes(8, "little") + n.encode() + b"\0" for n in names)
        nbuf = ffi.new("char[]", blob)
        refs = ffi.new("iok_name_ref[]", max(1, len(names)))
        off = 0
        for i, n in enumerate(names):
            refs[i].name_record = nbuf + off
            refs[i].hlink.next = ffi.addressof(refs, i + 1) if i + 1 < len(names) else ffi.NULL
            off += 8 + len(n.encode()) + 1
        steps = [lib.darshan_log_put_job(fd, job) == 0, lib.darshan_log_put_exe(fd, exe) == 0,
                 lib.darshan_log_put_mounts(fd, mnt, 1) == 0,
                 lib.darshan_log_put_namehash(fd, refs if names else ffi.NULL) == 0]
        for m in sorted(mods, key=MODULE_ID.__getitem__):
            chunks = ([_counter_records(backend, m, mods[m]).tobytes()] if m in STRUCT
                      else [_dxt_record(d, d.name in shared) for d in mods[m]])
            for c in chunks:
                steps.append(lib.darshan_log_put_mod(fd, MODULE_ID[m], ffi.from_buffer(c), len(c),
                                                     MODULE_VER[m]) == 0)
        ok = all(steps)
    finally:
        lib.darshan_log_close(fd)
        if not ok and os.path.exists(tmp):
            os.unlink(tmp)
    if not ok:
        raise LogError(f"libdarshan-util could not write {path} (its message above)")
    os.replace(tmp, path)
