"""The conformance matrix (issue 11): every kernel x every backend x every
strategy at 4 ranks, parameterised from the registries (`iokernels backends
--json`), so a new backend or strategy is tested the day it is added.

Each combination writes, reads back and verifies every element:

  e3sm F     write 2 records of h1 (51 variables, all three decompositions) from a generated
             F-like map, --verify
  s3d        2 checkpoints of a 16^3 grid on 2x2x1 ranks (verifies by default)
  gcrm       level 3 with a generated minimal input set (verifies by default)
  vpic       write 2 time steps; bdcats reads every particle (FULL) back
             and verifies it (vpic, like h5bench_write, does not read)
  bdcats     a STRIDED selection of the file the vpic cell wrote (its own when run alone)
  noncontig  contiguous and noncontiguous buffer tiles of the map's D1, --verify
  metadata   hdf5_iotest's .ini: 2 steps x 3 arrays of 4 x 4 tiles on 2 x 2 ranks, one 4-D chunked
             dataset with the array axis slowest (the step axis unlimited on HDF5); read back, verified
  exerciser  h5bench_exerciser's flags: 2-D blocks of 4 x 4 on 2 x 2 ranks, 10 iterations, rank shift 1
             (blob and log read back only the writers' blocks: they refuse the shift, exit 2), 64
             attributes; each iteration read back and verified
  replay     a generated 4-rank trace (gen_inputs.replay_trace: a header by
             rank 0, interleaved blocks through a strided view, every rank
             reading the header): each rank writes its captured rank's bytes,
             reads what it read, and the file is read back (--calls plan)
  openpmd_write  2 iterations of a 3-D mesh and particles, unbalanced, --verify
  openpmd_read   the openpmd_write cell's file read back with the slice pattern sy
  amrex      h5bench_amrex's input: an 8^3 domain in 8 boxes of 4^3 over the 4 ranks, 2 components,
             one plot file and one particle file (1 particle per cell); both read back, verified
  macsio_mif MACSio --parallel_file_mode MIF 2: 2 dumps of a 4000-byte part per rank, 4 variables, a file
             per pair of ranks (groups domain_<n>: libraries without groups refuse, exit 2); read back
  macsio_sif the same as SIF 1: one shared file per dump, a dataset per variable; read back

A combination the library or strategy cannot express must exit 2 with one
"error:" line naming why; it is recorded as "not expressible" with that
reason.  Any other non-zero exit, or a run that does not report a passed
verification, or a --json result naming another backend/strategy, is a
failure.  A result that is missing or does not record the stack fails
test_every_run_records_its_stack (not the cell).

Per backend x strategy a negative test corrupts one written value of a kept
GCRM output (found by its data pattern, so it is data, not a header) and
asserts that the read-only pass fails naming the verification.

The last test (keep it last: it reads what the others recorded) requires at least
80% of the combinations to run and verify -- for the openPMD kernels, whose
layout needs groups with attributes and the library's own objects, exactly
the backends with the `groups` capability under strategies that keep the
canonical layout, every other cell refused -- and
writes build/matrix.md (kernel x backend x strategy: ok / not expressible:
reason / FAIL) for the README.  Inputs are generated here (gen_inputs.py):
nothing is read from ../shared.
"""
import json
import re
import struct
import subprocess

import pytest

from conftest import BUILD_DIR, IOKERNELS, iok, tool
from gen_inputs import TRACE_BLOCK, TRACE_BLOCKS, TRACE_HEADER, e3sm_map, gcrm_inputs, replay_trace

NRANKS = 4
TIMEOUT = 300
KERNELS = ["e3sm", "s3d", "gcrm", "vpic", "bdcats", "noncontig", "replay", "metadata", "exerciser", "openpmd_write",
           "openpmd_read", "amrex", "macsio_mif", "macsio_sif"]
# Kernels whose file layout only some stacks can hold (groups with attributes,
# the library's own objects): expected to run exactly there.
LAYOUT_KERNELS = {"openpmd_write", "openpmd_read", "amrex"}
MATRIX_MD = BUILD_DIR / "matrix.md"


