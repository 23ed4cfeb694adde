"""The storage ceiling of a directory: what plain contiguous I/O reaches
there, the reference every run in that directory is placed against (an
"I/O roofline": a kernel at 40 % of the ceiling has room a library could
win; one at 95 % is bound by the storage).

Five measurements of the same size, in this order:

    collective write     raw_write (MPI_File_write_at_all), file kept
    collective read      raw_write --read-only, after the file's pages were
                         dropped from the page cache (a cold read)
    independent write    raw_write --independent (MPI_File_write_at)
    independent read     raw_write --independent --read-only, cold
    synced write         one process, sequential write() + fsync(): what
                         reaches stable storage, whatever the cache does

The page cache: reads are made cold with posix_fadvise(DONTNEED) on the
fsync'ed file (any user; this file's pages only).  Writes are absorbed by the cache unless they are much larger
than RAM; the default size is twice the RAM when that fits in the free space
(checked), else the measurement says the cache was not defeated and the
synced write is the durable figure.

Stored as an iokernels-result/1 document with kernel "ceiling": one `files`
entry per measurement (so report/compare read it like any run), a `ceiling`
block (directory, mount point, file system, RAM, what the cache did) and the
manifest of the collective raw_write run."""
import json
import os
import platform
import shlex
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from . import launch, paths, results
from ._types import Doc, Row, StrPath
from .errors import UsageError
from .table import format_bytes

KERNEL = "ceiling"
DEFAULT_CHUNK = 8 * 1024 * 1024
MEASUREMENTS: tuple[tuple[str, str, list[str]], ...] = (            # label, mode, raw_write options
    ("collective", "write", []),
    ("collective", "read", ["--read-only"]),
    ("independent", "write", ["--independent"]),
    ("independent", "read", ["--independent", "--read-only"]),
)


def ram_bytes() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def mount_of(path: StrPath) -> tuple[str, str]:
    """(mount point, file system type) holding `path`, from /proc/mounts."""
    path = os.path.realpath(path)
    best = ("/", "unknown")
    try:
        with open("/proc/mounts") as f:
            for line in f:
                parts = line.split()
                if len(parts) < 3:
                    continue
                mnt = parts[1].replace("\\040", " ")
                if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best[0]):
                    best = (mnt, parts[2])
    except OSError:
        pass
    return best


def choose_size(directory: StrPath, size: int | None = None) -> tuple[int, int]:
    """(bytes, note): the requested size, or twice the RAM when the free
    space holds it with 10 % to spare, else half the free space (capped at
    RAM) with a note that writes may stay in the cache."""
    ram = ram_bytes()
    st = os.statvfs(directory)
    free = st.f_bavail * st.f_frsize
    if size:
        if size > free * 0.9:
            raise UsageError(f"{directory}: {size} bytes do not fit in its {free} free bytes (with 10 % to spare)",
                             "give a smaller --size")
        return size, free
    if 2 * ram <= free * 0.9:
        return 2 * ram, free
    return max(min(ram, int(free * 0.45)), DEFAULT_CHUNK), free


def drop_from_cache(path: StrPath) -> str:
    """Makes the next read of `path` come from storage; returns how.  Only
    this file's pages go (posix_fadvise), not the node's whole cache
    (drop_caches would slow every other job on a shared node)."""
    how: list[str] = []
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        how.append("posix_fadvise(DONTNEED)")
    except OSError:
        pass
    finally:
        os.close(fd)
    return " + ".join(how) or "none (reads may be served from the page cache)"


def synced_write(path: StrPath, size: int, chunk: int) -> float:
    """One process writes `size` bytes sequentially and fsyncs; returns seconds
    from open to after fsync and close.  The data are random (a compressing
    or deduplicating file system cannot shortcut them)."""
    block = os.urandom(min(chunk, size))
    t0 = time.perf_counter()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        left = size
        while left > 0:
            n = os.write(fd, block[:min(left, len(block))])
            left -= n
        os.fsync(fd)
    finally:
        os.close(fd)
    return time.perf_counter() - t0


def _entry(label: str, mode: str, nbytes: int, seconds: float, extra: Mapping[str, Any] | None = None) -> Doc:
    """A measurement in the shape of a kernel's per-file entry."""
    mib_s = nbytes / results.MiB / seconds if seconds > 0 else 0.0
    e = {"label": label, "mode": mode, "backend": "raw-mpiio" if label != "synced" else "posix",
         "strategy": "-", "bytes": {"total": nbytes}, "seconds": {"end_to_end": {"max": seconds}},
         "bandwidth_mib_s": {"open_to_close": mib_s}}
    e.update(extra or {})
    return e


