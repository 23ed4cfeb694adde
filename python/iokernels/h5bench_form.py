"""h5bench's JSON driver file, read as an iokernels suite.

h5bench (hpc-io/h5bench) describes a session as

    {"mpi": {"command": "mpirun", "ranks": "4", "configuration": "--oversubscribe -np 4"},
     "vol": {"library": "...", "path": "...", "connector": "..."},          # optional
     "file-system": {"lustre": {"stripe-size": "1M", "stripe-count": "4"}},  # optional
     "directory": "storage",
     "benchmarks": [{"benchmark": "write", "file": "test.h5", "configuration": {"MEM_PATTERN": "CONTIG", ...}},
                    {"benchmark": "read",  "file": "test.h5", "configuration": {"READ_OPTION": "FULL", ...}}]}

Its driver launches each entry in order and checks the exit code.  Here each
entry becomes a suite case: `write` (and `write_var_normal_dist`) runs
`iokernels vpic`, `read` runs `iokernels bdcats`, on DIRECTORY/FILE, with
every configuration key passed as the kernel's named option of the same name
(`DIM_1` -> `--dim-1`), so the kernels validate them exactly as in the
KEY=VALUE form.  Written files are kept for the reads that follow.  The
results are then collected, reported, compared and plotted like any suite's.
Lustre striping becomes the MPI-IO hints striping_unit/striping_factor (set
at file creation); a VOL connector becomes HDF5_VOL_CONNECTOR/HDF5_PLUGIN_PATH.
"""
import re
import shlex
from pathlib import Path

from .errors import UsageError

KERNELS = {"write": "vpic", "write_var_normal_dist": "vpic", "read": "bdcats"}
TOP_KEYS = {"mpi", "vol", "file-system", "directory", "benchmarks"}
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def size_bytes(text, where="size"):
    """h5bench's sizes: "4M", "4 M", "1MB" = 4 Mi...; a UsageError naming `where` otherwise."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMGT]?)B?\s*", str(text), re.IGNORECASE)
    if not m:
        raise UsageError(f"{where}: {text!r} is not a size", 'write e.g. "1M" or "1048576"')
    return int(m.group(1)) * UNITS[m.group(2).upper()]


def _launcher(mpi, where):
    """(launcher argv with {ranks}, ranks) from the "mpi" section."""
    if not isinstance(mpi, dict):
        raise UsageError(f"{where}: 'mpi' must be an object with 'command' and 'ranks'")
    command = str(mpi.get("command", "mpirun"))
    extra = shlex.split(str(mpi.get("configuration", "")))
    ranks = mpi.get("ranks")
    # A rank count inside "configuration" is what h5bench would launch with.
    for flag in ("-n", "-np", "--np", "--n"):
        if flag in extra:
            i = extra.index(flag)
            if i + 1 >= len(extra):
                raise UsageError(f"{where}: 'mpi.configuration' ends with {flag} and no count")
            ranks = extra[i + 1]
            del extra[i:i + 2]
    try:
        ranks = int(ranks)
    except (TypeError, ValueError):
        raise UsageError(f"{where}: 'mpi.ranks' must be a number of ranks, got {ranks!r}",
                         'e.g. "mpi": {"command": "mpirun", "ranks": "4"}')
    if ranks <= 0:
        raise UsageError(f"{where}: 'mpi.ranks' must be positive, got {ranks}")
    return [command, *extra, "-n", "{ranks}"], ranks


def _common_args(doc, where):
    """Options every entry gets: striping hints from 'file-system'."""
    args = []
    fs = doc.get("file-system", {}) or {}
    if not isinstance(fs, dict):
        raise UsageError(f"{where}: 'file-system' must be an object")
    lustre = fs.get("lustre")
    if lustre:
        if "stripe-size" in lustre:
            args += ["--hint", f"striping_unit={size_bytes(lustre['stripe-size'], where + ': lustre stripe-size')}"]
        if "stripe-count" in lustre:
            args += ["--hint", f"striping_factor={int(lustre['stripe-count'])}"]
    return args


def _vol_env(doc, where):
    vol = doc.get("vol", {}) or {}
    if not isinstance(vol, dict):
        raise UsageError(f"{where}: 'vol' must be an object")
    env = {}
    if vol.get("connector"):
        env["HDF5_VOL_CONNECTOR"] = str(vol["connector"])
    if vol.get("path"):
        env["HDF5_PLUGIN_PATH"] = str(vol["path"])
    if vol.get("library"):
        env["LD_LIBRARY_PATH"] = str(vol["library"])
    return env


def to_suite(doc, path):
    """The h5bench document -> (suite dict for suite.from_dict, directories to create)."""
    where = str(path)
    if not isinstance(doc, dict):
        raise UsageError(f"{where}: an h5bench configuration is a JSON object")
    for key in doc:
        if key not in TOP_KEYS:
            raise UsageError(f"{where}: unknown h5bench key '{key}'", "known keys: " + ", ".join(sorted(TOP_KEYS)))
    launcher, ranks = _launcher(doc.get("mpi", {}), where)
    directory = Path(str(doc.get("directory", ".")))
    benchmarks = doc.get("benchmarks")
    if not isinstance(benchmarks, list) or not benchmarks:
        raise UsageError(f"{where}: 'benchmarks' must be a non-empty list",
                         'e.g. "benchmarks": [{"benchmark": "write", "file": "test.h5", "configuration": {...}}]')
    common = _common_args(doc, where)
    cases = []
    for no, entry in enumerate(benchmarks, 1):
        w = f"{where}: benchmarks[{no - 1}]"
        if not isinstance(entry, dict):
            raise UsageError(f"{w} is not an object")
        name = entry.get("benchmark")
        if name not in KERNELS:
            raise UsageError(f"{w}: benchmark {name!r} has no iokernels counterpart",
                             "supported: " + ", ".join(sorted(KERNELS)) +
                             " (the E3SM, S3D and GCRM kernels have their own suites: see python/iokernels/suites)")
        file = entry.get("file")
        if not isinstance(file, str) or not file:
            raise UsageError(f"{w}: 'file' is missing", 'add e.g. "file": "test.h5"')
        config = entry.get("configuration", {})
        if not isinstance(config, dict):
            raise UsageError(f"{w}: 'configuration' must be an object of KEY: VALUE")
        args = []
        for key, value in config.items():
            if isinstance(value, (dict, list)) or not re.fullmatch(r"[A-Z][A-Z0-9_]*", str(key)):
                raise UsageError(f"{w}: configuration key {key!r} = {value!r} is not an h5bench KEY: VALUE",
                                 "keys are upper case (DIM_1); values are strings or numbers")
            args += ["--" + key.lower().replace("_", "-"), str(value)]
        target = str(directory / file) if directory.is_absolute() else "{cwd}/" + str(directory / file)
        if KERNELS[name] == "vpic":
            args += ["-o", target, "--keep", "--overwrite"]  # the reads that follow need it
        else:
            args += ["-i", target]
        cases.append({"name": f"{no:02d}-{name}-{Path(file).stem}", "kernel": KERNELS[name], "ranks": ranks,
                      "args": args + common, "launcher": launcher})
    suite = {"name": Path(path).stem, "description": f"h5bench configuration {path}"}
    env = _vol_env(doc, where)
    if env:
        suite["env"] = env
    return {"suite": suite, "case": cases}, [directory]