def _registries():
    """(backends, strategies) as the build registers them, in registry order."""
    try:
        out = subprocess.run([str(IOKERNELS), "backends", "--json"], capture_output=True, text=True,
                             timeout=120).stdout
        doc = json.loads(out)
        return doc["backends"], doc["strategies"]
    except (OSError, ValueError, KeyError, subprocess.SubprocessError):
        return [], []


BACKEND_DOCS, STRATEGY_DOCS = _registries()
BACKENDS = [b["name"] for b in BACKEND_DOCS]
STRATEGIES = [s["name"] for s in STRATEGY_DOCS]
COMBOS = [(k, b, s) for k in KERNELS for b in BACKENDS for s in STRATEGIES]
# Where the layout kernels can run, from the registries' capabilities.
HOLDS_LAYOUT = {(b["name"], s["name"]) for b in BACKEND_DOCS for s in STRATEGY_DOCS
                if b["capabilities"].get("groups") and s.get("keeps_canonical_layout")}

# (kernel, backend, strategy) -> (status, detail); status: ok | not expressible | FAIL
OUTCOMES = {}

VERIFIED = re.compile(r"Verification\s*=\s*passed")


# ---------------------------------------------------------------- inputs

@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("matrix_inputs")
    return {
        "map": e3sm_map(tool("e3sm_mapgen"), d / "f_map.nc", ncol=64, nlev=4, nprocs=NRANKS),
        "gcrm": gcrm_inputs(d / "gcrm"),
        "trace": replay_trace(d / "trace.json", nranks=NRANKS),
    }


# ---------------------------------------------------------------- runs

class NotExpressible(Exception):
    pass


class Failed(Exception):
    pass


def _cmdline(p):
    return " ".join(str(a) for a in p.args)


_LAUNCHER_NOISE = re.compile(r"^-{20,}$|prterun|thus causing|the job to be terminated|Process name:|Exit code:|^\s*$")


def _tail(text, n=8):
    """The last n lines of a program's output, without mpiexec's abort banner."""
    return "\n".join([ln for ln in text.splitlines() if not _LAUNCHER_NOISE.search(ln)][-n:])


def _run(*args):
    return iok(NRANKS, *args, check=False, timeout=TIMEOUT)


def _not_expressible_reason(p):
    """The one-line reason of an exit-2 run; asserts the message is one 'error:' line."""
    lines = [ln for ln in p.stderr.splitlines() if "error:" in ln]
    if len(lines) != 1:
        raise Failed(f"exit 2 but {len(lines)} 'error:' lines (want exactly one)\n$ {_cmdline(p)}\n{_tail(p.stderr)}")
    reason = lines[0].split("error:", 1)[1].strip()
    if not reason:
        raise Failed(f"exit 2 with an empty error line\n$ {_cmdline(p)}\n{_tail(p.stderr)}")
    return reason


def _check(p, verified=True):
    """Classifies one run: returns normally when it succeeded (and verified)."""
    if p.returncode == 2:
        raise NotExpressible(_not_expressible_reason(p))
    if p.returncode != 0:
        raise Failed(f"exit {p.returncode}\n$ {_cmdline(p)}\n{_tail(p.stderr or p.stdout)}")
    if verified and not VERIFIED.search(p.stdout):
        raise Failed(f"exit 0 but no 'Verification = passed'\n$ {_cmdline(p)}\n{_tail(p.stdout)}")


# successful runs whose --json result is missing or does not record the stack
# (checked by test_every_run_records_its_stack)
RESULT_PROBLEMS = []


