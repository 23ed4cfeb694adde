"""The bad-input catalogue (docs/bad_inputs.md): every kernel, tool and the
suite runner given something wrong, as a new user would.  Each case must end
with

- a non-zero exit status on every rank (each rank's own status is recorded by
  a wrapper around the program, and the launcher is told to let every rank
  end by itself, so a rank that hangs or is killed shows as missing),
- exactly one message "<program>: error: ..." naming the problem (the case's
  fragments) and a "hint:" saying what to do,
- within 10 s of wall time, launcher start-up included,
- no crash signature (signals, backtraces, MPI_Abort, Python tracebacks,
  sanitizer reports, the launcher's "exited with non-zero status" noise),
- every file that existed before the run still there, unchanged.

Inputs are made by the test (generated maps, h5bench configurations, GCRM
parameter files, particle files written by the vpic kernel, then broken).
MPI programs run on 4 ranks, the serial suite runner as one process.
The table in docs/bad_inputs.md lists the same cases by id: a test below
fails when the two disagree.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import BUILD_DIR, IOKERNELS, SOURCE_DIR, tool
from gen_inputs import gcrm_inputs, h5bench_config

LIMIT_SECONDS = 10
RANKS = 4
# What a crash or an abort looks like.  A clean collective failure prints none
# of these (src/core/collective.cpp: rank 0 prints the one message, every rank
# returns 1 from main); OpenMPI's launcher then adds its own notice that the
# ranks "exited with non-zero status", which is not a crash and not counted.
CRASH = re.compile(r"Signal|signal \d|backtrace|Backtrace|MPI_ABORT|MPI_Abort|core dumped|Segmentation|"
                   r"Traceback|terminate called|AddressSanitizer|runtime error:|"
                   r"mpiexec noticed|PRTE has lost|killed by signal", re.M)


@dataclass
class Case:
    cid: str
    component: str
    what: str
    make: object            # make(inp: Path, out: Path, fx) -> argv (list)
    fragments: tuple = ()   # substrings of the one message
    mpi: bool = True        # launched on RANKS ranks under mpiexec
    env: dict = field(default_factory=dict)
    # Known to fail, waiting for a fix in a file another helper owns
    # (/work/notes/requests_harden.md); strict: the fix makes the test fail
    # until this is removed.
    known: str = ""


CASES = []


def case(cid, component, what, *fragments, mpi=True, env=None, known=""):
    def deco(fn):
        CASES.append(Case(cid, component, what, fn, tuple(fragments), mpi, env or {}, known))
        return fn
    return deco


def K(*args):
    return [IOKERNELS, *args]


def B(name):
    return BUILD_DIR / "src" / name


def suite_runner(*args):
    return [sys.executable, "-m", "iokernels", *args]


def write(path, data):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)
    return path


def write_pio_dat(path, dims, procs):
    """A PIO decomposition text file (.dat): 'version 2001 npes N ndims K', the
    dimensions fastest first, then per process its rank and count and its
    1-based offsets."""
    lines = [f"version 2001 npes {len(procs)} ndims {len(dims)} ", " ".join(map(str, dims)) + " "]
    for rank, offs in enumerate(procs):
        lines += [f"{rank} {len(offs)}", " ".join(map(str, offs)) + " "]
    return write(path, "\n".join(lines) + "\n")


def copy(src, dst):
    dst = Path(dst)
    if Path(src).is_dir():
        shutil.copytree(src, dst)
    else:
        shutil.copyfile(src, dst)
    return dst


def offset_beyond_array(src, dst, index):
    """A copy of map `src` whose D1.offsets[index] lies far beyond its array; edited by netCDF4 in a
    child process (netCDF4 next to h5py in one process crashes)."""
    copy(src, dst)
    subprocess.run([sys.executable, "-c", "import sys, netCDF4\n"
                    "f = netCDF4.Dataset(sys.argv[1], 'r+')\n"
                    "f.variables['D1.offsets'][int(sys.argv[2])] = 10**9\n"
                    "f.close()\n", dst, str(index)], check=True, capture_output=True, text=True, timeout=60)
    return Path(dst)


def truncated(src, dst, keep):
    data = Path(src).read_bytes()
    return write(dst, data[:keep if keep >= 0 else len(data) + keep])


# ---------------------------------------------------------------- e3sm
@case("e3sm-map-missing", "e3sm", "the map file does not exist", "nosuch_map.nc", "does not exist")
def _(inp, out, fx):
    return K("e3sm", "-o", out / "f.nc", inp / "nosuch_map.nc")


@case("e3sm-map-garbage", "e3sm", "the map is random bytes", "garbage.nc")
def _(inp, out, fx):
    return K("e3sm", "-o", out / "f.nc", write(inp / "garbage.nc", os.urandom(4096)))


@case("e3sm-map-empty", "e3sm", "the map is an empty file", "empty.nc")
def _(inp, out, fx):
    return K("e3sm", "-o", out / "f.nc", write(inp / "empty.nc", b""))


@case("e3sm-map-truncated-header", "e3sm", "a CDF-5 map cut inside its header", "cut.nc")
def _(inp, out, fx):
    return K("e3sm", "-o", out / "f.nc", truncated(fx.g_map, inp / "cut.nc", 100))


@case("e3sm-map-truncated-data", "e3sm", "a CDF-5 map cut inside its data", "cut.nc", "truncated")
def _(inp, out, fx):
    return K("e3sm", "-o", out / "f.nc", truncated(fx.g_map, inp / "cut.nc", fx.g_map.stat().st_size * 2 // 3))


@case("e3sm-map-hdf5-truncated", "e3sm", "an HDF5 map cut in half", "cut.h5")
def _(inp, out, fx):
    size = fx.g_map_h5.stat().st_size
    return K("e3sm", "-o", out / "f.nc", truncated(fx.g_map_h5, inp / "cut.h5", size // 2))


@case("e3sm-map-bp4-truncated-data", "e3sm", "a BP4 map whose data.0 was cut short", "cut.bp", "truncated")
def _(inp, out, fx):
    # ADIOS2 2.10 retries a read past the end of a data file forever: this
    # hung every rank until the reader checked the data files' size first
    cut = copy(fx.g_map_bp4, inp / "cut.bp")
    truncated(cut / "data.0", cut / "data.0", 100)
    return K("e3sm", "-o", out / "f.nc", cut)


@case("e3sm-map-bp-empty-dir", "e3sm", "an empty BP4 directory given as map", "x.bp")
def _(inp, out, fx):
    (inp / "x.bp").mkdir()
    return K("e3sm", "-o", out / "f.nc", inp / "x.bp")


@case("e3sm-map-not-a-map", "e3sm", "a NetCDF file that is no decomposition map", "not a decomposition map")
def _(inp, out, fx):
    return K("e3sm", "-o", out / "f.nc", fx.mpi_io_test)


@case("e3sm-map-offset-out-of-range", "e3sm", "a map whose first offset lies beyond its array", "outside the")
def _(inp, out, fx):
    return K("e3sm", "-o", out / "f.nc", fx.g_map_bad_offset)


# The last run belongs to the last rank's map processes: with a NetCDF classic
# map each rank reads and checks its own runs, so only that rank sees it.
@case("e3sm-map-last-run-out-of-range", "e3sm", "a map whose last offset (the last rank's share) lies beyond its "
      "array", "process 3, run")
def _(inp, out, fx):
    return K("e3sm", "-o", out / "f.nc", fx.g_map_bad_last)


@case("e3sm-map-dat", "e3sm", "a PIO .dat text file given as map", "map.dat")
def _(inp, out, fx):
    return K("e3sm", "-o", out / "f.nc", write_pio_dat(inp / "map.dat", [8], [[1, 2], [3, 4], [5, 6], [7, 8]]))


@case("e3sm-unknown-option", "e3sm", "an option that does not exist", "--bogus")
def _(inp, out, fx):
    return K("e3sm", "--bogus", "-o", out / "f.nc", fx.g_map)


@case("e3sm-unknown-backend", "e3sm", "-a names no backend", "nosuchlib")
def _(inp, out, fx):
    return K("e3sm", "-a", "nosuchlib", "-o", out / "f.nc", fx.g_map)


@case("e3sm-unknown-param", "e3sm", "--param key no backend has", "pnetcdf.bogus")
def _(inp, out, fx):
    return K("e3sm", "--param", "pnetcdf.bogus=1", "-o", out / "f.nc", fx.g_map)


@case("e3sm-bad-hint", "e3sm", "--hint without KEY=VALUE", "cb_nodes")
def _(inp, out, fx):
    return K("e3sm", "--hint", "cb_nodes", "-o", out / "f.nc", fx.g_map)


@case("e3sm-zero-records", "e3sm", "-r 0", "-r")
def _(inp, out, fx):
    return K("e3sm", "-r", "0", "-o", out / "f.nc", fx.g_map)


@case("e3sm-unknown-case", "e3sm", "--case X", "unknown case 'X'")
def _(inp, out, fx):
    return K("e3sm", "--case", "X", "-o", out / "f.nc", fx.g_map)


@case("e3sm-nothing-to-do", "e3sm", "neither -o nor -i", "nothing to do")
def _(inp, out, fx):
    return K("e3sm", fx.g_map)


@case("e3sm-output-dir-missing", "e3sm", "-o into a directory that does not exist", "nosuchdir")
def _(inp, out, fx):
    return K("e3sm", "-o", out / "nosuchdir" / "f.nc", fx.g_map)


@case("e3sm-output-exists", "e3sm", "-o names an existing file the run did not create", "exists")
def _(inp, out, fx):
    for name in ("f.nc", "f_h0.nc", "f_h1.nc"):  # one history file or two, by case
        write(out / name, b"precious")
    return K("e3sm", "-o", out / "f.nc", fx.g_map)


@case("e3sm-output-unwritable", "e3sm", "-o under a read-only file system (/proc)", "/proc")
def _(inp, out, fx):
    return K("e3sm", "-o", "/proc/iok_f.nc", fx.g_map)


@case("e3sm-read-missing", "e3sm", "-i names history files that do not exist", "does not exist")
def _(inp, out, fx):
    return K("e3sm", "-i", inp / "nothere.nc", fx.g_map)


@case("e3sm-read-wrong-kind", "e3sm", "-i names text files, not NetCDF", "t")
def _(inp, out, fx):
    for name in ("t.nc", "t_h0.nc", "t_h1.nc"):
        write(inp / name, "this is text\n" * 100)
    return K("e3sm", "-i", inp / "t.nc", fx.g_map)


# ---------------------------------------------------------------- s3d
@case("s3d-positional-not-a-number", "s3d", "S3D-IO's positional NX given as 'abc'", "abc")
def _(inp, out, fx):
    return K("s3d", "abc", "10", "10", "2", "2", "1", "1", "0", out)


@case("s3d-grid-not-ranks", "s3d", "process grid 3x1x1 on 4 ranks", "3")
def _(inp, out, fx):
    return K("s3d", "--grid", "12,12,12", "--procs", "3,1,1", "-o", out)


@case("s3d-grid-not-divisible", "s3d", "grid 10 not divisible by 4 processes", "10")
def _(inp, out, fx):
    return K("s3d", "--grid", "10,8,8", "--procs", "4,1,1", "-o", out)


@case("s3d-bad-triple", "s3d", "--grid with two numbers", "--grid")
def _(inp, out, fx):
    return K("s3d", "--grid", "8,8", "-o", out)


@case("s3d-impossible-size", "s3d", "a grid of 10^5 cubed points per rank", "memory")
def _(inp, out, fx):
    return K("s3d", "--local", "100000,100000,100000", "-o", out)


@case("s3d-output-dir-missing", "s3d", "-o directory that does not exist", "nosuchdir")
def _(inp, out, fx):
    return K("s3d", "--grid", "8,8,8", "-o", out / "nosuchdir")


@case("s3d-output-is-file", "s3d", "-o names a regular file", "not a directory")
def _(inp, out, fx):
    return K("s3d", "--grid", "8,8,8", "-o", write(out / "plain", b"x"))


# ---------------------------------------------------------------- gcrm
@case("gcrm-param-missing", "gcrm", "the parameter file does not exist", "nosuch.in")
def _(inp, out, fx):
    return K("gcrm", inp / "nosuch.in", "-o", out)


@case("gcrm-param-bad-value", "gcrm", "level_max is not a number", "level_max")
def _(inp, out, fx):
    p = gcrm_inputs(inp)
    p.write_text(p.read_text().replace("level_max 3", "level_max three"))
    return K("gcrm", p, "-o", out)


@case("gcrm-level-impossible", "gcrm", "level 40: 10^24 cells", "level")
def _(inp, out, fx):
    return K("gcrm", gcrm_inputs(inp), "--level", "40", "-o", out)


@case("gcrm-desc-missing", "gcrm", "the description file the parameters name is missing", "mini.desc")
def _(inp, out, fx):
    p = gcrm_inputs(inp)
    (inp / "mini.desc").unlink()
    return K("gcrm", p, "-o", out)


@case("gcrm-desc-bad-type", "gcrm", "a variable of type 'quaternion'", "quaternion")
def _(inp, out, fx):
    p = gcrm_inputs(inp)
    d = inp / "mini.desc"
    d.write_text(d.read_text().replace("type double", "type quaternion", 1))
    return K("gcrm", p, "-o", out)


@case("gcrm-fcfg-unknown-field", "gcrm", "the file configuration names an undescribed field", "no_such_field")
def _(inp, out, fx):
    p = gcrm_inputs(inp)
    f = inp / "mini.fcfg"
    f.write_text(f.read_text() + "field     no_such_field\n")
    return K("gcrm", p, "-o", out)


@case("gcrm-output-dir-missing", "gcrm", "-o directory that does not exist", "nosuchdir")
def _(inp, out, fx):
    return K("gcrm", gcrm_inputs(inp), "-o", out / "nosuchdir")


# ---------------------------------------------------------------- vpic / bdcats (h5bench)
@case("vpic-config-missing", "vpic", "the h5bench configuration does not exist", "nosuch.cfg")
def _(inp, out, fx):
    return K("vpic", inp / "nosuch.cfg", out / "p.h5")


@case("vpic-config-unknown-key", "vpic", "an h5bench key that does not exist", "DIM_7")
def _(inp, out, fx):
    return K("vpic", h5bench_config(inp / "w.cfg", TIMESTEPS=1, DIM_1=16, DIM_7=3), out / "p.h5")


@case("vpic-config-wrong-type", "vpic", "DIM_1=abc", "DIM_1")
def _(inp, out, fx):
    return K("vpic", h5bench_config(inp / "w.cfg", TIMESTEPS=1, DIM_1="abc"), out / "p.h5")


@case("vpic-config-no-equals", "vpic", "a line without KEY=VALUE", "w.cfg")
def _(inp, out, fx):
    return K("vpic", write(inp / "w.cfg", "TIMESTEPS=1\nDIM_1 16\n"), out / "p.h5")


@case("vpic-bad-num-dims", "vpic", "NUM_DIMS=4", "NUM_DIMS")
def _(inp, out, fx):
    return K("vpic", h5bench_config(inp / "w.cfg", TIMESTEPS=1, NUM_DIMS=4, DIM_1=16), out / "p.h5")


@case("vpic-impossible-size", "vpic", "DIM_1=10^12 particles per rank (32 TB each)", "memory", "--no-size-check")
def _(inp, out, fx):
    return K("vpic", h5bench_config(inp / "w.cfg", TIMESTEPS=1, DIM_1=1000000000000), out / "p.h5")


@case("vpic-too-big-for-disk", "vpic", "more time steps than the output file system has room for", "free",
      "--no-size-check")
def _(inp, out, fx):
    # one step fits in memory (64 MiB per rank), all steps do not fit on disk
    per_step = 2 << 20  # particles per rank per step, 32 bytes each
    steps = shutil.disk_usage(out).free // (per_step * 32 * RANKS) + 2
    return K("vpic", "-a", "mpiio", "--dim-1", "2M", "--timesteps", str(steps), "-o", out / "p.dat")


@case("vpic-output-exists", "vpic", "-o names an existing file", "exists")
def _(inp, out, fx):
    return K("vpic", "--dim-1", "16", "--timesteps", "1", "-o", write(out / "p.h5", b"precious"))


@case("bdcats-input-missing", "bdcats", "-i names no file", "nothere.h5")
def _(inp, out, fx):
    return K("bdcats", "--dim-1", "16", "-i", inp / "nothere.h5")


@case("bdcats-wrong-kind", "bdcats", "-i names a text file, not HDF5", "text.h5")
def _(inp, out, fx):
    return K("bdcats", "--dim-1", "1K", "--timesteps", "2", "-i", write(inp / "text.h5", "not hdf5\n" * 500))


@case("bdcats-truncated", "bdcats", "a raw particle file cut short", "p.dat")
def _(inp, out, fx):
    t = truncated(fx.particles, inp / "p.dat", fx.particles.stat().st_size // 3)
    return K("bdcats", "-a", "mpiio", *fx.particle_args, "-i", t)


@case("bdcats-corrupted", "bdcats", "one particle value changed in the file", "verification failed")
def _(inp, out, fx):
    c = copy(fx.particles, inp / "p.dat")
    data = bytearray(c.read_bytes())
    data[len(data) // 2] ^= 0x40
    c.write_bytes(bytes(data))
    return K("bdcats", "-a", "mpiio", *fx.particle_args, "-i", c)


# ---------------------------------------------------------------- noncontig
@case("noncontig-garbage-decomposition", "noncontig", "the decomposition is random bytes", "decomp.nc")
def _(inp, out, fx):
    return K("noncontig", "-o", out / "n.dat", write(inp / "decomp.nc", os.urandom(2048)))


@case("noncontig-zero-vars", "noncontig", "-n 0 variables", "-n")
def _(inp, out, fx):
    return K("noncontig", "-n", "0", "-o", out / "n.dat", fx.mpi_io_test)


@case("noncontig-unknown-decomp", "noncontig", "--decomp D9 of a map with 6 decompositions", "D9")
def _(inp, out, fx):
    return K("noncontig", "--decomp", "D9", "-o", out / "n.dat", fx.g_map)


# ---------------------------------------------------------------- tools
@case("dat2nc-bad-header", "dat2nc", "a .dat whose first line is not 'version ... npes ... ndims'", "d1.dat", mpi=False)
def _(inp, out, fx):
    return [B("dat2nc"), "-o", out / "m.nc", "-1", write(inp / "d1.dat", "hello world\n1 2 3\n")]


@case("dat2nc-offset-out-of-range", "dat2nc", "a .dat offset beyond its dimensions", "d1.dat", mpi=False)
def _(inp, out, fx):
    return [B("dat2nc"), "-o", out / "m.nc", "-1", write_pio_dat(inp / "d1.dat", [8], [[1, 2], [3, 99]])]


@case("dat2nc-truncated", "dat2nc", "a .dat that ends before its last process", "d1.dat", mpi=False)
def _(inp, out, fx):
    p = write_pio_dat(inp / "d1.dat", [8], [[1, 2], [3, 4], [5, 6], [7, 8]])
    p.write_text("\n".join(p.read_text().splitlines()[:5]) + "\n")
    return [B("dat2nc"), "-o", out / "m.nc", "-1", p]


@case("mapgen-unknown-case", "e3sm_mapgen", "--case X", "X", mpi=False)
def _(inp, out, fx):
    return [B("e3sm_mapgen"), "--case", "X", "-o", out / "m.nc"]


@case("mapgen-zero-procs", "e3sm_mapgen", "--nprocs 0", "nprocs", mpi=False)
def _(inp, out, fx):
    return [B("e3sm_mapgen"), "--case", "G", "--ncells", "40", "--nprocs", "0", "-o", out / "m.nc"]


@case("mapstat-garbage", "e3sm_mapstat", "a map that is random bytes", "garbage.nc", mpi=False)
def _(inp, out, fx):
    return [B("e3sm_mapstat"), write(inp / "garbage.nc", os.urandom(1000))]


@case("blob-replay-not-blob", "blob_replay", "an input directory that holds no blob layout", "notblob")
def _(inp, out, fx):
    (inp / "notblob").mkdir()
    write(inp / "notblob" / "readme.txt", "x")
    return [B("blob_replay"), "-o", out / "c.nc", inp / "notblob"]


@case("log-replay-truncated-index", "log_replay", "a log layout whose index is cut short", "index")
def _(inp, out, fx):
    d = copy(fx.log_dir, inp / "log")
    idx = sorted(p for p in d.rglob("*") if "index" in p.name or p.suffix == ".idx")
    assert idx, f"no index file in {list(d.rglob('*'))}"
    truncated(idx[0], idx[0], idx[0].stat().st_size // 2)
    return [B("log_replay"), "-o", out / "c.nc", d]


@case("raw-write-bad-size", "raw_write", "-n with a unit raw_write does not know", "12 parsecs")
def _(inp, out, fx):
    return [B("raw_write"), "-n", "12 parsecs", "-o", out / "r.dat"]


# ---------------------------------------------------------------- suite runner
@case("suite-missing", "suite runner", "the suite file does not exist", "nosuch.toml", mpi=False)
def _(inp, out, fx):
    return suite_runner("run", inp / "nosuch.toml", "--results", out / "r")


@case("suite-toml-syntax", "suite runner", "a TOML syntax error", "bad.toml", mpi=False)
def _(inp, out, fx):
    return suite_runner("run", write(inp / "bad.toml", "[suite\nname = 1\n"), "--results", out / "r")


@case("suite-unknown-kernel", "suite runner", "a case naming a kernel that does not exist", "nosuchkernel",
      "kernels of this build", mpi=False)
def _(inp, out, fx):
    t = write(inp / "s.toml", '[suite]\nname = "s"\n[[case]]\nname = "c"\nkernel = "nosuchkernel"\nranks = 1\n')
    return suite_runner("run", t, "--results", out / "r")


@case("suite-wrong-type", "suite runner", "ranks given as text", "ranks", mpi=False)
def _(inp, out, fx):
    t = write(inp / "s.toml", '[suite]\nname = "s"\n[[case]]\nname = "c"\nkernel = "e3sm"\nranks = "four"\n')
    return suite_runner("run", t, "--results", out / "r")


@case("suite-h5bench-json-bad-key", "suite runner", "h5bench JSON whose benchmark misses 'file'", "file",
      mpi=False)
def _(inp, out, fx):
    j = write(inp / "h.json", '{"mpi": {"command": "mpirun", "ranks": "4"}, "file-system": {}, '
                              '"directory": "storage", "benchmarks": [{"benchmark": "write", '
                              '"configuration": {"MEM_PATTERN": "CONTIG"}}]}')
    return suite_runner("run", j, "--results", out / "r")


@case("suite-results-not-empty", "suite runner", "--results names a non-empty directory", "not empty",
      mpi=False)
def _(inp, out, fx):
    write(out / "r" / "old.json", "{}")
    t = write(inp / "s.toml", '[suite]\nname = "s"\n[[case]]\nname = "c"\nkernel = "raw_write"\nranks = 1\n'
                              'args = ["-n", "1000", "-o", "{outdir}/r.dat"]\n')
    return suite_runner("run", t, "--results", out / "r")


# ---------------------------------------------------------------- fixtures
class Inputs:
    """Inputs several cases start from, made once by the programs themselves."""


@pytest.fixture(scope="module")
def fx(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad_inputs_fixtures")
    x = Inputs()
    x.cleanup = []
    mapgen = tool("e3sm_mapgen")
    x.g_map = d / "g.nc"
    subprocess.run([str(mapgen), "--case", "G", "--ncells", "40", "--nlev", "3", "--nprocs", "4", "-o", x.g_map],
                   check=True, capture_output=True, timeout=120)
    x.g_map_h5 = d / "g.h5"
    subprocess.run([str(mapgen), "--case", "G", "--ncells", "40", "--nlev", "3", "--nprocs", "4", "--format",
                    "hdf5", "-o", x.g_map_h5], check=True, capture_output=True, timeout=120)
    x.g_map_bp4 = d / "g_bp4.bp"
    subprocess.run([str(mapgen), "--case", "G", "--ncells", "40", "--nlev", "3", "--nprocs", "4", "--format",
                    "bp4", "-o", x.g_map_bp4], check=True, capture_output=True, timeout=120)
    # D1.offsets[0] (held by rank 0) and D1.offsets[-1] (the last rank's share)
    # set beyond the array
    x.g_map_bad_offset = offset_beyond_array(x.g_map, d / "g_bad_offset.nc", 0)
    x.g_map_bad_last = offset_beyond_array(x.g_map, d / "g_bad_last.nc", -1)
    from gen_inputs import mpi_io_test_decomposition
    x.mpi_io_test = d / "decomp.nc"
    mpi_io_test_decomposition(x.mpi_io_test, nprocs=4, array_size=400)
    # a raw particle file (mpiio backend: the file is the data) to break
    x.particle_args = ["--dim-1", "4K", "--timesteps", "2"]
    x.particles = d / "particles.dat"
    run_mpi([IOKERNELS, "vpic", "-a", "mpiio", *x.particle_args, "-k", "-o", x.particles])
    # a log layout (e3sm -x log) whose index to cut
    x.log_dir = d / "log_out"
    run_mpi([IOKERNELS, "e3sm", "-x", "log", "-a", "pnetcdf", "-k", "-o", x.log_dir, x.g_map])
    yield x
    for p in x.cleanup:
        shutil.rmtree(p, ignore_errors=True)


def run_mpi(argv):
    p = subprocess.run(["mpiexec", "--oversubscribe", "-n", str(RANKS), *map(str, argv)], capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, f"{argv} failed:\n{p.stdout}\n{p.stderr}"


def snapshot(root):
    """path -> (size, mtime, sha256) of every file under root."""
    out = {}
    for p in Path(root).rglob("*"):
        if p.is_file() and not p.is_symlink():
            out[p] = (p.stat().st_size, p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
    return out


# Each rank's own exit status, written by a wrapper around the program (the
# launcher's status is only the first failure's).
RANK_WRAPPER = ('"$@"; rc=$?; echo "$rc" > "$IOK_STATUS_DIR/rank_${OMPI_COMM_WORLD_RANK:-0}"; exit $rc')


def launch(c, argv, status_dir):
    env = dict(os.environ)
    env.setdefault("OMPI_MCA_btl", "self,sm")
    env["IOK_STATUS_DIR"] = str(status_dir)
    env.update(c.env)
    argv = [str(a) for a in argv]
    if c.mpi:
        # error-nonzero-status=false: the launcher lets every rank end by itself
        # instead of killing the others when the first exits with status 1, so
        # each rank's own status is seen (the launcher's is then 0)
        cmd = ["mpiexec", "--oversubscribe", "--runtime-options", "error-nonzero-status=false", "-n", str(RANKS),
               "bash", "-c", RANK_WRAPPER, "rank", *argv]
    else:
        cmd = ["bash", "-c", RANK_WRAPPER, "rank", *argv]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{c.cid}: still running after 60 s: {' '.join(argv)}\n{e.stderr}")
    return p, time.monotonic() - t0


@pytest.mark.parametrize("c", [pytest.param(c, marks=pytest.mark.xfail(reason=c.known, strict=True)) if c.known else c
                               for c in CASES], ids=[c.cid for c in CASES])
def test_bad_input(c, tmp_path, fx):
    inp, out, status = tmp_path / "in", tmp_path / "out", tmp_path / "status"
    for d in (inp, out, status):
        d.mkdir()
    argv = c.make(inp, out, fx)
    before = snapshot(tmp_path)
    p, seconds = launch(c, argv, status)
    if os.environ.get("IOK_BAD_INPUTS_LOG"):  # docs/bad_inputs.md is written from this (see the end)
        with open(os.environ["IOK_BAD_INPUTS_LOG"], "a") as log:
            log.write(json.dumps({"cid": c.cid, "stderr": p.stderr, "seconds": round(seconds, 1)}) + "\n")
    shown = (f"$ {' '.join(map(str, argv))}\nexit {p.returncode} after {seconds:.1f} s\n"
             f"stdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    assert c.mpi or p.returncode != 0, shown
    ranks = RANKS if c.mpi else 1
    codes = {f.name: f.read_text().strip() for f in status.iterdir()}
    assert len(codes) == ranks, f"only {sorted(codes)} exited by themselves\n{shown}"
    assert all(v != "0" for v in codes.values()), f"rank statuses {codes}\n{shown}"
    assert seconds < LIMIT_SECONDS, shown
    assert not CRASH.search(p.stderr + p.stdout), f"crash signature {CRASH.search(p.stderr + p.stdout)[0]!r}\n{shown}"
    errors = [line for line in p.stderr.splitlines() if ": error" in line]
    assert len(errors) == 1, f"expected one error message\n{shown}"
    assert "hint:" in p.stderr, f"no hint saying what to do\n{shown}"
    for frag in c.fragments:
        assert frag in p.stderr, f"{frag!r} not in the message\n{shown}"
    after = snapshot(tmp_path)
    lost = [str(q) for q in before if q not in after]
    changed = [str(q) for q in before if q in after and after[q] != before[q]]
    assert not lost and not changed, f"deleted {lost} changed {changed}\n{shown}"


def test_catalogue_is_large_and_covers_every_component():
    assert len(CASES) >= 40
    components = {c.component for c in CASES}
    for must in ("e3sm", "s3d", "gcrm", "vpic", "bdcats", "noncontig", "dat2nc", "e3sm_mapgen", "e3sm_mapstat",
                 "blob_replay", "log_replay", "raw_write", "suite runner"):
        assert must in components, must
    assert len({c.cid for c in CASES}) == len(CASES), "duplicate case ids"


def test_docs_table_lists_every_case():
    """docs/bad_inputs.md has one row per case, by id, and no stale rows."""
    doc = (SOURCE_DIR / "docs" / "bad_inputs.md").read_text()
    rows = set(re.findall(r"^\| `([a-z0-9-]+)` \|", doc, re.M))
    ids = {c.cid for c in CASES}
    assert rows == ids, f"missing from the docs: {sorted(ids - rows)}; stale in the docs: {sorted(rows - ids)}"


DOC_HEAD = """# Bad inputs: what each program says

