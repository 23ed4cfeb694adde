"""iokernels exerciser: h5bench's HDF5 Exerciser with its own flags.  On
HDF5 the file a --keepfile run leaves is the original's: group /Data (its
64 attributes "Attribute <i> Name" of 1024 chars with --addattr), the double
dataset /Data/hdf5DataSet1-iter9-size<n> of the last size (N-D blocks in
rank order, each holding its writer's rank + 1, at the place of rank r +
rshift), the compound /Data/derivedData/simulation parameters with
--derivedtype, chunks of one block with --usechunked; file hyperslabs with
--fileblocks/--filestrides; the --dimranks fall-back with its WARNING.
Every iteration's read at the doubly shifted place is verified; a byte
changed in the kept file fails --read-only.  Bad flags stop every rank with
one line; PnetCDF runs the plain datasets and refuses the compound one
(exit 2).  h5bench's `exerciser` entries run through the suite runner."""
import struct
import time

import pytest

from conftest import assert_all_ranks_fail, iok, load_json, registered_backends
from suite_cli import run_suite_doc

h5py = pytest.importorskip("h5py")
np = pytest.importorskip("numpy")

pytestmark = pytest.mark.skipif("hdf5" not in registered_backends(), reason="hdf5 backend not built")

TWO_D = ["--numdims", "2", "--minels", "4", "4", "--nsizes", "2", "--bufmult", "2", "2", "--dimranks", "2", "2"]


def data_names(f):
    names = []
    f.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    return sorted(names)


