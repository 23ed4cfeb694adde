"""The README is tested: every command block of README.md and docs/*.md has a
check here, and a block without one fails (test_every_command_block_is_checked),
so a new command in the docs comes with its check.

The commands run in a fresh copy of the checkout (its tracked sources, no
../shared beside it, `build` a link to this build) with the built programs on
PATH, as a newcomer would type them, /tmp and /scratch paths moved into the
test's directory.  Each check says how it checks:

- run:       the block as written; exit 0 and what the text promises.
- cheaper:   the full demo or test itself, a site's modules and srun, or a
             64-rank run are too big for a test: the part that can fail for
             a newcomer runs instead (named in the check's docstring).
- covered:   another test runs exactly this (named; it must exist).

And the claims: the options "common to every kernel" are in each kernel's
--help, with the --verify defaults the README gives."""
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import BUILD_DIR, SOURCE_DIR, load_json, registered_backends
from gen_inputs import gcrm_inputs, h5bench_config, write_pio_dat

DOCS = [SOURCE_DIR / "README.md", *sorted((SOURCE_DIR / "docs").glob("*.md"))]
KERNELS = ["bdcats", "e3sm", "exerciser", "gcrm", "metadata", "noncontig", "replay", "s3d", "vpic"]
ALWAYS_VERIFY = {"metadata", "exerciser"}  # no --verify option: README, "Common options"


def command_blocks():
    """(file name, first line, text) of every block that shows commands: the
    ```sh blocks, and unmarked ones holding `$ ` prompts or mpiexec/iokernels lines."""
    out = []
    for doc in DOCS:
        text = doc.read_text()
        for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M):
            lang, body = m.group(1), m.group(2)
            lines = [ln for ln in body.splitlines() if ln.strip()]
            if lang == "sh" or (lang == "" and any(re.match(r"(\$ |mpiexec |iokernels )", ln) for ln in lines)):
                out.append((doc.name, lines[0].strip(), body))
    return out


def block(doc, first):
    for d, f, body in command_blocks():
        if d == doc and f.startswith(first):
            return body
    raise AssertionError(f"no block of {doc} starts with {first!r}")


