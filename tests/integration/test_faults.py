"""Faults during a run: a rank that dies, the user's Ctrl-C or the batch
system's SIGTERM, two runs writing into one directory at once, data that
reads back wrong.

- A rank killed with SIGKILL in the middle of its writes ends the job with a
  non-zero status within 30 s (the launcher notices the lost process and
  ends the others; nothing waits forever in a collective call).
- SIGINT or SIGTERM to the launcher: the run removes the outputs it created
  (core/interrupt_cleanup.hpp) and nothing else (an unrelated file beside
  them and the inputs stay), and exits non-zero.
- Two runs into one directory: different names both complete intact; the
  same name is refused to the second run, which leaves the first run's file
  alone, and the first completes — also when both start at once (the claim
  takes PATH.iok-lock first); a killed run's lock is replaced, a live one's
  refuses the name with the holder's pid.
- A read-back that finds a changed value: non-zero exit and the JSON result
  says "valid": false with the reason, on the run and every file entry.
"""
import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from conftest import IOKERNELS, iok

RANKS = 4
# A write that takes a while: 12 steps with 0.5 s of emulated compute between
# them, 1 MiB per rank per step (raw MPI-IO: the file is the data).
SLOW_WRITE = ["vpic", "-a", "mpiio", "--dim-1", "32K", "--timesteps", "12",
              "--emulated-compute-time-per-timestep", "500 ms"]


