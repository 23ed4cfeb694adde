"""--dry-run --ranks N (e3sm, s3d): what N ranks would do, computed on one
process, equals what N ranks report when they really run (requests and bytes
per file: total, per-rank max and min), and opens no file."""
import re

import pytest

from conftest import assert_all_ranks_fail, iok, load_json, tool
from gen_inputs import e3sm_map

FIGURES = ("total", "max", "min")


@pytest.fixture(scope="module")
def mapfile(tmp_path_factory):
    """A 16-process F-like map, small enough for real runs on 16 ranks."""
    return e3sm_map(tool("e3sm_mapgen"), tmp_path_factory.mktemp("dry") / "map16.nc", ncol=96, nlev=4, nprocs=16)


def figures(doc):
    return {f["label"]: ({k: int(f["requests"][k]) for k in FIGURES}, {k: int(f["bytes"][k]) for k in FIGURES})
            for f in doc["files"]}


def real_and_dry(tmp_path, mapfile, nranks, *opts):
    iok(nranks, "e3sm", "-q", "-r", "2", "-o", tmp_path / "out.nc", "--json", tmp_path / "real.json", *opts, mapfile)
    iok(1, "e3sm", "-q", "-r", "2", "--dry-run", "--ranks", str(nranks), "--json", tmp_path / "dry.json", *opts,
        mapfile)
    return load_json(tmp_path / "real.json"), load_json(tmp_path / "dry.json")


@pytest.mark.parametrize("nranks", [1, 4, 16])
def test_dry_run_equals_the_real_run(tmp_path, mapfile, nranks):
    real, dry = real_and_dry(tmp_path, mapfile, nranks)
    assert figures(dry) == figures(real)
    assert set(figures(dry)) == {"h0", "h1"}
    assert dry["params"]["dry_run"] is True and dry["params"]["ranks"] == nranks
    h0 = next(f for f in dry["files"] if f["label"] == "h0")
    assert h0["ranks"] == nranks and h0["operation"] == "dry_run" and h0["idle_ranks"] == 0


def test_dry_run_with_stride_and_no_sort(tmp_path, mapfile):
    real, dry = real_and_dry(tmp_path, mapfile, 4, "-s", "2", "--no-sort")
    assert figures(dry) == figures(real)
    assert dry["params"]["io_processes"] == 2 and dry["params"]["sort"] is False
    # no sort: more requests than the sorted plan of the same ranks
    sorted_dry = iok(1, "e3sm", "-q", "-r", "2", "--dry-run", "--ranks", "4", "-s", "2", "--json",
                     tmp_path / "sorted.json", mapfile)
    assert sorted_dry.returncode == 0
    unsorted = figures(dry)["h0"][0]["total"]
    assert unsorted > figures(load_json(tmp_path / "sorted.json"))["h0"][0]["total"]


def test_more_ranks_than_map_processes_leave_ranks_idle_and_open_no_file(tmp_path, mapfile):
    before = set(tmp_path.iterdir())
    p = iok(1, "e3sm", "--dry-run", "--ranks", "40", "--json", tmp_path / "d.json", mapfile)
    assert set(tmp_path.iterdir()) - before == {tmp_path / "d.json"}
    doc = load_json(tmp_path / "d.json")
    for f in doc["files"]:
        assert f["ranks"] == 40 and f["idle_ranks"] == 40 - 16  # ranks >= the map's 16 processes own nothing
        assert f["requests"]["min"] == 0
    assert "as 40 ranks would write it (dry run)" in p.stdout and "no file was opened" in p.stdout
    # the bytes of the whole file do not depend on the rank count
    small = iok(1, "e3sm", "-q", "--dry-run", "--ranks", "3", "--json", tmp_path / "d3.json", mapfile)
    assert small.returncode == 0
    assert [f["bytes"]["total"] for f in load_json(tmp_path / "d3.json")["files"]] == \
        [f["bytes"]["total"] for f in doc["files"]]


def test_ranks_without_dry_run_is_refused(tmp_path, mapfile):
    p = iok(2, "e3sm", "--ranks", "8", "-o", tmp_path / "o.nc", mapfile, check=False, timeout=60)
    assert_all_ranks_fail(p, "--ranks needs --dry-run")
    assert not (tmp_path / "o_h0.nc").exists()


def test_negative_ranks_are_refused(tmp_path, mapfile):
    p = iok(1, "e3sm", "--dry-run", "--ranks", "-3", mapfile, check=False, timeout=60)
    assert p.returncode != 0 and "--ranks" in p.stderr


