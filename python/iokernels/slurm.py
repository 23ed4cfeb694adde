"""`python3 -m iokernels slurm SUITE ... -o job.sh`: a Slurm batch script
that runs the suite inside its allocation, every run launched with `srun`
(`run --launcher srun`), and collects the results in one directory with the
text report, a CSV and the HTML report beside them.

    sbatch job.sh            # results in RESULTS (default results/<suite>-<job id>)

The script names the suite runner's package, the programs (a build or an
installation) and the suite by absolute path, so it runs from wherever sbatch
is called; the suite is validated and its rank
counts checked against the allocation when the script is written, not an
hour later in the queue."""
import re
import shlex
from collections.abc import Sequence
from pathlib import Path

from . import paths, suite
from ._types import StrPath
from .errors import UsageError

# Slurm's --time forms: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S.
TIME_RE = re.compile(r"\d+|\d+:\d{1,2}|\d+:\d{1,2}:\d{1,2}|\d+-\d+|\d+-\d+:\d{1,2}|\d+-\d+:\d{1,2}:\d{1,2}")


def script(suite_path: StrPath, nodes: int, ntasks_per_node: int, time_limit: str, partition: str | None = None,
           account: str | None = None, results: StrPath | None = None, scratch: StrPath | None = None,
           build: StrPath | None = None, srun_args: str = "", job_name: str | None = None,
           extra_sbatch: Sequence[str] = (), setup: Sequence[str] = ()) -> str:
    """The batch script's text; UsageError when the suite is invalid or does
    not fit the allocation."""
    s = suite.load(suite_path)
    if nodes <= 0 or ntasks_per_node <= 0:
        raise UsageError("--nodes and --ntasks-per-node must be positive")
    if not TIME_RE.fullmatch(time_limit):
        raise UsageError(f"--time {time_limit!r} is not a Slurm time limit",
                         "use minutes (30), H:M:S (1:30:00) or D-H:M:S (1-00:00:00)")
    slots = nodes * ntasks_per_node
    too_big = sorted({r.ranks for r in s.runs if r.ranks > slots})
    if too_big:
        raise UsageError(f"the suite runs {too_big[-1]} ranks but the allocation has {nodes} x {ntasks_per_node} "
                         f"= {slots} tasks", "raise --nodes/--ntasks-per-node or lower the suite's ranks")
    build_dir = paths.build_dir(build)
    package_parent = paths.PACKAGE_DIR.parent     # python/ of a checkout, or an installation's
    # a checkout's runs start from the checkout (as `python3 -m iokernels` there);
    # an installation's from the directory the script was written in
    workdir = paths.source_dir().resolve() if paths.in_checkout() else Path.cwd().resolve()
    suite_abs = Path(suite_path).resolve()
    name = job_name or f"iokernels-{s.name}"
    launcher = "srun" + (f" {srun_args}" if srun_args else "") + " -n {ranks}"
    lines = ["#!/bin/bash",
             f"#SBATCH --job-name={name}",
             f"#SBATCH --nodes={nodes}",
             f"#SBATCH --ntasks-per-node={ntasks_per_node}",
             f"#SBATCH --time={time_limit}"]
    if partition:
        lines.append(f"#SBATCH --partition={partition}")
    if account:
        lines.append(f"#SBATCH --account={account}")
    lines += [f"#SBATCH {x}" for x in extra_sbatch]
    results_expr = shlex.quote(str(Path(results).resolve())) if results else \
        f'"{Path.cwd().resolve()}/results/{s.name}-${{SLURM_JOB_ID}}"'
    run = ["python3", "-m", "iokernels", "run", str(suite_abs), "--launcher", launcher, "--build-dir", str(build_dir)]
    if scratch:
        run += ["--scratch", str(Path(scratch).resolve())]
    lines += [
        "# written by `python3 -m iokernels slurm` (write it again to change the allocation)",
        f"# suite {s.name}: {len(s.runs)} runs, largest {max(r.ranks for r in s.runs)} ranks; each run is "
        "launched with srun inside this allocation",
        "set -u",
        f"export PYTHONPATH={shlex.quote(str(package_parent))}${{PYTHONPATH:+:$PYTHONPATH}}",
        f"export IOK_BUILD_DIR={shlex.quote(str(build_dir))}",
        *setup,                       # site setup (module load ...), as given
        f"RESULTS={results_expr}",
        'echo "iokernels: job ${SLURM_JOB_ID} on ${SLURM_JOB_NUM_NODES} node(s) (${SLURM_JOB_NODELIST}), '
        'results in ${RESULTS}"',
        f"cd {shlex.quote(str(workdir))}",
        shlex.join(run) + ' --results "$RESULTS"',
        "status=$?",
        "# collect: the text report, a CSV and the HTML report beside the results",
        'python3 -m iokernels report "$RESULTS" --csv "$RESULTS/report.csv" > "$RESULTS/report.txt" 2>&1',
        'python3 -m iokernels html "$RESULTS" -o "$RESULTS/report.html" > /dev/null 2>&1 '
        '|| echo "iokernels: no HTML report (matplotlib missing?)"',
        'echo "iokernels: suite finished with status ${status}; see ${RESULTS}/report.txt"',
        "exit $status",
    ]
    return "\n".join(lines) + "\n"
