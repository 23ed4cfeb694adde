"""pnetcdf and mpiio backends seen from outside: the unit-test round trips
(tests/unit/test_{pnetcdf,mpiio}_backend.cpp) run under mpiexec with 1 and 4
ranks and keep their files; then ncmpidump -h checks the header, netCDF4-python
and numpy read every covered element independently of our code.  The
negative: a value changed in the bytes of a file iokernels wrote is caught
by the program's own read-back (exit status and message)."""
import subprocess

import numpy as np
import pytest

from conftest import BUILD_DIR, mpirun, tool

UNIT = BUILD_DIR / "tests" / "iok_unit_tests"
RECORDS = 3
LEV, BND, COL, CHARS = 3, 2, 10, 8

# (name, numpy dtype, fixed shape, record?, covered flat elements or None = all)
# Must match make_case() in tests/unit/pnc_mpiio_roundtrip.hpp.
VARS = [
    ("ndbase", "i4", (), False, None),
    ("lev", "f8", (LEV,), False, None),
    ("area", "f4", (COL,), False, [2, 3, 4, 7, 8]),
    ("mask", "i1", (COL,), False, None),
    ("ilev", "i2", (LEV, COL), False, None),
    ("gid", "i8", (COL,), False, None),
    ("cube", "f8", (LEV, BND, COL), False, None),
    ("unwritten", "i4", (COL,), False, []),
    ("date", "S1", (CHARS,), True, None),
    ("time", "f8", (), True, None),
    ("time_bnds", "f8", (BND,), True, None),
    ("PS", "f8", (COL,), True, None),
    ("T", "f4", (LEV, BND, COL), True, None),
    ("nstep", "i4", (), True, None),
    ("flags", "i2", (COL,), True, None),
]


def value_of(var, rec, flat, kind):
    """Same numbers as value_of() in pnc_mpiio_roundtrip.hpp."""
    if kind == "S1":
        return bytes([ord("a") + (flat + var + rec) % 26])
    if kind == "i1":
        return (var * 7 + rec * 3 + flat) % 100 - 50
    if kind == "i2":
        return var * 100 + rec * 10 + flat
    if kind == "i8":
        return 1099511627776 + var * 1000 + rec * 100 + flat
    if kind == "i4":
        return var * 1000 + rec * 100 + flat
    return var * 1000.0 + rec * 100.0 + flat + 0.25


def nelems(shape):
    return int(np.prod(shape)) if shape else 1


def expected(vi, rec):
    name, kind, shape, _, covered = VARS[vi]
    idx = range(nelems(shape)) if covered is None else covered
    return list(idx), [value_of(vi, rec, i, kind) for i in idx]


def mismatches(read_var):
    """Covered elements that differ; read_var(vi, rec) -> flat numpy array."""
    bad = 0
    for vi, (_name, kind, _shape, is_rec, _) in enumerate(VARS):
        for rec in range(RECORDS if is_rec else 1):
            idx, want = expected(vi, rec)
            got = read_var(vi, rec)
            for i, w in zip(idx, want, strict=False):
                g = got[i]
                if kind == "S1":
                    bad += g != w
                elif kind.startswith("f"):
                    bad += not (np.asarray(g, dtype=kind) == np.asarray(w, dtype=kind))
                else:
                    bad += int(g) != w
    return bad


@pytest.fixture(scope="module", params=[1, 4], ids=lambda n: f"{n}ranks")
def files(request, tmp_path_factory):
    if not UNIT.exists():
        pytest.skip(f"{UNIT} not built")
    out = tmp_path_factory.mktemp(f"pnc{request.param}")
    mpirun(request.param,
           [UNIT, "--gtest_filter=*PnetcdfRoundTrip*:*MpiioRoundTrip*:PnetcdfBackend.HeaderAsPnetcdfSeesIt",
            "--gtest_brief=1"],
           env={"IOK_TEST_OUTDIR": str(out)}, timeout=600)
    return out


def ncmpidump_h(path):
    return subprocess.run([tool("ncmpidump"), "-h", str(path)], capture_output=True, text=True, check=True).stdout


