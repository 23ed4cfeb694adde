"""`python3 -m iokernels slurm` against a real Slurm: a one-node cluster on
localhost from Debian's packages (munged, slurmctld, slurmd; see
local_slurm.py) runs the written batch script with sbatch; every run is
launched with srun inside the allocation and the results, report, CSV and
HTML are collected.  Skips (one reason) only when Slurm cannot start."""
import csv
import io
import json
import sys

import pytest

from conftest import BUILD_DIR, tool
from local_slurm import LocalSlurm, Unavailable
from suite_cli import cli, ok, one_error

SUITE = """
[suite]
name = "slurmtest"
[[case]]
name = "raw"
kernel = "raw_write"
ranks = [1, 2]
args = ["-n", "2000000", "-c", "65536", "-o", "{outdir}/r.dat"]
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    try:
        with LocalSlurm(tmp_path_factory.mktemp("slurm"), cpus=4) as c:
            yield c
    except Unavailable as e:
        pytest.skip(f"Slurm cannot be started here: {e}")


def test_batch_script_runs_the_suite_with_srun_and_collects(cluster, tmp_path):
    tool("raw_write")
    (tmp_path / "s.toml").write_text(SUITE)
    job, res = tmp_path / "job.sh", tmp_path / "res"
    ok(cli("slurm", tmp_path / "s.toml", "--nodes", "1", "--ntasks-per-node", "2", "--time", "5",
           "--partition", "debug", "--results", res, "--sbatch=--output=" + str(tmp_path / "job-%j.out"),
           "--setup", "echo site-setup-ran", "-o", job))
    text = job.read_text()
    for line in ("#SBATCH --nodes=1", "#SBATCH --ntasks-per-node=2", "#SBATCH --time=5", "#SBATCH --partition=debug",
                 f"#SBATCH --output={tmp_path}/job-%j.out"):
        assert line + "\n" in text
    assert "--launcher 'srun --mpi=pmix -n {ranks}'" in text and f"export IOK_BUILD_DIR={BUILD_DIR}" in text
    sub = cluster.run("sbatch", "--parsable", job)
    assert sub.returncode == 0, sub.stderr
    job_id = sub.stdout.strip().split(";")[0]
    state = cluster.wait_job(job_id, 240)
    log = (tmp_path / f"job-{job_id}.out").read_text()
    assert state == "COMPLETED", f"{state}\n{log}\n{cluster.tail('slurmctld.log', 10)}"
    assert f"iokernels: job {job_id} on 1 node(s)" in log and "suite finished with status 0" in log
    assert log.splitlines()[0] == "site-setup-ran"
    index = json.loads((res / "index.json").read_text())
    assert [(r["ranks"], r["status"]) for r in index["runs"]] == [(1, "ok"), (2, "ok")]
    for r in index["runs"]:
        doc = json.loads((res / r["result"]).read_text())
        assert doc["suite_run"]["command"][:4] == ["srun", "--mpi=pmix", "-n", str(r["ranks"])]
        assert doc["manifest"]["processes"] == r["ranks"]           # one MPI job, not N singletons
        assert doc["summary"]["bytes"] == 2000000
        assert doc["manifest"]["environment"].get("SLURM_JOB_ID") in (None, job_id)
    rows = list(csv.DictReader(io.StringIO((res / "report.csv").read_text())))
    assert [(r["ranks"], r["bytes"], r["status"]) for r in rows] == [("1", "2000000", "ok"), ("2", "2000000", "ok")]
    assert "raw_write" in (res / "report.txt").read_text()
    assert (res / "report.html").read_text().count('<img class="plot"') >= 1


def test_run_inside_an_allocation_catches_a_launch_without_pmix(cluster, tmp_path):
    """srun without PMIx starts N singletons: the run must fail, not record
    N one-process results as an N-rank result."""
    tool("raw_write")
    (tmp_path / "s.toml").write_text(SUITE.replace('"-o",', '"--overwrite", "-o",'))
    res = tmp_path / "res"
    wrap = (f"cd {tmp_path} && {sys.executable} -m iokernels run s.toml --launcher 'srun --mpi=none -n {{ranks}}' "
            f"--results {res}")
    sub = cluster.run("sbatch", "--parsable", "-n", "2", "-t", "5", f"--output={tmp_path}/out-%j.txt",
                      f"--export=ALL,IOK_BUILD_DIR={BUILD_DIR}",
                      "--wrap", wrap)
    assert sub.returncode == 0, sub.stderr
    job_id = sub.stdout.strip().split(";")[0]
    state = cluster.wait_job(job_id, 240)
    out = (tmp_path / f"out-{job_id}.txt").read_text()
    assert state == "FAILED", out                                     # run exits 1: one run failed
    index = json.loads((res / "index.json").read_text())
    assert [(r["ranks"], r["status"]) for r in index["runs"]] == [(1, "ok"), (2, "failed")]
    # the singletons race for one output: the second is refused by the first's
    # lock (core/output_lock.hpp), or, when the first had finished, they race
    # for one JSON file whose survivor says 1 process (or, rarely, the
    # interleaved file is no JSON): either way the run is not taken
    assert ("ran as 1 MPI process(es), the suite asked for 2" in out or "wrote no JSON result" in out
            or "is being written by another run" in out), out


def test_a_launcher_that_starts_fewer_processes_fails_the_run(tmp_path):
    """The same check without Slurm, deterministic: the launcher starts one
    process where the suite asked for two."""
    tool("raw_write")
    (tmp_path / "s.toml").write_text(
        '[[case]]\nkernel = "raw_write"\nranks = 2\nlauncher = "env IGNORED={ranks} mpiexec -n 1"\n'
        'args = ["-n", "1000", "-o", "{outdir}/r.dat"]\n')
    p = cli("run", tmp_path / "s.toml", "--results", tmp_path / "res")
    assert p.returncode == 1
    assert ("FAILED (exit 0): iokernels run: error: the program ran as 1 MPI process(es), the suite asked for 2"
            in p.stdout), p.stdout
    index = json.loads((tmp_path / "res" / "index.json").read_text())
    assert [r["status"] for r in index["runs"]] == ["failed"] and "mib_s" not in index["runs"][0]


def test_slurm_refuses_what_cannot_run(tmp_path):
    (tmp_path / "s.toml").write_text(SUITE)
    one_error(cli("slurm", tmp_path / "s.toml", "--nodes", "1", "--ntasks-per-node", "1", "--time", "5",
                  "-o", tmp_path / "j.sh"), "the suite runs 2 ranks but the allocation has 1 x 1 = 1 tasks")
    one_error(cli("slurm", tmp_path / "s.toml", "--nodes", "1", "--ntasks-per-node", "2", "--time", "5 min",
                  "-o", tmp_path / "j.sh"), "is not a Slurm time limit")
    one_error(cli("slurm", tmp_path / "absent.toml", "--nodes", "1", "--ntasks-per-node", "2", "--time", "5",
                  "-o", tmp_path / "j.sh"), "does not exist")
    assert not (tmp_path / "j.sh").exists()
