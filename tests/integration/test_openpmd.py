"""openPMD write and read kernels (h5bench_openpmd_write / _read): the files
they write on HDF5 and ADIOS2 (BP5 and BP4) are opened by the openPMD-api
Python package from PyPI -- series, iterations, meshes, species, every
record's values by load_chunk compared with the suite's pattern -- and the
HDF5 ones pass the openPMD validator (openPMD_check_h5) with no error and
no warning but the recommended particlePatches; the read kernel's patterns
read the right elements and verify them; negative tests: a changed byte is
caught by the read-back (HDF5 and ADIOS2), a required attribute removed is
caught by the validator and by openPMD-api, bad configurations fail on every
rank with one message, libraries and strategies that cannot hold the layout
are refused (exit 2), and h5bench's sample JSON runs through the suite
runner.  openPMD-api and the validator live in scripts/setup.sh's virtual
environment (IOK_LINT_VENV); they, h5py and adios2 each bring their own
HDF5, so every file is read in a child interpreter."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import assert_all_ranks_fail, iok, load_json, pattern_int64, pattern_value, registered_backends
from file_values import replace_stored_value
from suite_cli import run_suite_doc

VENV = Path(os.environ.get("IOK_LINT_VENV", "/opt/iokernels-venv"))
VENV_PY = VENV / "bin" / "python"
EXT = {"hdf5": ".h5", "adios": ".bp"}

# openPMD-api's view of a file: structure as JSON, every record's values as .npz.
OPENPMD_DUMP = r"""
import json, sys
import numpy as np
import openpmd_api as io
path, out = sys.argv[1:3]
s = io.Series(path, io.Access.read_only)
info = {"openPMD": s.openPMD, "basePath": s.base_path, "meshesPath": s.meshes_path,
        "particlesPath": s.particles_path, "encoding": str(s.iteration_encoding), "iterations": {}}
loads = []
for i, it in s.iterations.items():
    d = {"dt": it.dt, "time": it.time, "timeUnitSI": it.time_unit_SI, "meshes": {}, "species": {}}
    for name, m in it.meshes.items():
        d["meshes"][name] = {"components": sorted(m), "axisLabels": list(m.axis_labels),
                             "gridSpacing": list(m.grid_spacing), "gridGlobalOffset": list(m.grid_global_offset),
                             "geometry": str(m.geometry), "dataOrder": str(m.data_order),
                             "unitDimension": [float(x) for x in m.unit_dimension.values()]
                             if isinstance(m.unit_dimension, dict) else list(m.unit_dimension)}
        for c, rc in m.items():
            key = f"/data/{i}/fields/{name}" + ("" if c == io.Mesh_Record_Component.SCALAR else "/" + c)
            d["meshes"][name].setdefault("shape", list(rc.shape))
            loads.append((key, rc.load_chunk()))
    for name, sp in it.particles.items():
        d["species"][name] = {"records": sorted(sp), "constant": []}
        for r, rec in sp.items():
            for c, rc in rec.items():
                key = f"/data/{i}/particles/{name}/{r}" + ("" if c == io.Record_Component.SCALAR else "/" + c)
                if rc.constant:
                    d["species"][name]["constant"].append(key)
                loads.append((key, rc.load_chunk()))
    info["iterations"][str(i)] = d
s.flush()
np.savez(out, **{k: np.asarray(v) for k, v in loads})
with open(out + ".json", "w") as f:
    json.dump(info, f)