def _check_result(p, path, backend, strategy):
    """The JSON result must name the stack asked for: a kernel that ignored -a/-x did not test the combination."""
    if not path.exists():
        RESULT_PROBLEMS.append(f"no --json result written: {_cmdline(p)}")
        return
    params = json.loads(path.read_text()).get("params", {})
    got = (params.get("strategy"), params.get("backend"), params.get("requested_backend"))
    if got[0] is None or got[1] is None:
        RESULT_PROBLEMS.append(f"result params lack strategy/backend ({got[0]}/{got[1]}): {_cmdline(p)}")
        return
    if got[0] != strategy or backend not in got[1:]:
        raise Failed(f"ran through another stack: result says strategy={got[0]} backend={got[1]} "
                     f"requested_backend={got[2]}\n$ {_cmdline(p)}")


def run_stack(d, kernel, backend, strategy, *args, verified=True):
    """Runs one kernel through -a backend -x strategy; checks exit, verification and the recorded stack."""
    result = d / f"{kernel}.json"
    p = _run(kernel, *args, "-a", backend, "-x", strategy, "--json", result)
    _check(p, verified)
    _check_result(p, result, backend, strategy)
    return p


def run_e3sm(d, inputs, backend, strategy):
    # h1 only (-f 1: 51 variables over all three decompositions, 2 records):
    # h0's 414 variables cost NetCDF-4 a few collectives per variable and
    # record (~40 s a cell at 4 oversubscribed ranks) and add no path; h0 on
    # every library is test_e3sm_strategies' and test_e3sm's.
    run_stack(d, "e3sm", backend, strategy, "--case", "F", "-f", "1", "-r", "2", "--verify", "-o", d / "f.nc",
              inputs["map"])


def run_s3d(d, inputs, backend, strategy):
    run_stack(d, "s3d", backend, strategy, "--grid", "16,16,16", "--procs", "2,2,1", "-c", "2", "-o", d)


def gcrm_args(d, inputs):
    out = d / "out"
    out.mkdir(exist_ok=True)
    return [inputs["gcrm"], "-o", out, "--level", "3"]


def run_gcrm(d, inputs, backend, strategy):
    run_stack(d, "gcrm", backend, strategy, *gcrm_args(d, inputs))


VPIC_CONF = ["--dim-1", "1024", "--timesteps", "2"]


# Files a cell wrote and verified, kept for the cell that reads them (bdcats
# reads vpic's particles, openpmd_read openpmd_write's file): one launch less
# per cell.  A reading cell run alone (-k) writes its own.
WRITTEN = {}


def written_by(kernel, backend, strategy, d, write):
    """The kept file of `kernel`'s cell on this stack, or write(d) (its path) now."""
    path = WRITTEN.get((kernel, backend, strategy))
    return path if path is not None and path.parent.exists() else write(d)


def vpic_write(d, backend, strategy):
    path = d / "particles"
    run_stack(d, "vpic", backend, strategy, *VPIC_CONF, "-o", path, "-k", verified=False)
    return path


def run_vpic(d, inputs, backend, strategy):
    path = vpic_write(d, backend, strategy)
    # bdcats reads every particle of every step (FULL) and verifies it
    run_stack(d, "bdcats", backend, strategy, *VPIC_CONF, "-i", path, "--read-option", "FULL")
    WRITTEN["vpic", backend, strategy] = path


def run_bdcats(d, inputs, backend, strategy):
    path = written_by("vpic", backend, strategy, d, lambda d: vpic_write(d, backend, strategy))
    # a partial pattern: blocks of 16 particles every 64, 16 blocks per rank
    run_stack(d, "bdcats", backend, strategy, *VPIC_CONF, "-i", path, "--read-option", "STRIDED",
              "--block-size", "16", "--stride-size", "64", "--block-cnt", "16")


def run_noncontig(d, inputs, backend, strategy):
    run_stack(d, "noncontig", backend, strategy, "-n", "4", "-o", d / "noncontig.out", inputs["map"],
              "--decomp", "D1", "--verify")


