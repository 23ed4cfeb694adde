"""iokernels macsio: MACSio with its HDF5 plugin's layout (h5bench_macsio),
from command lines written here.  MIF: a file per group of ranks per dump
(<filebase>_hdf5_<group>_<dump>.h5), each part a group domain_<chunk> of
its variables (node-centred the part's nodes, zone-centred one less per
axis; xlayers int, the others double).  SIF: one file per dump, a dataset
per variable over the whole mesh (axes reversed, zones one less per part).
Everything is read back and verified: a changed byte fails it.  Bad options
stop every rank with one line; MIF on a library without groups is refused
(exit 2) and SIF runs there; h5bench's `macsio` entry runs through the
suite runner."""
import time

import pytest

from conftest import assert_all_ranks_fail, iok, load_json, pattern_value, registered_backends
from suite_cli import run_suite_doc

h5py = pytest.importorskip("h5py")
np = pytest.importorskip("numpy")

pytestmark = pytest.mark.skipif("hdf5" not in registered_backends(), reason="hdf5 backend not built")

# 8000 bytes = 1000 doubles: MACSio's Best2DFactors -> 25 x 40 nodes; 8 variables
SMALL = ["--part_size", "8000", "--avg_num_parts", "2", "--vars_per_part", "8", "--num_dumps", "2",
         "--interface", "hdf5"]
ZONE = {"constant": "d", "random": "d", "spherical": "d", "xlayers": "i"}
NODE = {"xramp": "d", "ysin": "d", "noise": "d", "noise_sum": "d"}
PART_BYTES = 3 * 24 * 39 * 8 + 24 * 39 * 4 + 4 * 25 * 40 * 8


def test_mif_files_hold_the_hdf5_plugins_layout(tmp_path):
    js = tmp_path / "r.json"
    p = iok(4, "macsio", *SMALL, "--parallel_file_mode", "MIF", "2", "--filebase", tmp_path / "m", "--json", js)
    assert "passed (4 file(s) read back)" in p.stdout, p.stdout
    names = sorted(x.name for x in tmp_path.glob("m_*"))
    assert names == ["m_hdf5_00000_000.h5", "m_hdf5_00000_001.h5", "m_hdf5_00001_000.h5", "m_hdf5_00001_001.h5"]
    with h5py.File(tmp_path / "m_hdf5_00001_001.h5", "r") as f:  # ranks 2, 3: chunks 4..7
        assert sorted(f) == [f"domain_{c:07d}" for c in range(4, 8)]
        g = f["domain_0000005"]
        assert sorted(g) == sorted([*ZONE, *NODE])
        for n, t in ZONE.items():
            assert g[n].shape == (24, 39) and g[n].dtype == np.dtype(t if t == "d" else "i4"), n
        for n in NODE:
            assert g[n].shape == (25, 40) and g[n].dtype == np.float64, n
        assert g["xramp"][0, 7] == pattern_value("domain_0000005/xramp", 7, 0, seed=1)
    s = load_json(js)["summary"]
    assert s["files_written"] == 4 and s["bytes_written"] == 2 * 8 * PART_BYTES and s["mismatches"] == 0


def test_sif_file_holds_the_whole_mesh(tmp_path):
    js = tmp_path / "r.json"
    p = iok(4, "macsio", *SMALL, "--parallel_file_mode", "SIF", "1", "--filebase", tmp_path / "s", "--json", js)
    assert "passed (2 file(s) read back)" in p.stdout, p.stdout
    assert sorted(x.name for x in tmp_path.glob("s_*")) == ["s_hdf5_000.h5", "s_hdf5_001.h5"]
    # 8 parts: Best2DFactors(8) = 2 x 4 parts of 25 x 40 nodes -> 50 x 160, axes reversed
    with h5py.File(tmp_path / "s_hdf5_000.h5", "r") as f:
        assert sorted(f) == sorted([*ZONE, *NODE])
        for n in ZONE:
            assert f[n].shape == (160 - 4, 50 - 2), n
        for n in NODE:
            assert f[n].shape == (160, 50), n
        assert f["xlayers"].dtype == np.int32 and f["ysin"].dtype == np.float64
        assert f["ysin"][1, 3] == pattern_value("ysin", 50 + 3, 0, seed=0)
    assert load_json(js)["summary"]["bytes_written"] == 2 * 8 * PART_BYTES


