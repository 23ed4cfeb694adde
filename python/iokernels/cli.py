"""iokernels-suite (or python3 -m iokernels) run|report|compare|plot|html|ceiling|advise|slurm:
run suites of iokernels runs and report, compare and plot their results;
measure which settings make a kernel's run fastest (see each command's --help)."""
import argparse
import datetime
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from . import __version__, ceiling, launch, paths, results, slurm, stats, suite, table
from . import compare as cmp
from ._types import StrPath
from .errors import UsageError

NAME = "iokernels"      # how messages name the command: iokernels-suite when run as that


def kernels_of(iokernels: StrPath) -> set[str]:
    """The kernels a build of iokernels has, as its usage text lists them."""
    p = subprocess.run([str(iokernels)], capture_output=True, text=True)  # usage: exit 2, on stderr
    text = p.stdout + p.stderr
    block = text.split("\nkernels:\n", 1)[-1].split("\n\n", 1)[0] if "\nkernels:\n" in text else ""
    return {line.split()[0] for line in block.splitlines() if line.strip()}


def cmd_run(a: argparse.Namespace) -> int:
    s = suite.load(a.suite)
    build = paths.build_dir(a.build_dir or (paths.source_dir() / s.build_dir if s.build_dir else None))
    if a.launcher:                   # e.g. srun inside an allocation (the slurm command's scripts)
        argv = suite.launcher_argv(a.launcher, [], "--launcher")
        for r in s.runs:
            r.launcher = argv
    if a.dry_run:
        for e in launch.make_inputs(s, Path(a.results or "RESULTS") / "inputs", build, dry_run=True):
            print(f"input {e['name']}: {shlex.join(e['command'])}")
        for r in s.runs:
            out = Path(a.results or "RESULTS") / "out" / r.run_id
            argv = launch.command(r, out, Path(a.results or "RESULTS") / f"{r.run_id}.json", build)
            env = launch.environment(r)
            envs = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
            print(f"[{r.index}/{r.total}] {r.label()}\n    {envs + ' ' if envs else ''}{shlex.join(argv)}")
        if s.ceiling is not None:
            print(f"ceiling of {a.scratch or Path(a.results or 'RESULTS') / 'out'} before the runs: "
                  f"{ceiling_ranks(s)} ranks" + "".join(f", {k} {v}" for k, v in s.ceiling.items() if k != "ranks"))
        return 0
    needed = {"iokernels"} | {r.kernel for r in s.runs if r.is_tool}
    if s.ceiling is not None:
        needed.add("raw_write")
    missing = [n for n in sorted(needed) if not paths.program(build, n).is_file()]
    if missing:
        explicit = a.build_dir or s.build_dir or os.environ.get("IOK_BUILD_DIR")
        found, how = paths.found_programs()
        where = f"in {paths.bin_dir(build)}" if explicit or found else f"({how})"
        raise UsageError(f"{', '.join(missing)} not found {where}", paths.not_found_hint())
    unknown = sorted({r.kernel for r in s.runs if not r.is_tool} - kernels_of(paths.program(build, "iokernels")))
    if unknown:  # refused before anything runs, not found out by a failed launch
        raise UsageError(f"{a.suite}: unknown kernel {', '.join(map(repr, unknown))}",
                         "kernels of this build: " + ", ".join(sorted(kernels_of(paths.program(build, "iokernels"))))
                         + "; tools: " + ", ".join(sorted(suite.TOOLS)))
    for d in s.directories:  # h5bench's "directory": its runs share files there
        Path(d).mkdir(parents=True, exist_ok=True)
    root = a.results or f"results/{s.name}-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}"
    rd = launch.ResultsDir(root, s, scratch=a.scratch)
    rd.index["inputs"] = launch.make_inputs(s, rd.root / "inputs", build)
    rd.save_index()
    for e in rd.index["inputs"]:
        print(f"input {e['name']}: {e['path']}" + (" (made)" if e["made"] else " (kept)"), flush=True)
    if s.ceiling is not None:
        rd.out_root.mkdir(parents=True, exist_ok=True)
        opts = s.ceiling
        doc = ceiling.measure(rd.out_root, ceiling_ranks(s), build, launcher=s.runs[0].launcher,
                              size=opts.get("size"), chunk=opts.get("chunk", ceiling.DEFAULT_CHUNK),
                              env=ceiling_env(s), log=lambda m: print(m, flush=True))
        with open(rd.root / "ceiling.json", "w") as f:
            json.dump(doc, f, indent=2)
        rd.index["ceiling"] = "ceiling.json"
        rd.save_index()
        print(ceiling.one_line(doc), flush=True)
    print(f"suite {s.name}: {len(s.runs)} runs, results in {rd.root}", flush=True)
    failed = 0
    progress = launch.Progress(s.runs)
    for r in s.runs:
        doc = rd.run(r, build)
        failed += doc["suite_run"]["status"] != "ok"
        progress.record(r, doc["suite_run"]["wall_seconds"])
        print(launch.progress_line(r, doc), flush=True)
        print(f"{NAME} run: {progress.status()}", file=sys.stderr, flush=True)
    rd.finish()
    print(f"{len(s.runs) - failed} of {len(s.runs)} runs succeeded; results in {rd.root}"
          + (f" (failed runs: stderr in {rd.root}/logs)" if failed else ""))
    return 1 if failed else 0


