"""Shared fixtures for the integration tests: they launch the real programs
under real mpiexec (oversubscribed: these machines have 2 cores) on real
files.  Tests that need the user's data in ../shared skip when it is absent.

IOK_REQUIRE_ALL=1 turns every skip (a missing library, Python module, tool or
../shared dataset) into a failure that names the reason, so a run that was
meant to cover everything cannot pass by skipping."""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

# Absolute whatever the working directory: ctest and the suite runner start
# pytest from different places.
SOURCE_DIR = Path(os.environ.get("IOK_SOURCE_DIR", Path(__file__).resolve().parents[2])).resolve()
BUILD_DIR = Path(os.environ.get("IOK_BUILD_DIR", SOURCE_DIR / "build")).resolve()
SHARED = Path(os.environ.get("IOK_SHARED", SOURCE_DIR.parent / "shared")).resolve()
IOKERNELS = BUILD_DIR / "src" / "iokernels"
REQUIRE_ALL = os.environ.get("IOK_REQUIRE_ALL", "") not in ("", "0")


def tool(*names):
    """Path of the first of `names` found: a program this project builds
    (src/tools/<name>.cpp, in the build tree) or one installed on PATH
    (h5dump, ncmpidump, bpls...).  A missing program of ours fails the test
    (the build is incomplete); a missing installed one skips it."""
    for name in names:
        if (SOURCE_DIR / "src" / "tools" / f"{name}.cpp").exists():
            built = BUILD_DIR / "src" / name
            if not built.exists():
                pytest.fail(f"{built} is not built: run scripts/iok build", pytrace=False)
            return built
        found = shutil.which(name)
        if found:
            return Path(found)
    pytest.skip(f"none of {', '.join(names)} is installed")


def _skip_reason(report):
    lr = report.longrepr
    return lr[2] if isinstance(lr, tuple) and len(lr) == 3 else str(lr)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """IOK_REQUIRE_ALL: a skipped test (skip(), skipif, importorskip, or a
    skipping fixture) is reported as failed with its reason.  xfail stays."""
    outcome = yield
    report = outcome.get_result()
    if REQUIRE_ALL and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"IOK_REQUIRE_ALL=1 forbids skipping: {_skip_reason(report)}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """IOK_REQUIRE_ALL: a module skipped while imported (module-level
    importorskip or skip(allow_module_level=True)) is a collection error."""
    outcome = yield
    report = outcome.get_result()
    if REQUIRE_ALL and report.skipped:
        report.outcome = "failed"
        report.longrepr = f"IOK_REQUIRE_ALL=1 forbids skipping {collector.nodeid}: {_skip_reason(report)}"


def _live_children(pid):
    """pids of the live (not zombie) child processes of pid: a launcher's ranks."""
    kids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            kids.append(int(d.name))
    return kids


# prterun keeps its session directory in /tmp/prterun.<host>.<pid>.0 and
# refuses to start ("prte_init() failed ... PMIX_ERR_EXISTS in
# session_dir.c") when one of that name is left over: a launcher the tests
# killed leaves its directory, and over a CI run's tens of thousands of
# processes pids come round again (pid_max 32768; seen once in CI).  Each
# test process gives its launchers a fresh base directory of their own,
# removed at exit, so no earlier run's leftovers can collide.
if "PRTE_MCA_prte_tmpdir_base" not in os.environ:
    import atexit
    import tempfile
    _prte_tmp = tempfile.mkdtemp(prefix="iok-prte-")
    os.environ["PRTE_MCA_prte_tmpdir_base"] = _prte_tmp
    atexit.register(shutil.rmtree, _prte_tmp, True)

