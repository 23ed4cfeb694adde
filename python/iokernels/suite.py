"""Suite files: a TOML list of cases, each expanded into concrete runs (or
h5bench's JSON driver configuration, converted by h5bench_form).

    [suite]                       # optional; values here are defaults for every case
    name = "example"
    launcher = "mpiexec"          # "mpiexec", "srun", or a command with {ranks}
    repeats = 1

    [[case]]
    name = "F"
    kernel = "e3sm"               # an iokernels kernel, or a tool such as raw_write
    ranks = [4, 16]               # list values expand to a cross product
    backend = ["pnetcdf", "hdf5"]
    strategy = "canonical"
    io_layer = ["romio", "ompio"]
    args = ["-r", "{records}", "-o", "{outdir}/f.nc", "{shared}/datasets/e3sm/map_f_case_16p.nc"]
    matrix = { records = [1, 5] } # extra axes, used in args as {records}
    env = { OMPI_MCA_io = "ompio" }
    hints = { cb_nodes = [1, 2], striping_factor = 4 }   # MPI-IO hints (--hint), lists are axes
    repeats = 3                   # repeats alternate: every combination once, then again

    [[input]]                     # made once, before the runs, in RESULTS/inputs/
    name = "g_map"                # {g_map} in args is the file's path
    file = "map_g_case_16p.nc"    # default: the name
    command = ["{bin}/e3sm_mapgen", "--case", "G", "-o", "{path}"]

{bin} is the directory of the programs: the build's src/ in a checkout, the
installation's bin/ when installed ({build}/src works only in a build).
Inputs let a suite bring its own data (a generated map, a config file) so it
runs on a fresh checkout; the file stays with the results it produced.
Repeats are interleaved: the suite runs every combination of every case once,
then each again, so a slow minute of a shared file system spreads over all
combinations instead of hitting one combination's repeats back to back.
Every run executes in its own output directory ({outdir}, also the working
directory), gets `--json FILE` appended, and is described by a RunSpec.
Validation is strict: an unknown key, a wrong type or an unknown {placeholder}
is a UsageError naming the case and the key.
"""
import difflib
import itertools
import re
import shlex
import string
import tomllib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._types import Doc, StrPath
from .errors import UsageError, read_json

# Programs run directly ({bin}/<name>) rather than as `iokernels <kernel>`.
TOOLS = {"raw_write"}
LAYERS = ("romio", "ompio")

SUITE_KEYS = {
    "name": "suite name (used for the default results directory)",
    "description": "free text",
    "launcher": '"mpiexec" (default), "srun", or a command line with {ranks}',
    "launcher_args": "extra launcher arguments (list)",
    "timeout": "seconds per run before it is killed (default 1800)",
    "repeats": "default repeats per case",
    "ranks": "default rank count(s)",
    "io_layer": "default MPI-IO layer(s): romio, ompio",
    "env": "environment for every run (table)",
    "build_dir": "build directory (relative to the checkout)",
    "hints": "default MPI-IO hints for every case (table; list values expand)",
    "ceiling": "measure the storage ceiling of the scratch directory before the runs: "
               "true, or a table of size, chunk, ranks (see `iokernels ceiling`)",
}
CASE_KEYS = {
    "name": "case name (shown in reports; default: the kernel)",
    "description": "free text",
    "kernel": "iokernels kernel (e3sm, s3d, gcrm, ...) or tool (raw_write)",
    "ranks": "MPI rank count(s)",
    "backend": "backend(s) passed as -a",
    "strategy": "strategy(ies) passed as -x (see strategy_flag)",
    "io_layer": "MPI-IO layer(s): romio, ompio",
    "args": "arguments (list of strings, or one string split like a shell)",
    "matrix": "extra axes: table of NAME = value or [values], used as {NAME} in args",
    "env": "environment variables (table; list values expand)",
    "repeats": "how many times each combination runs",
    "launcher": "as in [suite]",
    "launcher_args": "as in [suite]",
    "timeout": "as in [suite]",
    "backend_flag": 'option that passes the backend (default "-a")',
    "strategy_flag": 'option that passes the strategy (default "-x")',
    "hints": "MPI-IO hints passed as --hint KEY=VALUE (table; list values expand: cb_nodes = [1, 2])",
}
INPUT_KEYS = {
    "name": "placeholder name: {NAME} in a case's args is the input file's path",
    "file": "file name under RESULTS/inputs (default: the name)",
    "command": "program and arguments that write {path} (list, or one string split like a shell); "
               "{bin} {build} {source} {shared} work there too",
}
BUILTIN_PLACEHOLDERS = ("outdir", "shared", "source", "build", "bin", "cwd", "ranks", "backend",
                        "strategy", "io_layer", "repeat", "case", "kernel")