s.close()
"""


def need(*backends):
    for b in backends:
        if b not in registered_backends():
            pytest.skip(f"{b} backend not built")


def need_openpmd():
    if not VENV_PY.exists() or subprocess.run([str(VENV_PY), "-c", "import openpmd_api, openpmd_validator"],
                                              capture_output=True).returncode:
        pytest.skip(f"openpmd-api / openpmd-validator not in {VENV} (scripts/setup.sh test installs them)")


def openpmd_view(path, tmp_path):
    """(structure, arrays) of `path` as openPMD-api reads it; fails the test when it cannot."""
    need_openpmd()
    out = tmp_path / (Path(path).name + ".npz")
    p = subprocess.run([str(VENV_PY), "-c", OPENPMD_DUMP, str(path), str(out)], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, f"openPMD-api cannot read {path}:\n{p.stderr[-3000:]}"
    with np.load(out) as z:
        arrays = {k: z[k] for k in z.files}
    return json.loads(Path(str(out) + ".json").read_text()), arrays


def validate(path):
    """(errors, warnings, output) of the openPMD validator on an HDF5 file."""
    need_openpmd()
    p = subprocess.run([str(VENV / "bin" / "openPMD_check_h5"), "-i", str(path)], capture_output=True, text=True,
                       timeout=300)
    last = [line for line in p.stdout.splitlines() if line.startswith("Result:")]
    assert last, f"no result from the validator:\n{p.stdout}\n{p.stderr}"
    words = last[-1].split()
    return int(words[1]), int(words[4]), p.stdout


def write(tmp_path, backend="hdf5", ranks=1, *extra, dim=3, min_block="4 6 5", grid=None, steps=2, ratio=2,
          balanced="true", name="out"):
    grid = grid or " ".join(["4", "2", "1"][:dim])
    path = tmp_path / (name + EXT[backend])
    p = iok(ranks, "openpmd_write", "-a", backend, "--dim", dim, "--min-block", " ".join(min_block.split()[:dim]),
            "--grid", grid, "--steps", steps, "--ratio", ratio, "--balanced", balanced, "-o", path, "--keep",
            "--json", tmp_path / (name + ".json"), *extra)
    return path, p


def mesh_shape(min_block, grid, dim):
    return tuple(int(a) * int(b) for a, b in zip(min_block.split()[:dim], grid.split()[:dim], strict=True))


def expected(name, n):
    return np.array([pattern_value(name, e, 0) for e in range(n)])


def check_file(view, arrays, dim, shape, steps, ratio):
    """Structure and every value as openPMD-api sees them."""
    info = view
    assert info["openPMD"] == "1.1.0" and info["basePath"] == "/data/%T/"
    assert info["meshesPath"] == "fields/" and info["particlesPath"] == "particles/"
    assert "group" in info["encoding"].lower()
    assert sorted(info["iterations"], key=int) == [str(i) for i in range(1, steps + 1)]
    axes = ["x", "y", "z"][:dim]
    n = int(np.prod(shape)) * ratio
    for i, it in info["iterations"].items():
        assert (it["dt"], it["time"], it["timeUnitSI"]) == (1.0, 0.0, 1.0)
        assert sorted(it["meshes"]) == ["B", "E", "rho"]
        for m in ("E", "B"):
            assert it["meshes"][m]["components"] == axes
            assert it["meshes"][m]["axisLabels"] == axes
            assert it["meshes"][m]["gridSpacing"] == [1.0] * dim
            assert it["meshes"][m]["shape"] == list(shape)
        assert it["meshes"]["E"]["unitDimension"] == [1, 1, -3, -1, 0, 0, 0]
        assert it["meshes"]["B"]["unitDimension"] == [0, 1, -2, -1, 0, 0, 0]
        assert "cartesian" in it["meshes"]["rho"]["geometry"]
        sp = it["species"]["ion"]
        assert sp["records"] == ["charge", "id", "position", "positionOffset"]
        assert sp["constant"] == [f"/data/{i}/particles/ion/positionOffset/x"]
        names = [f"/data/{i}/fields/{m}/{a}" for a in axes for m in ("E", "B")] + [f"/data/{i}/fields/rho"]
        for name in names:
            assert arrays[name].shape == shape, name
            np.testing.assert_array_equal(arrays[name].ravel(), expected(name, arrays[name].size), err_msg=name)
        for rec in ("id", "charge", "position/x"):
            name = f"/data/{i}/particles/ion/{rec}"
            assert arrays[name].shape == (n,), name
            if rec == "id":  # int64: the pattern's integer
                assert arrays[name].dtype == np.int64
                want = np.array([pattern_int64(name, e, 0) for e in range(n)], dtype=np.int64)
            else:
                want = expected(name, n)
            np.testing.assert_array_equal(arrays[name], want, err_msg=name)
        offset = arrays[f"/data/{i}/particles/ion/positionOffset/x"]
        assert offset.shape == (n,) and not offset.any()


@pytest.mark.parametrize("ranks,dim,balanced,grid", [(1, 3, "true", "4 2 1"), (4, 3, "false", "4 2 1"),
                                                     (4, 2, "false", "4 3")])
def test_hdf5_file_read_by_openpmd_api_and_validated(tmp_path, ranks, dim, balanced, grid):
    need("hdf5")
    path, p = write(tmp_path, "hdf5", ranks, "--verify", dim=dim, balanced=balanced, grid=grid)
    assert "every value verified" in p.stdout
    shape = mesh_shape("4 6 5", grid, dim)
    view, arrays = openpmd_view(path, tmp_path)
    check_file(view, arrays, dim, shape, 2, 2)
    errors, warnings, out = validate(path)
    # The one warning per species: particlePatches is recommended; h5bench's writer has none either.
    assert errors == 0 and warnings == 2, out
    assert out.count("particlePatches (recommended) does NOT exist") == 2, out
    j = load_json(tmp_path / "out.json")
    w = j["files"][0]
    cells = int(np.prod(shape))
    assert w["bytes"]["total"] == 2 * (cells * 8 * (2 * dim + 1) + cells * 2 * 8 * 3)
    if ranks == 4 and balanced == "false":
        # Step 1: rank 0 idle, rank 1 two patches (two requests per variable);
        # step 2: one each.  2*dim + 1 meshes and 3 particle records per step.
        per_step = 2 * dim + 1 + 3
        assert (w["requests"]["min"], w["requests"]["max"]) == (per_step, 3 * per_step), w["requests"]


@pytest.mark.parametrize("engine", ["BP5", "BP4"])
def test_adios2_file_read_by_openpmd_api(tmp_path, engine):
    need("adios")
    path, p = write(tmp_path, "adios", 4, "--verify", "--param", f"adios.engine={engine}", balanced="false")
    assert "every value verified" in p.stdout
    view, arrays = openpmd_view(path, tmp_path)
    check_file(view, arrays, 3, (16, 12, 5), 2, 2)


@pytest.fixture(scope="module")
def h5_file(tmp_path_factory):
    """One HDF5 file of OPENPMD's configuration written by 2 ranks, shared by the read tests."""
    need("hdf5")
    path, _ = write(tmp_path_factory.mktemp("openpmd"), "hdf5", 2)
    return path