def test_a_changed_byte_fails_the_read_back(tmp_path):
    args = [*SMALL, "--parallel_file_mode", "MIF", "4", "--filebase", tmp_path / "m"]
    iok(4, "macsio", *args)
    h5 = tmp_path / "m_hdf5_00002_001.h5"
    with h5py.File(h5, "r") as f:
        at = f["domain_0000004/noise"].id.get_offset() + 8 * 100
    raw = bytearray(h5.read_bytes())
    raw[at + 3] ^= 0x08
    h5.write_bytes(bytes(raw))
    p = iok(4, "macsio", *args, "--read-only", check=False)
    assert p.returncode not in (0, 2), p.stdout
    errors = [ln for ln in p.stderr.splitlines() if "error:" in ln]
    assert len(errors) == 1 and "verification failed" in errors[0].lower(), p.stderr
    assert "FAILED: 1 element" in p.stdout


BAD = [
    (["--parallel_file_mode", "FOO", "2"], "--parallel_file_mode FOO is not MIF, MIFFPP, MIFMAX or SIF"),
    (["--parallel_file_mode", "MIF", "0"], "the file count must be >= 1"),
    (["--avg_num_parts", "1.5"], "whole numbers >= 1 only"),
    (["--part_size", "0"], "--part_size 0: 0 doubles per part"),
    (["--part_size", "1X"], "--part_size 1X is not a size"),
    (["--part_dim", "4"], "--part_dim 4: 1, 2 or 3"),
    (["--num_dumps", "0"], "--num_dumps 0: at least 1"),
    (["--interface", "silo"], "--interface silo: this kernel writes MACSio's HDF5 plugin layout"),
    (["--mesh_decomp", "3", "3"], "is not the 4 parts of the run"),
    (["--wibble", "1"], "wibble"),
]


@pytest.mark.parametrize("extra,fragment", BAD, ids=[e[0] + "=" + e[-1] for e, _ in BAD])
def test_bad_options_stop_every_rank(tmp_path, extra, fragment):
    t0 = time.monotonic()
    base = {"--part_size": "8000", "--num_dumps": "1"}
    args = [a for k, v in base.items() if k not in extra for a in (k, v)]
    p = iok(4, "macsio", *args, "--filebase", tmp_path / "m", *extra, check=False, timeout=60)
    assert time.monotonic() - t0 < 30
    assert_all_ranks_fail(p, fragment)
    assert not list(tmp_path.glob("m_*"))


def test_help_lists_every_option_with_its_default():
    p = iok(1, "macsio", "--help")
    for opt in ["--interface", "--parallel_file_mode", "--avg_num_parts", "--part_size", "--part_dim",
                "--part_type", "--vars_per_part", "--num_dumps", "--compute_time", "--filebase", "--fileext",
                "--log_file_name", "--timings_file_name", "--units_prefix_system"]:
        line = next(ln for ln in p.stdout.splitlines() if f"{opt} " in ln)
        assert "[default:" in line, line


def test_other_libraries_sif_runs_mif_refused(tmp_path):
    if "pnetcdf" not in registered_backends():
        pytest.skip("pnetcdf backend not built")
    p = iok(4, "macsio", *SMALL, "--parallel_file_mode", "SIF", "1", "--filebase", tmp_path / "s", "-a", "pnetcdf")
    assert "passed (2 file(s) read back)" in p.stdout
    assert (tmp_path / "s_hdf5_000.nc").exists()
    p = iok(4, "macsio", *SMALL, "--parallel_file_mode", "MIF", "2", "--filebase", tmp_path / "m", "-a", "pnetcdf",
            check=False)
    assert p.returncode == 2 and p.stderr.count("error:") == 1, p.stderr
    assert "MIF files (a group domain_<chunk> per part)" in p.stderr


def test_h5bench_macsio_entry_runs(tmp_path):
    """h5bench's sync-macsio entry (part_size shrunk, 2 dumps): MIF 8 on 2 ranks is a file per rank per dump."""
    doc = {"mpi": {"command": "mpiexec", "configuration": "--oversubscribe -np 2 "}, "vol": {}, "file-system": {},
           "directory": "storage",
           "benchmarks": [{"benchmark": "macsio", "file": "test.h5",
                           "configuration": {"parallel_file_mode": "MIF 8", "part_size": "64K", "num_dumps": "2"}}]}
    p, runs, res = run_suite_doc(tmp_path, doc)
    (r, rdoc), = runs
    assert r["status"] == "ok" and rdoc["valid"] is True
    assert rdoc["summary"]["files_written"] == 4 and rdoc["summary"]["files_read_back"] == 4
    out = res / "out" / r["id"]
    assert sorted(x.name for x in out.glob("test_hdf5_*")) == [
        "test_hdf5_00000_000.h5", "test_hdf5_00000_001.h5", "test_hdf5_00001_000.h5", "test_hdf5_00001_001.h5"]
