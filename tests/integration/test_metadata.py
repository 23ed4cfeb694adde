"""iokernels metadata: h5bench's metadata stress test (hdf5_iotest), from
.ini files written here.  On HDF5 the file holds what hdf5_iotest writes:
the datasets of each dataset-rank / slowest-dimension (one 4-D dataset, one
3-D per step or per array, a group per step or array of 2-D datasets),
their shapes, maximum shapes (unlimited where the original's chunked layout
has it) and chunks, doubles, every tile holding process-row +
process-column.  The read phase verifies every tile: a byte changed in the
file fails it.  Bad configurations (a process grid that is not the rank
count, zero steps, an unknown key, strong scaling that does not divide) stop
every rank with one line.  Other libraries run the same plan verified, or
refuse a group layout in one line (exit 2).  h5bench's `metadata` entry runs
through the suite runner."""
import csv
import struct
import time

import pytest

from conftest import assert_all_ranks_fail, iok, load_json, registered_backends
from suite_cli import run_suite_doc

h5py = pytest.importorskip("h5py")
np = pytest.importorskip("numpy")

pytestmark = pytest.mark.skipif("hdf5" not in registered_backends(), reason="hdf5 backend not built")

SMALL = {"version": 0, "steps": 3, "arrays": 4, "rows": 2, "columns": 3, "process-rows": 2, "process-columns": 2,
         "scaling": "weak", "dataset-rank": 4, "slowest-dimension": "step", "layout": "contiguous",
         "mpi-io": "independent"}


def write_ini(d, name="iotest.ini", section="DEFAULT", **changes):
    """An hdf5_iotest .ini in d, as the original's sample is laid out (comments included)."""
    keys = dict(SMALL, **{k.replace("_", "-"): v for k, v in changes.items()})
    keys.setdefault("hdf5-file", str(d / "iotest.h5"))
    keys.setdefault("csv-file", str(d / "iotest.csv"))
    lines = ["; hdf5_iotest configuration written by the test", f"[{section}]"]
    lines += [f"{k} = {v}      ; a comment" for k, v in keys.items()]
    (d / name).write_text("\n".join(lines) + "\n")
    return d / name


def tiles(f, name):
    return f[name][()]


def expect_tiles(arr, rows, cols, prow=2, pcol=2):
    """Every rank's tile of a [..., R, C] array holds its process row + column."""
    for r in range(prow):
        for c in range(pcol):
            t = arr[..., r * rows:(r + 1) * rows, c * cols:(c + 1) * cols]
            assert (t == r + c).all(), f"tile ({r},{c}) holds {np.unique(t)}"


LAYOUTS = [  # dataset-rank, slowest-dimension, layout -> {name: (shape, maxshape, chunks)}
    (4, "step", "contiguous", {"dataset": ((3, 4, 4, 6), (3, 4, 4, 6), None)}),
    (4, "step", "chunked", {"dataset": ((3, 4, 4, 6), (None, 4, 4, 6), (1, 4, 2, 3))}),
    (4, "array", "chunked", {"dataset": ((4, 3, 4, 6), (4, None, 4, 6), (4, 1, 2, 3))}),
    (3, "step", "chunked", {f"step={s}": ((4, 4, 6), (4, 4, 6), (1, 2, 3)) for s in range(3)}),
    (3, "array", "chunked", {f"array={a}": ((3, 4, 6), (None, 4, 6), (1, 2, 3)) for a in range(4)}),
    (2, "step", "contiguous", {f"step={s}/array={a}": ((4, 6), (4, 6), None) for s in range(3) for a in range(4)}),
    (2, "array", "chunked", {f"array={a}/step={s}": ((4, 6), (4, 6), (2, 3)) for s in range(3) for a in range(4)}),
]


@pytest.mark.parametrize("rank,slowest,layout,want", LAYOUTS, ids=[f"{r}-{s}-{lay}" for r, s, lay, _ in LAYOUTS])
def test_hdf5_file_holds_what_hdf5_iotest_writes(tmp_path, rank, slowest, layout, want):
    ini = write_ini(tmp_path, dataset_rank=rank, slowest_dimension=slowest, layout=layout)
    js = tmp_path / "r.json"
    p = iok(4, "metadata", ini, "--json", js)
    assert "Verification" in p.stdout and "passed" in p.stdout, p.stdout
    with h5py.File(tmp_path / "iotest.h5", "r") as f:
        found = []
        f.visititems(lambda n, o: found.append(n) if isinstance(o, h5py.Dataset) else None)
        assert sorted(found) == sorted(want)
        assert not f.attrs.keys()  # nothing but the datasets (and their groups)
        for name, (shape, maxshape, chunks) in want.items():
            ds = f[name]
            assert ds.dtype == np.float64 and ds.shape == shape and ds.maxshape == maxshape, name
            assert ds.chunks == chunks, name
            expect_tiles(ds[()], 2, 3)
    doc = load_json(js)
    assert doc["valid"] is True and doc["summary"]["mismatches"] == 0
    # 3 steps x 4 arrays tiles of 2 x 3 doubles per rank, written and read
    assert doc["summary"]["bytes_per_rank"] == 3 * 4 * 2 * 3 * 8
    write, read = doc["files"]
    assert write["bytes"]["total"] == read["bytes"]["total"] == 4 * 3 * 4 * 2 * 3 * 8
    rows = list(csv.reader(open(tmp_path / "iotest.csv")))
    assert rows[0][:4] == ["steps", "arrays", "rows", "cols"] and len(rows[0]) == 27
    assert rows[1][:11] == ["3", "4", "2", "3", "weak", "2", "2", slowest, str(rank), layout, "independent"]