# Suite-level keys that are also case defaults.
INHERITED = ("launcher", "launcher_args", "timeout", "repeats", "ranks", "io_layer", "env", "hints")


@dataclass
class RunSpec:
    """One concrete run: a point of a case's matrix, one repeat."""
    index: int
    case: str
    kernel: str
    ranks: int
    backend: str | None
    strategy: str | None
    io_layer: str | None
    matrix: dict[str, str]
    env: dict[str, str]
    repeat: int
    args: list[str]                 # with placeholders still in ({outdir} etc.)
    launcher: list[str]             # launcher argv template ({ranks} filled later)
    timeout: float
    backend_flag: str = "-a"
    strategy_flag: str = "-x"
    hints: dict[str, str] = field(default_factory=dict)   # MPI-IO hints, passed as --hint KEY=VALUE
    varying: tuple[str, ...] = ()             # matrix/env/hint names with several values (they tell runs apart)
    title: str = ""                 # replaces kernel/case/backend/strategy in label() (bench scripts)
    run_id: str = ""
    total: int = 0
    inputs: dict[str, str] = field(default_factory=dict)  # input name -> path, set when the inputs are made

    def axes(self) -> dict[str, str]:
        """Matrix, environment and hint values that vary within the case."""
        every = {**self.env, **self.hints, **self.matrix}
        return {k: every[k] for k in self.varying}

    @property
    def is_tool(self) -> bool:
        return self.kernel in TOOLS

    def label(self) -> str:
        """The progress line's description: kernel case backend strategy ranks."""
        parts = [self.title] if self.title else [self.kernel]
        if not self.title and self.case != self.kernel:
            parts.append(self.case)
        if not self.title:
            parts += [p for p in (self.backend, self.strategy) if p]
        if self.io_layer:
            parts.append(self.io_layer)
        parts += [f"{k}={v}" for k, v in self.axes().items()]
        parts.append(f"{self.ranks} ranks")
        if self.repeat:
            parts.append(f"repeat {self.repeat + 1}")
        return " ".join(parts)


@dataclass
class Suite:
    path: Path
    name: str
    description: str
    build_dir: str | None
    runs: list[RunSpec] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    directories: list[Path] = field(default_factory=list)  # made before running (h5bench's "directory")
    inputs: list["Input"] = field(default_factory=list)    # made before running, in RESULTS/inputs
    ceiling: dict[str, int] | None = None                      # [suite] ceiling: options of ceiling.measure


@dataclass
class Input:
    """A file a suite makes for itself before its runs (RESULTS/inputs/FILE)."""
    name: str
    file: str
    command: list[str]              # with {bin} {build} {source} {shared} {path} still in


def _where(path: object, case_no: int | None, case_name: object) -> str:
    if case_no is None:
        return f"{path}: [suite]"
    return f"{path}: case #{case_no}" + (f" ({case_name!r})" if case_name else "")


def _check_keys(table: Mapping[str, Any], known: Collection[str], where: str) -> None:
    for key in table:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = (f"did you mean '{close[0]}'? " if close else "") + "known keys: " + ", ".join(sorted(known))
            raise UsageError(f"{where}: unknown key '{key}'", hint)


