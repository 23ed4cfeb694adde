"""iokernels amrex: h5bench's AMReX benchmark (h5bench_amrex, AMReX's
Tests/HDF5Benchmark), from input files written here.  On HDF5 the plot files
hold what AMReX's WriteMultiLevelPlotfileHDF5SingleDset writes -- the root
and level attributes with their types and values, Chombo_global, level_0's
boxes/boxcenter compounds, data:offsets=0 and the one data:datatype=0 of
every box's cells x components -- and the particle checkpoints what
CheckpointHDF5 writes (plt%05d/particle0/particle0.h5: ints, reals and
nparticles_grid per level).  Every file is read back and verified: a byte
changed fails it.  Bad input stops every rank with one line; libraries
without groups and layout-replacing strategies are refused (exit 2);
h5bench's `amrex` entry runs through the suite runner."""
import time

import pytest

from conftest import assert_all_ranks_fail, iok, load_json, pattern_value, registered_backends
from suite_cli import run_suite_doc

h5py = pytest.importorskip("h5py")
np = pytest.importorskip("numpy")

pytestmark = pytest.mark.skipif("hdf5" not in registered_backends(), reason="hdf5 backend not built")

SMALL = {"ncells": 16, "max_grid_size": 8, "nlevs": 1, "ncomp": 3, "nppc": 1, "nplotfile": 2, "nparticlefile": 1,
         "sleeptime": 0, "restart_check": 1}
BOX_FIELDS = ["lo_i", "lo_j", "lo_k", "hi_i", "hi_j", "hi_k"]


def write_input(d, **changes):
    """An h5bench_amrex input file in d (ParmParse: key = value, # comments)."""
    keys = dict(SMALL, **changes)
    keys.setdefault("directory", str(d / "out"))
    lines = ["# h5bench_amrex input written by the test"] + [f"{k} = {v}   # a comment" for k, v in keys.items()]
    (d / "amrex.ini").write_text("\n".join(lines) + "\n")
    return d / "amrex.ini"


def text(a):
    return a.decode() if isinstance(a, bytes) else str(a)


def test_hdf5_files_hold_what_h5bench_amrex_writes(tmp_path):
    ini = write_input(tmp_path)
    js = tmp_path / "r.json"
    p = iok(2, "amrex", ini, "--json", js)
    assert "passed (3 file(s) read back)" in p.stdout, p.stdout
    out = tmp_path / "out"
    assert sorted(x.name for x in out.iterdir()) == ["plt00000", "plt00000.h5", "plt00001.h5"]
    cells = 16 ** 3
    with h5py.File(out / "plt00001.h5", "r") as f:
        a = f.attrs
        assert text(a["version_name"]) == "HyperCLaw-V1.1" and text(a["plotfile_type"]) == "VanillaHDF5"
        assert [text(a[f"component_{i}"]) for i in range(3)] == ["component_0", "component_1", "component_2"]
        for k, v in {"num_components": 3, "dim": 3, "finest_level": 0, "coordinate_system": 0, "num_levels": 1}.items():
            assert a[k].dtype == np.int32 and list(a[k]) == [v], k
        assert a["time"].dtype == np.float64 and list(a["time"]) == [0.0]
        assert sorted(f) == ["Chombo_global", "level_0"]
        assert list(f["Chombo_global"].attrs["SpaceDim"]) == [3]
        g = f["level_0"]
        assert list(g.attrs["ngrid"]) == [8] and list(g.attrs["ref_ratio"]) == [1]
        assert list(g.attrs["Vec_dx"]) == [1 / 16] * 3 and list(g.attrs["dx"]) == [1 / 16]
        assert list(g.attrs["prob_lo"]) == [0.0] * 3 and list(g.attrs["prob_hi"]) == [1.0] * 3
        dom = g.attrs["prob_domain"]
        assert dom.dtype.names == tuple(BOX_FIELDS) and tuple(dom.tolist()) == (0, 0, 0, 15, 15, 15)
        assert sorted(g) == ["boxcenter", "boxes", "data:datatype=0", "data:offsets=0"]
        assert g["boxes"].dtype.names == tuple(BOX_FIELDS) and g["boxes"].shape == (8,)
        assert g["boxcenter"].dtype.names == ("i", "j", "k") and g["boxcenter"].shape == (8,)
        assert g["data:offsets=0"].dtype == np.int64 and g["data:offsets=0"].shape == (9,)
        data = g["data:datatype=0"]
        assert data.dtype == np.float64 and data.shape == (cells * 3,)
        # the suite's pattern, seeded by the file (plt00001: seed 2)
        for i in (0, 4097, cells * 3 - 1):
            assert data[i] == pattern_value("level_0/data:datatype=0", i, 0, seed=2), i
    with h5py.File(out / "plt00000" / "particle0" / "particle0.h5", "r") as f:
        a = f.attrs
        assert text(a["version_name"]) == "Version_Two_Dot_One_double"
        assert list(a["nparticles"]) == [cells] and a["nparticles"].dtype == np.int64
        assert list(a["num_component"]) == [16] and list(a["num_component_real"]) == [12]
        assert list(a["num_component_int"]) == [4]
        assert text(a["real_component_11"]) == "particle_real_component_11"
        assert text(a["int_component_3"]) == "particle_int_component_3"
        g = f["level_0"]
        assert list(g.attrs["ngrids"]) == [8]
        assert sorted(g) == ["boxes", "data:datatype=0", "data:datatype=1", "nparticles_grid"]
        assert g["data:datatype=0"].dtype == np.int32 and g["data:datatype=0"].shape == (cells * 6,)
        assert g["data:datatype=1"].dtype == np.float64 and g["data:datatype=1"].shape == (cells * 15,)
        assert g["nparticles_grid"].shape == (8,)
    doc = load_json(js)
    s = doc["summary"]
    plot = cells * 3 * 8 + 8 * 24 + 9 * 8 + 8 * 12           # data, boxes, offsets, boxcenter
    particles = cells * (6 * 4 + 15 * 8) + 8 * 24 + 8 * 4    # ints, reals, boxes, counts
    assert s["bytes_written"] == 2 * plot + particles
    assert s["plot_files"] == 2 and s["particle_files"] == 1 and s["files_read_back"] == 3 and s["mismatches"] == 0
    assert doc["params"]["ncells"] == 16 and doc["params"]["nppc"] == 1


