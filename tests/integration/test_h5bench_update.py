"""h5bench's `overwrite` and `append` benchmarks (h5bench_overwrite,
h5bench_append): JSON driver configurations written here (shrunk), run by
the suite runner, then the files checked with h5dump -H (shapes) and their
values read back (h5py, and bdcats verifying every particle).  The vpic
kernel opens the existing file for update (Backend::open(..., Access::Update)):

  overwrite  rewrites every field of the file's first TIMESTEPS steps, each rank
             its own part, with new values (DATA_SEED, 1 by default): read with
             DATA_SEED=1 they verify, read with the original seed they do not.
  append     adds TIMESTEPS steps after the ones an UNLIMITED=YES
             (write-unlimited) file holds: its unlimited dimension grows.

On the other libraries the same runs go through `iokernels vpic -a LIB`
(ADIOS2 appends, and refuses to rewrite a step).  Refusals, one message on
every rank: append or overwrite of a missing file, append to a file without
the unlimited layout, overwrite with other sizes or more steps than the
file has, update through -x blob."""
import subprocess

import pytest

from conftest import assert_all_ranks_fail, iok, pattern_value, registered_backends
from file_values import dump
from suite_cli import run_suite_doc

RANKS = 4
DIM_1 = 256
FIELDS = ("x", "y", "z", "px", "py", "pz", "id_1", "id_2")
OVERWRITE_SEED = 0x9E3779B97F4A7C15  # DATA_SEED=1 (vpic_plan.cpp)
pytestmark = pytest.mark.skipif("hdf5" not in registered_backends(), reason="hdf5 backend not built")


def h5bench_doc(*benchmarks, ranks=RANKS):
    return {"mpi": {"command": "mpiexec", "ranks": str(ranks), "configuration": f"--oversubscribe -np {ranks}"},
            "vol": {}, "file-system": {}, "directory": "storage", "benchmarks": list(benchmarks)}


def entry(benchmark, file="test.h5", **config):
    return {"benchmark": benchmark, "file": file, "configuration": {k: str(v) for k, v in config.items()}}


BASE = dict(MEM_PATTERN="CONTIG", FILE_PATTERN="CONTIG", TIMESTEPS=3, COLLECTIVE_DATA="YES",
            COLLECTIVE_METADATA="YES", EMULATED_COMPUTE_TIME_PER_TIMESTEP="1 ms", NUM_DIMS=1, DIM_1=DIM_1,
            DIM_2=1, DIM_3=1, MODE="SYNC", CSV_FILE="output.csv")


def stderr_of(res, run):
    return (res / "out" / run["id"] / "stderr.txt").read_text()


