"""python3 -m iokernels run|report|compare|plot (see each command's --help)."""
import argparse
import datetime
import shlex
import sys
from pathlib import Path

from . import compare as cmp
from . import launch, paths, results, suite, table
from .errors import UsageError


def cmd_run(a):
    s = suite.load(a.suite)
    build = paths.build_dir(a.build_dir or (paths.source_dir() / s.build_dir if s.build_dir else None))
    if a.dry_run:
        for e in launch.make_inputs(s, Path(a.results or "RESULTS") / "inputs", build, dry_run=True):
            print(f"input {e['name']}: {shlex.join(e['command'])}")
        for r in s.runs:
            out = Path(a.results or "RESULTS") / "out" / r.run_id
            argv = launch.command(r, out, Path(a.results or "RESULTS") / f"{r.run_id}.json", build)
            env = launch.environment(r)
            envs = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
            print(f"[{r.index}/{r.total}] {r.label()}\n    {envs + ' ' if envs else ''}{shlex.join(argv)}")
        return 0
    needed = {"iokernels"} | {r.kernel for r in s.runs if r.is_tool}
    missing = [n for n in sorted(needed) if not paths.program(build, n).is_file()]
    if missing:
        raise UsageError(f"{', '.join(missing)} not built in {build}",
                         "build first (scripts/iok build) or point --build-dir / IOK_BUILD_DIR at a build")
    for d in s.directories:  # h5bench's "directory": its runs share files there
        Path(d).mkdir(parents=True, exist_ok=True)
    root = a.results or f"results/{s.name}-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}"
    rd = launch.ResultsDir(root, s, scratch=a.scratch)
    rd.index["inputs"] = launch.make_inputs(s, rd.root / "inputs", build)
    rd.save_index()
    for e in rd.index["inputs"]:
        print(f"input {e['name']}: {e['path']}" + (" (made)" if e["made"] else " (kept)"), flush=True)
    print(f"suite {s.name}: {len(s.runs)} runs, results in {rd.root}", flush=True)
    failed = 0
    for r in s.runs:
        doc = rd.run(r, build)
        failed += doc["suite_run"]["status"] != "ok"
        print(launch.progress_line(r, doc), flush=True)
    rd.finish()
    print(f"{len(s.runs) - failed} of {len(s.runs)} runs succeeded; results in {rd.root}"
          + (f" (failed runs: stderr in {rd.root}/logs)" if failed else ""))
    return 1 if failed else 0


def cmd_report(a):
    docs = results.load_many(a.paths)
    rows = [row for d in docs for row in results.rows(d)]
    print(table.report_table(rows))
    if a.csv:
        with open(a.csv, "w") as f:
            f.write(table.to_csv(rows, results.FIELDS))
        print(f"CSV: {a.csv}")
    return 0


def cmd_compare(a):
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
        raise UsageError("no runs in common (same kernel, case, file, mode, backend, strategy, ranks)",
                         "compare results of the same suite or the same command line")
    print(cmp.compare_table(pairs))
    if any(p[3] for p in pairs):
        print("! = matched across different MPI-IO layers: the ratio mostly measures the layers")
    for name, keys in (("base", only_b), ("other", only_o)):
        for k in keys:
            print(f"only in {name}: {' '.join(str(x) for x in k)}")
    if warning:
        print("WARNING: MPI-IO layers differ (see above)")
    return 1 if warning and a.strict else 0


def cmd_plot(a):
    from . import plot               # matplotlib only when plotting
    docs = results.load_many(a.paths)
    try:
        panels = plot.plot(docs, a.out, title=a.title)
    except ValueError as e:
        raise UsageError(str(e), "run the suite first; failed runs are not plotted")
    print(f"{a.out}: {len(panels)} panel(s)")
    return 0


def parser():
    p = argparse.ArgumentParser(prog="python3 -m iokernels", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run a suite file")
    r.add_argument("suite", help="suite TOML file, or an h5bench JSON configuration (write/read entries)")
    r.add_argument("--results", help="results directory (new or empty; default results/<suite>-<time>)")
    r.add_argument("--scratch", help="where runs write their files (default RESULTS/out)")
    r.add_argument("--build-dir", help="build directory (default $IOK_BUILD_DIR or <checkout>/build)")
    r.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    r.set_defaults(func=cmd_run)
    s = sub.add_parser("report", help="table of results (one row per run and file)")
    s.add_argument("paths", nargs="+", help="results directories or result JSON files")
    s.add_argument("--csv", help="also write the rows as CSV to this file")
    s.set_defaults(func=cmd_report)
    c = sub.add_parser("compare", help="two result sets side by side, with ratios other/base")
    c.add_argument("base", help="result JSON or results directory")
    c.add_argument("other", help="result JSON or results directory")
    c.add_argument("--strict", action="store_true", help="exit 1 when the MPI-IO layers differ")
    c.set_defaults(func=cmd_compare)
    g = sub.add_parser("plot", help="bar chart of bandwidth per backend/strategy")
    g.add_argument("paths", nargs="+", help="results directories or result JSON files")
    g.add_argument("--out", default="plot.png", help="image file (default plot.png)")
    g.add_argument("--title", help="figure title")
    g.set_defaults(func=cmd_plot)
    return p


def main(argv=None):
    a = parser().parse_args(argv)
    launch.exit_on_sigterm()
    try:
        return a.func(a)
    except UsageError as e:
        print(f"iokernels {a.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"iokernels {a.command}: interrupted", file=sys.stderr)
        return 130