def _as_list(value: Any, key: str, where: str, kind: type,
             check: Callable[[Any], None] | None = None) -> list[Any]:
    """A scalar or a list of scalars of `kind` -> non-empty list."""
    values = value if isinstance(value, list) else [value]
    if not values:
        raise UsageError(f"{where}: '{key}' is an empty list", f"give at least one {kind.__name__} value")
    for v in values:
        if not isinstance(v, kind) or isinstance(v, bool) and kind is not bool:
            name = {"int": "an integer", "str": "a string", "bool": "true or false", "float": "a number"}.get(
                kind.__name__, kind.__name__)
            example = {"int": "4", "str": '"hdf5"', "bool": "true", "float": "1.5"}.get(kind.__name__, "...")
            raise UsageError(f"{where}: '{key}' must be {name} or a list of them, got {v!r}",
                             f"write e.g. {key} = {example} or {key} = [{example}, {example}] (TOML values, "
                             "numbers without quotes)")
        if check:
            check(v)
    return values


def _positive(key: str, where: str) -> Callable[[Any], None]:
    def check(v: Any) -> None:
        if v <= 0:
            raise UsageError(f"{where}: '{key}' must be positive, got {v}")
    return check


def _scalar_text(v: Any, key: str, where: str) -> str:
    if isinstance(v, bool) or not isinstance(v, (str, int, float)):
        raise UsageError(f"{where}: '{key}' values must be strings or numbers, got {v!r}")
    return str(v)


def launcher_argv(value: Any, extra: Any, where: str) -> list[str]:
    if isinstance(value, list):
        argv = [str(a) for a in value]
    elif value == "mpiexec":
        argv = ["mpiexec", "--oversubscribe", "-n", "{ranks}"]
    elif value == "srun":
        argv = ["srun", "-n", "{ranks}"]
    elif isinstance(value, str) and "{ranks}" in value:
        argv = shlex.split(value)
    else:
        raise UsageError(f"{where}: launcher {value!r} is not mpiexec, srun or a command containing {{ranks}}",
                         'e.g. launcher = "srun" or launcher = "mpirun -np {ranks}"')
    if not isinstance(extra, list):
        raise UsageError(f"{where}: 'launcher_args' must be a list of strings")
    return argv + [str(a) for a in extra]


def _placeholders(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}


def slug(text: object) -> str:
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", str(text)).strip("_")


