"""`cmake --install` as a computing centre uses it: install into a prefix,
then run from there with the source and build trees out of reach.

The installed programs run in a mount namespace where the source and build
directories are covered by empty file systems and the installation is seen
at another path (so it has also moved), with PATH/PYTHONPATH/IOK_* cleared
and the working directory elsewhere: anything still read from the trees, a
path compiled in, or a prefix assumed at build time fails the run.  The suite
runner is also pip-installed into a fresh virtual environment and the module
files are loaded with Lmod."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import BUILD_DIR, SOURCE_DIR

VERSION = re.search(r"project\(iokernels VERSION ([0-9.]+)", (SOURCE_DIR / "CMakeLists.txt").read_text()).group(1)
SUBCOMMANDS = ("run", "report", "compare", "plot", "html", "ceiling", "advise", "slurm")
# The runtime names of the libraries (manifest "libraries") and the build's names for them.
RUNTIME_NAMES = {"pnetcdf": "PnetCDF", "hdf5": "HDF5", "hdf5_md": "HDF5", "netcdf4": "NetCDF-4", "adios2": "ADIOS2",
                 "mpiio": "MPI"}
G_MAP = ["--case", "G", "--ncells", "4000", "--nprocs", "16"]


def run(argv, env, cwd, timeout=300):
    p = subprocess.run([str(a) for a in argv], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, f"{argv} failed ({p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p


def clean_env(*path_dirs, **extra):
    """The launcher's settings (OMPI_*, PRTE_*, ...) without PYTHONPATH,
    IOK_* or any project directory on PATH."""
    keep = {k: v for k, v in os.environ.items()
            if k.startswith(("OMPI_", "PRTE_", "PMIX_", "ADIOS2_", "LC_", "LANG")) or k in ("HOME", "USER", "TERM")}
    keep["PATH"] = os.pathsep.join([*map(str, path_dirs), "/usr/local/bin", "/usr/bin", "/bin"])
    keep.update({k: str(v) for k, v in extra.items()})
    return keep


def built_programs():
    """Executables and shared libraries the build made in src/ (not CMake's probes)."""
    out = []
    for f in (BUILD_DIR / "src").rglob("*"):
        if "CMakeFiles" in f.parts or not f.is_file() or not os.access(f, os.X_OK):
            continue
        with open(f, "rb") as fh:
            if fh.read(4) == b"\x7fELF":
                out.append(f)
    return out


@pytest.fixture(scope="module")
def prefix():
    """`cmake --install BUILD --prefix P` into a fresh P under the build directory."""
    root = Path(tempfile.mkdtemp(prefix="install-test-", dir=BUILD_DIR))
    p = subprocess.run(["cmake", "--install", str(BUILD_DIR), "--prefix", str(root / "p")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"module use {root / 'p'}/share/modulefiles" in p.stdout
    yield root / "p"
    shutil.rmtree(root, ignore_errors=True)


def _unshare():
    """An unshare command giving a private mount namespace, or None."""
    for argv in (["unshare", "--mount"], ["unshare", "--mount", "--propagation", "unchanged"],
                 ["unshare", "--user", "--map-root-user", "--mount"]):
        try:
            if subprocess.run(argv + ["true"], capture_output=True, timeout=30).returncode == 0:
                return argv
        except (OSError, subprocess.TimeoutExpired):
            return None
    return None


# Inside the new namespace: show the installation at $alias, then cover the
# source and build trees with empty read-only file systems.
HIDE = r'''set -e
src="$1"; build="$2"; real="$3"; alias="$4"; shift 4
mount --bind "$real" "$alias"
mount -t tmpfs -o size=64k,mode=555 iok-hidden "$src"
case "$build/" in "$src"/*) ;; *) mount -t tmpfs -o size=64k,mode=555 iok-hidden "$build" ;; esac
exec "$@"
'''


@pytest.fixture(scope="module")
def hidden(prefix, tmp_path_factory):
    """run(argv) -> CompletedProcess: argv run from the installation seen at
    ALIAS, with the trees hidden, PATH = ALIAS/bin + the system's, cwd WORK."""
    unshare = _unshare()
    if unshare is None:
        pytest.skip("no private mount namespace here (unshare --mount fails): cannot hide the source tree")
    base = tmp_path_factory.mktemp("installed")
    alias, work = base / "prefix", base / "work"
    alias.mkdir()
    work.mkdir()
    assert not str(alias).startswith((str(SOURCE_DIR) + "/", str(BUILD_DIR) + "/"))
    env = clean_env(alias / "bin", HOME=base)

    def go(*argv, check=True, timeout=300):
        cmd = [*unshare, "bash", "-c", HIDE, "hide", SOURCE_DIR, BUILD_DIR, prefix, alias, *argv]
        p = subprocess.run([str(a) for a in cmd], env=env, cwd=work, capture_output=True, text=True,
                           timeout=timeout)
        if check:
            assert p.returncode == 0, f"{argv} failed ({p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
        return p
    go.alias, go.work = alias, work
    return go


def test_every_program_and_file_is_installed(prefix):
    """Every executable/library the build made, the runner, suites, bench
    scripts, docs and module files are in the prefix; no installed file
    names the source or build tree (nor, for the programs, the prefix:
    the installation can move)."""
    built = built_programs()
    names = {f.name for f in built}
    tools = {f.stem for f in (SOURCE_DIR / "src" / "tools").glob("*.cpp")}
    assert {"iokernels"} | tools <= names, "the build is incomplete"
    for f in built:
        if ".so" in f.name:          # a library: loaded, not run
            assert [p for p in prefix.glob(f"lib*/{f.name}") if p.is_file()], f"{f.name} is not installed"
        else:
            dest = prefix / "bin" / f.name
            assert dest.is_file() and os.access(dest, os.X_OK), f"{f.name} is not installed"
    assert os.access(prefix / "bin" / "iokernels-suite", os.X_OK)
    share = prefix / "share" / "iokernels"
    assert (share / "python" / "iokernels" / "cli.py").is_file() and (share / "python" / "pyproject.toml").is_file()
    assert not list(share.rglob("__pycache__"))
    suites = {p.name for p in (SOURCE_DIR / "python" / "iokernels" / "suites").glob("*.toml")}
    assert suites and {p.name for p in (share / "suites").glob("*.toml")} == suites
    assert (share / "bench" / "benchlib.py").is_file() and (share / "bench" / "README.md").is_file()
    assert os.access(share / "bench" / "noncontig.sh", os.X_OK)
    docs = prefix / "share" / "doc" / "iokernels"
    assert (docs / "README.md").read_text() == (SOURCE_DIR / "README.md").read_text()
    assert (docs / "suite-runner.md").is_file()
    for page in (SOURCE_DIR / "docs").glob("*.md") if (SOURCE_DIR / "docs").is_dir() else []:
        assert (docs / page.name).is_file(), f"docs/{page.name} is not installed"
    lua = prefix / "share" / "lmod" / "iokernels" / f"{VERSION}.lua"
    tcl = prefix / "share" / "modulefiles" / "iokernels" / VERSION
    for m in (lua, tcl):
        text = m.read_text()
        assert f'"{prefix}"' in text and not re.search(r"@[A-Z_]+@", text), m
        assert all(t in text for t in tools | {"iokernels-suite"}), f"{m} does not list every command"

    trees = [str(SOURCE_DIR).encode(), str(BUILD_DIR).encode()]
    for f in (prefix / "bin").iterdir():
        data = f.read_bytes()
        if data[:4] == b"\x7fELF":
            for t in trees + [str(prefix).encode()]:
                assert t not in data, f"{f.name} contains the path {t.decode()}"
    for f in prefix.rglob("*"):
        if f.is_file() and b"\x00" not in f.read_bytes()[:4096]:          # text files
            text = f.read_text(errors="replace").replace(str(prefix), "")
            for t in trees:
                assert t.decode() not in text, f"{f.relative_to(prefix)} names {t.decode()}"


def test_installed_e3sm_case_and_suite_without_the_trees(hidden, prefix):
    """With the source and build trees hidden and the installation moved:
    --version names the new prefix and the libraries; a map made by the
    installed e3sm_mapgen gives an E3SM G run whose bytes, requests and file
    equal the build tree's; a suite runs through the installed
    iokernels-suite, finding iokernels beside it."""
    alias, work = hidden.alias, hidden.work
    # the trees really are out of reach in there
    assert hidden("ls", "-A", SOURCE_DIR).stdout == "" and hidden("ls", "-A", BUILD_DIR, check=False).returncode != 0
    assert hidden("bash", "-c", "command -v iokernels").stdout.strip() == str(alias / "bin" / "iokernels")
    v = hidden("iokernels", "--version").stdout
    assert v.startswith(f"iokernels {VERSION} (git ") and f"\ninstalled in {alias}\n" in v
    built_with = dict(line.split(None, 1) for line in v.split("built with:\n", 1)[1].splitlines())
    assert {"MPI", "CLI11", "nlohmann_json"} <= set(built_with)

    hidden("e3sm_mapgen", *G_MAP, "-o", "map.nc")
    assert (work / "map.nc").read_bytes()[:4] == b"CDF\x05"
    hidden("mpiexec", "-n", "4", "iokernels", "e3sm", "-a", "pnetcdf", "-r", "1", "--verify", "-k", "-o", "g.nc",
           "map.nc", "--json", "g.json")
    doc = json.loads((work / "g.json").read_text())
    w, r = doc["files"]
    assert (w["mode"], r["mode"]) == ("write", "read") and r["verify"]["mismatches"] == 0
    b = doc["manifest"]["build"]
    assert b["install_prefix"] == str(alias) and b["executable"] == str(alias / "bin" / "iokernels")
    assert b["version"] == VERSION and b["libraries_found"] == built_with
    # the versions the build found are the ones running (each library asked itself)
    assert built_with["MPI"] == doc["manifest"]["mpi"]
    runtime = {k: v for k, v in doc["manifest"]["libraries"].items() if k in RUNTIME_NAMES}
    assert "pnetcdf" in runtime and "mpiio" in runtime, doc["manifest"]["libraries"]
    for name, version in runtime.items():
        assert built_with[RUNTIME_NAMES[name]] in version, (name, version, built_with)

    # the same run from the build tree: same bytes, requests and file
    ref = work / "ref"
    ref.mkdir()
    run(["mpiexec", "-n", "4", BUILD_DIR / "src" / "iokernels", "e3sm", "-a", "pnetcdf", "-r", "1", "--verify", "-k",
         "-o", "g.nc", work / "map.nc", "--json", "g.json"], dict(os.environ), ref)
    rdoc = json.loads((ref / "g.json").read_text())
    assert w["bytes"]["total"] == rdoc["files"][0]["bytes"]["total"] > 0
    assert w["requests"] == rdoc["files"][0]["requests"] and w["requests"]["total"] > 0
    assert (work / "g.nc").read_bytes() == (ref / "g.nc").read_bytes()
    assert rdoc["manifest"]["build"]["install_prefix"] is None     # the build tree is not an installation
    assert "not installed: running from " + str(BUILD_DIR / "src") in \
        run([BUILD_DIR / "src" / "iokernels", "--version"], dict(os.environ), ref).stdout

    (work / "tiny.toml").write_text(f"""
[suite]
name = "tiny"
[[input]]
name = "g_map"
file = "map_g.nc"
command = ["{{bin}}/e3sm_mapgen", {", ".join(f'"{a}"' for a in G_MAP)}, "-o", "{{path}}"]
[[case]]
name = "G"
kernel = "e3sm"
ranks = 4
backend = "pnetcdf"
args = ["-r", "1", "--verify", "-o", "{{outdir}}/g.nc", "{{g_map}}"]
[[case]]
name = "raw"
kernel = "raw_write"
ranks = 2
args = ["-n", "{int(w['bytes']['total'])}", "-o", "{{outdir}}/raw.dat"]
""")
    p = hidden("iokernels-suite", "run", "tiny.toml", "--results", "res")
    assert p.stderr.splitlines()[-1].startswith("iokernels-suite run: 2/2 done, ")
    assert p.stdout.splitlines()[-1] == f"2 of 2 runs succeeded; results in {work / 'res'}"
    index = json.loads((work / "res" / "index.json").read_text())
    assert [r["status"] for r in index["runs"]] == ["ok", "ok"]
    assert index["inputs"][0]["command"][0] == str(alias / "bin" / "e3sm_mapgen")
    g, raw = (json.loads((work / "res" / r["result"]).read_text()) for r in index["runs"])
    assert g["suite_run"]["command"][4] == str(alias / "bin" / "iokernels")
    assert g["files"][0]["bytes"] == w["bytes"] and g["files"][0]["requests"] == w["requests"]
    assert g["files"][1]["verify"]["mismatches"] == 0
    assert raw["suite_run"]["command"][4] == str(alias / "bin" / "raw_write")
    assert raw["summary"]["bytes"] == w["bytes"]["total"]
    rows = [line.split() for line in hidden("iokernels-suite", "report", "res").stdout.splitlines()[2:] if line]
    assert [(r[0], r[3], r[-1]) for r in rows] == [("e3sm", "write", "ok"), ("e3sm", "read", "ok"),
                                                   ("raw_write", "write", "ok")]
    assert rows[1][-2] == "ok"                                   # the read was verified
    # the installed example suite, as its header tells users to run it
    dry = hidden("iokernels-suite", "run", alias / "share" / "iokernels" / "suites" / "example.toml",
                 "--dry-run").stdout
    assert dry.startswith(f"input g_map: {alias}/bin/e3sm_mapgen --case G")
    assert f" {alias}/bin/iokernels --io-layer romio e3sm -a pnetcdf " in dry


def test_pip_installed_runner_in_a_fresh_venv(prefix, tmp_path):
    """pip install ./python into a new virtual environment (system site
    packages for numpy/matplotlib/setuptools; no network): iokernels-suite
    --help lists every command, and a tiny suite runs with the installed
    iokernels found on PATH; without it on PATH the runner says where it
    looked and what to do."""
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--system-site-packages", venv], clean_env(), tmp_path)
    copy = tmp_path / "python"     # pip builds in the directory it is given: not in the checkout
    shutil.copytree(SOURCE_DIR / "python", copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "build",
                                                                               "*.egg-info"))
    run([venv / "bin" / "python", "-m", "pip", "install", "--no-index", "--no-build-isolation", "--quiet", copy],
        clean_env(), tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    env = clean_env(venv / "bin", prefix / "bin")
    where = run([venv / "bin" / "python", "-c", "import iokernels; print(iokernels.__file__)"], env, work).stdout
    assert where.startswith(str(venv / "lib"))
    h = run(["iokernels-suite", "--help"], env, work).stdout
    assert h.startswith("usage: iokernels-suite ") and all(c in h for c in SUBCOMMANDS)
    assert h.splitlines()[-1] == f"programs: {prefix / 'bin'} (on PATH; --build-dir overrides)"
    v = run(["iokernels-suite", "--version"], env, work).stdout
    assert v.startswith(f"iokernels-suite {VERSION}; programs: {prefix / 'bin'} (on PATH")
    for sub in SUBCOMMANDS:
        assert run(["iokernels-suite", sub, "--help"], env, work).stdout.startswith(f"usage: iokernels-suite {sub}")

    (work / "tiny.toml").write_text("""
[suite]
name = "tiny"
[[input]]
name = "g_map"
file = "map_g.nc"
command = ["{bin}/e3sm_mapgen", "--case", "G", "--ncells", "1000", "--nprocs", "4", "-o", "{path}"]
[[case]]
name = "G"
kernel = "e3sm"
ranks = 4
backend = "pnetcdf"
args = ["-r", "1", "--verify", "-o", "{outdir}/g.nc", "{g_map}"]
[[case]]
name = "raw"
kernel = "raw_write"
ranks = 2
args = ["-n", "1048576", "-o", "{outdir}/raw.dat"]
""")
    run(["iokernels-suite", "run", "tiny.toml", "--results", "res"], env, work)
    index = json.loads((work / "res" / "index.json").read_text())
    assert [r["status"] for r in index["runs"]] == ["ok", "ok"]
    f, raw = (json.loads((work / "res" / r["result"]).read_text()) for r in index["runs"])
    assert f["suite_run"]["command"][4] == str(prefix / "bin" / "iokernels")
    assert f["manifest"]["build"]["install_prefix"] == str(prefix)
    assert f["files"][0]["bytes"]["total"] > 0 and f["files"][-1]["verify"]["mismatches"] == 0
    assert raw["summary"]["bytes"] == 1048576
    assert index["runs"][1]["bytes"] == 1048576

    # negative: the installation is not on PATH -> one message, exit 2, nothing run
    lost = clean_env(venv / "bin")
    p = subprocess.run(["iokernels-suite", "run", "tiny.toml", "--results", "res2"], env=lost, cwd=work,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and not (work / "res2").exists(), p.stdout + p.stderr
    assert p.stderr.startswith("iokernels-suite run: error: iokernels, raw_write not found (no build, no "
                               "installation beside this package, no iokernels on PATH)\n  hint: put the "
                               "installation's bin directory on PATH (module load iokernels)"), p.stderr


def _lmod():
    for c in (os.environ.get("LMOD_CMD"), "/usr/share/lmod/lmod/libexec/lmod", shutil.which("lmod")):
        if c and os.access(c, os.X_OK):
            return c
    return None


@pytest.mark.parametrize("kind", ["lua", "modulefiles"])
def test_module_file_puts_the_installation_on_the_path(prefix, tmp_path, kind):
    """`module load iokernels` (Lmod, the Lua and the Tcl file) puts the
    installation's commands and the runner's package first; without the
    module there is no iokernels."""
    lmod = _lmod()
    if lmod is None:
        pytest.skip("Lmod is not installed (scripts/setup.sh installs it)")
    mdir = prefix / "share" / ("lmod" if kind == "lua" else "modulefiles")
    script = (f'eval "$({lmod} bash load iokernels)"; command -v iokernels; command -v e3sm_mapgen; '
              'iokernels --version; python3 -m iokernels --version; echo "root=$IOKERNELS_ROOT"')
    env = clean_env(MODULEPATH=mdir)
    out = run(["bash", "-c", script], env, tmp_path).stdout.splitlines()
    assert out[0] == str(prefix / "bin" / "iokernels") and out[1] == str(prefix / "bin" / "e3sm_mapgen")
    assert f"installed in {prefix}" in out
    assert any(line.startswith(f"python3 -m iokernels {VERSION}; programs: {prefix / 'bin'}") for line in out)
    assert out[-1] == f"root={prefix}"
    p = subprocess.run(["bash", "-c", "command -v iokernels"], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert p.returncode != 0 and p.stdout == ""


def test_runner_version_matches_the_project():
    import iokernels
    assert iokernels.__version__ == VERSION
