"""dat2nc and e3sm_mapgen: the maps they write are valid classic NetCDF
(ncmpidump -h, ncdump -h, python netCDF4) and dat2nc reproduces the
reference maps exactly: sorted (the seed's form) -> f_case_866x72_16p.nc,
file order (the long form's default) -> map_f_case_16p.nc."""
import subprocess

import numpy as np
import pytest

from conftest import SHARED, tool

netCDF4 = pytest.importorskip("netCDF4")

DATA = SHARED / "datasets" / "e3sm"
DATS = [DATA / f"piodecomp16tasks16io0{n}" for n in ("1dims_ioid_514.dat", "1dims_ioid_516.dat", "2dims_ioid_548.dat")]


def run(*args, ok=True):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=300)
    if ok:
        assert r.returncode == 0, r.stderr
    return r


def need_data():
    if not all(p.exists() for p in DATS):
        pytest.skip("../shared/datasets/e3sm not available")


def same_arrays(a, b, names, ndecomp=3):
    with netCDF4.Dataset(a) as x, netCDF4.Dataset(b) as y:
        assert len(x.dimensions["num_decomp"]) == len(y.dimensions["num_decomp"]) == ndecomp
        for k in range(1, ndecomp + 1):
            for n in names:
                v = f"D{k}.{n}"
                assert np.array_equal(x[v][:], y[v][:]), v
            for g in ("dims", "max_nreqs", "min_nreqs"):
                assert np.array_equal(x.getncattr(f"D{k}.{g}"), y.getncattr(f"D{k}.{g}")), (k, g)


def test_seed_form_sorts_and_reproduces_the_seed_map(tmp_path):
    need_data()
    out = tmp_path / "f_sorted.nc"
    run(tool("dat2nc"), "-v", "-l", "1000", "-o", out, "-1", DATS[0], "-2", DATS[1], "-3", DATS[2])
    same_arrays(out, DATA / "f_case_866x72_16p.nc", ["nreqs", "offsets", "lengths"])
    with netCDF4.Dataset(out) as f:  # current format: fill_starts, all runs real
        for k in (1, 2, 3):
            assert np.array_equal(f[f"D{k}.fill_starts"][:], f[f"D{k}.nreqs"][:])
            assert f.getncattr(f"D{k}.fully_covered") == "true"


def test_long_form_keeps_file_order_and_reproduces_the_current_map(tmp_path):
    need_data()
    out = tmp_path / "f_fileorder.nc"
    run(tool("dat2nc"), "-o", out, *DATS)
    same_arrays(out, DATA / "map_f_case_16p.nc",
                ["nreqs", "fill_starts", "offsets", "lengths", "raw_nreqs", "raw_offsets"])
    # --sort in the long form equals the seed's behaviour
    out2 = tmp_path / "f_sorted_long.nc"
    run(tool("dat2nc"), "--sort", "-o", out2, *DATS)
    same_arrays(out2, DATA / "f_case_866x72_16p.nc", ["nreqs", "offsets", "lengths"])


@pytest.mark.parametrize("fmt,label", [("cdf1", "classic"), ("cdf2", "64-bit offset"), ("cdf5", "CDF-5")])
def test_written_maps_pass_the_netcdf_tools(tmp_path, fmt, label):
    out = tmp_path / f"synthetic_{fmt}.nc"
    run(tool("e3sm_mapgen"), "-o", out, "--ncol", "100", "--nlev", "5", "--nprocs", "7", "--format", fmt)
    h = run("ncmpidump", "-h", out).stdout
    assert "D3.total_nreqs = 500 ;" in h and ":D3.dims = 5, 100 ;" in h
    k = run("ncdump", "-k", out).stdout.strip()
    assert label in k or (fmt == "cdf5" and "cdf5" in k), k
    with netCDF4.Dataset(out) as f:
        assert len(f.dimensions["decomp_nprocs"]) == 7
        for d, elems in (("D1", 100), ("D2", 100), ("D3", 500)):
            lengths, offsets = f[f"{d}.lengths"][:], f[f"{d}.offsets"][:]
            assert lengths.sum() == elems
            assert f[f"{d}.nreqs"][:].sum() == len(offsets)
            covered = np.zeros(elems, dtype=int)
            for o, n in zip(offsets, lengths):
                covered[o:o + n] += 1
            assert (covered == 1).all(), d
            assert f[f"{d}.lengths"].getncattr("max") == lengths.max()


def test_errors_are_clear(tmp_path):
    need_data()
    r = run(tool("dat2nc"), "-o", tmp_path / "x.nc", "-1", DATS[0], "-3", DATS[2], ok=False)
    assert r.returncode == 1 and "-2 is missing while -3 is given" in r.stderr
    bad = tmp_path / "trunc.dat"
    bad.write_text(DATS[0].read_text()[:300])
    r = run(tool("dat2nc"), "-o", tmp_path / "y.nc", bad, ok=False)
    assert r.returncode == 1 and "unexpected end of file" in r.stderr, r.stderr
    assert not (tmp_path / "y.nc").exists()