def h5dump_header(path):
    p = subprocess.run(["h5dump", "-H", "-p", str(path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def csv_operation(res, run):
    for line in (res / "out" / run["id"] / "output.csv").read_text().splitlines():
        if line.startswith("operation,"):
            return line.split(",")[1].strip()
    return None


def test_overwrite_rewrites_every_step_with_new_values(tmp_path):
    doc = h5bench_doc(entry("write", **BASE), entry("overwrite", READ_OPTION="FULL", **BASE),
                      entry("read", READ_OPTION="FULL", DATA_SEED=1, **BASE))
    p, runs, res = run_suite_doc(tmp_path, doc, expect_ok=False)
    assert p.returncode == 0 and [r["status"] for r, _ in runs] == ["ok", "ok", "ok"], p.stdout + p.stderr
    (w, wdoc), (o, odoc), (r, rdoc) = runs
    nbytes = RANKS * DIM_1 * 32 * 3
    assert odoc["summary"]["total_size_bytes"] == nbytes
    assert rdoc["summary"]["total_size_bytes"] == nbytes and rdoc["summary"]["mismatches"] == 0
    assert csv_operation(res, o) == "overwrite"
    path = tmp_path / "storage" / "test.h5"
    head = h5dump_header(path)
    # The same groups and shapes as written: nothing added, nothing extended.
    assert head.count('GROUP "Timestep_') == 3 and 'GROUP "Timestep_3"' not in head
    assert head.count(f"DATASPACE  SIMPLE {{ ( {RANKS * DIM_1} ) / ( {RANKS * DIM_1} ) }}") == 3 * 8, head
    values = dump(path, tmp_path)
    for step in range(3):
        for e in (0, DIM_1 - 1, DIM_1, RANKS * DIM_1 - 1):  # each rank's part, its ends
            got = float(values[f"Timestep_{step}/px"][e])
            assert got == pytest.approx(pattern_value("px", e, step, OVERWRITE_SEED), rel=1e-6), (step, e)
            assert got != pytest.approx(pattern_value("px", e, step), rel=1e-6), (step, e)
    # Read as written before the overwrite, every particle differs: the verification can fail.
    cfg = tmp_path / "read.cfg"
    cfg.write_text(f"TIMESTEPS=3\nDIM_1={DIM_1}\nCOLLECTIVE_DATA=YES\n")
    q = iok(RANKS, "bdcats", str(cfg), str(path), check=False)
    assert q.returncode != 0 and "verification failed" in q.stderr, q.stdout + q.stderr


def test_append_adds_time_steps_to_a_write_unlimited_file(tmp_path):
    written = {**BASE, "TIMESTEPS": 2, "COMPRESS": "YES", "CHUNK_DIM_1": 64}
    doc = h5bench_doc(entry("write-unlimited", **written), entry("append", READ_OPTION="FULL", **BASE),
                      entry("read", READ_OPTION="FULL", **{**BASE, "TIMESTEPS": 5}))
    p, runs, res = run_suite_doc(tmp_path, doc, expect_ok=False)
    assert p.returncode == 0 and [r["status"] for r, _ in runs] == ["ok", "ok", "ok"], p.stdout + p.stderr
    (w, wdoc), (a, adoc), (r, rdoc) = runs
    assert adoc["summary"]["total_size_bytes"] == RANKS * DIM_1 * 32 * 3
    assert rdoc["summary"]["total_size_bytes"] == RANKS * DIM_1 * 32 * 5 and rdoc["summary"]["mismatches"] == 0
    assert csv_operation(res, a) == "append"
    path = tmp_path / "storage" / "test.h5"
    head = h5dump_header(path)
    # 2 steps written + 3 appended along the unlimited dimension; chunks and deflate kept
    assert head.count(f"DATASPACE  SIMPLE {{ ( 5, {RANKS * DIM_1} ) / ( H5S_UNLIMITED, {RANKS * DIM_1} ) }}") == 8, head
    assert head.count("CHUNKED ( 1, 64 )") == 8
    values = dump(path, tmp_path)
    for step in (0, 1, 2, 4):
        for e in (0, RANKS * DIM_1 - 1):
            assert float(values["x"][step][e]) == pytest.approx(pattern_value("x", e, step), rel=1e-6), (step, e)


def test_append_to_a_missing_file_is_refused(tmp_path):
    missing = tmp_path / "nothing.h5"
    p = iok(RANKS, "vpic", "--io-operation", "APPEND", "--unlimited", "YES", "--dim-1", "64", "-o", str(missing),
            check=False)
    assert_all_ranks_fail(p, "IO_OPERATION=APPEND needs an existing file", "does not exist", "write-unlimited")
    assert not missing.exists()


def test_append_without_the_unlimited_layout_is_refused(tmp_path):
    p = iok(RANKS, "vpic", "--io-operation", "APPEND", "--dim-1", "64", "-o", str(tmp_path / "x.h5"), check=False)
    assert_all_ranks_fail(p, "IO_OPERATION=APPEND", "UNLIMITED=YES")


def write_file(path, *extra, dim_1=DIM_1, steps=3, ranks=RANKS):
    iok(ranks, "vpic", "--dim-1", str(dim_1), "--timesteps", str(steps), "-o", str(path), "--keep", *extra)
    return path.stat().st_mtime_ns if path.is_file() else None


@pytest.mark.parametrize("bad,fragments", [
    (["--dim-1", str(DIM_1 // 2)], ["has shape [1024] but this run writes [512]", "sizes and rank count"]),
    (["--dim-1", str(DIM_1), "--timesteps", "4"], ["TIMESTEPS=4", "holds 3 time steps", "TIMESTEPS=3"]),
])
def test_overwrite_with_other_sizes_is_refused(tmp_path, bad, fragments):
    path = tmp_path / "p.h5"
    write_file(path)
    before = dump(path, tmp_path)
    p = iok(RANKS, "vpic", "--io-operation", "OVERWRITE", *bad, "-o", str(path), check=False)
    assert_all_ranks_fail(p, *fragments)
    after = dump(path, tmp_path)
    assert all((before[k] == after[k]).all() for k in before)  # the file is as it was


def test_overwrite_of_a_missing_file_is_refused(tmp_path):
    p = iok(RANKS, "vpic", "--io-operation", "OVERWRITE", "--dim-1", "64", "-o", str(tmp_path / "no.h5"),
            check=False)
    assert_all_ranks_fail(p, "IO_OPERATION=OVERWRITE needs an existing file", "does not exist")


def test_update_through_blob_is_refused(tmp_path):
    path = tmp_path / "b.h5"
    write_file(path, "-x", "blob")
    p = iok(RANKS, "vpic", "--io-operation", "OVERWRITE", "--dim-1", str(DIM_1), "-x", "blob", "-o", str(path),
            check=False)
    assert_all_ranks_fail(p, "the blob strategy cannot update", "-x canonical")


LIBRARIES = ["pnetcdf", "netcdf4", "mpiio", "adios", "hdf5_md"]


@pytest.mark.parametrize("lib", LIBRARIES)
def test_append_and_overwrite_on_every_library(tmp_path, lib):
    if lib not in registered_backends():
        pytest.skip(f"{lib} not built")
    ext = {"pnetcdf": ".nc", "netcdf4": ".nc", "mpiio": ".bin", "adios": ".bp", "hdf5_md": ".h5"}[lib]
    path = tmp_path / f"p{ext}"
    common = ["-a", lib, "--dim-1", str(DIM_1), "--collective-data", "YES", "--unlimited", "YES"]

    def bdcats(steps, *extra):
        return iok(RANKS, "bdcats", *common, "--timesteps", str(steps), *extra, "-i", str(path), check=False)

    iok(RANKS, "vpic", *common, "--timesteps", "2", "-o", str(path), "--keep")
    ap = iok(RANKS, "vpic", *common, "--timesteps", "3", "--io-operation", "APPEND", "-o", str(path), check=False)
    assert ap.returncode == 0, ap.stderr
    assert bdcats(5).returncode == 0  # 2 written + 3 appended, every particle verified
    assert bdcats(6).returncode != 0  # and no more steps than that
    ow = iok(RANKS, "vpic", *common, "--timesteps", "5", "--io-operation", "OVERWRITE", "-o", str(path), check=False)
    if lib == "adios":
        assert_all_ranks_fail(ow, "a BP file's steps are written once", "append records 5")
        assert bdcats(5).returncode == 0  # unchanged
        return
    assert ow.returncode == 0, ow.stderr
    assert bdcats(5, "--data-seed", "1").returncode == 0  # the new values
    old = bdcats(5)
    assert old.returncode != 0 and "verification failed" in old.stderr


def test_compressed_independent_write_runs_collectively_with_a_note(tmp_path):
    """h5bench's sync-write-unlimited/-append samples: COMPRESS=YES with
    COLLECTIVE_DATA=NO.  From the JSON form the entry writes collectively and
    says so; the KEY=VALUE form keeps refusing it (its twin below)."""
    cfg = {**BASE, "COMPRESS": "YES", "CHUNK_DIM_1": 64, "COLLECTIVE_DATA": "NO"}
    doc = h5bench_doc(entry("write-unlimited", **cfg), entry("append", **{**BASE, "TIMESTEPS": 1}))
    p, runs, res = run_suite_doc(tmp_path, doc, expect_ok=False)
    assert p.returncode == 0 and [r["status"] for r, _ in runs] == ["ok", "ok"], p.stdout + p.stderr
    assert "asks for COMPRESS=YES with independent data" in p.stderr and "writes collectively" in p.stderr
    assert runs[0][1]["params"]["collective_data"] is True
    head = h5dump_header(tmp_path / "storage" / "test.h5")
    assert head.count(f"( 4, {RANKS * DIM_1} ) / ( H5S_UNLIMITED, {RANKS * DIM_1} )") == 8, head
    kv = tmp_path / "w.cfg"
    kv.write_text(f"DIM_1={DIM_1}\nCOMPRESS=YES\nCHUNK_DIM_1=64\nCOLLECTIVE_DATA=NO\n")
    q = iok(RANKS, "vpic", str(kv), str(tmp_path / "kv.h5"), check=False)
    assert_all_ranks_fail(q, "COMPRESS=YES with independent data access", "COLLECTIVE_DATA=YES")


@pytest.mark.parametrize("ranks", [1, 16])
def test_overwrite_and_append_on_1_and_16_ranks(tmp_path, ranks):
    grouped, unlimited = tmp_path / "g.h5", tmp_path / "u.h5"
    sizes = ["--dim-1", "64", "--collective-data", "YES"]
    iok(ranks, "vpic", *sizes, "--timesteps", "2", "-o", str(grouped), "--keep")
    iok(ranks, "vpic", *sizes, "--timesteps", "2", "--io-operation", "OVERWRITE", "-o", str(grouped))
    assert iok(ranks, "bdcats", *sizes, "--timesteps", "2", "--data-seed", "1", "-i", str(grouped),
               check=False).returncode == 0
    assert iok(ranks, "bdcats", *sizes, "--timesteps", "2", "-i", str(grouped), check=False).returncode != 0
    iok(ranks, "vpic", *sizes, "--unlimited", "YES", "--timesteps", "1", "-o", str(unlimited), "--keep")
    iok(ranks, "vpic", *sizes, "--unlimited", "YES", "--timesteps", "2", "--io-operation", "APPEND",
        "-o", str(unlimited))
    assert f"( 3, {ranks * 64} ) / ( H5S_UNLIMITED, {ranks * 64} )" in h5dump_header(unlimited)
    assert iok(ranks, "bdcats", *sizes, "--unlimited", "YES", "--timesteps", "3", "-i", str(unlimited),
               check=False).returncode == 0