def measure(directory: StrPath, ranks: int, build: StrPath, launcher: Sequence[str] | None = None,
            size: int | None = None, chunk: int = DEFAULT_CHUNK, env: Mapping[str, str] | None = None,
            timeout: float = 3600, log: Callable[[str], object] = print) -> Doc:
    """Runs the five measurements in `directory`; returns the document."""
    directory = Path(directory).resolve()
    if not directory.is_dir():
        raise UsageError(f"{directory} is not a directory", "give the directory whose storage you measure")
    if not os.access(directory, os.W_OK):
        raise UsageError(f"{directory} is not writable", "measure a directory you can write to")
    raw = paths.program(build, "raw_write")
    if not raw.is_file():
        raise UsageError(f"raw_write is not in {paths.bin_dir(build)}", paths.not_found_hint())
    size, free = choose_size(directory, size)
    chunk = min(chunk, size)
    ram = ram_bytes()
    launch_argv = [a.replace("{ranks}", str(ranks))
                   for a in (launcher or ["mpiexec", "--oversubscribe", "-n", "{ranks}"])]
    target = directory / f".iokernels-ceiling-{platform.node()}-{os.getpid()}.dat"
    scratch_json = directory / f".iokernels-ceiling-{os.getpid()}.json"
    files: list[Doc] = []
    manifest: Doc | None = None
    drops: list[str] = []
    run_env = {**os.environ, **(env or {})}
    try:
        for label, mode, opts in MEASUREMENTS:
            if mode == "read":
                drops.append(drop_from_cache(target))
            argv = launch_argv + [str(raw), "-n", str(size), "-c", str(chunk), "-o", str(target), *opts,
                               "--json", str(scratch_json)]
            if mode == "write":
                argv += ["-k", "--overwrite"]
            log(f"ceiling: {label} {mode} of {size} bytes on {ranks} ranks ...")
            p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=run_env)
            if p.returncode != 0 or not scratch_json.is_file():
                tail = "\n".join((p.stderr or p.stdout).strip().splitlines()[-5:])
                raise UsageError(f"ceiling: {shlex.join(argv)} failed (exit {p.returncode}):\n{tail}",
                                 "check that MPI runs here (try the command by hand)")
            doc = json.loads(scratch_json.read_text())
            scratch_json.unlink()
            s = doc["summary"]
            secs = s["read_seconds"] if mode == "read" else s["write_seconds"]
            files.append(_entry(label, mode, s["bytes"], secs,
                                {"cache": drops[-1] if mode == "read" else None, "command": argv}))
            if manifest is None:
                manifest = doc.get("manifest", {})
        log(f"ceiling: synced sequential write of {size} bytes (one process, fsync) ...")
        secs = synced_write(target, size, chunk)
        files.append(_entry("synced", "write", size, secs, {"cache": "fsync before close"}))
    finally:
        for f in (target, scratch_json):
            try:
                f.unlink()
            except OSError:
                pass
    mount, fstype = mount_of(directory)
    defeated = size >= 2 * ram
    bw = {f"{e['label']}_{e['mode']}": e["bandwidth_mib_s"]["open_to_close"] for e in files}
    summary = {f"{k}_mib_s": v for k, v in bw.items()}
    summary["write_mib_s"] = max(bw["collective_write"], bw["independent_write"])
    summary["read_mib_s"] = max(bw["collective_read"], bw["independent_read"])
    summary["synced_write_mib_s"] = bw["synced_write"]
    manifest = dict(manifest or {})
    manifest["processes"] = ranks
    return {
        "schema": results.SCHEMA, "kernel": KERNEL,
        "params": {"directory": str(directory), "size": size, "chunk": chunk, "ranks": ranks, "strategy": "-"},
        "summary": summary, "files": files, "manifest": manifest,
        "ceiling": {
            "directory": str(directory), "mount_point": mount, "filesystem": fstype, "host": platform.node(),
            "ram_bytes": ram, "free_bytes": free, "size": size,
            "write_cache_defeated": defeated,
            "write_cache_note": ("size >= 2 x RAM: most bytes went to storage" if defeated else
                                 f"size {format_bytes(size)} < 2 x RAM ({format_bytes(2 * ram)}): MPI-IO "
                                 "writes may be absorbed by the "
                                 "page cache; the synced write is the durable figure"),
            "read_cache": drops[0] if drops else "",
            "measured_utc": launch.utc_now(),
        },
    }


def one_line(doc: Doc) -> str:
    s, c = doc["summary"], doc["ceiling"]
    return (f"ceiling of {c['directory']} ({c['filesystem']}, {doc['params']['ranks']} ranks, "
            f"{doc['params']['size'] / results.MiB:.0f} MiB): write {s['write_mib_s']:.1f} MiB/s "
            f"(collective {s['collective_write_mib_s']:.1f}, independent {s['independent_write_mib_s']:.1f}), "
            f"cold read {s['read_mib_s']:.1f} MiB/s, synced write {s['synced_write_mib_s']:.1f} MiB/s")


# ------------------------------------------------------------ using ceilings

def is_ceiling(doc: Doc) -> bool:
    return bool(doc.get("kernel") == KERNEL)


def find(doc: Doc, ceilings: Sequence[Doc]) -> Doc | None:
    """The ceiling of the directory `doc` ran in: the one whose directory
    holds the run's working directory or files (deepest first), else one on
    the same host and mount point; None when there is none."""
    given = [doc.get("suite_run", {}).get("cwd")]
    given += [f.get("path") for f in doc.get("files", []) if isinstance(f.get("path"), str)
              and os.path.isabs(f["path"])]
    where = [os.path.realpath(w) for w in given if w]
    best: Doc | None = None
    depth = -1
    for c in ceilings:
        d = c["ceiling"]["directory"]
        for w in where:
            if (w == d or w.startswith(d.rstrip("/") + "/")) and len(d) > depth:
                best, depth = c, len(d)
    if best or not where:
        return best
    host = doc.get("manifest", {}).get("host")
    for c in ceilings:
        if c["ceiling"].get("host") == host and mount_of(where[0])[0] == c["ceiling"].get("mount_point"):
            return c
    return None


def reference(ceiling_doc: Doc, mode: str) -> float:
    """Ceiling bandwidth (MiB/s) for a row of this mode: the better MPI-IO
    write for writes, the better cold read for reads and verification."""
    s = ceiling_doc["summary"]
    return float(s["write_mib_s"] if mode == "write" else s["read_mib_s"])


def percent(row: Row, doc: Doc, ceilings: Sequence[Doc]) -> float | None:
    """A row's bandwidth as % of its directory's ceiling, or None."""
    c = find(doc, ceilings)
    if not c or not row.get("mib_s"):
        return None
    ref = reference(c, row.get("mode") or "")
    return 100.0 * float(row["mib_s"]) / ref if ref else None
