"""h5bench's JSON driver file, read as an iokernels suite.

h5bench (hpc-io/h5bench) describes a session as

    {"mpi": {"command": "mpirun", "ranks": "4", "configuration": "--oversubscribe -np 4"},
     "vol": {"library": "...", "path": "...", "connector": "..."},          # optional
     "file-system": {"lustre": {"stripe-size": "1M", "stripe-count": "4"}},  # optional
     "directory": "storage",
     "benchmarks": [{"benchmark": "write", "file": "test.h5", "configuration": {"MEM_PATTERN": "CONTIG", ...}},
                    {"benchmark": "read",  "file": "test.h5", "configuration": {"READ_OPTION": "FULL", ...}}]}

Its driver launches each entry in order and checks the exit code.  Here each
entry becomes a suite case (BENCHMARKS below): the write family runs
`iokernels vpic`, `read` runs `iokernels bdcats`, on DIRECTORY/FILE, with
every configuration key passed as the kernel's named option of the same name
(`DIM_1` -> `--dim-1`), so the kernels validate them exactly as in the
KEY=VALUE form.  Written files are kept for the reads that follow.

As h5bench's driver does: MODE is not passed on (ASYNC/LOG runs synchronously
here, with a note: there is no async VOL connector); COMPRESS=YES writes
collectively whatever COLLECTIVE_DATA says, with a note (parallel HDF5 has no
independent compressed writes); CSV_FILE lands in the
run's own directory ({outdir}, h5bench's DIRECTORY/<id>); `overwrite` and
`append` get IO_OPERATION; the `e3sm` entry runs `iokernels e3sm` with its
one-letter keys as options (empty values dropped), `-a hdf5 -x blob`,
`-o {outdir}/FILE` and DIRECTORY/MAP.  `metadata` runs `iokernels metadata`
with each configuration key as its option (`--steps 20`; the kernel reads
them as hdf5_iotest's .ini keys), the file DIRECTORY/FILE and csv-file in
{outdir}; `exerciser` runs `iokernels exerciser` with its flags as h5bench's
driver builds them (`--numdims 2 --minels 8 8`; a true binary key is a bare
flag) and the file in {outdir}.  `write-unlimited` sets UNLIMITED=YES,
and so does every later entry on the same file, so a read or append finds
the layout it was written with.  The `openpmd` entries run `iokernels
openpmd_write` ("operation": "write": dim, balanced, ratio, steps, minBlock,
grid as --dim ... --grid) and `openpmd_read` ("operation": "read": pattern),
with h5bench's fileLocation (DIRECTORY) and file name 8a_parallel_<dim>D<b|u>.h5;
a read takes the configuration of the openpmd write before it (h5bench's
reader opens a fixed 8a_parallel_3Db name; here the file that write wrote).
`amrex` runs `iokernels amrex` with each configuration key as its option
(`--ncells 64`; the kernel reads them as h5bench_amrex's input keys) and its
files in {outdir}/FILE.  `macsio` runs `iokernels macsio` with each key as
--KEY and its value's words, --interface hdf5 and --filebase {outdir}/FILE
without .h5, as h5bench's driver builds MACSio's command line.
The results are then collected, reported, compared and plotted like any suite's.
Lustre striping becomes the MPI-IO hints striping_unit/striping_factor (set
at file creation); a VOL connector becomes HDF5_VOL_CONNECTOR/HDF5_PLUGIN_PATH.
"""
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from ._types import Doc, StrPath
from .errors import UsageError