def ceiling_env(s: suite.Suite) -> dict[str, str]:
    """The suite's environment, and its MPI-IO layer when every run pins the same one."""
    env = dict(s.runs[0].env)
    layers = {r.io_layer for r in s.runs}
    if len(layers) == 1 and None not in layers:
        layer = layers.pop()
        assert layer is not None
        env["OMPI_MCA_io"] = launch.layer_env(layer)
    return env


def ceiling_ranks(s: suite.Suite) -> int:
    return (s.ceiling or {}).get("ranks") or max(r.ranks for r in s.runs)


def cmd_ceiling(a: argparse.Namespace) -> int:
    build = paths.build_dir(a.build_dir)
    launcher = suite.launcher_argv(a.launcher, [], "--launcher")
    env = {"OMPI_MCA_io": launch.layer_env(a.io_layer)} if a.io_layer else {}
    doc = ceiling.measure(a.directory, a.ranks, build, launcher=launcher, size=a.size, chunk=a.chunk, env=env,
                          log=lambda m: print(m, flush=True))
    out = Path(a.output or f"ceiling-{doc['ceiling']['host']}-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}.json")
    with open(out, "w") as f:
        json.dump(doc, f, indent=2)
    print(table.report_table(results.rows(doc)))
    print(ceiling.one_line(doc))
    print(f"  writes: {doc['ceiling']['write_cache_note']}")
    print(f"  reads made cold with: {doc['ceiling']['read_cache']}")
    print(f"result: {out}")
    return 0


def cmd_report(a: argparse.Namespace) -> int:
    docs = results.load_many(a.paths)
    ceilings = [d for d in docs if ceiling.is_ceiling(d)]
    rows = []
    for d in docs:
        for row in results.rows(d):
            pct = None if ceiling.is_ceiling(d) else ceiling.percent(row, d, ceilings)
            row["pct_ceiling"] = pct
            rows.append(row)
    print(table.report_table(rows))
    groups = stats.group(rows)
    if any(s["n"] > 1 for _, s in groups.values()):
        print()
        print(table.repeats_table(groups))
    if a.csv:
        with open(a.csv, "w") as f:
            f.write(table.to_csv(rows, results.FIELDS))
        print(f"CSV: {a.csv}")
    return 0


def cmd_compare(a: argparse.Namespace) -> int:
    base, other = results.load_many([a.base]), results.load_many([a.other])
    bl, ol = cmp.layers(base), cmp.layers(other)
    warning = cmp.layer_warning(bl, ol)
    if warning:
        print(cmp.banner(warning), file=sys.stderr, flush=True)
    print(f"base:  {a.base}  (MPI-IO layer {'/'.join(bl) or '?'})")
    print(f"other: {a.other}  (MPI-IO layer {'/'.join(ol) or '?'})")
    pairs, only_b, only_o = cmp.match([r for d in base for r in results.rows(d)],
                                      [r for d in other for r in results.rows(d)])
    if not pairs:
        raise UsageError("no runs in common (same kernel, case, file, mode, backend, strategy, ranks, hints)",
                         "compare results of the same suite or the same command line")
    print(cmp.compare_table(pairs, a.fail_above))
    if any(p[3] for p in pairs):
        print("! = matched across different MPI-IO layers: the ratio mostly measures the layers")
    for name, keys in (("base", only_b), ("other", only_o)):
        for k in keys:
            print(f"only in {name}: {cmp.describe(k)}")
    diffs = cmp.manifest_differences(pairs)
    for line in diffs:
        print(f"manifests differ: {line}")
    if warning:
        print("WARNING: MPI-IO layers differ (see above)")
    status = 1 if warning and a.strict else 0
    if a.fail_above:
        slow = cmp.regressions(pairs, a.fail_above)
        for line in slow:
            print(line)
        print(f"regression check: {len(slow)} of {len(pairs)} matched rows more than "
              f"{(a.fail_above - 1) * 100:.0f}% slower" + (" -> FAIL" if slow else " -> ok"))
        status = 1 if slow else status
    return status