def run_replay(d, inputs, backend, strategy):
    out = d / "replayed"
    out.mkdir()
    # blob and log read back only the blocks each rank wrote; the trace's reads
    # (every rank reads rank 0's header) are other blocks, which they refuse
    # with exit 2 (test_replay_reads_of_other_blocks_refused): their cells
    # write and verify.
    reads = ["--no-reads"] if strategy in ("blob", "log") else []
    p = run_stack(d, "replay", backend, strategy, "-o", out, "-k", *reads, inputs["trace"])
    if (backend, strategy) == ("mpiio", "canonical"):  # raw layout: the captured file's size and offsets
        files = list(out.glob("replay0_matrix*"))
        size = TRACE_HEADER + NRANKS * TRACE_BLOCKS * TRACE_BLOCK
        if len(files) != 1 or files[0].stat().st_size != size:
            raise Failed(f"want one replayed file of {size} bytes, have "
                         f"{[(f.name, f.stat().st_size) for f in files]}\n$ {_cmdline(p)}")


def run_metadata(d, inputs, backend, strategy):
    ini = d / "iotest.ini"
    ini.write_text("[DEFAULT]\nsteps = 2\narrays = 3\nrows = 4\ncolumns = 4\nprocess-rows = 2\n"
                   "process-columns = 2\nscaling = weak\ndataset-rank = 4\nslowest-dimension = array\n"
                   f"layout = chunked\nmpi-io = collective\nhdf5-file = {d / 'iotest'}\ncsv-file = {d / 'io.csv'}\n")
    run_stack(d, "metadata", backend, strategy, ini)


def run_exerciser(d, inputs, backend, strategy):
    run_stack(d, "exerciser", backend, strategy, "--numdims", "2", "--minels", "4", "4", "--dimranks", "2", "2",
              "--rshift", "1", "--addattr", "-o", d / "exerciser")


OPENPMD_CONF = ["--dim", "3", "--min-block", "4 6 5", "--grid", "4 2 1", "--steps", "2", "--ratio", "2"]


def openpmd_write(d, backend, strategy, *extra):
    path = d / "openpmd"
    run_stack(d, "openpmd_write", backend, strategy, *OPENPMD_CONF, "--balanced", "false", "-o", path, "-k",
              *extra, verified="--verify" in extra)
    return path


def run_openpmd_write(d, inputs, backend, strategy):
    WRITTEN["openpmd_write", backend, strategy] = openpmd_write(d, backend, strategy, "--verify")


def run_openpmd_read(d, inputs, backend, strategy):
    path = written_by("openpmd_write", backend, strategy, d, lambda d: openpmd_write(d, backend, strategy))
    run_stack(d, "openpmd_read", backend, strategy, *OPENPMD_CONF, "--pattern", "sy", "-i", path)


def run_amrex(d, inputs, backend, strategy):
    ini = d / "amrex.ini"
    ini.write_text("ncells = 8\nmax_grid_size = 4\nnlevs = 1\nncomp = 2\nnppc = 1\nnplotfile = 1\n"
                   f"nparticlefile = 1\nrestart_check = 1\ndirectory = {d / 'amrex'}\n")
    run_stack(d, "amrex", backend, strategy, ini)


MACSIO_CONF = ["--part_size", "4000", "--vars_per_part", "4", "--num_dumps", "2"]


def run_macsio_mif(d, inputs, backend, strategy):
    run_stack(d, "macsio", backend, strategy, *MACSIO_CONF, "--parallel_file_mode", "MIF", "2",
              "--filebase", d / "mif")


def run_macsio_sif(d, inputs, backend, strategy):
    run_stack(d, "macsio", backend, strategy, *MACSIO_CONF, "--parallel_file_mode", "SIF", "1",
              "--filebase", d / "sif")


RUNNERS = {
    "e3sm": run_e3sm,
    "s3d": run_s3d,
    "gcrm": run_gcrm,
    "vpic": run_vpic,
    "bdcats": run_bdcats,
    "noncontig": run_noncontig,
    "replay": run_replay,
    "metadata": run_metadata,
    "exerciser": run_exerciser,
    "openpmd_write": run_openpmd_write,
    "openpmd_read": run_openpmd_read,
    "amrex": run_amrex,
    "macsio_mif": run_macsio_mif,
    "macsio_sif": run_macsio_sif,
}