# benchmark -> (kernel, keys it implies).  h5bench 1.6's driver knows
# write_var_normal_dist; its sample names the same binary write_normal_dist.
BENCHMARKS: dict[str, tuple[str, dict[str, str]]] = {
    "write": ("vpic", {}),
    "write-unlimited": ("vpic", {"UNLIMITED": "YES"}),
    "write_var_normal_dist": ("vpic", {}),
    "write_normal_dist": ("vpic", {}),
    "overwrite": ("vpic", {"IO_OPERATION": "OVERWRITE"}),
    "append": ("vpic", {"IO_OPERATION": "APPEND"}),
    "read": ("bdcats", {}),
    "e3sm": ("e3sm", {}),
    "metadata": ("metadata", {}),
    "exerciser": ("exerciser", {}),
    "amrex": ("amrex", {}),
    "macsio": ("macsio", {}),
}
KERNELS = {name: kernel for name, (kernel, _) in BENCHMARKS.items()}
# h5bench_exerciser's flags that its driver passes bare when the value is "true".
EXERCISER_FLAGS = {"keepfile", "usechunked", "indepio", "addattr", "derivedtype", "metacoll"}
# h5bench's default standard deviation (bench_params_init: stdev_dim_1 = 1).
NORMAL_DIST_DEFAULT_STDEV = "1"
TOP_KEYS = {"mpi", "vol", "file-system", "directory", "benchmarks"}
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def size_bytes(text: object, where: str = "size") -> int:
    """h5bench's sizes: "4M", "4 M", "1MB" = 4 Mi...; a UsageError naming `where` otherwise."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMGT]?)B?\s*", str(text), re.IGNORECASE)
    if not m:
        raise UsageError(f"{where}: {text!r} is not a size", 'write e.g. "1M" or "1048576"')
    return int(m.group(1)) * UNITS[m.group(2).upper()]


def _launcher(mpi: Any, where: str) -> tuple[list[str], int]:
    """(launcher argv with {ranks}, ranks) from the "mpi" section."""
    if not isinstance(mpi, dict):
        raise UsageError(f"{where}: 'mpi' must be an object with 'command' and 'ranks'")
    command = str(mpi.get("command", "mpirun"))
    extra = shlex.split(str(mpi.get("configuration", "")))
    ranks: Any = mpi.get("ranks")
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
                         'e.g. "mpi": {"command": "mpirun", "ranks": "4"}') from None
    if ranks <= 0:
        raise UsageError(f"{where}: 'mpi.ranks' must be positive, got {ranks}")
    return [command, *extra, "-n", "{ranks}"], ranks


def _common_args(doc: Doc, where: str) -> list[str]:
    """Options every entry gets: striping hints from 'file-system'."""
    args: list[str] = []
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


def _vol_env(doc: Doc, where: str) -> dict[str, str]:
    vol = doc.get("vol", {}) or {}
    if not isinstance(vol, dict):
        raise UsageError(f"{where}: 'vol' must be an object")
    env: dict[str, str] = {}
    if vol.get("connector"):
        env["HDF5_VOL_CONNECTOR"] = str(vol["connector"])
    if vol.get("path"):
        env["HDF5_PLUGIN_PATH"] = str(vol["path"])
    if vol.get("library"):
        env["LD_LIBRARY_PATH"] = str(vol["library"])
    return env


def to_suite(doc: Any, path: StrPath) -> tuple[Doc, list[Path]]:
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
    cases: list[Doc] = []
    notes: list[str] = []
    unlimited_files: set[str] = set()
    openpmd_write: dict[str, str] = {}  # the last openpmd write entry's settings, for the reads after it
    for no, entry in enumerate(benchmarks, 1):
        w = f"{where}: benchmarks[{no - 1}]"
        if not isinstance(entry, dict):
            raise UsageError(f"{w} is not an object")
        name = entry.get("benchmark")
        if name == "openpmd":
            kernel, args = _openpmd_args(entry, directory, openpmd_write, w, notes)
            cases.append({"name": f"{no:02d}-openpmd-{kernel.split('_')[1]}", "kernel": kernel, "ranks": ranks,
                          "args": args + common, "launcher": launcher})
            continue
        if name not in BENCHMARKS:
            raise UsageError(f"{w}: benchmark {name!r} has no iokernels counterpart",
                             "supported: " + ", ".join(sorted([*BENCHMARKS, "openpmd"])) +
                             " (the S3D and GCRM kernels have their own suites: see python/iokernels/suites)")
        config = entry.get("configuration", {})
        if not isinstance(config, dict):
            raise UsageError(f"{w}: 'configuration' must be an object of KEY: VALUE")
        kernel, implied = BENCHMARKS[name]
        file = entry.get("file", "hdf5TestFile" if kernel == "exerciser" else None)  # the exerciser names its own
        if not isinstance(file, str) or not file:
            raise UsageError(f"{w}: 'file' is missing", 'add e.g. "file": "test.h5"')
        if kernel == "e3sm":
            args = _e3sm_args(config, directory, file, w, notes)
        elif kernel == "metadata":
            args = _metadata_args(config, directory, file, w, notes)
        elif kernel == "exerciser":
            args = _exerciser_args(config, w)
        elif kernel == "amrex":
            args = _amrex_args(config, file, w, notes)
        elif kernel == "macsio":
            args = _macsio_args(config, file, w)
        else:
            args = _pattern_args(name, config, implied, directory, file, unlimited_files, w, notes)
        cases.append({"name": f"{no:02d}-{name}-{Path(file).stem}", "kernel": kernel, "ranks": ranks,
                      "args": args + common, "launcher": launcher})
    for n in notes:
        print(f"iokernels: note: {n}", file=sys.stderr)
    description = f"h5bench configuration {path}" + ("; notes: " + " ".join(notes) if notes else "")
    suite: Doc = {"name": Path(path).stem, "description": description}
    env = _vol_env(doc, where)
    if env:
        suite["env"] = env
    return {"suite": suite, "case": cases}, [directory]


def _in_directory(directory: Path, name: str) -> str:
    """DIRECTORY/NAME as h5bench resolves it: relative to where it runs."""
    p = directory / name
    return str(p) if p.is_absolute() else "{cwd}/" + str(p)


def _pattern_args(name: str, config: Doc, implied: dict[str, str], directory: Path, file: str,
                  unlimited_files: set[str], w: str, notes: list[str]) -> list[str]:
    """Arguments of vpic/bdcats for one h5bench_patterns entry."""
    settings: dict[str, str] = {}
    for key, value in config.items():
        if isinstance(value, (dict, list)) or not re.fullmatch(r"[A-Z][A-Z0-9_]*", str(key)):
            raise UsageError(f"{w}: configuration key {key!r} = {value!r} is not an h5bench KEY: VALUE",
                             "keys are upper case (DIM_1); values are strings or numbers")
        settings[key] = str(value)
    # MODE never reaches h5bench's binaries either: its driver loads the async
    # VOL connector for ASYNC/LOG instead, when there is one.
    mode = settings.pop("MODE", "SYNC").strip().upper()
    if mode in ("ASYNC", "LOG"):
        notes.append(f"{w} ({name}) asks for MODE={mode}; it runs synchronously: iokernels has no HDF5 "
                     "asynchronous VOL connector (h5bench itself falls back to SYNC without one).")
    if name in ("write_var_normal_dist", "write_normal_dist"):
        settings.setdefault("STDEV_DIM_1", NORMAL_DIST_DEFAULT_STDEV)
    # Parallel HDF5 writes compressed (filtered) datasets collectively only;
    # given independent writes, h5bench's binary fails inside H5Dwrite and
    # still exits 0.  The entry runs with collective data, and says so.
    if (BENCHMARKS[name][0] == "vpic" and settings.get("COMPRESS", "NO").strip().upper() == "YES"
            and settings.get("COLLECTIVE_DATA", "NO").strip().upper() != "YES"):
        settings["COLLECTIVE_DATA"] = "YES"
        notes.append(f"{w} ({name}) asks for COMPRESS=YES with independent data (COLLECTIVE_DATA=NO); it writes "
                     "collectively: parallel HDF5 writes compressed datasets collectively only.")
    if name == "write-unlimited":
        unlimited_files.add(file)
    elif file in unlimited_files:
        settings.setdefault("UNLIMITED", "YES")  # the layout the file was written with
    settings.update(implied)
    args: list[str] = []
    for key, value in settings.items():
        if key == "CSV_FILE":
            # h5bench writes it into the run's own directory
            value = value if Path(value).is_absolute() else "{outdir}/" + value
        args += ["--" + key.lower().replace("_", "-"), value]
    target = _in_directory(directory, file)
    if BENCHMARKS[name][0] == "vpic":
        args += ["-o", target, "--keep", "--overwrite"]  # the reads that follow need it
    else:
        args += ["-i", target]
    return args


# h5bench's openpmd keys (its driver writes each to openpmd.input) -> the kernels' options.
OPENPMD_WRITE_KEYS = {"dim": "--dim", "balanced": "--balanced", "ratio": "--ratio", "steps": "--steps",
                      "minBlock": "--min-block", "grid": "--grid", "rankBlocks": "--rank-blocks"}


def _openpmd_args(entry: Doc, directory: Path, last_write: dict[str, str], w: str,
                  notes: list[str]) -> tuple[str, list[str]]:
    """(kernel, arguments) of one h5bench openpmd entry.  A write's settings
    are remembered in `last_write` for the reads that follow it."""
    config = entry.get("configuration", {})
    if not isinstance(config, dict):
        raise UsageError(f"{w}: 'configuration' must be an object of KEY: VALUE")
    if "file" in entry:
        notes.append(f"{w}: openpmd takes no file name (h5bench warns too): it writes 8a_parallel_<dim>D<b|u>.h5 "
                     "in the directory.")
    operation = str(config.get("operation", ""))
    location = ["--file-location", str(directory) if directory.is_absolute() else "{cwd}/" + str(directory)]
    if operation == "write":
        last_write.clear()
        for key, value in config.items():
            if key == "operation":
                continue
            if key not in OPENPMD_WRITE_KEYS:
                raise UsageError(f"{w}: openpmd write key {key!r} is not one of h5bench_openpmd_write's",
                                 "keys: " + ", ".join(OPENPMD_WRITE_KEYS))
            last_write[key] = str(value)
        args = [a for k, v in last_write.items() for a in (OPENPMD_WRITE_KEYS[k], v)]
        return "openpmd_write", args + location + ["--keep", "--overwrite"]
    if operation == "read":
        extra = sorted(set(config) - {"operation", "pattern"})
        if extra:
            raise UsageError(f"{w}: openpmd read key {extra[0]!r} is not one of h5bench_openpmd_read's",
                             "a read entry has only 'pattern' (m, sx, sy, sz, fx, fy, fz)")
        if "pattern" not in config:
            raise UsageError(f"{w}: the openpmd read entry has no 'pattern'", 'add e.g. "pattern": "sy"')
        if not last_write:
            raise UsageError(f"{w}: an openpmd read needs an openpmd write entry before it",
                             "h5bench's reader reads the file the write entry wrote; put that entry first")
        args = [a for k, v in last_write.items() for a in (OPENPMD_WRITE_KEYS[k], v)]
        return "openpmd_read", args + ["--pattern", str(config["pattern"])] + location
    raise UsageError(f"{w}: openpmd 'operation' is {operation!r}", 'use "operation": "write" or "read"')


def _e3sm_args(config: Doc, directory: Path, file: str, w: str, notes: list[str]) -> list[str]:
    """h5bench's e3sm entry as its driver builds the command: each key with a
    value is -KEY VALUE (empty values are dropped, so "k": "" keeps nothing),
    then -a hdf5 -x blob, -o DIRECTORY/<id>/FILE and the map DIRECTORY/MAP."""
    if "map" not in config or not str(config["map"]):
        raise UsageError(f"{w}: the e3sm entry has no 'map' in its configuration",
                         'add e.g. "map": "datasets/map_f_case_16p.h5" (relative to "directory")')
    args: list[str] = []
    for key, value in config.items():
        if key in ("i", "o", "map") or value in ("", None):
            continue
        if not re.fullmatch(r"[A-Za-z]", str(key)):
            raise UsageError(f"{w}: e3sm configuration key {key!r} is not an E3SM-IO one-letter option",
                             'keys are E3SM-IO options without the dash, e.g. "r": "25"')
        if key in ("a", "x"):
            if str(value) != {"a": "hdf5", "x": "blob"}[key]:
                notes.append(f"{w}: e3sm '{key}': {value!r} is replaced by h5bench's -a hdf5 -x blob.")
            continue
        args += ["-" + key, str(value)]
    args += ["-a", "hdf5", "-x", "blob", "-o", "{outdir}/" + file, _in_directory(directory, str(config["map"]))]
    return args


def _option_items(config: Doc, pattern: str, w: str, what: str, example: str) -> list[tuple[str, object]]:
    """The entry's (key, value) pairs, each key a kernel option's name: a key
    not matching `pattern` or a nested value is `what` it cannot be."""
    for key, value in config.items():
        if not isinstance(key, str) or not re.fullmatch(pattern, key) or isinstance(value, (dict, list)):
            raise UsageError(f"{w}: {what.format(key=repr(key), value=repr(value))}", example)
    return list(config.items())


def _metadata_args(config: Doc, directory: Path, file: str, w: str, notes: list[str]) -> list[str]:
    """h5bench's metadata entry: its driver writes each key into hdf5_iotest.ini, then
    hdf5-file = DIRECTORY/FILE and csv-file in the run's directory; here each key is the
    kernel's option of the same name (it checks them as .ini keys)."""
    args: list[str] = []
    for key, value in _option_items(config, r"[a-z0-9-]+", w,
                                    "metadata configuration key {key} = {value} is not an hdf5_iotest .ini key",
                                    'keys are lower case with dashes, e.g. "process-rows": "2"'):
        if key == "hdf5-file":
            notes.append(f"{w}: metadata 'hdf5-file' is replaced by the entry's file, as h5bench's driver does.")
            continue
        text = str(value)
        if key == "csv-file":
            text = text if Path(text).is_absolute() else "{outdir}/" + text
        args += ["--" + key, text]
    return args + ["--hdf5-file", _in_directory(directory, file)]


