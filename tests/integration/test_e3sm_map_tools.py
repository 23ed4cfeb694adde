"""dat2nc and e3sm_mapgen: the maps they write are valid classic NetCDF
(ncmpidump -h, ncdump -h, python netCDF4) and dat2nc reproduces the
reference maps exactly: sorted (the seed's form) -> f_case_866x72_16p.nc,
file order (the long form's default) -> map_f_case_16p.nc (../shared; one
test).  On .dat files the test writes: file order, sorting, rows, skipped
entries and errors."""
import random
import subprocess

import numpy as np
import pytest

from conftest import SHARED, tool
from gen_inputs import write_pio_dat

netCDF4 = pytest.importorskip("netCDF4")

DATA = SHARED / "datasets" / "e3sm"
DATS = [DATA / f"piodecomp16tasks16io0{n}" for n in ("1dims_ioid_514.dat", "1dims_ioid_516.dat", "2dims_ioid_548.dat")]


def run(*args, ok=True):
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=300)
    if ok:
        assert r.returncode == 0, r.stderr
    return r


def same_arrays(a, b, names, ndecomp=3):
    with netCDF4.Dataset(a) as x, netCDF4.Dataset(b) as y:
        assert len(x.dimensions["num_decomp"]) == len(y.dimensions["num_decomp"]) == ndecomp
        for k in range(1, ndecomp + 1):
            for n in names:
                v = f"D{k}.{n}"
                assert np.array_equal(x[v][:], y[v][:]), v
            for g in ("dims", "max_nreqs", "min_nreqs"):
                assert np.array_equal(x.getncattr(f"D{k}.{g}"), y.getncattr(f"D{k}.{g}")), (k, g)


# ---- generated PIO .dat files: no outside data -----------------------------------

# Three decompositions as E3SM's F case has them (2 x 1-D over columns, 1 x 2-D
# levels x columns), over 4 processes, each process's offsets shuffled.
NCOL, NLEV, NPROC = 40, 3, 4


def generated_dats(tmp_path):
    """Writes D1-D3 .dat files; returns their paths and each one's
    (Fortran-order dims, offsets per process, 1-based, 0 = skip)."""
    rng = random.Random(5)
    specs = []
    for dims in ([NCOL], [NCOL], [NCOL, NLEV]):
        n = int(np.prod(dims))
        elems = list(range(1, n + 1))
        rng.shuffle(elems)
        procs = [sorted(elems[p::NPROC], key=lambda _: rng.random()) for p in range(NPROC)]
        procs[1].insert(2, 0)  # a skipped entry, as PIO writes for holes
        specs.append((dims, procs))
    paths = [write_pio_dat(tmp_path / f"d{k + 1}.dat", dims, procs) for k, (dims, procs) in enumerate(specs)]
    return paths, specs


def expected_runs(dims, procs, sort):
    """nreqs, offsets, lengths as dat2nc makes them: 0s dropped, 0-based,
    sorted if asked, consecutive offsets merged within a row of the fastest
    dimension."""
    row = dims[0]
    nreqs, offsets, lengths = [], [], []
    for offs in procs:
        o = [x - 1 for x in offs if x > 0]
        if sort:
            o.sort()
        n = 0
        for i, x in enumerate(o):
            if i and o[i - 1] + 1 == x and x % row:
                lengths[-1] += 1
            else:
                offsets.append(x)
                lengths.append(1)
                n += 1
        nreqs.append(n)
    return nreqs, offsets, lengths


def check_map(path, specs, sort):
    with netCDF4.Dataset(path) as f:
        assert len(f.dimensions["decomp_nprocs"]) == NPROC
        for k, (dims, procs) in enumerate(specs, 1):
            nreqs, offsets, lengths = expected_runs(dims, procs, sort)
            assert list(f[f"D{k}.nreqs"][:]) == nreqs, k
            assert list(f[f"D{k}.offsets"][:]) == offsets, k
            assert list(f[f"D{k}.lengths"][:]) == lengths, k
            assert list(f[f"D{k}.fill_starts"][:]) == nreqs, k  # all runs real
            assert list(f.getncattr(f"D{k}.dims").reshape(-1)) == dims[::-1], k