@pytest.mark.parametrize("pattern,count", [("m", lambda s: 0), ("sx", lambda s: s[1] * s[2]),
                                           ("sy", lambda s: s[0] * s[2]), ("sz", lambda s: s[0] * s[1]),
                                           ("fx", lambda s: 3 * s[1] * s[2]), ("fy", lambda s: 3 * s[0] * s[2]),
                                           ("fz", lambda s: 3 * s[0] * s[1]), ("full", None)])
def test_read_patterns_read_and_verify_their_elements(tmp_path, h5_file, pattern, count):
    path = h5_file
    shape = (16, 12, 5)
    p = iok(4, "openpmd_read", "-a", "hdf5", "--min-block", "4 6 5", "--grid", "4 2 1", "--steps", "2", "--ratio",
            "2", "--pattern", pattern, "-i", path, "--json", tmp_path / "r.json")
    assert "every value verified" in p.stdout, p.stdout
    r = load_json(tmp_path / "r.json")["files"][0]
    cells = int(np.prod(shape))
    want = 2 * 4 * 8 * count(shape) if count else 2 * 8 * (7 * cells + 3 * 2 * cells)
    assert r["bytes"]["total"] == want


@pytest.mark.parametrize("backend", ["hdf5", "adios"])
def test_changed_byte_is_caught_by_the_read(tmp_path, backend):
    need(backend)
    path, _ = write(tmp_path, backend, 2)
    replace_stored_value(path, np.float64(pattern_value("/data/2/fields/B/y", 77, 0)))
    p = iok(2, "openpmd_read", "-a", backend, "--min-block", "4 6 5", "--grid", "4 2 1", "--steps", "2", "--ratio",
            "2", "-i", path, check=False)
    assert p.returncode != 0
    assert "verification failed" in p.stderr and "variable /data/2/fields/B/y, record 0, element 77" in p.stderr, \
        p.stderr


H5_DEL_ATTR = r"""
import sys, h5py
if not hasattr(h5py, "File"):
    from h5py import _debian_h5py_mpi as h5py
path, obj, attr = sys.argv[1:4]
with h5py.File(path, "r+") as f:
    del f[obj].attrs[attr]
"""


@pytest.mark.parametrize("obj,attr,who", [("/data/1/fields/E/x", "unitSI", "validator"),
                                          ("/data/2/fields/rho", "axisLabels", "validator"),
                                          ("/data/1/particles/ion/positionOffset/x", "shape", "validator"),
                                          ("/data/2", "timeUnitSI", "validator"),
                                          ("/", "basePath", "openpmd-api"),
                                          ("/", "openPMD", "openpmd-api")])