Every kernel, tool and the suite runner, given something wrong, ends with one
message naming the problem and a hint saying what to do, a non-zero exit on
every rank, within {limit} s, without a crash signature and without deleting
any file it did not create.  `tests/integration/test_bad_inputs.py` runs every
case below ({n} cases; MPI programs on {ranks} ranks) on inputs it makes itself
and checks all of that; a case added there must be added here (a test
compares the two lists).

Regenerate this page after changing a message:

```sh
scripts/run.sh env IOK_BAD_INPUTS_LOG=/tmp/bad.jsonl IOK_BUILD_DIR=$PWD/build IOK_SOURCE_DIR=$PWD \\
    PYTHONPATH=$PWD/python python3 -m pytest -q -p no:cacheprovider tests/integration/test_bad_inputs.py
scripts/run.sh env PYTHONPATH=tests/integration python3 tests/integration/test_bad_inputs.py /tmp/bad.jsonl \\
    > docs/bad_inputs.md
```

| case | program | bad input | message (first line, then the hint) |
|---|---|---|---|
"""


def write_doc(log_path):
    """docs/bad_inputs.md from a log written with IOK_BAD_INPUTS_LOG."""
    seen = {}
    for line in open(log_path):
        e = json.loads(line)
        seen[e["cid"]] = e
    out = [DOC_HEAD.format(limit=LIMIT_SECONDS, n=len(CASES), ranks=RANKS)]
    for c in CASES:
        msg = ""
        if c.cid in seen:
            lines = [line.strip() for line in seen[c.cid]["stderr"].splitlines() if line.strip()]
            err = next((line for line in lines if ": error" in line), "")
            hint = next((line for line in lines if line.startswith("hint:")), "")
            msg = (err + ("<br>" + hint if hint else "")).replace("|", "\\|")
            for d in ("/tmp/", str(SOURCE_DIR) + "/"):
                msg = msg.replace(d, "")
            msg = re.sub(r"pytest-of-[^/ ]*/pytest-[0-9]+/[^/ ]*/", ".../", msg)
        out.append(f"| `{c.cid}` | {c.component} | {c.what} | {msg} |\n")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    write_doc(sys.argv[1])