@pytest.mark.parametrize("kernel,backend,strategy", COMBOS, ids=["-".join(c) for c in COMBOS])
def test_combination(tmp_path, inputs, kernel, backend, strategy):
    key = (kernel, backend, strategy)
    OUTCOMES[key] = ("FAIL", "the test itself raised")  # replaced below unless it did
    try:
        RUNNERS[kernel](tmp_path, inputs, backend, strategy)
        OUTCOMES[key] = ("ok", "")
    except NotExpressible as e:
        OUTCOMES[key] = ("not expressible", str(e))
    except Failed as e:
        OUTCOMES[key] = ("FAIL", str(e))
    if OUTCOMES[key][0] == "FAIL":
        pytest.fail(OUTCOMES[key][1], pytrace=False)


# ---------------------------------------------------------------- negative: a corrupted value is caught

def _pattern_key(name):
    h = 1469598103934665603
    for c in name.encode():
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def _mix(x):
    m = 0xFFFFFFFFFFFFFFFF
    x = (x + 0x9E3779B97F4A7C15) & m
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & m
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & m
    return x ^ (x >> 31)


def _pattern_float(name, element, record):
    """core/pattern.cpp's value of one float element."""
    m = 0xFFFFFFFFFFFFFFFF
    r = _mix(_pattern_key(name) ^ _mix((element * 0x100000001B3 + record * 0x9E3779B97F4A7C15) & m))
    return (r & 0xFFFFFF) / 256.0


def _find_value(files, name):
    """(file, offset) of two consecutive float elements of `name` (either byte order), or None."""
    probes = []
    for record in range(3):
        for element in (1000, 2000, 5000):
            a, b = _pattern_float(name, element, record), _pattern_float(name, element + 1, record)
            probes += [struct.pack("<ff", a, b), struct.pack(">ff", a, b)]
    for f in files:
        data = f.read_bytes()
        for probe in probes:
            i = data.find(probe)
            if i >= 0:
                return f, i
    return None


CORRUPTED_VAR = "relative"  # float (time, cells, layers) in the GCRM history file vorticity_mass_*