def cmd_html(a: argparse.Namespace) -> int:
    from . import advise, html_report  # matplotlib only when drawing
    advice = [advise.load(p) for p in a.paths if advise.is_advice(p)]     # `advise -o/--json` documents
    rest = [p for p in a.paths if not advise.is_advice(p)]
    docs = results.load_many(rest) if rest or not advice else []
    base = results.load_many(a.base) if a.base else None
    text = html_report.render(docs, title=a.title or "iokernels report", base_docs=base, limit=a.fail_above,
                              sources=a.paths + (["base: " + " ".join(a.base)] if a.base else []), advice=advice)
    with open(a.output, "w") as f:
        f.write(text)
    figures = text.count('<img class="plot"')
    print(f"{a.output}: {len(text) // 1024} KiB, {figures} figure(s), {len(docs)} result(s)"
          + (f", {len(advice)} advice" if advice else ""))
    return 0


def cmd_advise(a: argparse.Namespace) -> int:
    from . import advise
    argv = list(a.kernel_command)
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        raise UsageError("no kernel command to advise on", "give it after --, e.g. advise -- e3sm -a pnetcdf MAP")
    if a.ranks < 1 or a.repeats < 1:
        raise UsageError(f"--ranks and --repeats must be at least 1 (got {a.ranks}, {a.repeats})")
    build = paths.build_dir(a.build_dir)
    prog = paths.program(build, "iokernels")
    if not prog.is_file():
        raise UsageError(f"iokernels not found in {paths.bin_dir(build)}", paths.not_found_hint())
    kernels = kernels_of(prog)
    if argv[0] not in kernels:
        raise UsageError(f"unknown kernel {argv[0]!r}", "kernels of this build: " + ", ".join(sorted(kernels)))
    usage = subprocess.run([str(prog), argv[0], "--help"], capture_output=True, text=True).stdout
    if "--verify" in usage:          # a kernel that verifies only when asked is asked to (verified advice only)
        argv = [x for x in argv if x not in ("--verify", "--no-verify")] + ["--verify"]
    strategies = [s for s in a.strategies.split(",") if s]
    runner = advise.Runner(prog, a.ranks, suite.launcher_argv(a.launcher, [], "--launcher"),
                           {"OMPI_MCA_io": launch.layer_env(a.io_layer)} if a.io_layer else {}, a.timeout)
    api = advise.given_api(argv) or next(iter(re.findall(r"--api TEXT \[(\w+)\]", usage)), "")
    tried = advise.configs(a.ranks, a.striping, strategies, advise.given_strategy(argv), api)
    doc = advise.advise(runner, argv, advise.Config("the run as given"), tried, a.repeats,
                        {"subject": f"iokernels {shlex.join(argv)}", "io_layer": a.io_layer or "OpenMPI's choice"},
                        log=None if a.quiet else lambda m: print(m, file=sys.stderr, flush=True))
    text = json.dumps(doc, indent=1)
    if a.output:
        Path(a.output).write_text(text + "\n")
    print(text if a.json else "\n".join(advise.advice_text(doc)))
    return 0 if doc.get("best") else 1


def cmd_slurm(a: argparse.Namespace) -> int:
    text = slurm.script(a.suite, a.nodes, a.ntasks_per_node, a.time, partition=a.partition, account=a.account,
                        results=a.results, scratch=a.scratch, build=a.build_dir, srun_args=a.srun_args,
                        extra_sbatch=a.sbatch, setup=a.setup)
    with open(a.output, "w") as f:
        f.write(text)
    Path(a.output).chmod(0o755)
    print(f"{a.output}: submit with `sbatch {a.output}`")
    return 0


def cmd_plot(a: argparse.Namespace) -> int:
    from . import plot  # matplotlib only when plotting
    docs = results.load_many(a.paths)
    try:
        panels = plot.plot(docs, a.out, title=a.title)
    except ValueError as e:
        raise UsageError(str(e), "run the suite first; failed runs are not plotted") from e
    print(f"{a.out}: {len(panels)} panel(s)")
    return 0


