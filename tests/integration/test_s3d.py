"""S3D-IO checkpoint kernel: the reference's figures on its README case (100^3
on 8 ranks, 5 checkpoints, restart), the reference's file names, headers and
sizes, the same checkpoints on HDF5 (one dataset per call and H5Dwrite_multi),
NetCDF-4, ADIOS2 and raw MPI-IO with their layouts and bytes, a changed value
in a checkpoint caught by the restart read on every library, and the
reference's input errors.  The files are inspected by the libraries' Python
modules in child processes (h5py, netCDF4 and adios2 in one process crash)
and changed in their bytes, never through a library."""
import json
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import IOKERNELS, assert_all_ranks_fail, iok, load_json, pattern_value
from file_values import replace_stored_value

NAMES = [f"pressure_wave_test.{k}.000E{'+00' if k == 0 else '-06'}.field" for k in range(5)]


def s3d_backends():
    out = subprocess.run([str(IOKERNELS), "s3d", "--help"], capture_output=True, text=True).stdout
    m = re.search(r"I/O library \(backend\): (.*)", out)
    return {n.strip() for n in m.group(1).split(",")} if m else set()


def report_value(stdout, label):
    """The value of a report line '  Label .... = value'."""
    m = re.search(rf"^  {re.escape(label)}\s+= (.*)$", stdout, re.M)
    assert m, f"no line {label!r} in:\n{stdout}"
    return m.group(1)


def flat_index(shape, idx):
    return int(np.ravel_multi_index(idx, shape))


# ---------------------------------------------------------------- PnetCDF, README case

@pytest.fixture(scope="module")
def readme_case(tmp_path_factory):
    """100^3 on 8 ranks: a first run leaves checkpoint 0, then the reference
    form (blocking, restart T) reads it back and writes 5 checkpoints."""
    if "pnetcdf" not in s3d_backends():
        pytest.skip("pnetcdf backend not built")
    d = tmp_path_factory.mktemp("s3d_readme")
    iok(8, "s3d", "--grid", "100,100,100", "--procs", "2,2,2", "-c", "1", "--keep", "-o", d, "-q")
    js = d / "result.json"
    run = iok(8, "s3d", "100", "100", "100", "2", "2", "2", "0", "T", d, "--json", js)
    return d, run, load_json(js)


def test_readme_amounts_and_calls(readme_case):
    _, run, js = readme_case
    out = run.stdout
    assert report_value(out, "Total write amount") == "0.60 GiB (640,000,000 bytes)"
    assert report_value(out, "Total read amount") == "0.12 GiB (128,000,000 bytes)"
    assert report_value(out, "Total I/O amount") == "0.72 GiB (768,000,000 bytes)"
    assert report_value(out, "No. write calls") == "20 per process"
    assert report_value(out, "No. read calls") == "4 per process"
    assert report_value(out, "I/O method") == "blocking APIs (pnetcdf api=blocking)"
    assert report_value(out, "Run with restart").startswith("True (read and verified")
    assert report_value(out, "Global array size") == "100 x 100 x 100"
    assert report_value(out, "Local array size") == "50 x 50 x 50"
    assert report_value(out, "File striping count") == "0"  # a local file system reports none
    assert report_value(out, "Verification") == "passed: 5 checkpoint(s) read back, every element matches"
    # the final lines are the reference's totals
    assert out.rstrip().splitlines()[-1].startswith("  I/O bandwidth")
    s = js["summary"]
    assert s["bytes"]["write"] == 640_000_000 and s["bytes"]["read"] == 128_000_000
    assert s["calls_per_process"] == {"write": 20, "read": 4}
    assert s["restart_read"] is True
    t = s["seconds"]
    assert t["total"] == pytest.approx(t["open"] + t["read"] + t["write"] + t["close"])
    assert t["read"] > 0 and t["write"] > 0
    assert s["bandwidth_mib_s"]["io"] == pytest.approx(768_000_000 / 2**20 / t["total"])
    roles = [f["role"] for f in js["files"]]
    assert roles == ["restart"] + ["checkpoint"] * 5 + ["verify"] * 5
    assert js["params"]["method"] == "blocking" and js["params"]["reference_form"] is True
    assert js["manifest"]["mpiio_hints"]["nc_in_place_swap"] == "enable"


