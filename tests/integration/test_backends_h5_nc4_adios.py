"""Files written by the hdf5, hdf5_md, netcdf4 and adios backends, checked with
the libraries' own tools (h5dump -H, ncdump -h, bpls -la) and read back with
the Python bindings (h5py, netCDF4, adios2) against the values the writer
used.  The files come from the backend unit tests (one rank), run here with
IOK_TEST_OUTDIR pointing at a temporary directory.  Multi-rank runs of these
backends come through the kernels' own integration tests.  The negative:
a value changed in the bytes of a file iokernels wrote is caught by the
program's own read-back (exit status and message), on each backend."""
import os
import re
import subprocess

import numpy as np
import pytest

from conftest import BUILD_DIR, tool

UNIT = BUILD_DIR / "tests" / "iok_unit_tests"

# Variable indices and the value formula of tests/unit/library_roundtrip_case.hpp.
VAR_T, VAR_PS, VAR_AREA = 8, 9, 1
NREC, NLEV, NCOL = 2, 3, 12


def value(var, rec, flat):
    return var * 1000.0 + rec * 100.0 + flat + 0.25


def expected_T():
    flat = np.arange(NLEV * NCOL).reshape(NLEV, NCOL)
    return np.stack([value(VAR_T, r, flat) for r in range(NREC)]).astype(np.float32)


# The Python bindings run in their own interpreter each: h5py (MPI flavour),
# netCDF4 and adios2 bring their own HDF5/MPI initialisation and crash or
# recurse when loaded together into one process.
PY_PRELUDE = f"""
import sys, numpy as np
NREC, NLEV, NCOL, VAR_T, VAR_PS = {NREC}, {NLEV}, {NCOL}, {VAR_T}, {VAR_PS}
def value(var, rec, flat):
    return var * 1000.0 + rec * 100.0 + flat + 0.25
flat = np.arange(NLEV * NCOL).reshape(NLEV, NCOL)
expected_T = np.stack([value(VAR_T, r, flat) for r in range(NREC)]).astype(np.float32)
def import_h5py():
    # Debian's MPI h5py without the python3-h5py selector package is only
    # importable as h5py._debian_h5py_mpi.
    import h5py
    if not hasattr(h5py, "File"):
        from h5py import _debian_h5py_mpi as h5py
    return h5py
def read_adios_T(path):
    import adios2
    if hasattr(adios2, "FileReader"):
        with adios2.FileReader(path) as f:
            return np.asarray(f.read("T", step_selection=[0, NREC]))
    from adios2.bindings import adios2_bindings_mpi as ab  # Debian: no high-level package
    adios = ab.ADIOS()  # must outlive io and engine
    io = adios.DeclareIO("check")
    eng = io.Open(path, ab.Mode.ReadRandomAccess)
    var = io.InquireVariable("T")
    var.SetStepSelection([0, NREC])
    out = np.zeros((NREC, NLEV, NCOL), dtype=np.float32)
    eng.Get(var, out, ab.Mode.Sync)
    eng.Close()
    return out
"""