# Open MPI names a job's shared-memory segments (btl/sm, /dev/shm/sm_segment.
# <host>.<uid>.<jobid>.<rank>) by a 16-bit hash of the launcher's name, so two
# jobs running at once can get the same names and write into each other's
# segments.  Seen in a CI run (ctest -j 2): launchers of pids 28845 and 28901
# both hashed to job family 0xec14; one job's ranks segfaulted in
# mca_btl_sm_poll_handle_frag, the other's hung in MPI_Bcast (the same as
# open-mpi/ompi#7642).  Each test process gives its jobs a directory of their
# own, in /dev/shm still (memory), removed at exit with what aborted jobs
# leave there (they never unlink theirs).
if "OMPI_MCA_btl_sm_backing_directory" not in os.environ and os.path.isdir("/dev/shm"):
    import atexit
    import tempfile
    _sm_dir = tempfile.mkdtemp(prefix="iok-sm-", dir="/dev/shm")
    os.environ["OMPI_MCA_btl_sm_backing_directory"] = _sm_dir
    atexit.register(shutil.rmtree, _sm_dir, True)

# Every MPI process loads UCX with Open MPI, and UCX's constructor patches
# mmap/munmap for its registration cache: ~40 ms of CPU per process here
# (perf: ucs_init -> ucm_bistro_patch, a third of `iokernels --version`), on
# every rank of the suite's ~1,200 launches.  The tests run on one node over
# btl self,sm, which never use UCX's cache, so the hooks are turned off.
os.environ.setdefault("UCX_MEM_MMAP_HOOK_MODE", "none")

# How long a launcher may outlive all its ranks before it counts as hung.
LAUNCHER_GRACE_SECONDS = 30


def _launch(cmd, timeout, env):
    """(returncode, stdout, stderr, launcher_hung) of one launch.  Open MPI's
    prterun sometimes never returns after every rank has exited when some
    exited non-zero (a race in its abort path, openpmix/prrte#1839; seen once
    in a CI run here, 0 in 40 repeats of that launch under load).  That is
    the launcher's hang, not the program's: it is noticed
    LAUNCHER_GRACE_SECONDS after the last rank has gone, instead of at the
    test's timeout."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    waited = 0.0
    ranks_gone_for = 0.0
    while True:
        try:
            out, err = p.communicate(timeout=1)
            return p.returncode, out, err, False
        except subprocess.TimeoutExpired:
            waited += 1
        ranks_gone_for = ranks_gone_for + 1 if not _live_children(p.pid) else 0.0
        if waited >= timeout or ranks_gone_for >= LAUNCHER_GRACE_SECONDS:
            p.kill()
            out, err = p.communicate()
            if ranks_gone_for >= LAUNCHER_GRACE_SECONDS:
                return p.returncode, out, err, True
            raise subprocess.TimeoutExpired(cmd, timeout, output=out, stderr=err)


def _log_launch(nranks, argv, seconds):
    """With IOK_LAUNCH_LOG=FILE, one JSON line per launch (test, ranks, program
    and kernel, seconds): where a test's time goes (scripts/launch_profile.py)."""
    log = os.environ.get("IOK_LAUNCH_LOG")
    if not log:
        return
    test = os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" (", 1)[0]
    prog = [Path(str(argv[0])).name] + [str(a) for a in argv[1:2]]
    with open(log, "a") as f:
        f.write(json.dumps({"test": test, "ranks": nranks, "program": " ".join(prog),
                            "seconds": round(seconds, 3)}) + "\n")


def mpirun(nranks, argv, timeout=900, env=None, check=True):
    """Run argv under mpiexec with nranks; returns CompletedProcess (text).
    A launcher that hangs after all its ranks have exited is launched once
    more (and says so on stderr); a hang of the ranks themselves fails."""
    cmd = ["mpiexec", "--oversubscribe", "-n", str(nranks)] + [str(a) for a in argv]
    e = dict(os.environ)
    e.setdefault("OMPI_MCA_btl", "self,sm")
    if env:
        e.update(env)
    t0 = time.monotonic()
    rc, out, err, hung = _launch(cmd, timeout, e)
    _log_launch(nranks, argv, time.monotonic() - t0)
    if hung:
        print(f"mpiexec hung after every rank had exited (prrte#1839); launching again: {' '.join(cmd)}\n"
              f"stderr of the hung launch:\n{err}", file=sys.stderr)
        rc, out, err, hung = _launch(cmd, timeout, e)
        assert not hung, f"mpiexec hung twice after every rank had exited: {' '.join(cmd)}\nstderr:\n{err}"
    p = subprocess.CompletedProcess(cmd, rc, out, err)
    if check and p.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({p.returncode})\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def iok(nranks, *args, **kw):
    """Run `iokernels ARGS...` on nranks ranks."""
    return mpirun(nranks, [IOKERNELS, *args], **kw)