def test_readme_files_names_sizes_headers(readme_case):
    d, _, _ = readme_case
    files = sorted(p.name for p in d.glob("pressure_wave_test.*"))
    assert files == [n + ".nc" for n in NAMES]  # the reference form keeps its files
    n = 100 ** 3
    for k, name in enumerate(NAMES):
        path = d / (name + ".nc")
        # S3D-IO's size today: its 588-byte header, no padding after it
        assert path.stat().st_size == 588 + 128 * n, name
        hdr = subprocess.run(["ncmpidump", "-h", str(path)], capture_output=True, text=True, check=True).stdout
        assert "// file format: CDF-5 (big variables)" in hdr
        dims = re.findall(r"^\t(\w+) = (\d+) ;", hdr, re.M)
        assert dims == [("x", "100"), ("y", "100"), ("z", "100"), ("nsc", "11"), ("three", "3")]
        assert re.findall(r"^\tdouble (.*) ;", hdr, re.M) == [
            "yspecies(nsc, z, y, x)", "u(three, z, y, x)", "pressure(z, y, x)", "temp(z, y, x)"]
        attrs = dict(re.findall(r"^\t\t:(\w+) = (.*) ;", hdr, re.M))
        assert float(attrs["time"]) == pytest.approx(k * 0.076988811077757)
        assert float(attrs["tstep"]) == (0.0 if k == 0 else pytest.approx(0.076988811077757))
        assert float(attrs["time_save"]) == 100000.0


def cdf_var_offset(path, var):
    """File offset of a fixed-size variable of a NetCDF classic file (ncoffsets)."""
    if not shutil.which("ncoffsets"):
        pytest.skip("ncoffsets (PnetCDF utilities) not installed")
    out = subprocess.run(["ncoffsets", str(path)], capture_output=True, text=True, check=True).stdout
    m = re.search(rf"\s{var}\([^)]*\):\s+start file offset =\s+(\d+)", out)
    assert m, out
    return int(m.group(1))


def test_restart_detects_flipped_value(readme_case, tmp_path):
    """One element of (a copy of) checkpoint 0 changed in the file's bytes;
    the restart read names it.  The module's files stay intact."""
    d, _, _ = readme_case
    shutil.copy(d / (NAMES[0] + ".nc"), tmp_path)
    path = tmp_path / (NAMES[0] + ".nc")
    elem = flat_index((11, 100, 100, 100), (3, 10, 20, 30))
    at = cdf_var_offset(path, "yspecies") + 8 * elem  # CDF: big-endian doubles, C order
    with open(path, "r+b") as f:
        f.seek(at)
        assert np.frombuffer(f.read(8), ">f8")[0] == pattern_value("yspecies", elem, 0)
        f.seek(at)
        f.write(np.array([pattern_value("yspecies", elem, 0) + 1.5], ">f8").tobytes())
    p = iok(8, "s3d", "--grid", "100,100,100", "--procs", "2,2,2", "--restart", "-c", "1", "-o", tmp_path,
            check=False)
    assert_all_ranks_fail(p, "restart file", "failed verification", "1 element(s) differ",
                          f"variable yspecies, record 0, element {elem}")
    # x=30 < 50, y=20 < 50, z=10 < 50: rank 0 owns it
    assert "on rank 0" in p.stderr


# ---------------------------------------------------------------- other libraries

EXT = {"hdf5": ".h5", "hdf5_md": ".h5", "netcdf4": ".nc", "adios": ".bp", "mpiio": ".bin"}

LAYOUT = r"""
import json, sys
kind, path = sys.argv[1:3]
if kind == "h5":
    import h5py
    if not hasattr(h5py, "File"):
        from h5py import _debian_h5py_mpi as h5py
    with h5py.File(path, "r") as f:
        out = {"vars": {k: list(f[k].shape) for k in f}, "attrs": {k: float(v) for k, v in f.attrs.items()},
               "temp": f["temp"][...].ravel().tolist()}
elif kind == "nc":
    import netCDF4
    with netCDF4.Dataset(path) as nc:
        out = {"dims": list(nc.dimensions), "vars": {k: list(v.shape) for k, v in nc.variables.items()},
               "attrs": {k: float(nc.getncattr(k)) for k in nc.ncattrs()}, "temp": nc["temp"][...].ravel().tolist()}
else:
    import adios2
    with adios2.FileReader(path) as f:
        names = list(f.available_variables())
        out = {"vars": {k: list(f.read(k).shape) for k in names}, "temp": f.read("temp").ravel().tolist()}
print(json.dumps(out))
"""


