"""h5bench's JSON driver configurations for every write/read variant, written
here (shrunk; nothing is copied from h5bench) and run by the suite runner as
h5bench users paste them: write-unlimited (one dataset per field, unlimited
time-step dimension extended per step: h5dump -H shows the extent, maximum,
chunks and deflate), write_normal_dist / write_var_normal_dist (per-rank
counts drawn from the normal distribution: the file's length is their sum),
the older keys (NUM_PARTICLES, BLOCK_SIZE_3, STRIDE_SIZE_3), h5bench's
defaults for missing keys (READ_OPTION=PARTIAL without TO_READ_NUM_PARTICLES
reads every particle; COMPRESS=YES without CHUNK_DIM_1 makes h5bench's
one-element chunks, deflate 9), MODE=ASYNC run synchronously with a note,
CSV_FILE with h5bench's metric names, the `e3sm` entry on a generated HDF5
map, and the refusals: h5bench's other kernels by name (metadata and
exerciser run: test_metadata.py, test_exerciser.py), a write-unlimited
file read without its layout.  Every read is verified value by value by
bdcats.  overwrite and append: test_h5bench_update.py."""
import csv
import json
import re
import subprocess

import pytest

from conftest import BUILD_DIR, registered_backends, tool
from suite_cli import run_suite_doc

RANKS = 4
pytestmark = pytest.mark.skipif("hdf5" not in registered_backends(), reason="hdf5 backend not built")


def h5bench_doc(*benchmarks, ranks=RANKS):
    return {"mpi": {"command": "mpiexec", "ranks": str(ranks), "configuration": f"--oversubscribe -np {ranks}"},
            "vol": {}, "file-system": {}, "directory": "storage", "benchmarks": list(benchmarks)}


def entry(benchmark, file="test.h5", **config):
    return {"benchmark": benchmark, "file": file,
            "configuration": {k: str(v) for k, v in config.items()}}


BASE = dict(MEM_PATTERN="CONTIG", FILE_PATTERN="CONTIG", TIMESTEPS=3, DELAYED_CLOSE_TIMESTEPS=2,
            COLLECTIVE_DATA="YES", COLLECTIVE_METADATA="YES", EMULATED_COMPUTE_TIME_PER_TIMESTEP="1 ms",
            NUM_DIMS=1, DIM_1=256, DIM_2=1, DIM_3=1, MODE="SYNC", CSV_FILE="output.csv")


