"""E3SM kernel on PnetCDF (and MPI-IO): the facts of the spec, on real MPI
with 1, 4 and 16 ranks.  Needs the user's maps in ../shared (skips without)."""
import re
import shutil
import subprocess

import numpy as np
import pytest

from conftest import IOKERNELS, assert_all_ranks_fail, iok, load_json

netCDF4 = pytest.importorskip("netCDF4")


def header(path):
    """ncmpidump -h without the name/format lines and record counts."""
    out = subprocess.run(["ncmpidump", "-h", str(path)], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()[2:]
    return [re.sub(r"// \(\d+ currently\)", "", l).rstrip() for l in lines]


def listing(path):
    lines = path.read_text().splitlines()[2:]
    return [re.sub(r"// \(\d+ currently\)", "", l).rstrip() for l in lines]


def run_case(tmp, nranks, mapfile, *args, name="out.nc", json_name="r.json"):
    out = tmp / name
    res = tmp / json_name
    iok(nranks, "e3sm", "-k", "-q", "--json", res, "-o", out, *args, mapfile)
    return out, load_json(res)


def by_label(result, mode="write"):
    return {f["label"]: f for f in result["files"] if f["mode"] == mode}


def test_f_case_16_ranks_requests_bytes_and_headers(tmp_path, e3sm_maps):
    mapfile = e3sm_maps / "map_f_case_16p.nc"
    out, res = run_case(tmp_path, 16, mapfile, "--verify")
    files = by_label(res)
    h0, h1 = files["h0"], files["h1"]
    assert (h0["requests"]["total"], h0["requests"]["max"], h0["requests"]["min"]) == (1977687, 189503, 63170)
    assert (h1["requests"]["total"], h1["requests"]["max"], h1["requests"]["min"]) == (38332, 3668, 1225)
    # bytes: fixed-size part 24,292 + one record of 33,649,404 (double)
    assert h0["bytes"]["total"] == 24292 + 33649404
    assert h1["bytes"]["total"] == 24292 + 637484
    assert h0["variables"] == 414 and h0["attributes"] == 1421
    assert h1["variables"] == 51
    assert res["summary"]["verification_mismatches"] == 0
    reads = by_label(res, "read")
    assert reads["h0"]["verify"]["mismatches"] == 0
    # manifest: who ran, with what
    man = res["manifest"]
    assert man["processes"] == 16
    assert "pnetcdf" in man["libraries"]
    assert man["mpiio_layer"] in ("ROMIO", "OMPIO")
    assert man["inputs"][0]["role"] == "map" and len(man["inputs"][0]["fnv1a64"]) == 16


def test_f_case_float_headers_match_reference_listing(tmp_path, e3sm_maps):
    """With float record variables (-j) the headers equal the reference listings."""
    out, res = run_case(tmp_path, 4, e3sm_maps / "map_f_case_16p.nc", "-j")
    assert by_label(res)["h0"]["bytes"]["total"] == 24292 + 16824756
    assert header(tmp_path / "out_h0.nc") == listing(e3sm_maps / "f_case_h0.txt")
    assert header(tmp_path / "out_h1.nc") == listing(e3sm_maps / "f_case_h1.txt")


def test_g_case_header_matches_reference_listing(tmp_path, e3sm_maps):
    out, res = run_case(tmp_path, 4, e3sm_maps / "map_g_case_16p.nc", "-j", "-r", "2", "--verify")
    # the listing is of the full-size ocean mesh (g_case_cmpaso_16p.nc); the
    # test map is smaller, so dimension lengths differ and nothing else may
    ours, ref = header(out), listing(e3sm_maps / "g_case_hist.txt")
    strip = lambda lines: [re.sub(r"^(\t\w+) = \d+ ;$", r"\1 = N ;", l) for l in lines]
    assert strip(ours) == strip(ref)
    assert "\tnCells = 285 ;" in ours
    f = by_label(res)["hist"]
    assert f["variables"] == 52 and f["records"] == 2
    assert by_label(res, "read")["hist"]["verify"]["mismatches"] == 0


def read_all(path):
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        return {name: np.array(v[...]) for name, v in ds.variables.items()}


@pytest.mark.parametrize("nranks", [1, 4])
def test_f_case_data_identical_across_rank_counts(tmp_path, e3sm_maps, nranks):
    mapfile = e3sm_maps / "map_f_case_16p.nc"
    run_case(tmp_path, 16, mapfile, "-r", "2", name="p16.nc", json_name="a.json")
    run_case(tmp_path, nranks, mapfile, "-r", "2", name="pn.nc", json_name="b.json")
    for label in ("h0", "h1"):
        a = read_all(tmp_path / f"p16_{label}.nc")
        b = read_all(tmp_path / f"pn_{label}.nc")
        assert a.keys() == b.keys()
        for name in a:
            assert np.array_equal(a[name], b[name]), f"{label}:{name} differs between 16 and {nranks} ranks"


def test_i_case_fill_mode(tmp_path, e3sm_maps):
    """Uncovered elements: holes (zeros) without fill mode, _FillValue with it."""
    mapfile = e3sm_maps / "map_i_case_16p.nc"
    run_case(tmp_path, 4, mapfile, "-f", "1", "--verify", name="nofill.nc", json_name="a.json")
    out, res = run_case(tmp_path, 4, mapfile, "-f", "1", "--fill", "--verify", name="fill.nc", json_name="b.json")
    assert res["summary"]["verification_mismatches"] == 0
    with netCDF4.Dataset(tmp_path / "fill_h1.nc") as fill, netCDF4.Dataset(tmp_path / "nofill_h1.nc") as hole:
        fill.set_auto_mask(False)
        hole.set_auto_mask(False)
        # a partitioned 2-D land variable: uncovered cells (ocean) are ~59%
        name = next(n for n, v in fill.variables.items() if v.dimensions == ("time", "lat", "lon"))
        fv = fill.variables[name]._FillValue
        a = np.array(fill.variables[name][0])
        b = np.array(hole.variables[name][0])
        uncovered = a == fv
        assert 0.4 < uncovered.mean() < 0.8, uncovered.mean()
        assert np.all(b[uncovered] == 0)
        assert np.array_equal(a[~uncovered], b[~uncovered])


def test_read_verification_catches_one_flipped_value(tmp_path, e3sm_maps):
    mapfile = e3sm_maps / "map_g_case_16p.nc"
    out, _ = run_case(tmp_path, 4, mapfile)
    # good file: the read test passes
    iok(4, "e3sm", "-q", "-i", out, mapfile)
    with netCDF4.Dataset(out, "r+") as ds:
        ds.set_auto_mask(False)
        v = ds.variables["temperature"]
        v[0, 5, 3] = v[0, 5, 3] + 1.0
    p = iok(4, "e3sm", "-q", "-i", out, mapfile, check=False)
    assert_all_ranks_fail(p, "verification failed", "variable temperature", "element 503")


def test_mpiio_backend_writes_the_raw_layout(tmp_path, e3sm_maps):
    out, res = run_case(tmp_path, 4, e3sm_maps / "map_g_case_16p.nc", "-a", "mpiio", "--verify", name="g.dat")
    f = by_label(res)["hist"]
    assert f["bytes_on_disk"] == f["bytes"]["total"]  # no header, no holes in G
    assert res["summary"]["verification_mismatches"] == 0


# ---- bad input: one clear message, non-zero exit on every rank, quickly ----

def test_truncated_map(tmp_path, e3sm_maps):
    bad = tmp_path / "trunc.nc"
    data = (e3sm_maps / "map_f_case_16p.nc").read_bytes()
    bad.write_bytes(data[: len(data) // 2])
    p = iok(4, "e3sm", "-o", tmp_path / "o.nc", bad, check=False, timeout=60)
    assert_all_ranks_fail(p, "truncated")
    assert not list(tmp_path.glob("o*"))


def test_map_offsets_out_of_range(tmp_path, e3sm_maps):
    bad = tmp_path / "range.nc"
    shutil.copy(e3sm_maps / "map_g_case_16p.nc", bad)
    bad.chmod(0o644)
    with netCDF4.Dataset(bad, "r+") as ds:
        ds.variables["D1.offsets"][3] = 10**9
    p = iok(4, "e3sm", "-o", tmp_path / "o.nc", bad, check=False, timeout=60)
    assert_all_ranks_fail(p, "D1")


def test_unknown_option(tmp_path, e3sm_maps):
    p = iok(4, "e3sm", "--no-such-option", "-o", tmp_path / "o.nc", e3sm_maps / "map_g_case_16p.nc",
            check=False, timeout=60)
    assert_all_ranks_fail(p, "--no-such-option")


def test_missing_output_directory(tmp_path, e3sm_maps):
    p = iok(4, "e3sm", "-o", tmp_path / "nope" / "o.nc", e3sm_maps / "map_g_case_16p.nc", check=False, timeout=60)
    assert_all_ranks_fail(p, "does not exist")


def test_unwritable_output_path(tmp_path, e3sm_maps):
    # /proc refuses new files even for root
    p = iok(4, "e3sm", "-o", "/proc/iokernels_out.nc", e3sm_maps / "map_g_case_16p.nc", check=False, timeout=60)
    assert p.returncode != 0
    assert p.stderr.count("error:") == 1, p.stderr


def test_refuses_to_clobber_a_file_it_did_not_create(tmp_path, e3sm_maps):
    victim = tmp_path / "keep.nc"
    victim.write_text("precious")
    p = iok(2, "e3sm", "-o", victim, e3sm_maps / "map_g_case_16p.nc", check=False, timeout=60)
    assert_all_ranks_fail(p, "already exists")
    assert victim.read_text() == "precious"


def test_missing_map(tmp_path):
    p = iok(4, "e3sm", "-o", tmp_path / "o.nc", tmp_path / "absent.nc", check=False, timeout=60)
    assert_all_ranks_fail(p, "does not exist")


def test_help_lists_options_with_defaults():
    out = subprocess.run([str(IOKERNELS), "e3sm", "--help"], capture_output=True, text=True, check=True).stdout
    for opt in ("--records", "--hist", "--stride", "--strategy", "--subfiles", "--noncontig-buffer",
                "--float", "--fill", "--no-sort", "--verify", "--json", "--keep", "--overwrite", "--hint"):
        assert opt in out, opt
    assert "[1]" in out  # records default shown


@pytest.mark.parametrize("backend", ["pnetcdf", "hdf5"])
def test_rearrange_strategy_verifies_and_matches_canonical(tmp_path, e3sm_maps, backend):
    mapfile = e3sm_maps / "map_g_case_16p.nc"
    ext = ".nc" if backend == "pnetcdf" else ".h5"
    out, res = run_case(tmp_path, 4, mapfile, "-a", backend, "-x", "rearrange", "--param", "aggregators=2",
                        "-r", "2", "--verify", name="ra" + ext)
    assert res["params"]["strategy"] == "rearrange"
    assert res["summary"]["verification_mismatches"] == 0
    # the rearranged file is canonical: the plain read test of the same backend verifies it
    iok(3, "e3sm", "-q", "-a", backend, "-r", "2", "-i", out, mapfile)