def test_kept_file_is_the_originals(tmp_path):
    out, js = tmp_path / "ex.h5", tmp_path / "r.json"
    p = iok(4, "exerciser", *TWO_D, "--addattr", "--derivedtype", "--keepfile", "-o", out, "--json", js)
    assert "passed" in p.stdout and "All done -- Finishing normally." in p.stdout
    assert p.stdout.count("Med ") == 2  # one table row per buffer size
    with h5py.File(out, "r") as f:
        # the last size: 4*2 = 8 x 8 elements per rank (64), 2 x 2 ranks
        assert data_names(f) == ["Data/derivedData/simulation parameters", "Data/hdf5DataSet1-iter9-size64"]
        ds = f["Data/hdf5DataSet1-iter9-size64"]
        assert ds.dtype == np.float64 and ds.shape == (16, 16) and ds.chunks is None
        a = ds[()]
        for r in range(4):  # rank r's block: row r // 2, column r % 2, value r + 1
            assert (a[(r // 2) * 8:(r // 2 + 1) * 8, (r % 2) * 8:(r % 2 + 1) * 8] == r + 1).all()
        d = f["Data/derivedData/simulation parameters"]
        assert d.shape == (16, 16)
        assert d.dtype.names == ("total blocks", "time", "timestep", "number of steps", "nxb", "nyb", "nzb")
        assert [d.dtype[n] for n in d.dtype.names] == [np.int32, np.float64, np.float64] + [np.int32] * 4
        v = d[()]  # written whole from structs: every member of rank r's block holds r + 1
        for r in range(4):
            block = v[(r // 2) * 8:(r // 2 + 1) * 8, (r % 2) * 8:(r % 2 + 1) * 8]
            assert all((block[n] == r + 1).all() for n in d.dtype.names), (r, block[0, 0])
        attrs = f["Data"].attrs
        assert sorted(attrs) == sorted(f"Attribute {i} Name" for i in range(64))
        a7 = attrs["Attribute 7 Name"]
        assert a7.dtype == np.int8 and a7.shape == (1024,)
        text = b"This is my attribute string number 7"
        assert bytes(a7[:len(text)].astype(np.uint8)) == text and not a7[len(text):].any()
    doc = load_json(js)
    assert doc["valid"] is True and doc["summary"]["mismatches"] == 0
    assert [s["bufsize"] for s in doc["summary"]["sizes"]] == [16 * 8, 64 * 8]
    files = doc["files"]
    assert len(files) == 2 * 10 * 2  # sizes x iterations x (write, read)
    # iteration writes: the double blocks (4 ranks x 64 doubles) + 36 bytes of compound per element
    assert files[-2]["bytes"]["total"] == 4 * 64 * 8 + 4 * 64 * 36
    assert files[-1]["bytes"]["total"] == 4 * 64 * 8


def test_rank_shift_and_chunks_one_dimension(tmp_path):
    """rshift 1: rank r writes at rank r+1's place and reads rank r+2's, where rank r+1's value is."""
    out = tmp_path / "ex.h5"
    p = iok(4, "exerciser", "--numdims", "1", "--minels", "8", "--dimranks", "4", "--rshift", "1", "--usechunked",
            "--keepfile", "-o", out)
    assert "rankShift: 1" in p.stdout and "passed" in p.stdout
    with h5py.File(out, "r") as f:
        ds = f["Data/hdf5DataSet1-iter9-size8"]
        assert ds.shape == (32,) and ds.chunks == (8,)
        assert list(ds[()]) == [4.0] * 8 + [1.0] * 8 + [2.0] * 8 + [3.0] * 8


def test_file_blocks_strides_and_dimranks_fallback(tmp_path):
    """--fileblocks 2 --filestrides 4 over 8 elements: 4 blocks of 2, 4 apart, so each rank spans 16;
    --dimranks 8 4 on 2 ranks is not 2: dimension 0 holds the ranks, with the original's warning."""
    out = tmp_path / "ex.h5"
    p = iok(2, "exerciser", "--numdims", "1", "--minels", "8", "--fileblocks", "2", "--filestrides", "4",
            "--keepfile", "-o", out)
    with h5py.File(out, "r") as f:
        a = f["Data/hdf5DataSet1-iter9-size8"][()]
        assert a.shape == (32,)
        for r in range(2):
            for k in range(4):
                assert list(a[16 * r + 4 * k:16 * r + 4 * k + 2]) == [r + 1.0] * 2
    p = iok(2, "exerciser", "--numdims", "2", "--minels", "8", "8", "--dimranks", "8", "4", "--keepfile", "-o", out,
            "--overwrite")
    assert "WARNING!! - ndomains: 32 must be: 2. Only dividing dim-0" in p.stdout
    with h5py.File(out, "r") as f:
        assert f["Data/hdf5DataSet1-iter9-size64"].shape == (16, 8)


def test_a_changed_byte_fails_read_only(tmp_path):
    out = tmp_path / "ex.h5"
    flags = ["--numdims", "1", "--minels", "16", "--dimranks", "4", "--rshift", "1"]
    iok(4, "exerciser", *flags, "--keepfile", "-o", out)
    p = iok(4, "exerciser", *flags, "--read-only", "-o", out)
    assert "passed" in p.stdout
    raw = bytearray(out.read_bytes())
    i = raw.find(struct.pack("<4d", 3.0, 3.0, 3.0, 3.0))  # rank 2's block
    assert i > 0
    raw[i + 6] ^= 0x01
    out.write_bytes(bytes(raw))
    p = iok(4, "exerciser", *flags, "--read-only", "-o", out, check=False)
    assert p.returncode not in (0, 2), p.stdout
    errors = [ln for ln in p.stderr.splitlines() if "error:" in ln]
    assert len(errors) == 1 and "verification failed" in errors[0].lower(), p.stderr
    assert out.exists()  # an input: never removed


def test_without_keepfile_the_file_is_removed(tmp_path):
    out = tmp_path / "ex.h5"
    iok(1, "exerciser", "--numdims", "1", "--minels", "4", "-o", out)
    assert not out.exists()


BAD = [
    (["--numdims", "0"], "--numdims 0: at least one dimension"),
    (["--numdims", "2", "--minels", "0", "8"], "--minels: 0 elements along dimension 0"),
    (["--numdims", "1", "--nsizes", "0"], "--nsizes 0: at least one size"),
    (["--numdims", "2", "--minels", "8", "8", "8"], "--minels has 3 value(s) but --numdims is 2"),
    (["--numdims", "1", "--bufmult", "0"], "--bufmult: 0 along dimension 0"),
    (["--numdims", "1", "--rshift", "-1"], "--rshift -1 is negative"),
    (["--numdims", "1", "--bogus"], "--bogus"),
]


@pytest.mark.parametrize("flags,fragment", BAD, ids=[" ".join(f[2:]) or f[1] for f, _ in BAD])
def test_bad_flags_stop_every_rank(tmp_path, flags, fragment):
    t0 = time.monotonic()
    p = iok(4, "exerciser", *flags, "-o", tmp_path / "ex.h5", check=False, timeout=60)
    assert time.monotonic() - t0 < 30
    assert_all_ranks_fail(p, fragment)
    assert not (tmp_path / "ex.h5").exists()


def test_pnetcdf_runs_plain_and_refuses_the_compound(tmp_path):
    if "pnetcdf" not in registered_backends():
        pytest.skip("pnetcdf backend not built")
    p = iok(4, "exerciser", *TWO_D, "--addattr", "--rshift", "1", "-a", "pnetcdf", "-o", tmp_path / "ex.nc")
    assert "passed" in p.stdout
    p = iok(4, "exerciser", *TWO_D, "--derivedtype", "-a", "pnetcdf", "-o", tmp_path / "ex2.nc", check=False)
    assert p.returncode == 2 and p.stderr.count("error:") == 1, p.stderr
    assert "--derivedtype" in p.stderr and "compound files" in p.stderr


def test_h5bench_exerciser_sample_runs(tmp_path):
    """h5bench's sample (its three entries, sizes as given): -n 2 in the launcher's configuration wins over
    ranks 4; dimranks 8 4 falls back; "indepio": "" passes nothing, "keepfile": "false" neither."""
    base = {"numdims": "2", "minels": "8 8", "nsizes": "3", "bufmult": "2 2", "dimranks": "8 4"}
    entries = [{"benchmark": "exerciser", "configuration": dict(base)},
               {"benchmark": "exerciser", "configuration": dict(base, indepio="")},
               {"benchmark": "exerciser", "configuration": dict(base, keepfile="false", indepio="true",
                                                                addattr="true", usechunked="false")}]
    doc = {"mpi": {"command": "mpiexec", "ranks": "4", "configuration": "-n 2 --oversubscribe"}, "vol": {},
           "file-system": {}, "directory": "storage", "benchmarks": entries}
    (tmp_path / "storage").mkdir(parents=True)
    p, runs, res = run_suite_doc(tmp_path, doc)
    assert [r["status"] for r, _ in runs] == ["ok"] * 3
    params = [rd["params"] for _, rd in runs]
    assert [pr["indepio"] for pr in params] == [False, False, True]
    assert [pr["addattr"] for pr in params] == [False, False, True]
    assert all(pr["dimranks"] == [2, 1] and pr["nsizes"] == 3 for pr in params)
    assert all(rd["valid"] for _, rd in runs)
