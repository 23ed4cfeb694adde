"""Every kernel once on 1, 4 and 16 ranks, small, written, read back and
verified: the integration part of `scripts/iok test --quick` (ctest label
`quick`), a minute for the edit-compile-test loop.  The kernels' own test
files check what each claims; this one says quickly that none is broken on
the rank counts the suite uses (16 oversubscribed)."""
import pytest

from conftest import BUILD_DIR, iok, load_json, mpirun, tool

RANKS = [1, 4, 16]
S3D_PROCS = {1: "1,1,1", 4: "2,2,1", 16: "4,2,2"}


@pytest.fixture(scope="module")
def maps(tmp_path_factory):
    """A small G map and a small F map, both for 16 processes (e3sm_mapgen)."""
    d = tmp_path_factory.mktemp("maps")
    mpirun(1, [tool("e3sm_mapgen"), "--case", "G", "--ncells", "64", "--nlev", "3", "--nprocs", "16", "-o", d / "g.nc"])
    mpirun(1, [tool("e3sm_mapgen"), "--case", "F", "--ne", "2", "--nprocs", "16", "-o", d / "f.nc"])
    return d


def valid(js, nfiles):
    doc = load_json(js)
    assert doc["valid"] is True and doc["summary"].get("verification_mismatches", 0) == 0
    assert len(doc["files"]) >= nfiles
    return doc


@pytest.mark.parametrize("ranks", RANKS)
def test_e3sm(tmp_path, maps, ranks):
    js = tmp_path / "r.json"
    iok(ranks, "e3sm", "-r", "2", "--verify", "--json", js, "-o", tmp_path / "g.nc", maps / "g.nc")
    assert valid(js, 2)["manifest"]["processes"] == ranks


@pytest.mark.parametrize("ranks", RANKS)
def test_s3d(tmp_path, ranks):
    js = tmp_path / "r.json"
    iok(ranks, "s3d", "--grid", "8,8,8", "--procs", S3D_PROCS[ranks], "-c", "2", "--json", js, "-o", tmp_path)
    valid(js, 2)


@pytest.mark.parametrize("ranks", [1, 4])  # GCRM's grid needs level >= 4 for 16 ranks (test_gcrm)
def test_gcrm(tmp_path, ranks):
    from gen_inputs import gcrm_inputs
    param = gcrm_inputs(tmp_path / "in")
    js = tmp_path / "r.json"
    iok(ranks, "gcrm", param, "--json", js, "-o", tmp_path)
    valid(js, 1)


@pytest.mark.parametrize("ranks", RANKS)
def test_vpic_then_bdcats(tmp_path, ranks):
    p, js = tmp_path / "p.h5", tmp_path / "w.json"
    small = ["--dim-1", "1K", "--timesteps", "2"]
    iok(ranks, "vpic", *small, "--verify", "-k", "--json", js, "-o", p)
    assert [f["role"] for f in valid(js, 2)["files"]] == ["particles", "verify"]
    iok(ranks, "bdcats", *small, "--json", js, "-i", p)
    assert valid(js, 1)["summary"]["particles"] == ranks * 1024


@pytest.mark.parametrize("ranks", RANKS)
def test_noncontig(tmp_path, maps, ranks):
    js = tmp_path / "r.json"
    r = iok(ranks, "noncontig", "-n", "4", "--decomp", "D2", "--json", js, "-o", tmp_path / "nc.dat", maps / "f.nc")
    assert "Noncontig / contig write time" in r.stdout
    valid(js, 0)


@pytest.mark.parametrize("ranks", [1, 4])  # the trace's 4 writers replayed by fewer and as many
def test_replay(tmp_path, ranks):
    trace = tmp_path / "t.json"
    mpirun(4, ["-x", f"LD_PRELOAD={BUILD_DIR / 'src' / 'capture' / 'libiok_capture.so'}",
               "-x", f"IOK_CAPTURE_TRACE={trace}", tool("raw_write"), "-n", "1048576", "-c", "65536",
               "-o", tmp_path / "app.dat"])
    js = tmp_path / "r.json"
    iok(ranks, "replay", "--json", js, "-o", tmp_path, trace)
    valid(js, 2)