def test_unit_round_trips_kept_their_files(files):
    for api in ("varn", "blocking", "vard"):
        for mode in ("coll", "indep"):
            assert (files / f"pnetcdf_{api}_{mode}.nc").stat().st_size > 0
    assert (files / "mpiio_coll.bin").exists() and (files / "mpiio_indep.bin").exists()


@pytest.mark.parametrize("api", ["varn_coll", "blocking_indep", "vard_coll"])
def test_header_via_ncmpidump(files, api):
    h = ncmpidump_h(files / f"pnetcdf_{api}.nc")
    assert "// file format: CDF-5" in h
    for line in ["time = UNLIMITED ; // (3 currently)", "lev = 3 ;", "nbnd = 2 ;", "ncol = 10 ;", "chars = 8 ;",
                 "int ndbase ;", "double lev(lev) ;", "float area(ncol) ;", "byte mask(ncol) ;",
                 "short ilev(lev, ncol) ;", "int64 gid(ncol) ;", "double cube(lev, nbnd, ncol) ;",
                 "char date(time, chars) ;", "double time(time) ;", "double PS(time, ncol) ;",
                 "float T(time, lev, nbnd, ncol) ;", "int nstep(time) ;", "short flags(time, ncol) ;",
                 'ndbase:long_name = "base day" ;', "lev:valid_range = 0.f, 1000.f ;",
                 "area:_FillValue = 1.e+20f ;", "area:flag = -3b, 7b ;", "mask:flag_values = -1s, 0s, 1s ;",
                 "gid:big = 1099511627776LL ;", "PS:_FillValue = 1.e+36 ;",
                 ':title = "iokernels pnetcdf/mpiio round trip" ;', ":ne = 30 ;", ":dt = 1800.5, 0.25 ;",
                 ':empty_text = "" ;']:
        assert line in h, f"{line!r} missing from ncmpidump -h:\n{h}"


def netcdf4_reader(path):
    netCDF4 = pytest.importorskip("netCDF4")
    ds = netCDF4.Dataset(str(path))
    ds.set_auto_mask(False)

    def read(vi, rec):
        v = ds.variables[VARS[vi][0]]
        a = v[rec] if VARS[vi][3] else v[...]
        return np.asarray(a).reshape(-1)
    return ds, read


@pytest.mark.parametrize("api", ["varn_coll", "varn_indep", "blocking_coll", "blocking_indep",
                                 "vard_coll", "vard_indep"])
def test_netcdf4_python_reads_every_covered_element(files, api):
    ds, read = netcdf4_reader(files / f"pnetcdf_{api}.nc")
    try:
        assert ds.data_model == "NETCDF3_64BIT_DATA"
        assert len(ds.dimensions["time"]) == RECORDS
        assert mismatches(read) == 0
    finally:
        ds.close()


def raw_layout():
    """Offsets of the raw canonical layout (src/backends/raw_layout.hpp)."""
    size = {vi: nelems(v[2]) * np.dtype(v[1]).itemsize for vi, v in enumerate(VARS)}
    off, pos = {}, 0
    for vi, v in enumerate(VARS):
        if not v[3]:
            off[vi], pos = pos, pos + size[vi]
    fixed, recsize = pos, 0
    for vi, v in enumerate(VARS):
        if v[3]:
            off[vi], recsize = recsize, recsize + size[vi]
    return off, fixed, recsize


def raw_reader(data):
    off, fixed, recsize = raw_layout()

    def read(vi, rec):
        name, kind, shape, is_rec, _ = VARS[vi]
        start = fixed + rec * recsize + off[vi] if is_rec else off[vi]
        return np.frombuffer(data, dtype=kind, count=nelems(shape), offset=start)
    return read


@pytest.mark.parametrize("mode", ["coll", "indep"])
def test_mpiio_file_has_the_raw_canonical_layout(files, mode):
    data = (files / f"mpiio_{mode}.bin").read_bytes()
    _, fixed, recsize = raw_layout()
    assert len(data) == fixed + RECORDS * recsize
    assert mismatches(raw_reader(data)) == 0


# The program's read-back catching a changed stored value on every library:
# test_e3sm.py::test_read_back_on_every_library_catches_a_changed_value.