def test_generated_dat_files_long_form_keeps_file_order(tmp_path):
    dats, specs = generated_dats(tmp_path)
    run(tool("dat2nc"), "-o", tmp_path / "long.nc", *dats)
    check_map(tmp_path / "long.nc", specs, sort=False)
    run(tool("dat2nc"), "--sort", "-o", tmp_path / "sorted.nc", *dats)
    check_map(tmp_path / "sorted.nc", specs, sort=True)
    # file order and sorted differ (the test would not notice a converter that always sorts otherwise)
    assert expected_runs(*specs[0], sort=False) != expected_runs(*specs[0], sort=True)


def test_generated_dat_files_seed_form_sorts(tmp_path):
    dats, specs = generated_dats(tmp_path)
    run(tool("dat2nc"), "-v", "-l", "1000", "-o", tmp_path / "seed.nc", "-1", dats[0], "-2", dats[1], "-3", dats[2])
    check_map(tmp_path / "seed.nc", specs, sort=True)
    run(tool("dat2nc"), "--sort", "-o", tmp_path / "long.nc", *dats)
    same_arrays(tmp_path / "seed.nc", tmp_path / "long.nc", ["nreqs", "offsets", "lengths", "fill_starts"])


def test_errors_are_clear(tmp_path):
    dats, _ = generated_dats(tmp_path)
    r = run(tool("dat2nc"), "-o", tmp_path / "x.nc", "-1", dats[0], "-3", dats[2], ok=False)
    assert r.returncode == 1 and "-2 is missing while -3 is given" in r.stderr
    assert not (tmp_path / "x.nc").exists()
    bad = tmp_path / "trunc.dat"
    bad.write_text(dats[0].read_text()[:60])
    r = run(tool("dat2nc"), "-o", tmp_path / "y.nc", bad, ok=False)
    assert r.returncode == 1 and "unexpected end of file" in r.stderr, r.stderr
    assert r.stderr.count("error:") == 1, r.stderr
    assert not (tmp_path / "y.nc").exists()


# ---- the user's real .dat files and maps (../shared) -------------------------------

def test_real_dat_files_reproduce_the_reference_maps(tmp_path):
    """In one test so that a clone without ../shared skips one: sorted (the
    seed's form) -> f_case_866x72_16p.nc, file order (the long form's
    default) -> map_f_case_16p.nc, --sort in the long form -> the seed's."""
    if not all(p.exists() for p in DATS):
        pytest.skip(f"the PIO .dat files are not in {DATA} (../shared)")
    out = tmp_path / "f_sorted.nc"
    run(tool("dat2nc"), "-v", "-l", "1000", "-o", out, "-1", DATS[0], "-2", DATS[1], "-3", DATS[2])
    same_arrays(out, DATA / "f_case_866x72_16p.nc", ["nreqs", "offsets", "lengths"])
    with netCDF4.Dataset(out) as f:  # current format: fill_starts, all runs real
        for k in (1, 2, 3):
            assert np.array_equal(f[f"D{k}.fill_starts"][:], f[f"D{k}.nreqs"][:])
            assert f.getncattr(f"D{k}.fully_covered") == "true"
    out = tmp_path / "f_fileorder.nc"
    run(tool("dat2nc"), "-o", out, *DATS)
    same_arrays(out, DATA / "map_f_case_16p.nc",
                ["nreqs", "fill_starts", "offsets", "lengths", "raw_nreqs", "raw_offsets"])
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
            for o, n in zip(offsets, lengths, strict=False):
                covered[o:o + n] += 1
            assert (covered == 1).all(), d
            assert f[f"{d}.lengths"].getncattr("max") == lengths.max()