def _amrex_args(config: Doc, file: str, w: str, notes: list[str]) -> list[str]:
    """h5bench's amrex entry: its driver writes each key as `key = value` into
    amrex.ini (mode included) and makes DIRECTORY/<id>/FILE; here each key is
    the kernel's option of the same name (it checks them as the input file's
    keys) and the plot files go to {outdir}/FILE."""
    args: list[str] = []
    for key, value in _option_items(config, r"[a-z_0-9]+", w,
                                    "amrex configuration key {key} = {value} is not an h5bench_amrex input key",
                                    'keys are lower case, e.g. "ncells": "64"'):
        if key == "directory":
            notes.append(f"{w}: amrex 'directory' is replaced by the entry's file in the run's directory.")
            continue
        if key == "mode" and str(value).strip().upper() in ("ASYNC", "LOG"):
            notes.append(f"{w} (amrex) asks for mode={value}; it runs synchronously: iokernels has no HDF5 "
                         "asynchronous VOL connector.")
        args += ["--" + key, str(value)]
    return args + ["--directory", "{outdir}/" + file]


def _macsio_args(config: Doc, file: str, w: str) -> list[str]:
    """h5bench's macsio entry as its driver builds the command: each key with a
    value is --KEY followed by its value's words ("MIF 8" -> MIF 8), then
    --interface hdf5, --filebase <run directory>/FILE without .h5 and the log
    and timings files in the run's directory."""
    args: list[str] = []
    for key, value in _option_items(config, r"[a-z_]+", w,
                                    "macsio configuration key {key} = {value} is not a MACSio option",
                                    'keys are the options without dashes, e.g. "part_size": "1M"'):
        if key in ("filebase", "interface") or not str(value):
            continue
        args += ["--" + key, *str(value).split()]
    return args + ["--interface", "hdf5", "--filebase", "{outdir}/" + file.replace(".h5", ""),
                   "--log_file_name", "{outdir}/macsio.log", "--timings_file_name", "{outdir}/timings.log"]


def _exerciser_args(config: Doc, w: str) -> list[str]:
    """h5bench's exerciser entry as its driver builds the command: a binary key whose
    value is "true" is a bare --KEY (any other value drops it); every other key is
    --KEY followed by its value's words ("8 8" -> 8 8).  The file goes to {outdir}."""
    args: list[str] = []
    for key, value in config.items():
        if not isinstance(key, str) or not re.fullmatch(r"[a-z]+", key) or isinstance(value, (dict, list)):
            raise UsageError(f"{w}: exerciser configuration key {key!r} = {value!r} is not an h5bench_exerciser flag",
                             'keys are the flags without dashes, e.g. "numdims": "2"')
        if key in EXERCISER_FLAGS:
            if str(value).strip().lower() == "true":
                args.append("--" + key)
            continue
        args += ["--" + key, *str(value).split()]
    return args + ["-o", "{outdir}/hdf5TestFile"]