def load(path: StrPath) -> "Suite":
    """Reads and validates a suite file (TOML, or h5bench's JSON driver
    configuration); returns a Suite with expanded runs."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        return _load_h5bench(path)
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except FileNotFoundError:
        raise UsageError(f"suite file {path} does not exist", "give the path of a .toml suite file") from None
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{path}: not valid TOML: {e}", "check the syntax at the line named") from e
    return from_dict(doc, path)


def _load_h5bench(path: Path) -> "Suite":
    from . import h5bench_form
    doc = read_json(path, "give the path of an h5bench .json configuration", "check the syntax at the line named")
    converted, directories = h5bench_form.to_suite(doc, path)
    s = from_dict(converted, path)
    s.directories = directories
    return s


def from_dict(doc: Doc, path: StrPath = "<suite>") -> Suite:
    _check_keys(doc, {"suite", "case", "input"}, f"{path}: top level")
    top = doc.get("suite", {})
    if not isinstance(top, dict):
        raise UsageError(f"{path}: 'suite' must be a table ([suite])")
    _check_keys(top, SUITE_KEYS, _where(path, None, None))
    if not isinstance(top.get("env", {}), dict):
        raise UsageError(f"{path}: [suite]: 'env' must be a table, e.g. env = {{ OMPI_MCA_btl = \"self,sm\" }}")
    if not isinstance(top.get("hints", {}), dict):
        raise UsageError(f"{path}: [suite]: 'hints' must be a table, e.g. hints = {{ cb_nodes = 2 }}")
    cases = doc.get("case", [])
    if not isinstance(cases, list) or not cases:
        raise UsageError(f"{path}: no cases", "add at least one [[case]] table with a kernel")
    suite = Suite(path=Path(path), name=str(top.get("name", Path(path).stem)),
                  description=str(top.get("description", "")), build_dir=top.get("build_dir"))
    suite.inputs = _inputs(doc.get("input", []), path)
    input_names = {i.name for i in suite.inputs}
    seen: set[str] = set()
    for no, case in enumerate(cases, 1):
        if not isinstance(case, dict):
            raise UsageError(f"{path}: case #{no} is not a table", "write cases as [[case]] tables")
        merged = {k: top[k] for k in INHERITED if k in top}
        for table in ("env", "hints"):
            merged[table] = ({**top.get(table, {}), **case.get(table, {})}
                             if isinstance(case.get(table, {}), dict) else case[table])
        for k, v in case.items():
            if k not in ("env", "hints"):
                merged[k] = v
        runs = _expand_case(merged, case, no, path, input_names)
        name = runs[0].case
        if name in seen:
            raise UsageError(f"{path}: two cases are named {name!r}", "give each case a distinct name")
        seen.add(name)
        suite.runs += runs
    suite.runs = interleave_repeats(suite.runs)
    suite.ceiling = _ceiling_options(top.get("ceiling"), path)
    for i, r in enumerate(suite.runs, 1):
        r.index, r.total = i, len(suite.runs)
        parts = [f"{i:03d}", slug(r.case)]
        parts += [slug(p) for p in (r.backend, r.strategy, r.io_layer) if p]
        parts += [slug(f"{k}={v}") for k, v in r.axes().items()]
        parts.append(f"{r.ranks}p")
        parts.append(f"r{r.repeat + 1}")
        r.run_id = "-".join(parts)
    return suite


def interleave_repeats(runs: list[RunSpec]) -> list[RunSpec]:
    """Repeat 1 of every combination (cases in file order), then repeat 2 of
    each, ...: repeats of one combination are never back to back, so drift
    of a shared file system shows as variance instead of as a difference
    between combinations."""
    return sorted(runs, key=lambda r: r.repeat)     # stable: keeps the matrix order within a round


CEILING_KEYS = {"size": "bytes (integer, or text such as \"4GiB\"; default: twice the RAM, where it fits)",
                "chunk": "bytes per write call (default 8 MiB)",
                "ranks": "ranks of the MPI-IO measurements (default: the largest rank count of the suite)"}


def _ceiling_options(value: Any, path: StrPath) -> dict[str, int] | None:
    """[suite] ceiling = true | { size, chunk, ranks } -> dict or None."""
    if value is None or value is False:
        return None
    if value is True:
        return {}
    where = f"{path}: [suite] ceiling"
    if not isinstance(value, dict):
        raise UsageError(f"{where} must be true or a table", 'e.g. ceiling = { size = "256MiB", ranks = 4 }')
    _check_keys(value, CEILING_KEYS, where)
    out: dict[str, int] = {}
    for k in ("size", "chunk"):
        if k in value:
            out[k] = parse_size(value[k], f"{where}: '{k}'")
    if "ranks" in value:
        if not isinstance(value["ranks"], int) or isinstance(value["ranks"], bool) or value["ranks"] <= 0:
            raise UsageError(f"{where}: 'ranks' must be a positive integer, got {value['ranks']!r}")
        out["ranks"] = value["ranks"]
    return out


_UNITS = {"": 1, "b": 1, "k": 1024, "kib": 1024, "m": 1024**2, "mib": 1024**2, "g": 1024**3, "gib": 1024**3,
          "t": 1024**4, "tib": 1024**4, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4}


def parse_size(value: Any, where: str) -> int:
    """4096, "64MiB", "1.5G" (binary), "1GB" (decimal) -> bytes (positive int)."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([A-Za-z]*)\s*", str(value)) if isinstance(value, str) else None
    if m and m.group(2).lower() in _UNITS and float(m.group(1)) * _UNITS[m.group(2).lower()] >= 1:
        return int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    raise UsageError(f"{where}: {value!r} is not a size", "give bytes (4096) or a size such as \"64MiB\", \"4GiB\"")