def start(argv, **kw):
    env = dict(os.environ)
    env.setdefault("OMPI_MCA_btl", "self,sm")
    return subprocess.Popen(["mpiexec", "--oversubscribe", "-n", str(RANKS), *map(str, argv)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True, **kw)


def rank_pids(launcher_pid, program="iokernels"):
    """pid of every rank of this launch: processes below the launcher running `program`, by rank."""
    found = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().split(b"\0")
            env = (d / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if not cmd or not cmd[0].endswith(program.encode()):
            continue
        vals = dict(e.split(b"=", 1) for e in env if b"=" in e)
        if not ancestor(int(d.name), launcher_pid):
            continue
        r = vals.get(b"OMPI_COMM_WORLD_RANK")
        if r is not None:
            found[int(r)] = int(d.name)
    return found


def ancestor(pid, wanted):
    while pid > 1:
        if pid == wanted:
            return True
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return False


def wait_for(cond, seconds, what):
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        if cond():
            return
        time.sleep(0.1)
    pytest.fail(f"timed out after {seconds} s waiting for {what}")


def finish(p, seconds):
    """(returncode, stdout, stderr, elapsed) of a launch, killing it when it overstays."""
    t0 = time.monotonic()
    try:
        out, err = p.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        pytest.fail(f"the job was still running {seconds} s later\nstdout:\n{out}\nstderr:\n{err}")
    return p.returncode, out, err, time.monotonic() - t0


def test_rank_killed_mid_write_ends_the_job(tmp_path):
    out = tmp_path / "p.dat"
    p = start(["env", "IOK_FAILURE_WAIT_SECONDS=5", IOKERNELS, *SLOW_WRITE, "-o", out])
    wait_for(lambda: out.exists() and out.stat().st_size > 0, 60, "the first step on disk")
    pids = rank_pids(p.pid)
    assert sorted(pids) == list(range(RANKS)), pids
    os.kill(pids[2], signal.SIGKILL)
    rc, _, err, seconds = finish(p, 30)
    assert rc != 0, err
    assert seconds < 30


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupt_removes_only_this_runs_outputs(tmp_path, sig):
    keep_me = tmp_path / "other_run.dat"
    keep_me.write_bytes(b"not this run's" * 100)
    out = tmp_path / "p.dat"
    p = start([IOKERNELS, *SLOW_WRITE, "-k", "-o", out])
    wait_for(lambda: out.exists() and out.stat().st_size > 0, 60, "the first step on disk")
    time.sleep(0.5)
    os.kill(p.pid, sig)
    rc, _, err, seconds = finish(p, 30)
    assert rc != 0, err
    assert not out.exists(), f"the interrupted run's output is still there\n{err}"
    assert keep_me.read_bytes() == b"not this run's" * 100
    assert sorted(q.name for q in tmp_path.iterdir()) == ["other_run.dat"]


def test_two_runs_into_one_directory_different_names(tmp_path):
    a = start([IOKERNELS, "vpic", "-a", "mpiio", "--dim-1", "64K", "--timesteps", "3", "-k", "-o", tmp_path / "a.dat"])
    b = start([IOKERNELS, "vpic", "-a", "mpiio", "--dim-1", "32K", "--timesteps", "2", "-k", "-o", tmp_path / "b.dat"])
    for p in (a, b):
        rc, _, err, _ = finish(p, 120)
        assert rc == 0, err
    assert (tmp_path / "a.dat").stat().st_size == RANKS * 64 * 1024 * 32 * 3
    assert (tmp_path / "b.dat").stat().st_size == RANKS * 32 * 1024 * 32 * 2


def test_second_run_on_the_same_name_is_refused_and_leaves_the_first_alone(tmp_path):
    out = tmp_path / "p.dat"
    first = start([IOKERNELS, *SLOW_WRITE, "-k", "-o", out])
    wait_for(lambda: out.exists() and out.stat().st_size > 0, 60, "the first run's file")
    second = iok(RANKS, *SLOW_WRITE, "-o", out, check=False, timeout=60)
    assert second.returncode != 0
    assert "is being written by another run (pid " in second.stderr, second.stderr
    assert out.exists(), "the refused run removed the other run's file"
    # --overwrite does not take a name another run is writing either
    third = iok(RANKS, *SLOW_WRITE, "--overwrite", "-o", out, check=False, timeout=60)
    assert third.returncode != 0 and "is being written by another run" in third.stderr, third.stderr
    rc, _, err, _ = finish(first, 120)
    assert rc == 0, err
    assert out.stat().st_size == RANKS * 32 * 1024 * 32 * 12


def test_wrong_data_read_back_marks_the_result_invalid(tmp_path):
    data = tmp_path / "p.dat"
    iok(RANKS, "vpic", "-a", "mpiio", "--dim-1", "4K", "--timesteps", "2", "-k", "-o", data, timeout=120)
    raw = bytearray(data.read_bytes())
    raw[len(raw) // 3] ^= 0x10
    data.write_bytes(bytes(raw))
    result = tmp_path / "r.json"
    p = iok(RANKS, "bdcats", "-a", "mpiio", "--dim-1", "4K", "--timesteps", "2", "-i", data, "--json", result,
            check=False, timeout=120)
    assert p.returncode != 0
    assert "verification failed" in p.stderr, p.stderr
    doc = json.loads(result.read_text())
    assert doc["valid"] is False
    assert "differ" in doc["invalid_reason"]
    assert doc["files"] and all(f["valid"] is False for f in doc["files"])
    # and a good read of the same file's pristine twin is valid
    raw[len(raw) // 3] ^= 0x10
    data.write_bytes(bytes(raw))
    iok(RANKS, "bdcats", "-a", "mpiio", "--dim-1", "4K", "--timesteps", "2", "-i", data, "--json", result,
        timeout=120)
    doc = json.loads(result.read_text())
    assert doc["valid"] is True and "invalid_reason" not in doc
    assert all("valid" not in f for f in doc["files"])


def test_two_runs_started_together_on_one_name(tmp_path):
    """Both pass "does it exist?" before either has created the file unless
    the claim takes a lock first (core/output_lock.hpp): one run writes, the
    other is refused, and the survivor's file is whole."""
    out = tmp_path / "p.dat"
    runs = [start([IOKERNELS, *SLOW_WRITE[:-2], "--emulated-compute-time-per-timestep", "100 ms", "-k", "-o", out])
            for _ in range(2)]
    results = [finish(p, 120) for p in runs]
    ok = [r for r in results if r[0] == 0]
    refused = [r for r in results if r[0] != 0]
    assert len(ok) == 1 and len(refused) == 1, [r[2] for r in results]
    err = refused[0][2]
    assert "is being written by another run" in err or "already exists and was not created by this run" in err, err
    assert out.stat().st_size == RANKS * 32 * 1024 * 32 * 12
    assert sorted(q.name for q in tmp_path.iterdir()) == ["p.dat"], "a lock was left behind"


def test_a_live_runs_lock_refuses_the_name(tmp_path):
    out = tmp_path / "p.dat"
    lock = tmp_path / "p.dat.iok-lock"
    lock.write_text(f"{socket.gethostname()} {os.getpid()}\n")  # this test process: alive
    p = iok(RANKS, "vpic", "-a", "mpiio", "--dim-1", "4K", "--timesteps", "1", "-o", out, check=False, timeout=60)
    assert p.returncode != 0
    assert f"is being written by another run (pid {os.getpid()} on {socket.gethostname()})" in p.stderr, p.stderr
    assert f"remove {lock}" in p.stderr, p.stderr
    assert not out.exists() and lock.read_text() == f"{socket.gethostname()} {os.getpid()}\n"


def test_a_killed_runs_lock_is_replaced(tmp_path):
    out = tmp_path / "p.dat"
    gone = subprocess.Popen(["true"])
    gone.wait()  # its pid names no process now
    (tmp_path / "p.dat.iok-lock").write_text(f"{socket.gethostname()} {gone.pid}\n")
    iok(RANKS, "vpic", "-a", "mpiio", "--dim-1", "4K", "--timesteps", "1", "-k", "-o", out, timeout=60)
    assert out.stat().st_size == RANKS * 4 * 1024 * 32
    assert sorted(q.name for q in tmp_path.iterdir()) == ["p.dat"]