def load_json(path):
    with open(path) as f:
        return json.load(f)


def registered_backends():
    """Backends this build has (from `iokernels e3sm --help`)."""
    out = subprocess.run([str(IOKERNELS), "e3sm", "--help"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "I/O library (backend):" in line:
            names = line.split("I/O library (backend):", 1)[1]
            return {n.strip().split()[0] for n in names.split(",") if n.strip()}
    return set()


def assert_all_ranks_fail(proc, *fragments):
    """A bad-input run: non-zero exit, one clear message naming the problem."""
    assert proc.returncode != 0, f"expected failure, got success\n{proc.stdout}"
    err = proc.stderr
    for frag in fragments:
        assert frag in err, f"{frag!r} not in stderr:\n{err}"
    assert err.count("error:") == 1, f"expected one error message, got:\n{err}"
    assert "MPI_ABORT" not in err and "core dumped" not in err.lower(), err


def pattern_raw(name, element, record, seed=0):
    """The pattern's 64 hashed bits (src/runner/pattern.cpp) at flat `element`
    of record `record` of variable `name` (FilePlan::pattern_seed `seed`, 0
    unless a kernel sets one): each type keeps some of them."""
    m = 0xFFFFFFFFFFFFFFFF

    def mix(x):  # splitmix64 finaliser
        x = (x + 0x9E3779B97F4A7C15) & m
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & m
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & m
        return x ^ (x >> 31)
    key = 1469598103934665603  # FNV-1a of the name
    for c in name.encode():
        key = ((key ^ c) * 1099511628211) & m
    key ^= seed
    block, pos = element >> 9, element & 511  # hashed per 512-element block
    h = mix(key ^ mix((block * 0x100000001B3 + record * 0x9E3779B97F4A7C15) & m))
    x = (pos * 0xD6E8FEB86659FD93) & m  # a Weyl sequence within the block, folded
    return h ^ x ^ (x >> 32)


def pattern_value(name, element, record, seed=0):
    """The float/double value the programs write at that element."""
    return (pattern_raw(name, element, record, seed) & 0xFFFFFF) / 256.0


def pattern_int64(name, element, record, seed=0):
    """The int64 value the programs write at that element."""
    return pattern_raw(name, element, record, seed) & 0x7FFFFFFFFFFF


@pytest.fixture(scope="session")
def small_g_map(tmp_path_factory):
    """A small E3SM G-case map made by e3sm_mapgen (40 cells, 3 levels, 2
    processes): a real e3sm run on any backend in a second, no ../shared."""
    path = tmp_path_factory.mktemp("small_g") / "map_g_40x3_2p.nc"
    subprocess.run([str(tool("e3sm_mapgen")), "-o", str(path), "--case", "G", "--nprocs", "2", "--nlev", "3",
                    "--ncells", "40"], check=True, capture_output=True, timeout=120)
    return path


@pytest.fixture
def shared():
    """The user's data (../shared); skip when absent."""
    if not (SHARED / "datasets").is_dir():
        pytest.skip(f"needs the shared datasets at {SHARED}")
    return SHARED


@pytest.fixture
def e3sm_maps(shared):
    return shared / "datasets" / "e3sm"


@pytest.fixture(scope="session")
def case_maps(tmp_path_factory):
    """A directory holding map_{f,g,i}_case_16p.nc (e3sm_inputs: e3sm_mapgen's
    F, G and I cases at 16 processes), generated once per session."""
    from e3sm_inputs import MAP_NAMES, make_case_map
    d = tmp_path_factory.mktemp("case_maps")
    for case, name in MAP_NAMES.items():
        make_case_map(case, d / name)
    return d