def commands(body):
    """The block's commands: continuation lines joined, comments and `$ `
    prompts removed, output lines (after a prompt) dropped."""
    cmds, cur, prompted = [], "", body.lstrip().startswith("$ ")
    for line in body.splitlines():
        if prompted and not line.startswith("$ "):
            continue
        line = line[2:] if line.startswith("$ ") else line
        line = re.sub(r"\s+#.*$", "", line) if not line.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        if line.rstrip().endswith("\\"):
            cur += line.rstrip()[:-1] + " "
            continue
        cmds.append((cur + line).strip())
        cur = ""
    return cmds


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A fresh copy of the checkout's sources (no build trees, results or
    ../shared), `build` linked to this build, a scratch directory for /tmp."""
    root = tmp_path_factory.mktemp("fresh")
    dst = root / "iokernels"
    def ignore(d, names):  # the checkout's build trees and results, not src/core/build_config.cpp.in
        top = Path(d) == SOURCE_DIR
        return [n for n in names if (top and (n.startswith("build") or n in ("results", ".git")))
                or n == "__pycache__" or n.endswith(".egg-info")]
    shutil.copytree(SOURCE_DIR, dst, symlinks=True, ignore=ignore)
    (dst / "build").symlink_to(BUILD_DIR)
    (root / "scratch").mkdir()
    assert not (root / "shared").exists()
    return dst


def to_scratch(cmd, scratch):
    """A documented command's /tmp and /scratch paths moved into `scratch`;
    this checkout's and its build's own paths left as they are (a checkout may
    itself live under /tmp)."""
    own = sorted({str(BUILD_DIR), str(SOURCE_DIR)}, key=len, reverse=True)
    parts = re.split("(" + "|".join(map(re.escape, own)) + ")", cmd)
    return "".join(p if p in own else re.sub(r"(?<![\w.-])/(tmp|scratch)/(?!pytest-of-)", f"{scratch}/", p)
                   for p in parts)


def sh(clone, cmd, timeout=600, env=None):
    """Runs one documented command in the clone, as a user's shell would."""
    cmd = to_scratch(cmd, clone.parent / "scratch")
    e = dict(os.environ, PATH=f"{BUILD_DIR / 'src'}:{os.environ['PATH']}", OMPI_MCA_btl="self,sm",
             OMPI_MCA_rmaps_base_oversubscribe="1", PRTE_MCA_rmaps_default_mapping_policy=":oversubscribe")
    e.pop("IOK_BUILD_DIR", None)  # the clone's own build/, as for a user
    if env:
        e.update(env)
    p = subprocess.run(["bash", "-c", cmd], cwd=clone, env=e, capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, f"{cmd}\nexit {p.returncode}\nstdout:\n{p.stdout[-3000:]}\nstderr:\n{p.stderr[-3000:]}"
    return p


def ctest_tests():
    """{test name: its labels} as ctest knows them, read from the build's
    CTestTestfile.cmake files (running `ctest -N` here would replace the
    running ctest's LastTest.log)."""
    tests = {}
    for f in BUILD_DIR.rglob("CTestTestfile.cmake"):
        text = f.read_text()
        for m in re.finditer(r"add_test\(\[=\[([^\]]+)\]=\]", text):
            tests.setdefault(m.group(1), "")
        for m in re.finditer(r"set_tests_properties\(\[=\[([^\]]+)\]=\] PROPERTIES (.*)\)", text):
            lab = re.search(r'LABELS "([^"]*)"', m.group(2)) or re.search(r"LABELS (\S+)", m.group(2))
            tests[m.group(1)] = lab.group(1) if lab else ""
    # the unit tests are listed by gtest_discover_tests in a file of their own
    for f in BUILD_DIR.rglob("iok_unit_tests*_tests.cmake"):
        for m in re.finditer(r"add_test\(\[=\[(unit\.[^\]]+)\]=\]", f.read_text()):
            tests[m.group(1)] = "unit;quick" if "quick" in f.read_text() else "unit"
    return tests


# --- the checks, one per block ---------------------------------------------------------------

def check_two_commands(clone):
    """cheaper: `scripts/iok demo` and `scripts/iok test` themselves set up,
    build and run for minutes (the from-nothing run is measured by hand: a
    fresh clone with IOK_SYSROOT pointing at an empty directory).  Here: both
    commands exist in `scripts/iok --help`, the set-up finds the stack in
    place within seconds (the README's "second time ... within seconds"), the
    demo's own run (scripts/demo.sh, what `demo` runs after building) gives
    the F case on 16 ranks read back and verified, and the test command's
    tiers exist (ctest lists the tests and a quick label)."""
    h = sh(clone, "scripts/iok --help").stdout
    for c in ("demo", "test", "test --quick", "sanitize"):
        assert f"scripts/iok {c}" in h, h
    t0 = time.monotonic()
    sh(clone, "scripts/setup.sh demo && scripts/setup.sh test")
    assert time.monotonic() - t0 < 10
    demo = sh(clone, f"scripts/demo.sh {BUILD_DIR}", env={"IOK_DEMO_DIR": str(clone.parent / "demo")}).stdout
    assert re.search(r"Total number of MPI processes\s+= 16", demo), demo
    assert "==== read h0" in demo and "pnetcdf" in demo
    res = load_json(clone.parent / "demo" / "e3sm_f_case.json")
    assert res["valid"] is True and res["summary"]["verification_mismatches"] == 0
    assert {f.get("role", "") for f in res["files"]} or res["files"]
    listed = ctest_tests()
    assert any(n.startswith("unit.") for n in listed) and "test_e3sm" in listed
    assert any("quick" in labels for labels in listed.values())


def check_tiers(clone):
    """cheaper: the tiers run for minutes; their selections are checked: --quick
    is a ctest label holding unit tests and integration tests, sanitize a
    command of scripts/iok, and a ctest selection goes through."""
    tests = ctest_tests()
    quick = [n for n, labels in tests.items() if "quick" in labels]
    assert any(n.startswith("unit.") for n in quick) and "test_kernels_quick" in quick
    assert set(quick) < set(tests)  # a tier, not everything
    assert "scripts/iok sanitize" in sh(clone, "scripts/iok --help").stdout
    assert "test_s3d" in tests


def check_hpc_build(clone):
    """cheaper: srun and a site's libraries are not here.  The configure step
    runs as written (empty *_DIR: the system's libraries) and prints which
    backends are enabled with library versions, as the README says."""
    b = clone.parent / "hpc-build"
    cmd = commands(block("README.md", "cmake -S . -B build -DCMAKE_PREFIX_PATH"))[0]
    out = sh(clone, cmd.replace("-B build", f"-B {b}") + " -DIOK_BUILD_TESTS=OFF").stdout
    for key, lib in (("PNETCDF", "PnetCDF"), ("HDF5", "parallel HDF5"), ("NETCDF4", "parallel NetCDF-4"),
                     ("ADIOS2", "ADIOS2 with MPI")):
        assert re.search(rf"{key}\s+enabled\s+\({lib} \d+\.\d+", out), out


def check_covered_by(test_file, *fragments):
    def check(clone):
        src = (SOURCE_DIR / "tests" / "integration" / test_file).read_text()
        for f in fragments:
            assert f in src, f"{test_file} no longer covers {f!r}"
    check.__doc__ = f"covered: {test_file} runs this ({', '.join(fragments)})"
    return check


def check_running(clone):
    """run: `iokernels <kernel> --help` for every kernel (exit 0), and the
    usage line as `iokernels --help` prints it."""
    top = sh(clone, "iokernels --help").stdout
    assert "mpiexec -n N iokernels <kernel> [options]" in top and "--io-layer romio|ompio" in top
    for k in KERNELS:
        assert k in top
        sh(clone, f"iokernels {k} --help")


def check_f_case(clone):
    """run: the F-case example, as written (paths under /tmp moved)."""
    for c in commands(block("README.md", "scripts/iok run build/src/e3sm_mapgen")):
        sh(clone, c)
    res = load_json(clone / "f.json")
    assert res["valid"] is True and res["params"]["records"] == 5 and res["manifest"]["processes"] == 16


def check_other_kernels(clone):
    """run: each line with the inputs it names made by the project's
    generators (zgrd.in, h5bench configurations, PIO .dat maps, the F map of
    the example above).  Cheaper: the ne120 dry run for 21,632 ranks (2.2 GiB,
    bench/e3sm_dry_run.py) runs on the ne4 map; `blob_replay …` (arguments
    elided) is its --help."""
    cmds = commands(block("README.md", "mkdir -p /tmp/ckpt"))
    scratch = clone.parent / "scratch"
    gcrm_inputs(clone)
    h5bench_config(clone / "h5bench.cfg", TIMESTEPS=2, NUM_DIMS=1, DIM_1=1024, DIM_2=1, DIM_3=1)
    h5bench_config(clone / "h5bench_read.cfg", TIMESTEPS=2, NUM_DIMS=1, DIM_1=1024, DIM_2=1, DIM_3=1,
                   READ_OPTION="FULL")
    for i, dims in ((1, [866]), (2, [866]), (3, [866, 72])):
        n = dims[0] * (dims[1] if len(dims) > 1 else 1)
        write_pio_dat(clone / f"d{i}.dat", dims, [list(range(1 + p, n + 1, 4)) for p in range(4)])
    sh(clone, f"e3sm_mapgen --case F --ne 4 --nprocs 16 -o {scratch}/map_f.nc")
    sh(clone, f"e3sm_mapgen --case F --ne 4 --nprocs 16 -o {clone}/map_ne120.nc")
    ran = 0
    for c in cmds:
        if c.startswith("blob_replay"):
            sh(clone, "blob_replay --help")
        else:
            sh(clone, c)
        ran += 1
    assert ran == 11 and (scratch / "particles.h5").exists() and (clone / "map.nc").exists()


def check_capture(doc, first):
    def check(clone):
        """run, cheaper where big: the capture with raw_write standing for the
        application (./app, ./my_app), a 64-rank replay on 4 ranks."""
        scratch = clone.parent / "scratch"
        app = f"{BUILD_DIR / 'src' / 'raw_write'} -o {scratch}/app.dat -n 4194304 -c 262144 --overwrite"
        for c in commands(block(doc, first)):
            c = re.sub(r"\./(my_)?app( args\.\.\.)?", app, c).replace("-n 64", "-n 4").replace("-n 16", "-n 4")
            c = c.replace("IOK_CAPTURE_TRACE=app.json", f"IOK_CAPTURE_TRACE={scratch}/app.json")
            c = c.replace(" app.json", f" {scratch}/app.json")
            sh(clone, c)
    return check


def check_suite_runner(clone):
    """cheaper: the sweep, reports, HTML in Chromium and the Slurm script are
    run by test_suite_runner.py, test_ceiling.py, test_compare.py,
    test_report_html.py and test_slurm.py; here every subcommand the block
    uses answers --help, as typed."""
    cmds = commands(block("README.md", "# what the storage under a directory"))
    subs = {re.search(r"python3 -m iokernels (\w+)", c).group(1) for c in cmds}
    assert subs == {"ceiling", "run", "report", "compare", "html", "plot", "slurm"}, subs
    for s in sorted(subs):
        sh(clone, f"scripts/run.sh env PYTHONPATH=python python3 -m iokernels {s} --help")
    for t in ("test_suite_runner.py", "test_ceiling.py", "test_compare.py", "test_report_html.py", "test_slurm.py"):
        assert (SOURCE_DIR / "tests" / "integration" / t).exists()


def check_size_refusal(clone):
    """run: the transcript's command fails at once with the figures and the hint."""
    c = commands(block("hardening.md", "$ mpiexec -n 4 iokernels vpic"))[0]
    t0 = time.monotonic()
    e = dict(os.environ, PATH=f"{BUILD_DIR / 'src'}:{os.environ['PATH']}")
    p = subprocess.run(["bash", "-c", c], cwd=clone, env=e, capture_output=True, text=True, timeout=120)
    assert p.returncode != 0 and time.monotonic() - t0 < 30
    assert "error: the run needs at least" in p.stderr and "hint: reduce DIM_1 x DIM_2 x DIM_3" in p.stderr, p.stderr


def check_version(clone):
    """run: `iokernels --version` prints the version line, and the libraries."""
    out = sh(clone, "iokernels --version").stdout
    assert re.match(r"iokernels \d+\.\d+\.\d+ \(git ", out) and "built with:" in out and "MPI" in out, out
    for lib in ("PnetCDF",):
        assert lib in out


CHECKS = {  # (document, the block's first line starts with) -> check
    ("README.md", "scripts/iok demo"): check_two_commands,
    ("README.md", "scripts/iok test --quick"): check_tiers,
    ("README.md", "cmake -S . -B build -DCMAKE_PREFIX_PATH"): check_hpc_build,
    ("README.md", "cmake -S . -B build -DCMAKE_BUILD_TYPE=Release"):
        check_covered_by("test_install.py", "cmake", "--install", "module use", "iokernels-suite"),
    ("README.md", "mpiexec -n N iokernels"): check_running,
    ("README.md", "scripts/iok run build/src/e3sm_mapgen"): check_f_case,
    ("README.md", "mkdir -p /tmp/ckpt"): check_other_kernels,
    ("README.md", "mpiexec -n 16 -x LD_PRELOAD"): check_capture("README.md", "mpiexec -n 16 -x LD_PRELOAD"),
    ("README.md", "# what the storage under a directory"): check_suite_runner,
    ("bad_inputs.md", "scripts/run.sh env IOK_BAD_INPUTS_LOG"):
        check_covered_by("test_bad_inputs.py", "IOK_BAD_INPUTS_LOG", "bad_inputs.md"),
    ("capture_trace.md", "# 1. capture"): check_capture("capture_trace.md", "# 1. capture"),
    ("README.md", "scripts/iok build"):
        check_covered_by("test_darshan.py", "example.darshan", '"--dry-run"', '"--ranks"', '"--scale"', '"advise"',
                         '"html"'),
    ("darshan.md", "# what the log says, per file"):
        check_covered_by("test_darshan.py", '"--dry-run"', '"--ranks"', '"--scale"', '"--calls", "recorded"'),
    ("darshan.md", "scripts/run.sh build/src/iokernels-darshan advise"):
        lambda clone: (check_covered_by("test_darshan.py", '"advise"', '"-o"')(clone),
                       check_covered_by("test_advise.py", '"advise"', '"html"', '"e3sm", "-a", "pnetcdf"')(clone)),
    ("darshan.md", "build/src/iokernels-darshan records JOB.darshan"):
        check_covered_by("test_darshan_written.py", 'convert("records"', 'convert("write"', "assert after == before"),
    ("darshan.md", "scripts/run.sh /opt/iokernels-venv/bin/python bench/darshan_scale.py"):
        check_covered_by("test_darshan_written.py", '"darshan_scale.py"', '"--nprocs"', '"--dxt-ops"'),
    ("hardening.md", "$ mpiexec -n 4 iokernels vpic"): check_size_refusal,
    ("install.md", "module load openmpi"): check_covered_by("test_install.py", "--install", "--prefix"),
    ("install.md", "module use"): check_covered_by("test_install.py", "module use", "load iokernels"),
    ("install.md", "$ iokernels --version"): check_version,
    ("install.md", "python3 -m venv --system-site-packages"):
        check_covered_by("test_install.py", "venv", "pip", "iokernels-suite"),
}


def test_every_command_block_is_checked():
    """A block added to the docs without a check here fails; so does a check
    whose block is gone."""
    keys = {(d, f) for d, f, _ in command_blocks()}
    unchecked = [k for k in keys if not any(k[0] == d and k[1].startswith(f) for d, f in CHECKS)]
    assert not unchecked, f"command blocks without a check in {__file__}: {unchecked}"
    stale = [c for c in CHECKS if not any(c[0] == d and f.startswith(c[1]) for d, f in keys)]
    assert not stale, f"checks of blocks no longer in the docs: {stale}"


@pytest.mark.parametrize("key", list(CHECKS), ids=lambda k: f"{k[0]}:{k[1][:30]}")
def test_command_block(clone, key):
    CHECKS[key](clone)


COMMON = ["-a,--api", "-x,--strategy", "-g,--subfiles", "--param", "--hint", "--independent", "-k,--keep",
          "--overwrite", "--json", "--csv", "-q,--quiet", "-v,--verbose", "--dry-run"]
VERIFY_DEFAULT = {"e3sm": "false", "vpic": "false", "s3d": "true", "gcrm": "true", "noncontig": "true",
                  "replay": "true", "bdcats": "true"}  # README, "Common options"


@pytest.mark.parametrize("kernel", KERNELS)
def test_common_options_are_in_every_kernels_help(kernel):
    """README: "Common options (every kernel, --help shows each with its
    default): -a, -x, -g; --dry-run ... --verify/--no-verify ...": each is in
    `iokernels KERNEL --help` (vpic and bdcats take --csv as h5bench's
    CSV_FILE), --verify with the default the README names; bdcats only reads,
    and verifies unless --no-verify."""
    h = subprocess.run([str(BUILD_DIR / "src" / "iokernels"), kernel, "--help"], capture_output=True, text=True,
                       timeout=60).stdout
    for opt in COMMON:
        assert re.search(rf"^\s+{re.escape(opt)}\b", h, re.M), f"{kernel} --help lacks {opt}:\n{h}"
    m = re.search(r"^\s+--verify,--no-verify\S*\s+\[(\w+)\]", h, re.M)
    if kernel in ALWAYS_VERIFY:
        assert m is None and "verified" in subprocess.run([str(BUILD_DIR / "src" / "iokernels"), "--help"],
                                                          capture_output=True, text=True).stdout
    else:
        assert m and m.group(1) == VERIFY_DEFAULT[kernel], f"{kernel}: --verify default\n{h}"


def test_every_backend_the_readme_names_is_built():
    """README: "Backends: pnetcdf, hdf5, hdf5_md, netcdf4, adios, mpiio —
    whichever this build found": with the library stack of scripts/setup.sh, all."""
    assert {"pnetcdf", "hdf5", "hdf5_md", "netcdf4", "adios", "mpiio"} <= registered_backends()