def python_check(module, code, *args):
    """Runs `code` (asserts) in a fresh interpreter; skips if `module` is missing."""
    import sys
    probe = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"python module {module} not installed")
    p = subprocess.run([sys.executable, "-c", PY_PRELUDE + code, *map(str, args)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr[-3000:]
    return p.stdout


def run(*cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"{cmd} failed:\n{p.stdout}\n{p.stderr}"
    return p.stdout


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    if not UNIT.exists():
        pytest.skip(f"{UNIT} not built")
    out = tmp_path_factory.mktemp("backend_files")
    env = dict(os.environ, IOK_TEST_OUTDIR=str(out))
    p = subprocess.run([str(UNIT), "--gtest_filter=Hdf5Backend.*:Netcdf4Backend.*:Adios2Backend.*"],
                       capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
    return out


def backend_enabled(files, name):
    if not any(files.glob(f"rt_{name}*")):
        pytest.skip(f"backend {name} not in this build")


# --- HDF5 ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["hdf5", "hdf5_md"])
def test_h5dump_header(files, name):
    backend_enabled(files, name)
    h5dump = tool("h5dump")
    hdr = run(h5dump, "-H", "-p", str(files / f"rt_{name}.h5"))
    # record variable: unlimited first dimension, one record per chunk
    t = hdr[hdr.index('DATASET "T"'):]
    t = t[:t.index("DATASET", 10)] if "DATASET" in t[10:] else t
    assert "DATASPACE  SIMPLE { ( 2, 3, 12 ) / ( H5S_UNLIMITED, 3, 12 ) }" in t
    assert re.search(r"CHUNKED \( 1, 3, 12 \)", t), t
    assert "H5T_IEEE_F32LE" in t
    # fixed variable: contiguous
    a = hdr[hdr.index('DATASET "area"'):]
    assert "CONTIGUOUS" in a[:a.index("}", a.index("STORAGE_LAYOUT"))]
    # text as a fixed-length C string with its NUL (E3SM-IO's HDF5 layout): "iokernels backend round trip" + 1
    assert re.search(r'ATTRIBUTE "title" \{\s+DATATYPE  H5T_STRING \{\s+STRSIZE 29;', hdr)
    assert re.search(r'ATTRIBUTE "version" \{\s+DATATYPE  H5T_STD_I32LE', hdr)
    for ds in ["P0", "PS", "T", "area", "gid", "ilev", "lev", "mask", "name", "nsteps", "time"]:
        assert f'DATASET "{ds}"' in hdr


@pytest.mark.parametrize("name", ["hdf5", "hdf5_md"])
def test_hdf5_values_with_h5py(files, name):
    backend_enabled(files, name)
    python_check("h5py", """
h5py = import_h5py()
with h5py.File(sys.argv[1], "r") as f:
    np.testing.assert_array_equal(f["T"][...], expected_T)
    np.testing.assert_array_equal(f["area"][...], value(1, 0, np.arange(NCOL)))
    assert f["T"].attrs["units"] == b"K", f["T"].attrs["units"]
""", files / f"rt_{name}.h5")


# --- NetCDF-4 ----------------------------------------------------------------

@pytest.mark.parametrize("fname", ["rt_netcdf4.nc", "rt_netcdf4_indep.nc"])
def test_ncdump_header(files, fname):
    backend_enabled(files, "netcdf4")
    ncdump = tool("ncdump")
    path = str(files / fname)
    assert run(ncdump, "-k", path).strip() == "netCDF-4"
    hdr = run(ncdump, "-h", "-s", path)
    assert "time = UNLIMITED ; // (2 currently)" in hdr
    assert "float T(time, lev, ncol) ;" in hdr
    assert 'T:_ChunkSizes = 1, 3, 12 ;' in hdr
    assert 'area:_Storage = "contiguous" ;' in hdr
    assert 'T:_NoFill = "true" ;' in hdr
    assert ':title = "iokernels backend round trip" ;' in hdr
    assert "lev:valid_range = 0.f, 1000.f ;" in hdr
    assert "int64 gid(ncol) ;" in hdr and "char name(nchars) ;" in hdr and "double P0 ;" in hdr


def test_netcdf4_values_with_python(files):
    backend_enabled(files, "netcdf4")
    python_check("netCDF4", """
import netCDF4
for fname in sys.argv[1:3]:
    with netCDF4.Dataset(fname) as ds:
        ds.set_auto_mask(False)
        np.testing.assert_array_equal(ds["T"][...], expected_T)
        assert ds["name"][...].tobytes() == bytes(ord("a") + (i + 3) % 26 for i in range(8))
""", files / "rt_netcdf4.nc", files / "rt_netcdf4_indep.nc")


# --- ADIOS2 ------------------------------------------------------------------

def test_bpls(files):
    backend_enabled(files, "adios")
    bpls = tool("bpls", "bpls.mpi")
    out = run(bpls, "-la", str(files / "rt_adios.bp"))
    lines = {line.split()[1]: line for line in out.splitlines() if line.strip()}
    assert re.search(r"float\s+T\s+2\*\{3, 12\} = 8000.25 / 8135.25", lines["T"])
    assert re.search(r'string\s+T/units\s+attr\s+= "K"', lines["T/units"])
    assert re.search(r"double\s+PS\s+2\*\{12\}", lines["PS"])
    assert re.search(r"double\s+area\s+\{12\} = 1000.25 / 1011.25", lines["area"])
    assert re.search(r"int32_t\s+version\s+attr\s+= \{3\}", lines["version"])
    assert "scalar" in lines["P0"]
    dump = run(bpls, "-d", "-s", "1,0", "-c", "1,12", str(files / "rt_adios.bp"), "PS")
    assert "9105.25" in dump


def test_adios_values_with_python(files):
    backend_enabled(files, "adios")
    python_check("adios2", """
t = read_adios_T(sys.argv[1]).reshape(NREC, NLEV, NCOL)
np.testing.assert_array_equal(t, expected_T)
""", files / "rt_adios.bp")


# The program's read-back catching a changed stored value on every library:
# test_e3sm.py::test_read_back_on_every_library_catches_a_changed_value.