def test_strong_scaling_options_win_over_the_file_one_rank(tmp_path):
    """Strong scaling: rows x columns are the whole array.  Named options
    override the .ini (here on 1 rank: a 1 x 1 grid), keys in any section."""
    ini = write_ini(tmp_path, section="mine", scaling="strong", rows=4, columns=6, layout="chunked",
                    mpi_io="collective")
    iok(1, "metadata", ini, "--process-rows", "1", "--process-columns", "1", "--dataset-rank", "3")
    with h5py.File(tmp_path / "iotest.h5", "r") as f:
        assert sorted(f) == ["step=0", "step=1", "step=2"]
        assert f["step=0"].shape == (4, 4, 6) and f["step=0"].chunks == (1, 4, 6)
        assert (f["step=2"][()] == 0).all()


def test_a_changed_byte_fails_the_read_phase(tmp_path):
    ini = write_ini(tmp_path)
    iok(4, "metadata", ini)
    h5 = tmp_path / "iotest.h5"
    raw = bytearray(h5.read_bytes())
    i = raw.find(struct.pack("<3d", 2.0, 2.0, 2.0))  # a row of rank 3's tile (process row 1 + column 1)
    assert i > 0
    raw[i + 3] ^= 0x40
    h5.write_bytes(bytes(raw))
    p = iok(4, "metadata", ini, "--read-only", check=False)
    assert p.returncode not in (0, 2), p.stdout
    errors = [ln for ln in p.stderr.splitlines() if "error:" in ln]
    assert len(errors) == 1 and "verification failed" in errors[0].lower(), p.stderr
    assert "FAILED: 1 element" in p.stdout


def test_read_only_verifies_an_untouched_file(tmp_path):
    ini = write_ini(tmp_path, dataset_rank=2, layout="chunked")
    iok(4, "metadata", ini)
    p = iok(4, "metadata", ini, "--read-only")
    assert "passed" in p.stdout


BAD = [
    ({"process-rows": 3}, 4, "process grid 3 x 2 = 6 processes, but the job has 4"),
    ({"steps": 0}, 4, "steps = 0"),
    ({"columns": 0}, 1, "columns = 0"),
    ({"scaling": "strong", "rows": 5}, 4, "do not divide over the process grid 2 x 2"),
    ({"layout": "striped"}, 4, "layout = 'striped' is not one of contiguous, chunked"),
    ({"dataset-rank": 5}, 4, "dataset-rank = 5"),
    ({"arrays": "many"}, 4, "arrays = 'many' is not a whole number"),
]


@pytest.mark.parametrize("changes,ranks,fragment", BAD, ids=[next(iter(c)) for c, _, _ in BAD])
def test_bad_configuration_stops_every_rank(tmp_path, changes, ranks, fragment):
    if ranks == 1:
        changes = dict(changes, **{"process-rows": 1, "process-columns": 1})
    ini = write_ini(tmp_path, **{k.replace("-", "_"): v for k, v in changes.items()})
    t0 = time.monotonic()
    p = iok(ranks, "metadata", ini, check=False, timeout=60)
    assert time.monotonic() - t0 < 30
    assert_all_ranks_fail(p, fragment)
    assert not (tmp_path / "iotest.h5").exists()


def test_unknown_key_names_its_line(tmp_path):
    ini = write_ini(tmp_path)
    ini.write_text(ini.read_text() + "meta-block-size = 4096\n")
    p = iok(4, "metadata", ini, check=False, timeout=60)
    assert_all_ranks_fail(p, f"{ini}:17: unknown key 'meta-block-size'", "hdf5_iotest's keys are version, steps")


def test_other_libraries_run_or_refuse_groups(tmp_path):
    """PnetCDF: the 4-D dataset is written and verified; the groups of
    dataset-rank 2 are refused in one line (exit 2)."""
    if "pnetcdf" not in registered_backends():
        pytest.skip("pnetcdf backend not built")
    ini = write_ini(tmp_path, hdf5_file=tmp_path / "iotest.nc")
    p = iok(4, "metadata", ini, "-a", "pnetcdf")
    assert "passed" in p.stdout
    ini = write_ini(tmp_path, dataset_rank=2, hdf5_file=tmp_path / "iotest2.nc")
    p = iok(4, "metadata", ini, "-a", "pnetcdf", check=False)
    assert p.returncode == 2 and p.stderr.count("error:") == 1, p.stderr
    assert "dataset-rank = 2" in p.stderr and "names with '/' (groups)" in p.stderr


def test_h5bench_metadata_entry_runs(tmp_path):
    """h5bench's sample entry (shrunk): keys as options, the file in DIRECTORY, the CSV in the run's directory."""
    config = {k: str(v) for k, v in SMALL.items()}
    config["csv-file"] = "hdf5_iotest.csv"
    doc = {"mpi": {"command": "mpiexec", "ranks": "4", "configuration": "--oversubscribe -n 4"}, "vol": {},
           "file-system": {}, "directory": "storage",
           "benchmarks": [{"benchmark": "metadata", "file": "hdf5_iotest.h5", "configuration": config}]}
    (tmp_path / "storage").mkdir(parents=True)
    p, runs, res = run_suite_doc(tmp_path, doc)
    (r, rdoc), = runs
    assert r["status"] == "ok" and rdoc["valid"] is True
    assert rdoc["params"]["steps"] == 3 and rdoc["params"]["dataset_rank"] == 4
    with h5py.File(tmp_path / "storage" / "hdf5_iotest.h5", "r") as f:
        assert f["dataset"].shape == (3, 4, 4, 6)
    assert (res / "out" / r["id"] / "hdf5_iotest.csv").exists()