def _corrupt(out):
    """Flips the bytes of one written value of CORRUPTED_VAR in the output.
    Returns (description, whether the value was found by its pattern)."""
    files = sorted((p for p in out.rglob("*") if p.is_file()), key=lambda p: -p.stat().st_size)
    hit = _find_value(files, CORRUPTED_VAR)
    found = hit is not None
    if not found:  # no pattern found: a byte in the middle of the largest file (its data region)
        f = files[0]
        hit = (f, f.stat().st_size // 2)
    f, off = hit
    with open(f, "r+b") as fh:
        fh.seek(off)
        b = fh.read(4)
        fh.seek(off)
        fh.write(bytes(x ^ 0xFF for x in b))
    return f"{f.relative_to(out)} @ {off}", found


NEG = [(b, s) for b in BACKENDS for s in STRATEGIES]


@pytest.mark.parametrize("backend,strategy", NEG, ids=["-".join(c) for c in NEG])
def test_corrupted_value_is_caught(tmp_path, inputs, backend, strategy):
    p = _run("gcrm", *gcrm_args(tmp_path, inputs), "-a", backend, "-x", strategy, "-k")
    if p.returncode == 2:
        pytest.skip(f"gcrm not expressible on {backend}/{strategy}: {_not_expressible_reason(p)}")
    assert p.returncode == 0 and VERIFIED.search(p.stdout), f"$ {_cmdline(p)}\n{_tail(p.stderr or p.stdout)}"
    where, by_pattern = _corrupt(tmp_path / "out")
    r = _run("gcrm", *gcrm_args(tmp_path, inputs), "-a", backend, "-x", strategy, "--read-only")
    said = f"corrupted {where}\n$ {_cmdline(r)}\n{_tail(r.stderr or r.stdout)}"
    assert r.returncode not in (0, 2), f"exit {r.returncode}: corruption not reported as a failure\n{said}"
    errors = [ln for ln in r.stderr.splitlines() if "error:" in ln]
    assert len(errors) == 1 and "verification failed" in errors[0].lower(), f"no one-line verification error\n{said}"
    if by_pattern:
        assert f"variable {CORRUPTED_VAR}" in errors[0], f"the error does not name the corrupted variable\n{said}"
    assert "core dumped" not in r.stderr.lower() and "MPI_ABORT" not in r.stderr, said


# ---------------------------------------------------------------- refusal: reading blocks another rank wrote

@pytest.mark.parametrize("strategy", ["blob", "log"])
def test_replay_reads_of_other_blocks_refused(tmp_path, inputs, strategy):
    """The trace's reads of rank 0's header from every rank: not expressible in a per-rank layout (exit 2)."""
    out = tmp_path / "replayed"
    out.mkdir()
    p = _run("replay", "-a", "pnetcdf", "-x", strategy, "-o", out, inputs["trace"])
    assert p.returncode == 2, f"exit {p.returncode}\n$ {_cmdline(p)}\n{_tail(p.stderr or p.stdout)}"
    reason = _not_expressible_reason(p)
    assert "read back by the blocks each process wrote" in reason, reason


# ---------------------------------------------------------------- summary (keep last in this file)

def test_every_run_records_its_stack():
    """--json is a common option: every successful run writes its result, naming backend and strategy."""
    if len(OUTCOMES) < len(COMBOS):
        pytest.skip(f"only {len(OUTCOMES)} of {len(COMBOS)} combinations ran in this session")
    assert not RESULT_PROBLEMS, f"{len(RESULT_PROBLEMS)} run(s):\n" + "\n".join(RESULT_PROBLEMS)


def _cell(outcome):
    if outcome is None:
        return "not run"
    status, detail = outcome
    if status == "not expressible":
        return "not expressible: " + detail.replace("|", "\\|")
    if status == "FAIL":
        lines = detail.splitlines()
        why = next((ln.split("error:", 1)[1].strip() for ln in lines if "error:" in ln), lines[0] if lines else "")
        return "FAIL: " + why.replace("|", "\\|")
    return status


def test_matrix_summary():
    if not COMBOS:
        pytest.fail("no backends/strategies from `iokernels backends --json`")
    ran = dict(OUTCOMES)
    if len(ran) < len(COMBOS):
        pytest.skip(f"only {len(ran)} of {len(COMBOS)} combinations ran in this session")
    counts = {s: sum(1 for v in ran.values() if v[0] == s) for s in ("ok", "not expressible", "FAIL")}
    lines = ["# Kernel x backend x strategy matrix", "",
             f"{NRANKS} ranks; each cell: the kernel wrote, read back and verified every element (ok), "
             "exited 2 with one line saying why (not expressible: reason), or failed (FAIL).", "",
             f"ok {counts['ok']}, not expressible {counts['not expressible']}, FAIL {counts['FAIL']} "
             f"of {len(COMBOS)} combinations.", ""]
    for kernel in KERNELS:
        lines += [f"## {kernel}", "", "| backend | " + " | ".join(STRATEGIES) + " |",
                  "|---|" + "---|" * len(STRATEGIES)]
        for b in BACKENDS:
            lines.append(f"| {b} | " + " | ".join(_cell(ran.get((kernel, b, s))) for s in STRATEGIES) + " |")
        lines.append("")
    MATRIX_MD.write_text("\n".join(lines))
    layout = {c: v for c, v in ran.items() if c[0] in LAYOUT_KERNELS}
    wrong = [c for c, v in layout.items() if (v[0] == "ok") != ((c[1], c[2]) in HOLDS_LAYOUT)]
    assert not wrong, (f"layout kernels (openPMD, AMReX) ran where the layout cannot be held, "
                       f"or were refused where it can: {wrong}")
    general = [v for c, v in ran.items() if c[0] not in LAYOUT_KERNELS]
    ok = sum(1 for v in general if v[0] == "ok")
    assert ok >= 0.8 * len(general), f"only {ok} of {len(general)} combinations verified: {counts}"