def test_missing_required_attribute_is_caught(tmp_path, h5_file, obj, attr, who):
    path = tmp_path / h5_file.name
    shutil.copy(h5_file, path)
    subprocess.run([sys.executable, "-c", H5_DEL_ATTR, str(path), obj, attr], check=True, capture_output=True)
    if who == "validator":
        errors, _, out = validate(path)
        assert errors >= 1 and attr in out, out
    else:
        need_openpmd()
        p = subprocess.run([str(VENV_PY), "-c", OPENPMD_DUMP, str(path), str(tmp_path / "x.npz")],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode != 0, p.stdout


@pytest.mark.parametrize("args,message", [
    (["--dim", "4"], "dim=4: the benchmark's meshes are 1-, 2- or 3-dimensional"),
    (["--min-block", "4 0 5"], "minBlock has a zero"),
    (["--grid", "4 2"], "grid has 2 values and dim=3"),
    (["--ratio", "0"], "ratio=0: no particles"),
    (["--grid", "3 1 1"], "ranks cannot share equally"),
    (["--steps", "x"], "steps='x' is not a whole number"),
])
def test_bad_configuration_fails_on_every_rank(tmp_path, args, message):
    need("hdf5")
    p = iok(4, "openpmd_write", "-a", "hdf5", "-o", tmp_path / "bad.h5", *args, check=False, timeout=60)
    assert_all_ranks_fail(p, message)


def test_unknown_key_and_bad_pattern_in_input_file(tmp_path):
    need("hdf5")
    cfg = tmp_path / "openpmd.input"
    cfg.write_text("dim=3\nbalanced=true\nratio=1\nsteps=1\nminBlock=4 4 4\ngrid=2 2 2\nspeed=9\n")
    p = iok(2, "openpmd_write", cfg, "-o", tmp_path / "x.h5", check=False, timeout=60)
    assert_all_ranks_fail(p, "line 7: unknown openPMD configuration key 'speed'")
    cfg.write_text("dim=2\nminBlock=4 4\ngrid=2 2\npattern=sz\n")
    p = iok(2, "openpmd_read", cfg, "-i", tmp_path / "x.h5", check=False, timeout=60)
    assert_all_ranks_fail(p, "pattern=sz slices axis 2 of a 2-D mesh")


@pytest.mark.parametrize("args", [["-a", "pnetcdf"], ["-a", "netcdf4"], ["-a", "mpiio"],
                                  ["-a", "hdf5", "-x", "blob"], ["-a", "hdf5", "-x", "log"]])
def test_libraries_without_the_layout_are_refused(tmp_path, args):
    need(args[1])
    p = iok(2, "openpmd_write", *args, "-o", tmp_path / "x", check=False, timeout=60)
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("error:") == 1, p.stderr
    assert "openPMD layout" in p.stderr and ("groups" in p.stderr or "strategy" in p.stderr), p.stderr


def test_h5bench_sample_runs_through_the_suite_runner(tmp_path):
    """h5bench's samples/sync-openpmd.json with smaller sizes: the write and
    the read entry (pattern sy) both run, verified."""
    need("hdf5")
    doc = {"mpi": {"command": "mpiexec", "ranks": "2", "configuration": "--oversubscribe -np 2"},
           "vol": {}, "file-system": {}, "directory": "storage",
           "benchmarks": [{"benchmark": "openpmd",
                           "configuration": {"operation": "write", "dim": "3", "balanced": "true", "ratio": "1",
                                             "steps": "1", "minBlock": "4 8 8", "grid": "4 2 2"}},
                          {"benchmark": "openpmd", "configuration": {"operation": "read", "pattern": "sy"}}]}
    (tmp_path / "storage").mkdir()
    p, runs, res = run_suite_doc(tmp_path, doc)
    assert [r["status"] for r, _ in runs] == ["ok", "ok"], p.stderr
    assert (tmp_path / "storage" / "8a_parallel_3Db.h5").is_file()
    (w, wdoc), (r, rdoc) = runs
    assert wdoc["params"]["backend"] == "hdf5"
    read = rdoc["files"][0]
    assert read["bytes"]["total"] == 2 * 8 * 16 * 16  # 2 ranks, each a 16 x 16 plane of rho, one iteration