def test_a_changed_byte_fails_the_read_back(tmp_path):
    ini = write_input(tmp_path)
    iok(2, "amrex", ini)
    h5 = tmp_path / "out" / "plt00001.h5"
    with h5py.File(h5, "r") as f:
        at = f["level_0/data:datatype=0"].id.get_offset() + 8 * 1000
    raw = bytearray(h5.read_bytes())
    raw[at + 2] ^= 0x10
    h5.write_bytes(bytes(raw))
    p = iok(2, "amrex", ini, "--read-only", check=False)
    assert p.returncode not in (0, 2), p.stdout
    errors = [ln for ln in p.stderr.splitlines() if "error:" in ln]
    assert len(errors) == 1 and "verification failed" in errors[0].lower(), p.stderr
    assert "FAILED: 1 element" in p.stdout and "plt00001.h5" in p.stdout
    # the untouched files pass
    p = iok(2, "amrex", ini, "--read-only", "--nplotfile", "1")
    assert "passed (2 file(s) read back)" in p.stdout


BAD = [
    ({"ncells": 0}, "ncells = 0: must be at least 1"),
    ({"max_grid_size": 0}, "max_grid_size = 0: must be at least 1"),
    ({"ncomp": -1}, "ncomp = -1"),
    ({"nlevs": 2}, "h5bench_amrex asserts nlevs < 2"),
    ({"nppc": "two"}, "'two' is not a whole number"),
    ({"nplotfile": 0, "nparticlefile": 0}, "nothing to write"),
    ({"restart_check": 3}, "restart_check = 3"),
    ({"mode": "FAST"}, "'FAST' is not SYNC, ASYNC or LOG"),
]


@pytest.mark.parametrize("changes,fragment", BAD, ids=[next(iter(c)) for c, _ in BAD])
def test_bad_input_stops_every_rank(tmp_path, changes, fragment):
    ini = write_input(tmp_path, **changes)
    t0 = time.monotonic()
    p = iok(2, "amrex", ini, check=False, timeout=60)
    assert time.monotonic() - t0 < 30
    assert_all_ranks_fail(p, fragment)
    assert not (tmp_path / "out").exists()