# ---- s3d ----------------------------------------------------------------------

@pytest.mark.parametrize("nranks,procs", [(1, "1,1,1"), (8, "2,2,2"), (16, "4,2,2")])
def test_s3d_dry_run_equals_the_real_run(tmp_path, nranks, procs):
    grid = ["--grid", "40,24,16", "--procs", procs, "-c", "2"]
    iok(nranks, "s3d", "-q", *grid, "-o", tmp_path, "--no-verify", "--json", tmp_path / "real.json")
    iok(1, "s3d", "-q", *grid, "--dry-run", "--ranks", str(nranks), "--json", tmp_path / "dry.json")
    real, dry = load_json(tmp_path / "real.json"), load_json(tmp_path / "dry.json")
    real["files"] = [f for f in real["files"] if f["mode"] == "write"]
    assert figures(dry) == figures(real)
    # 4 arrays of 16 doubles per grid point, whatever the rank count
    assert [f["bytes"]["total"] for f in dry["files"]] == [40 * 24 * 16 * 128] * 2
    assert all(f["requests"]["max"] == f["requests"]["min"] == 4 for f in dry["files"])


def test_s3d_dry_run_at_a_million_ranks_opens_nothing(tmp_path):
    p = iok(1, "s3d", "--dry-run", "--ranks", "1000000", "--local", "4,4,4", "-c", "1", "-o", tmp_path / "absent",
            "--json", tmp_path / "d.json", timeout=120)
    f = load_json(tmp_path / "d.json")["files"][0]
    assert f["ranks"] == 1000000 and f["requests"]["total"] == 4 * 1000000
    assert f["bytes"]["total"] == 400 * 400 * 400 * 128 and f["bytes"]["max"] == f["bytes"]["min"] == 64 * 128
    assert re.search(r"Process grid X x Y x Z += 100 x 100 x 100", p.stdout), p.stdout
    assert not (tmp_path / "absent").exists()


def test_s3d_dry_run_process_grid_must_match_ranks(tmp_path):
    p = iok(1, "s3d", "--dry-run", "--ranks", "8", "--procs", "2,2,1", "--grid", "40,40,40", check=False, timeout=60)
    assert_all_ranks_fail(p, "2 x 2 x 1 = 4 processes")


# The driver's own dry run (driver/kernel.hpp): every kernel has --dry-run,
# a census of its plan over the run's ranks that opens nothing.  vpic and
# bdcats had none before the lifecycle; their figures must be the real run's.
VPIC = ("--dim-1", "1000", "--timesteps", "2")


@pytest.mark.parametrize("nranks", [1, 4])
def test_vpic_dry_run_counts_what_the_real_run_writes(tmp_path, nranks):
    before = set(tmp_path.iterdir())
    p = iok(nranks, "vpic", "-q", "--dry-run", "--json", tmp_path / "dry.json", "-o", tmp_path / "p.h5", *VPIC)
    assert p.returncode == 0
    assert set(tmp_path.iterdir()) - before == {tmp_path / "dry.json"}  # nothing opened, nothing created
    dry = load_json(tmp_path / "dry.json")
    assert dry["params"]["dry_run"] is True and dry["params"]["ranks"] == nranks
    [f] = dry["files"]
    # 8 fields of 4 bytes, 1000 particles per rank, 2 time steps
    assert int(f["bytes"]["total"]) == nranks * 1000 * 32 * 2
    assert int(f["bytes"]["max"]) == int(f["bytes"]["min"]) == 1000 * 32 * 2
    assert f["kind"] == "write" and f["role"] == "particles"
    iok(nranks, "vpic", "-q", "--json", tmp_path / "real.json", "-o", tmp_path / "p.h5", *VPIC)
    [w] = load_json(tmp_path / "real.json")["files"]
    assert int(w["bytes"]["total"]) == int(f["bytes"]["total"])


def test_bdcats_dry_run_needs_no_input_file(tmp_path):
    p = iok(4, "bdcats", "--dry-run", "--json", tmp_path / "dry.json", "-i", tmp_path / "absent.h5", *VPIC)
    assert p.returncode == 0 and "Dry run: no file was opened." in p.stdout
    [f] = load_json(tmp_path / "dry.json")["files"]
    assert f["kind"] == "read" and int(f["bytes"]["total"]) == 4 * 1000 * 32 * 2


def test_without_dry_run_a_missing_input_is_refused_on_every_rank(tmp_path):
    p = iok(4, "bdcats", "-i", tmp_path / "absent.h5", *VPIC, check=False)
    assert_all_ranks_fail(p, "absent.h5")