def h5dump(path, *extra):
    p = subprocess.run(["h5dump", "-H", "-p", *extra, str(path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def csv_rows(path):
    with open(path) as f:
        return {row[0].strip(): (row[1].strip(), row[2].strip()) for row in csv.reader(f) if row}


def test_write_unlimited_extends_the_time_step_dimension(tmp_path):
    cfg = {**BASE, "COMPRESS": "YES", "CHUNK_DIM_1": 64}
    cfg.pop("MODE")
    doc = h5bench_doc(entry("write-unlimited", **cfg), entry("read", READ_OPTION="FULL", **BASE))
    p, runs, res = run_suite_doc(tmp_path, doc)
    (w, wdoc), (r, rdoc) = runs
    head = h5dump(tmp_path / "storage" / "test.h5")
    assert "Timestep_" not in head  # no groups: one dataset per field
    for field in ("x", "y", "z", "px", "py", "pz", "id_1", "id_2"):
        assert f'DATASET "{field}"' in head
    # 3 records of 4 x 256 particles; the record dimension unlimited, one record per chunk
    assert head.count("DATASPACE  SIMPLE { ( 3, 1024 ) / ( H5S_UNLIMITED, 1024 ) }") == 8, head
    assert head.count("CHUNKED ( 1, 64 )") == 8 and head.count("LEVEL 9") == 8
    assert wdoc["summary"]["total_size_bytes"] == RANKS * 256 * 32 * 3
    assert rdoc["summary"]["total_size_bytes"] == RANKS * 256 * 32 * 3 and rdoc["summary"]["mismatches"] == 0
    rows = csv_rows(res / "out" / w["id"] / "output.csv")
    assert rows["operation"][0] == "write unlimited"


def test_write_unlimited_file_read_without_its_layout_is_refused(tmp_path):
    doc = h5bench_doc(entry("write-unlimited", **BASE))
    run_suite_doc(tmp_path, doc)
    cfg = tmp_path / "read.cfg"
    cfg.write_text("TIMESTEPS=3\nDIM_1=256\nCOLLECTIVE_DATA=YES\n")
    p = subprocess.run(["mpiexec", "--oversubscribe", "-n", str(RANKS), str(BUILD_DIR / "src" / "iokernels"),
                        "bdcats", str(cfg), str(tmp_path / "storage" / "test.h5")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode != 0 and "Timestep_0" in p.stdout + p.stderr, p.stdout + p.stderr


@pytest.mark.parametrize("benchmark", ["write_normal_dist", "write_var_normal_dist"])
def test_normal_distribution_of_particle_counts(tmp_path, benchmark):
    cfg = {**BASE, "DIM_1": 4096, "STDEV_DIM_1": 512}
    p, runs, res = run_suite_doc(tmp_path, h5bench_doc(entry(benchmark, **cfg)))
    (w, wdoc), = runs
    head = h5dump(tmp_path / "storage" / "test.h5")
    lengths = {int(n) for n in re.findall(r"DATASPACE  SIMPLE \{ \( (\d+) \)", head)}
    assert len(lengths) == 1  # every field and step the same length: the sum of the ranks' counts
    total = lengths.pop()
    assert total != RANKS * 4096 and abs(total - RANKS * 4096) < RANKS * 4 * 512  # drawn, not DIM_1 each
    assert wdoc["summary"]["total_size_bytes"] == total * 32 * 3
    assert csv_rows(res / "out" / w["id"] / "output.csv")["operation"][0] == "write_var_normal_dist"


def test_normal_dist_without_stdev_gets_h5bench_default(tmp_path):
    from iokernels import h5bench_form
    doc, _ = h5bench_form.to_suite(h5bench_doc(entry("write_var_normal_dist", **BASE)), "x.json")
    args = doc["case"][0]["args"]
    assert args[args.index("--stdev-dim-1") + 1] == "1"  # bench_params_init: stdev_dim_1 = 1


def test_older_keys_and_defaults_of_missing_keys(tmp_path):
    """NUM_PARTICLES (older spelling: h5bench replaces it by DIM_1 x DIM_2 x
    DIM_3), BLOCK_SIZE_3/STRIDE_SIZE_3 (parsed, unused), PARTIAL without
    TO_READ_NUM_PARTICLES (reads each rank's whole part), COMPRESS without
    CHUNK_DIM_1 (one-element chunks, deflate 9), no READ_OPTION (FULL)."""
    write = {**BASE, "NUM_PARTICLES": "1 M", "COMPRESS": "YES", "DIM_1": 64}
    two_d = dict(BASE, NUM_DIMS=2, DIM_1=6, DIM_2=8)
    doc = h5bench_doc(
        entry("write", **write),
        entry("read", **{**BASE, "DIM_1": 64, "READ_OPTION": "PARTIAL", "NUM_PARTICLES": "1 M"}),
        entry("read", **{**BASE, "DIM_1": 64}),
        entry("write", file="two.h5", **two_d),
        entry("read", file="two.h5", READ_OPTION="PRL", BLOCK_SIZE=1, BLOCK_SIZE_2=1, BLOCK_SIZE_3=1,
              STRIDE_SIZE_3=2, **two_d))
    p, runs, res = run_suite_doc(tmp_path, doc)
    assert [r["status"] for r, _ in runs] == ["ok"] * 5
    head = h5dump(tmp_path / "storage" / "test.h5")
    assert head.count("DATASPACE  SIMPLE { ( 256 ) / ( 256 ) }") == 24  # 4 x DIM_1, not NUM_PARTICLES
    assert head.count("CHUNKED ( 1 )") == 24 and head.count("LEVEL 9") == 24
    partial, full = runs[1][1]["summary"], runs[2][1]["summary"]
    assert partial["total_size_bytes"] == full["total_size_bytes"] == RANKS * 64 * 32 * 3
    assert partial["mismatches"] == full["mismatches"] == runs[4][1]["summary"]["mismatches"] == 0


def test_async_mode_runs_synchronously_with_a_note(tmp_path):
    doc = h5bench_doc(entry("write", **{**BASE, "MODE": "ASYNC"}), entry("read", **{**BASE, "MODE": "ASYNC"}))
    p, runs, res = run_suite_doc(tmp_path, doc)
    assert p.stderr.count("asks for MODE=ASYNC; it runs synchronously") == 2, p.stderr
    assert [r["status"] for r, _ in runs] == ["ok", "ok"]
    index = json.loads((res / "index.json").read_text())
    assert "runs synchronously" in index["description"]
    # ... and without the note, MODE=SYNC is silent
    p, _, _ = run_suite_doc(tmp_path / "sync", h5bench_doc(entry("write", **BASE)))
    assert "MODE=" not in p.stderr


def test_csv_file_has_h5bench_metric_names(tmp_path):
    doc = h5bench_doc(entry("write", **BASE), entry("read", **BASE))
    p, runs, res = run_suite_doc(tmp_path, doc)
    for (r, _rdoc), op in zip(runs, ("write", "read"), strict=False):
        path = res / "out" / r["id"] / "output.csv"
        assert path.read_text().splitlines()[0] == "metric, value, unit"
        rows = csv_rows(path)
        assert rows["operation"] == (op, "")
        assert rows["ranks"] == (str(RANKS), "")
        assert rows["collective data"] == ("YES", "") and rows["collective meta"] == ("YES", "")
        for name, unit in [("total compute time", "seconds"), ("raw time", "seconds"),
                           ("metadata time", "seconds"), ("observed time", "seconds"),
                           ("raw rate", "MiB/s"), ("observed rate", "MiB/s"), ("total size", "bytes")]:
            assert rows[name][1] == unit, name
        assert float(rows["total size"][0]) == RANKS * 256 * 32 * 3
        assert float(rows["total compute time"][0]) == pytest.approx(0.002, abs=0.001)  # 2 gaps of 1 ms


def test_e3sm_entry_runs_the_e3sm_kernel(tmp_path):
    """h5bench's sample: {"k": "", "r": "25", "map": ...}: empty values
    dropped, -a hdf5 -x blob, output under the run's directory."""
    (tmp_path / "maps").mkdir()
    subprocess.run([str(tool("e3sm_mapgen")), "--case", "G", "--nprocs", "2", "--nlev", "3", "--ncells", "40",
                    "--format", "hdf5", "-o", str(tmp_path / "maps" / "g.h5")], check=True, capture_output=True,
                   timeout=120)
    doc = h5bench_doc({"benchmark": "e3sm", "file": "out.h5",
                       "configuration": {"k": "", "r": "2", "map": "../maps/g.h5"}}, ranks=2)
    p, runs, res = run_suite_doc(tmp_path, doc)
    (r, rdoc), = runs
    assert r["status"] == "ok"
    cmd = rdoc["suite_run"]["command"]
    i = cmd.index("e3sm")
    assert cmd[i + 1:i + 8] == ["-r", "2", "-a", "hdf5", "-x", "blob", "-o"]
    assert cmd[i + 8] == str(res / "out" / r["id"] / "out.h5")
    assert cmd[i + 9] == str(tmp_path / "storage" / ".." / "maps" / "g.h5")
    assert rdoc["params"]["backend"] == "hdf5" and rdoc["params"]["strategy"] == "blob"
    assert not list((res / "out" / r["id"]).glob("out*.h5"))  # no "k": the output is removed, as E3SM-IO


# Every benchmark name h5bench 1.6's driver and sample configurations use,
# with a minimal entry of its kind: each becomes a case of an iokernels kernel
# (none is refused by name any more).
EVERY_BENCHMARK = [
    ("write", {"file": "t.h5", "configuration": {"MEM_PATTERN": "CONTIG", "DIM_1": "16"}}, "vpic"),
    ("write-unlimited", {"file": "t.h5", "configuration": {"DIM_1": "16"}}, "vpic"),
    ("write_var_normal_dist", {"file": "t.h5", "configuration": {"DIM_1": "16"}}, "vpic"),
    ("write_normal_dist", {"file": "t.h5", "configuration": {"DIM_1": "16"}}, "vpic"),
    ("overwrite", {"file": "t.h5", "configuration": {"DIM_1": "16"}}, "vpic"),
    ("append", {"file": "t.h5", "configuration": {"DIM_1": "16"}}, "vpic"),
    ("read", {"file": "t.h5", "configuration": {"READ_OPTION": "FULL", "DIM_1": "16"}}, "bdcats"),
    ("e3sm", {"file": "o.h5", "configuration": {"k": "", "x": "blob", "a": "hdf5", "r": "2", "map": "m.h5"}}, "e3sm"),
    ("metadata", {"file": "m.h5", "configuration": {"steps": "2"}}, "metadata"),
    ("exerciser", {"configuration": {"numdims": "1", "minels": "8"}}, "exerciser"),
    ("openpmd", {"configuration": {"operation": "write", "dim": "3", "steps": "1"}}, "openpmd_write"),
    ("amrex", {"file": "amrex", "configuration": {"ncells": "16", "max_grid_size": "8", "nlevs": "1"}}, "amrex"),
    ("macsio", {"file": "test.h5", "configuration": {"parallel_file_mode": "MIF 8", "part_size": "1M"}}, "macsio"),
]


@pytest.mark.parametrize("name,entry,kernel", EVERY_BENCHMARK, ids=[b[0] for b in EVERY_BENCHMARK])
def test_every_h5bench_benchmark_runs_a_kernel(tmp_path, name, entry, kernel):
    from iokernels import suite
    path = tmp_path / "one.json"
    path.write_text(json.dumps(h5bench_doc({"benchmark": name, **entry})))
    s = suite.load(path)
    assert [r.kernel for r in s.runs] == [kernel]


# A key the benchmark's own input cannot hold is refused naming the entry, the
# key and what keys look like (h5bench_form._option_items).
BAD_KEYS = [
    ("metadata", {"Steps": "2"}, "'Steps' = '2' is not an hdf5_iotest .ini key", "lower case with dashes"),
    ("amrex", {"ncells": {"x": 1}}, "'ncells' = {'x': 1} is not an h5bench_amrex input key", '"ncells": "64"'),
    ("macsio", {"part-size": "1M"}, "'part-size' = '1M' is not a MACSio option", "options without dashes"),
]


@pytest.mark.parametrize("name,config,what,hint", BAD_KEYS, ids=[b[0] for b in BAD_KEYS])
def test_entry_key_the_benchmark_cannot_take_is_refused(name, config, what, hint):
    from iokernels import h5bench_form
    from iokernels.errors import UsageError
    with pytest.raises(UsageError) as e:
        h5bench_form.to_suite(h5bench_doc({"benchmark": name, "file": "f.h5", "configuration": config}), "x.json")
    assert what in str(e.value) and hint in (e.value.hint or ""), (str(e.value), e.value.hint)
