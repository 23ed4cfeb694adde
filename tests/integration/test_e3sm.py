"""E3SM kernel: the facts of the spec, on real MPI with 1, 4 and 16 ranks.

Most tests run on maps the project generates (e3sm_inputs.case_maps); the
ones that compare with the user's real maps and the reference listings of
real E3SM output (../shared, fixture e3sm_maps) skip without them."""
import re
import shutil
import subprocess
import zlib

import numpy as np
import pytest

from conftest import IOKERNELS, assert_all_ranks_fail, iok, load_json, registered_backends, tool
from e3sm_inputs import make_case_map
from file_values import replace_stored_value

netCDF4 = pytest.importorskip("netCDF4")


def header(path):
    """ncmpidump -h without the name/format lines and record counts."""
    out = subprocess.run(["ncmpidump", "-h", str(path)], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()[2:]
    return [re.sub(r"// \(\d+ currently\)", "", line).rstrip() for line in lines]


def listing(path):
    lines = path.read_text().splitlines()[2:]
    return [re.sub(r"// \(\d+ currently\)", "", line).rstrip() for line in lines]


def run_case(tmp, nranks, mapfile, *args, name="out.nc", json_name="r.json"):
    out = tmp / name
    res = tmp / json_name
    iok(nranks, "e3sm", "-k", "-q", "--json", res, "-o", out, *args, mapfile)
    return out, load_json(res)


def by_label(result, mode="write"):
    return {f["label"]: f for f in result["files"] if f["mode"] == mode}


def crc32(path):
    """The manifest's input checksum, computed independently."""
    return f"{zlib.crc32(path.read_bytes()):08x}"


def test_real_maps_requests_bytes_and_reference_listings(tmp_path, e3sm_maps):
    """The user's real maps (../shared), in one test so that a clone without
    them skips one: the F case at 16 ranks gives the spec's requests, bytes,
    variables and attributes (verified, with the map's checksum in the
    manifest); with float record variables (-j) the F and I headers equal the
    reference listings of real E3SM output, and the G header equals its
    listing up to dimension lengths."""
    mapfile = e3sm_maps / "map_f_case_16p.nc"
    out, res = run_case(tmp_path, 16, mapfile, "--verify", name="f16.nc", json_name="f16.json")
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
    assert by_label(res, "read")["h0"]["verify"]["mismatches"] == 0
    man = res["manifest"]
    assert man["processes"] == 16 and "pnetcdf" in man["libraries"] and man["mpiio_layer"] in ("ROMIO", "OMPIO")
    assert man["inputs"][0]["role"] == "map" and man["inputs"][0]["crc32"] == crc32(mapfile)

    # F and I with float record variables in the listings' define order
    # (--define-order listing; the default is E3SM-IO's, test_seed_layout.py):
    # the reference listings, line for line
    _, res = run_case(tmp_path, 4, mapfile, "-j", "--define-order", "listing", name="fj.nc", json_name="fj.json")
    assert by_label(res)["h0"]["bytes"]["total"] == 24292 + 16824756
    assert header(tmp_path / "fj_h0.nc") == listing(e3sm_maps / "f_case_h0.txt")
    assert header(tmp_path / "fj_h1.nc") == listing(e3sm_maps / "f_case_h1.txt")
    run_case(tmp_path, 4, e3sm_maps / "map_i_case_16p.nc", "-j", "--define-order", "listing", name="ij.nc",
             json_name="ij.json")
    assert header(tmp_path / "ij_h0.nc") == listing(e3sm_maps / "i_case_h0.txt")
    assert header(tmp_path / "ij_h1.nc") == listing(e3sm_maps / "i_case_h1.txt")

    # G: the listing is of the full-size ocean mesh (g_case_cmpaso_16p.nc); the
    # 16-process map is smaller, so dimension lengths differ and nothing else may
    out, res = run_case(tmp_path, 4, e3sm_maps / "map_g_case_16p.nc", "-j", "-r", "2", "--verify",
                        "--define-order", "listing", name="g.nc", json_name="g.json")
    ours, ref = header(out), listing(e3sm_maps / "g_case_hist.txt")
    def strip(lines):
        return [re.sub(r"^(\t\w+) = \d+ ;$", r"\1 = N ;", line) for line in lines]
    assert strip(ours) == strip(ref)
    assert "\tnCells = 285 ;" in ours
    f = by_label(res)["hist"]
    assert f["variables"] == 52 and f["records"] == 2
    assert by_label(res, "read")["hist"]["verify"]["mismatches"] == 0


def read_all(path):
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_mask(False)
        return {name: np.array(v[...]) for name, v in ds.variables.items()}


@pytest.fixture(scope="module")
def f_case_16_ranks(case_maps, tmp_path_factory):
    """The F case written by 16 ranks, once for the rank-count comparisons."""
    d = tmp_path_factory.mktemp("f16")
    run_case(d, 16, case_maps / "map_f_case_16p.nc", "-r", "2", name="p16.nc", json_name="a.json")
    return d


def test_f_case_16_ranks_bytes_variables_and_manifest(case_maps, f_case_16_ranks):
    """The generated F map is E3SM's (test_e3sm_mapgen): the spec's requests
    at 16 ranks (h0: one record), bytes (fixed 24,292 + 33,649,404 per double
    record in h0, 637,484 in h1), variables and attributes; the manifest
    names the run and the map's checksum."""
    files = by_label(load_json(f_case_16_ranks / "a.json"))
    h0, h1 = files["h0"], files["h1"]
    assert (h0["requests"]["total"], h0["requests"]["max"], h0["requests"]["min"]) == (1977687, 189503, 63170)
    assert h0["records"] == 1 and h1["records"] == 2
    assert h0["bytes"]["total"] == 24292 + 33649404
    assert h1["bytes"]["total"] == 24292 + 2 * 637484
    assert h0["variables"] == 414 and h0["attributes"] == 1421 and h1["variables"] == 51
    man = load_json(f_case_16_ranks / "a.json")["manifest"]
    assert man["processes"] == 16 and "pnetcdf" in man["libraries"] and man["mpiio_layer"] in ("ROMIO", "OMPIO")
    mapfile = case_maps / "map_f_case_16p.nc"
    assert man["inputs"][0]["role"] == "map" and man["inputs"][0]["crc32"] == crc32(mapfile)


@pytest.mark.parametrize("nranks", [1, 4])
def test_f_case_data_identical_across_rank_counts(tmp_path, case_maps, f_case_16_ranks, nranks):
    run_case(tmp_path, nranks, case_maps / "map_f_case_16p.nc", "-r", "2", name="pn.nc", json_name="b.json")
    for label, nvars in (("h0", 414), ("h1", 51)):
        a = read_all(f_case_16_ranks / f"p16_{label}.nc")
        b = read_all(tmp_path / f"pn_{label}.nc")
        assert sorted(a) == sorted(b) and len(a) == nvars
        for name in a:
            assert np.array_equal(a[name], b[name]), f"{label}:{name} differs between 16 and {nranks} ranks"


def test_i_case_fill_mode(tmp_path, case_maps):
    """Uncovered elements: holes (zeros) without fill mode, _FillValue with it."""
    mapfile = case_maps / "map_i_case_16p.nc"
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


def test_read_verification_catches_one_flipped_value(tmp_path, case_maps):
    mapfile = case_maps / "map_g_case_16p.nc"
    out, _ = run_case(tmp_path, 4, mapfile)
    # good file: the read test passes
    iok(4, "e3sm", "-q", "-i", out, mapfile)
    with netCDF4.Dataset(out, "r+") as ds:
        ds.set_auto_mask(False)
        v = ds.variables["temperature"]
        v[0, 5, 3] = v[0, 5, 3] + 1.0
        element = 5 * v.shape[2] + 3
    p = iok(4, "e3sm", "-q", "-i", out, mapfile, check=False)
    assert_all_ranks_fail(p, "verification failed", "variable temperature", f"element {element}")


def test_mpiio_backend_writes_the_raw_layout(tmp_path, case_maps):
    """MPI-IO's raw layout: every variable's bytes back to back, nothing else;
    its size equals the data of the same case written through NetCDF."""
    mapfile = case_maps / "map_g_case_16p.nc"
    out, res = run_case(tmp_path, 4, mapfile, "-a", "mpiio", "--verify", "-r", "2", name="g.dat")
    nc, _ = run_case(tmp_path, 4, mapfile, "-r", "2", name="g.nc", json_name="nc.json")
    with netCDF4.Dataset(nc) as ds:
        data_bytes = sum(v.size * v.dtype.itemsize for v in ds.variables.values())
    assert out.stat().st_size == data_bytes
    assert res["summary"]["verification_mismatches"] == 0


# ---- bad input: one clear message, non-zero exit on every rank, quickly ----

def test_truncated_map(tmp_path, case_maps):
    bad = tmp_path / "trunc.nc"
    data = (case_maps / "map_f_case_16p.nc").read_bytes()
    bad.write_bytes(data[: len(data) // 2])
    p = iok(4, "e3sm", "-o", tmp_path / "o.nc", bad, check=False, timeout=60)
    assert_all_ranks_fail(p, "truncated")
    assert not list(tmp_path.glob("o*"))


def test_map_offsets_out_of_range(tmp_path, case_maps):
    bad = tmp_path / "range.nc"
    shutil.copy(case_maps / "map_g_case_16p.nc", bad)
    bad.chmod(0o644)
    with netCDF4.Dataset(bad, "r+") as ds:
        ds.variables["D1.offsets"][3] = 10**9
    p = iok(4, "e3sm", "-o", tmp_path / "o.nc", bad, check=False, timeout=60)
    assert_all_ranks_fail(p, "D1")


def test_unknown_option(tmp_path, case_maps):
    p = iok(4, "e3sm", "--no-such-option", "-o", tmp_path / "o.nc", case_maps / "map_g_case_16p.nc",
            check=False, timeout=60)
    assert_all_ranks_fail(p, "--no-such-option")


def test_missing_output_directory(tmp_path, case_maps):
    p = iok(4, "e3sm", "-o", tmp_path / "nope" / "o.nc", case_maps / "map_g_case_16p.nc", check=False, timeout=60)
    assert_all_ranks_fail(p, "does not exist")


def test_output_under_a_regular_file(tmp_path, case_maps):
    (tmp_path / "plain").write_text("a file, not a directory")
    p = iok(4, "e3sm", "-o", tmp_path / "plain" / "o.nc", case_maps / "map_g_case_16p.nc", check=False, timeout=60)
    assert_all_ranks_fail(p, f"output directory {tmp_path / 'plain'} is not a directory (it is a regular file)")
    assert (tmp_path / "plain").read_text() == "a file, not a directory"


def test_refuses_to_clobber_a_file_it_did_not_create(tmp_path, case_maps):
    victim = tmp_path / "keep.nc"
    victim.write_text("precious")
    p = iok(2, "e3sm", "-o", victim, case_maps / "map_g_case_16p.nc", check=False, timeout=60)
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
def test_rearrange_strategy_verifies_and_matches_canonical(tmp_path, case_maps, backend):
    mapfile = case_maps / "map_g_case_16p.nc"
    ext = ".nc" if backend == "pnetcdf" else ".h5"
    out, res = run_case(tmp_path, 4, mapfile, "-a", backend, "-x", "rearrange", "--param", "aggregators=2",
                        "-r", "2", "--verify", name="ra" + ext)
    assert res["params"]["strategy"] == "rearrange"
    assert res["summary"]["verification_mismatches"] == 0
    # the rearranged file is canonical: the plain read test of the same backend verifies it
    iok(3, "e3sm", "-q", "-a", backend, "-r", "2", "-i", out, mapfile)


@pytest.mark.parametrize("exchange_kib", ["0", "1"])
def test_rearrange_exchanges_in_any_batches_write_the_canonical_bytes(tmp_path, case_maps, exchange_kib):
    """By default a flush's variables travel in one exchange; 0 sends every
    variable on its own and 1 KiB cuts a flush into many exchanges.  Either
    way the file is the canonical one, byte for byte, and reads back."""
    mapfile = case_maps / "map_g_case_16p.nc"
    canon, _ = run_case(tmp_path, 4, mapfile, "-r", "2", name="c.nc", json_name="c.json")
    out, res = run_case(tmp_path, 4, mapfile, "-x", "rearrange", "--param", "rearrange.aggregators=2",
                        "--param", f"rearrange.exchange_kib={exchange_kib}", "-r", "2", "--verify", name="ra.nc")
    assert res["params"]["backend_params"]["rearrange.exchange_kib"] == exchange_kib
    assert res["summary"]["verification_mismatches"] == 0
    assert out.stat().st_size > 100_000 and out.read_bytes() == canon.read_bytes()


def test_rearrange_of_sorted_and_unsorted_requests_writes_the_canonical_bytes(tmp_path, case_maps):
    """Aggregators order the pieces they receive by offset, whether each rank
    sent them sorted (the default plan) or not (--no-sort), and copy pieces
    of every size (1 to many elements): the canonical file, byte for byte,
    on 3 aggregators of 4 ranks."""
    mapfile = case_maps / "map_g_case_16p.nc"
    canon, _ = run_case(tmp_path, 4, mapfile, "-r", "2", name="c.nc", json_name="c.json")
    for opts, name in (((), "sorted.nc"), (("--no-sort",), "unsorted.nc")):
        out, res = run_case(tmp_path, 4, mapfile, "-x", "rearrange", "--param", "rearrange.aggregators=3", *opts,
                            "-r", "2", "--verify", name=name, json_name=name + ".json")
        assert res["summary"]["verification_mismatches"] == 0, name
        assert out.stat().st_size > 100_000 and out.read_bytes() == canon.read_bytes(), name


# ---- every library: write, read back, and a changed value is caught --------

LIBRARIES = {"pnetcdf": ".nc", "hdf5": ".h5", "hdf5_md": ".h5", "netcdf4": ".nc4", "adios": ".bp", "mpiio": ".dat"}


@pytest.fixture(scope="module")
def g_temperature(case_maps, tmp_path_factory):
    """temperature[0, 7, 2] of the G case as every library writes it (the
    data do not depend on the library: test_e3sm_strategies compares them)."""
    d = tmp_path_factory.mktemp("gref")
    out, _ = run_case(d, 4, case_maps / "map_g_case_16p.nc", "-r", "1")
    with netCDF4.Dataset(out) as ds:
        ds.set_auto_mask(False)
        return ds.variables["temperature"][0, 7, 2]


@pytest.mark.parametrize("library", sorted(LIBRARIES))
def test_read_back_on_every_library_catches_a_changed_value(tmp_path, case_maps, g_temperature, library):
    if library not in registered_backends():
        pytest.skip(f"{library} not in this build")
    mapfile = case_maps / "map_g_case_16p.nc"
    out, res = run_case(tmp_path, 4, mapfile, "-a", library, "-r", "1", "--verify", name="g" + LIBRARIES[library])
    assert res["params"]["backend"] == library
    assert by_label(res, "read")["hist"]["verify"]["mismatches"] == 0
    replace_stored_value(out, g_temperature)
    p = iok(4, "e3sm", "-q", "-a", library, "-r", "1", "-i", out, mapfile, check=False)
    assert_all_ranks_fail(p, "verification failed", "temperature")


def test_adios_canonical_bpls_lists_the_variables(tmp_path, case_maps):
    if "adios" not in registered_backends():
        pytest.skip("adios not in this build")
    out, res = run_case(tmp_path, 4, case_maps / "map_g_case_16p.nc", "-a", "adios", "-r", "2", "--verify",
                        name="g.bp")
    assert res["summary"]["verification_mismatches"] == 0
    bpls = tool("bpls", "bpls.mpi")
    listed = subprocess.run([bpls, "-l", str(out)], capture_output=True, text=True, check=True).stdout
    names = {line.split()[1] for line in listed.splitlines() if len(line.split()) > 1}
    assert {"temperature", "salinity", "xtime"} <= names
    assert len([n for n in names if not n.startswith("__")]) == 52


@pytest.mark.parametrize("nranks", [4, 16])
def test_netcdf4_f_case_on_several_ranks(tmp_path, nranks):
    """Regression: nc_enddef failed ("Problem with HDF5 dimscales") on more
    than one rank until files were created with NC_NODIMSCALE_ATTACH.  A
    small F map (ne2, 8 levels): NetCDF-4 takes minutes for the ne4 one on
    16 oversubscribed ranks (one H5Dwrite per run; issue 19)."""
    if "netcdf4" not in registered_backends():
        pytest.skip("netcdf4 not in this build")
    mapfile = make_case_map("F", tmp_path / "f_ne2.nc", 16, "cdf5", "--ne", "2", "--nlev", "8")
    out, res = run_case(tmp_path, nranks, mapfile, "-a", "netcdf4", "-f", "1", "-r", "1", "--verify", name="f.nc4")
    f = by_label(res)["h1"]
    assert f["variables"] == 51 and f["records"] == 1
    assert by_label(res, "read")["h1"]["verify"]["mismatches"] == 0
    with netCDF4.Dataset(tmp_path / "f_h1.nc4") as ds:
        assert ds.data_model == "NETCDF4" and len(ds.variables) == 51 and len(ds.dimensions["time"]) == 1
        assert len(ds.dimensions["ncol"]) == 6 * 2 * 2 * 9 + 2 and len(ds.dimensions["lev"]) == 8


# ---- the kernel's options in real runs: each changes what it says -----------

def requests_total(res, label="hist"):
    return by_label(res)[label]["requests"]["total"]


def test_options_in_real_runs(tmp_path, case_maps):
    mapfile = case_maps / "map_g_case_16p.nc"
    _, base = run_case(tmp_path, 4, mapfile, "-r", "3", "--verify", name="base.nc", json_name="base.json")
    runs = {
        "stride": ["-s", "2"],
        "no_sort": ["--no-sort"],
        "noncontig": ["-m"],
        "two_d_first": ["-t"],
        "flush_once": ["--flush-every", "0"],
        "blocking": ["--blocking"],
        "independent": ["--independent"],
        "hint": ["--hint", "cb_nodes=2"],
    }
    got = {}
    for name, opts in runs.items():
        _, got[name] = run_case(tmp_path, 4, mapfile, "-r", "3", "--verify", *opts, name=name + ".nc",
                                json_name=name + ".json")
        assert got[name]["summary"]["verification_mismatches"] == 0, name
        assert by_label(got[name])["hist"]["bytes"]["total"] == by_label(base)["hist"]["bytes"]["total"], name
    p = {k: v["params"] for k, v in got.items()}
    assert base["params"]["io_processes"] == 4 and p["stride"]["io_processes"] == 2
    assert p["no_sort"]["sort"] is False and requests_total(got["no_sort"]) > requests_total(base)
    assert p["noncontig"]["noncontig_buffer"] is True
    assert by_label(base)["hist"]["flushes"] == 3 and by_label(got["flush_once"])["hist"]["flushes"] == 1
    assert p["blocking"]["backend_params"]["pnetcdf.api"] == "blocking"
    assert base["params"]["collective"] is True and p["independent"]["collective"] is False
    assert got["hint"]["manifest"]["mpiio_hints"]["cb_nodes"] == "2"
    # -t changes only the order: same requests and bytes
    assert requests_total(got["two_d_first"]) == requests_total(base)


# ---- --fill: the fill values are checked like the data ----------------------

def test_fill_value_changed_is_caught(tmp_path, case_maps):
    mapfile = case_maps / "map_i_case_16p.nc"
    out, res = run_case(tmp_path, 4, mapfile, "-f", "1", "--fill", name="fill.nc")
    h1 = tmp_path / "fill_h1.nc"
    with netCDF4.Dataset(h1, "r+") as ds:
        ds.set_auto_mask(False)
        name = next(n for n, v in ds.variables.items() if v.dimensions == ("time", "lat", "lon"))
        v = ds.variables[name]
        a = np.array(v[0])
        j, i = np.argwhere(a == v._FillValue)[0]  # an uncovered cell: only --fill writes it
        v[0, j, i] = 1.5
    ok = iok(4, "e3sm", "-q", "-f", "1", "-i", out, mapfile)  # without --fill the holes are not checked
    assert ok.returncode == 0
    p = iok(4, "e3sm", "-q", "-f", "1", "--fill", "-i", out, mapfile, check=False)
    assert_all_ranks_fail(p, "verification failed", name)


def test_rearranged_file_with_a_changed_value_fails_its_read(tmp_path, case_maps, g_temperature):
    mapfile = case_maps / "map_g_case_16p.nc"
    out, _ = run_case(tmp_path, 4, mapfile, "-x", "rearrange", "--param", "rearrange.aggregators=2", "-r", "1",
                      name="ra.nc")
    replace_stored_value(out, g_temperature)
    p = iok(4, "e3sm", "-q", "-x", "rearrange", "-r", "1", "-i", out, mapfile, check=False)
    assert_all_ranks_fail(p, "verification failed", "temperature")