def file_layout(backend, path):
    """Variables' shapes, global attributes and temp's values, read by the
    library's Python module in a child process."""
    kind = {"hdf5": "h5", "hdf5_md": "h5", "netcdf4": "nc", "adios": "bp"}[backend]
    module = {"h5": "h5py", "nc": "netCDF4", "bp": "adios2"}[kind]
    if subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode:
        pytest.skip(f"python module {module} not installed")
    p = subprocess.run([sys.executable, "-c", LAYOUT, kind, str(path)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


def check_layout(backend, path, g):
    """The four arrays with the reference's shapes (and nothing else), the
    reference's attribute, temp's every value from the pattern; raw MPI-IO:
    the four arrays back to back in native byte order, nothing else."""
    shapes = {"yspecies": [11, g, g, g], "u": [3, g, g, g], "pressure": [g, g, g], "temp": [g, g, g]}
    temp = np.array([pattern_value("temp", e, 0) for e in range(g ** 3)])
    if backend == "mpiio":
        assert path.stat().st_size == 8 * 16 * g ** 3
        raw = np.fromfile(path, "<f8")
        assert np.array_equal(raw[15 * g ** 3:], temp)  # temp last: after 11 + 3 + 1 arrays
        return
    f = file_layout(backend, path)
    assert f["vars"] == shapes
    if backend == "netcdf4":
        assert f["dims"] == ["x", "y", "z", "nsc", "three"]
    if backend != "adios":
        assert f["attrs"]["time_save"] == 100000.0
    assert np.array_equal(np.array(f["temp"]), temp)


@pytest.mark.parametrize("backend", ["hdf5", "hdf5_md", "netcdf4", "adios", "mpiio"])
def test_other_backends(backend, tmp_path):
    if backend not in s3d_backends():
        pytest.skip(f"backend {backend} not built (not in `iokernels s3d --help`)")
    g = 20
    js = tmp_path / "r.json"
    run = iok(4, "s3d", "-a", backend, "--grid", f"{g},{g},{g}", "--procs", "2,2,1", "-c", "3", "--keep",
              "-o", tmp_path, "--json", js)
    out = run.stdout
    assert report_value(out, "No. write calls") == "12 per process"
    assert report_value(out, "Total write amount") == f"0.00 GiB ({3 * 128 * g ** 3:,} bytes)"
    assert report_value(out, "Verification") == "passed: 3 checkpoint(s) read back, every element matches"
    s = load_json(js)["summary"]
    assert s["bytes"]["write"] == 3 * 128 * g ** 3
    files = sorted(p.name for p in tmp_path.glob("pressure_wave_test.*"))
    assert files == [n + EXT[backend] for n in NAMES[:3]]
    ck0 = tmp_path / (NAMES[0] + EXT[backend])
    check_layout(backend, ck0, g)

    # Negative: one stored element changed in the file's bytes fails the restart read, naming it.
    elem = flat_index((g, g, g), (5, 6, 7))
    replace_stored_value(ck0, np.float64(pattern_value("temp", elem, 0)))
    p = iok(4, "s3d", "-a", backend, "--grid", f"{g},{g},{g}", "--procs", "2,2,1", "--restart", "-c", "1",
            "-o", tmp_path, check=False)
    assert_all_ranks_fail(p, "restart file", "failed verification", "1 element(s) differ",
                          f"variable temp, record 0, element {elem}")


def test_nonblocking_default_and_missing_restart_file(tmp_path):
    if "pnetcdf" not in s3d_backends():
        pytest.skip("pnetcdf backend not built")
    run = iok(4, "s3d", "--local", "8,8,8", "--restart", "-c", "2", "-o", tmp_path)
    out = run.stdout
    assert "not found; continuing without the restart read" in out
    assert report_value(out, "I/O method") == "nonblocking APIs (pnetcdf api=varn)"
    assert report_value(out, "No. read calls") == "0 per process"
    assert report_value(out, "No. write calls") == "8 per process"
    assert report_value(out, "Verification") == "passed: 2 checkpoint(s) read back, every element matches"
    # named form without --keep: the run removes what it created
    assert not list(tmp_path.glob("pressure_wave_test.*"))


# ---------------------------------------------------------------- input errors

def test_error_grid_not_divisible(tmp_path):
    p = iok(4, "s3d", "--grid", "10,12,12", "--procs", "4,1,1", "-o", tmp_path, check=False)
    assert_all_ranks_fail(p, "global grid size along X (10) is not divisible", "(4)")


def test_error_process_grid_not_rank_count(tmp_path):
    p = iok(4, "s3d", "16", "16", "16", "2", "2", "2", "1", "F", tmp_path, check=False)
    assert_all_ranks_fail(p, "process grid 2 x 2 x 2 = 8 processes, but the job has 4", "mpiexec -n 8")


def test_error_missing_directory(tmp_path):
    missing = tmp_path / "no" / "such"
    p = iok(4, "s3d", "--local", "4,4,4", "-o", missing, check=False)
    assert_all_ranks_fail(p, f"output directory {missing} does not exist", "mkdir -p")


def test_error_reference_argument_count(tmp_path):
    p = iok(4, "s3d", "16", "16", "16", "2", "2", check=False)
    assert_all_ranks_fail(p, "the reference form takes exactly 9 arguments, got 5",
                          "nx_g ny_g nz_g npx npy npz method restart dir_path")