def _inputs(entries: Any, path: StrPath) -> list[Input]:
    if not isinstance(entries, list):
        raise UsageError(f"{path}: 'input' must be a list of tables", "write inputs as [[input]] tables")
    inputs: list[Input] = []
    names: set[str] = set()
    for no, e in enumerate(entries, 1):
        where = f"{path}: input #{no}"
        if not isinstance(e, dict):
            raise UsageError(f"{where} is not a table", "write inputs as [[input]] tables")
        _check_keys(e, INPUT_KEYS, where)
        name = e.get("name")
        if not isinstance(name, str) or not name.isidentifier() or name in BUILTIN_PLACEHOLDERS or name in names:
            raise UsageError(f"{where}: 'name' {name!r} is missing, not an identifier, reserved or used twice",
                             "give each input a distinct name such as g_map; reserved: "
                             + ", ".join(BUILTIN_PLACEHOLDERS))
        file = e.get("file", name)
        if not isinstance(file, str) or not file or "/" in file or file in (".", ".."):
            raise UsageError(f"{where}: 'file' must be a plain file name, got {file!r}")
        command = e.get("command")
        if isinstance(command, str):
            command = shlex.split(command)
        if not isinstance(command, list) or not command or not all(isinstance(a, str) for a in command):
            raise UsageError(f"{where}: 'command' must be a non-empty list of strings",
                             'e.g. command = ["{bin}/e3sm_mapgen", "--case", "G", "-o", "{path}"]')
        known = {"bin", "build", "source", "shared", "path"}
        for a in command:
            unknown = _placeholders(a) - known
            if unknown:
                raise UsageError(f"{where}: unknown placeholder {{{sorted(unknown)[0]}}} in {a!r}",
                                 "an input's command knows " + ", ".join("{" + k + "}" for k in sorted(known)))
        names.add(name)
        inputs.append(Input(name=name, file=file, command=command))
    return inputs