def _ratio_limit(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = 0.0
    if v <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a ratio above 1 (1.10 = fail when 10%% slower)")
    return v


def _size(text: str) -> int:
    try:
        return suite.parse_size(text, "size")
    except UsageError as e:
        raise argparse.ArgumentTypeError(str(e)) from e


def programs_line() -> str:
    """Where the iokernels programs are taken from, for --help and --version."""
    if os.environ.get("IOK_BUILD_DIR"):
        return f"{paths.bin_dir(paths.build_dir())} (IOK_BUILD_DIR)"
    found, how = paths.found_programs()
    return f"{paths.bin_dir(found)} ({how}; --build-dir overrides)" if found else f"none found ({how})"


class _Version(argparse.Action):
    """--version: one line, unwrapped (it names a directory)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kw: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kw)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> NoReturn:
        print(f"{parser.prog} {__version__}; programs: {programs_line()}")
        parser.exit()


def parser(prog: str = "python3 -m iokernels") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=__doc__, epilog="programs: " + programs_line(),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action=_Version, help="print the version and where the programs are taken from")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run a suite file")
    r.add_argument("suite", help="suite TOML file, or an h5bench JSON configuration (write/read entries)")
    r.add_argument("--results", help="results directory (new or empty; default results/<suite>-<time>)")
    r.add_argument("--scratch", help="where runs write their files (default RESULTS/out)")
    r.add_argument("--build-dir", help="build directory or install prefix (default $IOK_BUILD_DIR, else the checkout's "
                        "build, this installation or iokernels on PATH: see --version)")
    r.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    r.add_argument("--launcher", help='launch every run with this instead of the suite\'s launcher: "srun" (inside '
                                      'an allocation), "mpiexec", or a command with {ranks}')
    r.set_defaults(func=cmd_run)
    e = sub.add_parser("ceiling", help="measure the storage ceiling of a directory (contiguous MPI-IO, synced write)")
    e.add_argument("directory", help="directory on the storage to measure (a temporary file is written there)")
    e.add_argument("--ranks", type=int, required=True, help="MPI ranks of the MPI-IO measurements")
    e.add_argument("--size", type=_size,
                   help="bytes per measurement, e.g. 4GiB (default: twice the RAM when it fits, to defeat the "
                        "page cache)")
    e.add_argument("--chunk", type=_size, default=ceiling.DEFAULT_CHUNK,
                   help="bytes per write call (default 8 MiB)")
    e.add_argument("--io-layer", choices=suite.LAYERS, help="OpenMPI's MPI-IO layer (default: OpenMPI's choice)")
    e.add_argument("--launcher", default="mpiexec", help='"mpiexec" (default), "srun", or a command with {ranks}')
    e.add_argument("-o", "--output", help="result file (default ceiling-HOST-TIME.json)")
    e.add_argument("--build-dir", help="build directory or install prefix (default $IOK_BUILD_DIR, else the checkout's "
                        "build, this installation or iokernels on PATH: see --version)")
    e.set_defaults(func=cmd_ceiling)
    s = sub.add_parser("report", help="table of results (one row per run and file)")
    s.add_argument("paths", nargs="+", help="results directories or result JSON files")
    s.add_argument("--csv", help="also write the rows as CSV to this file")
    s.set_defaults(func=cmd_report)
    c = sub.add_parser("compare", help="two result sets side by side, with ratios other/base")
    c.add_argument("base", help="result JSON or results directory")
    c.add_argument("other", help="result JSON or results directory")
    c.add_argument("--strict", action="store_true", help="exit 1 when the MPI-IO layers differ")
    c.add_argument("--fail-above", type=_ratio_limit, metavar="RATIO",
                   help="exit 1 when a matched row's median time (other/base) exceeds RATIO, e.g. 1.10 = "
                        "more than 10%% slower (for CI)")
    c.set_defaults(func=cmd_compare)
    g = sub.add_parser("plot", help="bar chart of bandwidth per backend/strategy")
    g.add_argument("paths", nargs="+", help="results directories or result JSON files")
    g.add_argument("--out", default="plot.png", help="image file (default plot.png)")
    g.add_argument("--title", help="figure title")
    g.set_defaults(func=cmd_plot)
    h = sub.add_parser("html", help="self-contained HTML report (figures embedded, no network)")
    h.add_argument("paths", nargs="+", help="results directories or result JSON files (ceilings too; advice JSON "
                   "from `advise -o FILE` gets its own section)")
    h.add_argument("-o", "--output", default="report.html", help="HTML file (default report.html)")
    h.add_argument("--base", nargs="+", help="base results to compare against (ratios other/base highlighted)")
    h.add_argument("--fail-above", type=_ratio_limit, default=1.10, metavar="RATIO",
                   help="time ratio highlighted as slower (default 1.10)")
    h.add_argument("--title", help="page title")
    h.set_defaults(func=cmd_html)
    v = sub.add_parser("advise", help="run a kernel's command through strategies, aggregators and MPI-IO hints, "
                       "with repeats; print the fastest verified configuration and its settings",
                       description="Measured advice for one kernel run: e.g. advise --ranks 4 -- e3sm -a pnetcdf "
                       "-x canonical MAP (docs/darshan.md, 'Measured advice').  The command is run as given and "
                       "with each configuration (-x STRATEGY; cb_nodes 1, N/2, N; cb_buffer_size; independent "
                       "without collective buffering; striping with --striping), --repeats times alternating, "
                       "with --verify where the kernel has it.")
    v.add_argument("kernel_command", nargs=argparse.REMAINDER, metavar="-- KERNEL ARGS",
                   help="the kernel and its arguments, after --")
    v.add_argument("--ranks", type=int, default=4, help="MPI ranks of every run (default 4)")
    v.add_argument("--repeats", type=int, default=3, help="runs of each configuration, alternating (default 3)")
    v.add_argument("--strategies", default="canonical,rearrange,blob,log",
                   help="strategies tried besides the command's own (default canonical,rearrange,blob,log)")
    v.add_argument("--striping", action="store_true",
                   help="also try Lustre striping hints (striping_factor=4, striping_unit=4 MiB; default off)")
    v.add_argument("--io-layer", choices=suite.LAYERS, default="romio",
                   help="OpenMPI's MPI-IO layer (default romio: the hints tried are ROMIO's)")
    v.add_argument("--launcher", default="mpiexec", help='"mpiexec" (default), "srun", or a command with {ranks}')
    v.add_argument("--timeout", type=float, default=1800,
                   help="seconds per run before it counts as failed (default 1800)")
    v.add_argument("--json", action="store_true", help="print the advice as JSON (default: text)")
    v.add_argument("-o", "--output", help="also write the advice JSON to this file (for `html`; default none)")
    v.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr (default: one per run)")
    v.add_argument("--build-dir", help="build directory or install prefix (default $IOK_BUILD_DIR, else the checkout's "
                        "build, this installation or iokernels on PATH: see --version)")
    v.set_defaults(func=cmd_advise)
    b = sub.add_parser("slurm", help="write a Slurm batch script that runs a suite with srun")
    b.add_argument("suite", help="suite file")
    b.add_argument("--nodes", type=int, required=True)
    b.add_argument("--ntasks-per-node", type=int, required=True)
    b.add_argument("--time", required=True, help="time limit (minutes, H:M:S or D-H:M:S)")
    b.add_argument("--partition")
    b.add_argument("--account")
    b.add_argument("--results", help="results directory (default results/<suite>-<job id> under the current directory)")
    b.add_argument("--scratch", help="where runs write their files (default RESULTS/out)")
    b.add_argument("--build-dir", help="build directory or install prefix (default $IOK_BUILD_DIR, else the checkout's "
                        "build, this installation or iokernels on PATH: see --version)")
    b.add_argument("--srun-args", default="--mpi=pmix",
                   help="srun options for every run (default --mpi=pmix: OpenMPI needs PMIx under srun; "
                        "\"\" for none, --mpi=pmi2 for MPICH)")
    b.add_argument("--sbatch", action="append", default=[], metavar="OPTION",
                   help="extra #SBATCH line, e.g. --sbatch=--constraint=ssd (repeatable)")
    b.add_argument("--setup", action="append", default=[], metavar="COMMAND",
                   help='shell line run before the suite, e.g. --setup "module load openmpi" (repeatable)')
    b.add_argument("-o", "--output", default="job.sh", help="script file (default job.sh)")
    b.set_defaults(func=cmd_slurm)
    return p


def main(argv: Sequence[str] | None = None, prog: str = "python3 -m iokernels") -> int:
    a = parser(prog).parse_args(argv)
    global NAME
    NAME = name = "iokernels" if prog.startswith("python") else prog     # what messages start with
    launch.exit_on_sigterm()
    try:
        status: int = a.func(a)
        return status
    except UsageError as e:
        print(f"{name} {a.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{name} {a.command}: interrupted", file=sys.stderr)
        return 130


def console_main() -> int:
    """The `iokernels-suite` command (pip's console script and the installed one)."""
    return main(prog="iokernels-suite")