def test_unknown_and_missing_keys(tmp_path):
    ini = write_input(tmp_path)
    ini.write_text(ini.read_text() + "n_cell = 32\n")
    p = iok(2, "amrex", ini, check=False, timeout=60)
    assert_all_ranks_fail(p, f"{ini}:12: unknown key 'n_cell'", "h5bench_amrex's keys: ncells, max_grid_size")
    lines = [ln for ln in write_input(tmp_path).read_text().splitlines() if not ln.startswith("nppc")]
    ini.write_text("\n".join(lines) + "\n")
    p = iok(2, "amrex", ini, check=False, timeout=60)
    assert_all_ranks_fail(p, "the required key nppc is missing")


def test_help_lists_every_key_with_its_default():
    p = iok(1, "amrex", "--help")
    for key in ["ncells", "max_grid_size", "nlevs", "ncomp", "nppc", "nplotfile", "nparticlefile", "sleeptime",
                "restart_check", "grids_from_file", "ref_ratio_file", "hdf5compression", "directory", "mode"]:
        line = next(ln for ln in p.stdout.splitlines() if f"--{key} " in ln)
        assert "[default:" in line or "(required)" in line, line


def test_options_win_over_the_file_and_sleeptime_sleeps(tmp_path):
    """Non-dividing max_grid_size is AMReX's BoxList::maxSize (10 = 4+3+3 ->
    27 boxes); sleeptime 1 before the second plot file."""
    ini = write_input(tmp_path)
    js = tmp_path / "r.json"
    iok(1, "amrex", ini, "--ncells", "10", "--max_grid_size", "4", "--sleeptime", "1", "--nparticlefile", "0",
        "--json", js)
    doc = load_json(js)
    assert doc["summary"]["boxes"] == 27 and doc["summary"]["wall_seconds"] >= 1.0
    with h5py.File(tmp_path / "out" / "plt00000.h5", "r") as f:
        assert list(f["level_0"].attrs["ngrid"]) == [27]
        assert f["level_0/data:datatype=0"].shape == (1000 * 3,)
        assert tuple(f["level_0"].attrs["prob_domain"].tolist()) == (0, 0, 0, 9, 9, 9)


def test_other_libraries_run_or_refuse(tmp_path):
    """ADIOS2 (groups as path names, boxes as int arrays): written and
    verified; PnetCDF (no groups) and the log strategy (its own container):
    one line, exit 2."""
    have = registered_backends()
    if "adios" in have:
        p = iok(2, "amrex", write_input(tmp_path), "-a", "adios")
        assert "passed (3 file(s) read back)" in p.stdout
        assert (tmp_path / "out" / "plt00000" / "particle0" / "particle0.bp").exists()
    if "pnetcdf" in have:
        p = iok(2, "amrex", write_input(tmp_path), "-a", "pnetcdf", check=False)
        assert p.returncode == 2 and p.stderr.count("error:") == 1, p.stderr
        assert "needs groups, which backend pnetcdf does not have" in p.stderr
    p = iok(2, "amrex", write_input(tmp_path), "-x", "log", check=False)
    assert p.returncode == 2 and p.stderr.count("error:") == 1 and "strategy log" in p.stderr, p.stderr


def test_h5bench_amrex_entry_runs(tmp_path):
    """h5bench's sync-amrex entry (shrunk): keys as options, the files in the run's directory under FILE."""
    config = {k: str(v) for k, v in SMALL.items()}
    config["mode"] = "SYNC"
    doc = {"mpi": {"command": "mpiexec", "ranks": "2", "configuration": "--oversubscribe -np 2"}, "vol": {},
           "file-system": {}, "directory": "storage",
           "benchmarks": [{"benchmark": "amrex", "file": "amrex", "configuration": config}]}
    p, runs, res = run_suite_doc(tmp_path, doc)
    (r, rdoc), = runs
    assert r["status"] == "ok" and rdoc["valid"] is True
    assert rdoc["params"]["ncells"] == 16 and rdoc["summary"]["files_read_back"] == 3
    out = res / "out" / r["id"] / "amrex"
    with h5py.File(out / "plt00000.h5", "r") as f:
        assert f["level_0/data:datatype=0"].shape == (16 ** 3 * 3,)
    assert (out / "plt00000" / "particle0" / "particle0.h5").exists()