def _expand_case(c: Doc, raw_case: Doc, no: int, path: StrPath,
                 input_names: Collection[str] = frozenset()) -> list[RunSpec]:
    where = _where(path, no, raw_case.get("name") or raw_case.get("kernel"))
    _check_keys(raw_case, CASE_KEYS, where)
    kernel = c.get("kernel")
    if not isinstance(kernel, str) or not kernel:
        raise UsageError(f"{where}: 'kernel' is missing", 'add e.g. kernel = "e3sm" (or "raw_write")')
    name = c.get("name", kernel)
    if not isinstance(name, str) or not name:
        raise UsageError(f"{where}: 'name' must be a non-empty string")
    ranks = _as_list(c.get("ranks", 1), "ranks", where, int, _positive("ranks", where))
    backends = _as_list(c["backend"], "backend", where, str) if "backend" in c else [None]
    strategies = _as_list(c["strategy"], "strategy", where, str) if "strategy" in c else [None]
    if kernel in TOOLS and (c.get("backend") or c.get("strategy")):
        raise UsageError(f"{where}: {kernel} takes no backend or strategy",
                         f"remove 'backend'/'strategy' from this case ({kernel} is plain MPI-IO)")

    def layer_ok(v: Any) -> None:
        if v not in LAYERS:
            raise UsageError(f"{where}: io_layer {v!r} is not one of {', '.join(LAYERS)}")
    layers = _as_list(c["io_layer"], "io_layer", where, str, layer_ok) if "io_layer" in c else [None]
    repeats = c.get("repeats", 1)
    if not isinstance(repeats, int) or isinstance(repeats, bool) or repeats <= 0:
        raise UsageError(f"{where}: 'repeats' must be a positive integer, got {repeats!r}")
    timeout = c.get("timeout", 1800)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise UsageError(f"{where}: 'timeout' must be a positive number of seconds, got {timeout!r}")

    args = c.get("args", [])
    if isinstance(args, str):
        args = shlex.split(args)
    if not isinstance(args, list):
        raise UsageError(f"{where}: 'args' must be a list of strings or one string")
    args = [_scalar_text(a, "args", where) for a in args]

    matrix = c.get("matrix", {})
    if not isinstance(matrix, dict):
        raise UsageError(f"{where}: 'matrix' must be a table, e.g. matrix = {{ records = [1, 5] }}")
    for k in matrix:
        if k in BUILTIN_PLACEHOLDERS or k in input_names or not k.isidentifier():
            raise UsageError(f"{where}: matrix name {k!r} is reserved or not an identifier",
                             "use another name; reserved: " + ", ".join(BUILTIN_PLACEHOLDERS))
    maxes = {k: [_scalar_text(v, f"matrix.{k}", where) for v in (vals if isinstance(vals, list) else [vals])]
             for k, vals in matrix.items()}
    for k, vals in maxes.items():
        if not vals:
            raise UsageError(f"{where}: matrix '{k}' is an empty list")

    env = c.get("env", {})
    if not isinstance(env, dict):
        raise UsageError(f"{where}: 'env' must be a table, e.g. env = {{ OMPI_MCA_io = \"ompio\" }}")
    env_axes = {k: [_scalar_text(v, f"env.{k}", where) for v in (vals if isinstance(vals, list) else [vals])]
                for k, vals in env.items()}
    hints = c.get("hints", {})
    if not isinstance(hints, dict):
        raise UsageError(f"{where}: 'hints' must be a table, e.g. hints = {{ cb_nodes = [1, 2] }}")
    hint_axes: dict[str, list[str]] = {}
    for k, vals in hints.items():
        if not re.fullmatch(r"[A-Za-z0-9_.]+", k):
            raise UsageError(f"{where}: hint name {k!r} is not an MPI-IO hint name", "e.g. cb_nodes, striping_factor")
        hint_axes[k] = [_scalar_text(v, f"hints.{k}", where) for v in (vals if isinstance(vals, list) else [vals])]
        if not hint_axes[k]:
            raise UsageError(f"{where}: hint '{k}' is an empty list")

    known = set(BUILTIN_PLACEHOLDERS) | set(maxes) | set(input_names)
    for a in args:
        try:
            unknown = _placeholders(a) - known
        except ValueError as e:
            raise UsageError(f"{where}: bad placeholder in argument {a!r}: {e}",
                             "write a literal brace as {{ or }}") from e
        if unknown:
            raise UsageError(f"{where}: unknown placeholder {{{sorted(unknown)[0]}}} in argument {a!r}",
                             "placeholders: " + ", ".join(sorted(known))
                             + " (add others under 'matrix' or as [[input]])")

    launcher = launcher_argv(c.get("launcher", "mpiexec"), c.get("launcher_args", []), where)
    flags: dict[str, str] = {}
    for key in ("backend_flag", "strategy_flag"):
        v = c.get(key, "-a" if key == "backend_flag" else "-x")
        if not isinstance(v, str) or not v.startswith("-"):
            raise UsageError(f"{where}: '{key}' must be an option name such as \"--method\"")
        flags[key] = v

    varying = tuple(k for k, v in {**env_axes, **hint_axes, **maxes}.items() if len(v) > 1)
    runs: list[RunSpec] = []
    mnames, enames, hnames = list(maxes), list(env_axes), list(hint_axes)
    for n, be, st, lay, hvals, mvals, evals in itertools.product(
            ranks, backends, strategies, layers, itertools.product(*hint_axes.values()),
            itertools.product(*maxes.values()), itertools.product(*env_axes.values())):
        for rep in range(repeats):
            runs.append(RunSpec(index=0, case=name, kernel=kernel, ranks=n, backend=be, strategy=st,
                                io_layer=lay, matrix=dict(zip(mnames, mvals, strict=True)),
                                env=dict(zip(enames, evals, strict=True)),
                                hints=dict(zip(hnames, hvals, strict=True)), repeat=rep, args=args, launcher=launcher,
                                timeout=float(timeout), varying=varying,
                                backend_flag=flags["backend_flag"], strategy_flag=flags["strategy_flag"]))
    return runs
