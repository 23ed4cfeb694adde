"""GCRM kernel end to end: the reference README case (byte count and file
names from the plan), real runs of every fcfg configuration and I/O method on
4 and 20 ranks, every backend, headers, clear errors, stale-file refusal and
verification that fails on corrupted data.  Runs use level 3 (642 cells) to
stay small on 2 oversubscribed cores."""
import re
import shutil
import subprocess

import pytest

from conftest import IOKERNELS, assert_all_ranks_fail, iok, load_json, registered_backends

README_FILES = """cloud_ice_19010101_000000.nc cloud_water_19010101_000000.nc divergence_19010101_000000.nc
exner_lyr_19010101_000000.nc geopotential_19010101_000000.nc graupel_mmr_19010101_000000.nc grid.nc
heat_flux_vdiff_19010101_000000.nc heating_latent_19010101_000000.nc heating_lw_19010101_000000.nc
heating_lw_cs_19010101_000000.nc heating_sw_19010101_000000.nc heating_sw_cs_19010101_000000.nc
ke_19010101_000000.nc mass_19010101_000000.nc olr_19010101_000000.nc prec_frz_19010101_000000.nc
prec_tot_19010101_000000.nc pressure_19010101_000000.nc qci_tend_micro_19010101_000000.nc
qcw_tend_micro_19010101_000000.nc qgr_tend_micro_19010101_000000.nc qrw_tend_micro_19010101_000000.nc
qsn_tend_micro_19010101_000000.nc qwv_tend_micro_19010101_000000.nc rain_mmr_19010101_000000.nc
rel_vorticity_19010101_000000.nc restart.nc19010101_000000.nc restart.nc19010101_000100.nc
snow_mmr_19010101_000000.nc strm_func_19010101_000000.nc swinc_19010101_000000.nc
temperature_19010101_000000.nc vel_pot_19010101_000000.nc vorticity_19010101_000000.nc
water_vapor_19010101_000000.nc wind_19010101_000000.nc wind_crn_ew_19010101_000000.nc
wind_crn_ns_19010101_000000.nc wtr_flux_vdiff_19010101_000000.nc w_vert_19010101_000000.nc""".split()

CONFIGS = {  # fcfg -> (history files at one dump, physics needed)
    "ZGrd.LZ.fcfg.nophys": 11,
    "ZGrd.CP.lyr.fcfg": 38,
    "ZGrd.CP.lyr.fcfg.groups": 12,
    "ZGrd.CP.lyr.fcfg.one": 1,
    "ZGrd.CP.fcfg": 38,
}
METHODS = ["nonblocking_collective", "nonblocking_independent", "blocking_collective", "blocking_independent"]


@pytest.fixture
def gcrm(shared, tmp_path):
    """A private copy of the inputs (zgrd.in points its outputs elsewhere)."""
    src = shared / "datasets" / "gcrm"
    d = tmp_path / "in"
    shutil.copytree(src, d)
    for f in d.iterdir():
        f.chmod(0o644)
    (tmp_path / "out").mkdir()
    return d


def passed(proc):
    return re.search(r"Verification\s+= passed", proc.stdout) is not None


def nc_backend():
    return "pnetcdf" if "pnetcdf" in registered_backends() else "mpiio"


def run_gcrm(n, gcrm, *args, check=True):
    out = gcrm.parent / "out"
    js = gcrm.parent / f"r{n}.json"
    p = iok(n, "gcrm", gcrm / "zgrd.in", "-o", out, "--json", js, *args, check=check)
    return p, out, js


def test_readme_case_plan(gcrm):
    """20 ranks, zgrd.in as shipped: exactly the reference's bytes and file names."""
    p, out, _ = run_gcrm(20, gcrm, "--dry-run")
    assert "plan total data bytes = 3654442380" in p.stdout
    names = sorted(line.split()[2].rsplit("/", 1)[1] for line in p.stdout.splitlines() if line.startswith("plan ") and " records " in line)
    assert names == sorted(README_FILES)
    assert "sbdmn_iota                         = 1" in p.stdout
    assert "nsdm (local blocks)                = 2" in p.stdout
    assert list(out.iterdir()) == []  # dry run wrote nothing


@pytest.mark.parametrize("fcfg", sorted(CONFIGS))
def test_each_config_4_ranks(gcrm, fcfg):
    p, out, js = run_gcrm(4, gcrm, "--level", "3", "--fcfg", gcrm / fcfg, "-a", nc_backend(), "-k")
    assert passed(p)
    r = load_json(js)
    files = sorted(x.name for x in out.iterdir())
    # 1 dump at L3 (dt 900 s > 60 s): history files + grid + one restart
    assert len(files) == CONFIGS[fcfg] + 2
    assert r["summary"]["write_bytes"] == r["summary"]["planned_data_bytes"] == r["summary"]["read_bytes"]
    if fcfg == "ZGrd.CP.fcfg":  # _ifc fields have no data in the model: warned, time-only files
        assert "has no data" in p.stderr


@pytest.mark.parametrize("method", METHODS)
def test_each_method_4_ranks(gcrm, method):
    p, out, js = run_gcrm(4, gcrm, "--level", "3", "--iotype", method, "--fcfg", gcrm / "ZGrd.CP.lyr.fcfg.groups",
                          "-a", nc_backend())
    assert passed(p)
    assert method in p.stdout
    if nc_backend() == "pnetcdf":
        assert ("api=varn" if method.startswith("nonblocking") else "api=blocking") in p.stdout
        assert ("independent)" if method.endswith("independent") else "collective)") in p.stdout


@pytest.mark.parametrize("fcfg,method", [("ZGrd.CP.lyr.fcfg.one", m) for m in METHODS] +
                         [(c, "nonblocking_collective") for c in ("ZGrd.LZ.fcfg.nophys", "ZGrd.CP.lyr.fcfg",
                                                                   "ZGrd.CP.lyr.fcfg.groups", "ZGrd.CP.fcfg")])
def test_configs_and_methods_20_ranks(gcrm, fcfg, method):
    p, _, js = run_gcrm(20, gcrm, "--level", "3", "--iotype", method, "--fcfg", gcrm / fcfg, "-a", nc_backend(), "-q")
    assert passed(p)
    assert load_json(js)["params"]["nprocs"] == 20


@pytest.mark.parametrize("backend", ["hdf5", "netcdf4", "adios", "mpiio"])
def test_backends(gcrm, backend):
    if backend not in registered_backends():
        pytest.skip(f"{backend} not in this build")
    p, out, js = run_gcrm(4, gcrm, "--level", "3", "--fcfg", gcrm / "ZGrd.CP.lyr.fcfg.groups", "-a", backend)
    assert passed(p)
    s = load_json(js)["summary"]
    assert s["write_bytes"] == s["planned_data_bytes"] == s["read_bytes"] > 0


def test_headers_and_json(gcrm):
    if "pnetcdf" not in registered_backends():
        pytest.skip("needs pnetcdf")
    p, out, js = run_gcrm(4, gcrm, "--level", "4", "--fcfg", gcrm / "ZGrd.CP.lyr.fcfg.groups", "-k")
    hdr = subprocess.run(["ncmpidump", "-h", str(out / "wind_19010101_000000.nc")], capture_output=True, text=True).stdout
    # L4: N = 2562 cells, 5120 corners, 7680 edges
    for frag in ["time = UNLIMITED ; // (1 currently)", "corners = 5120 ;", "edges = 7680 ;", "layers = 256 ;",
                 "interfaces = 257 ;", "float u(time, corners, layers) ;", "float v(time, corners, layers) ;",
                 "float wind(time, edges, layers) ;", "float w_vert(time, cells, interfaces) ;",
                 'u:long_name = "U wind component at cell corners" ;', 'u:units = "m/sec" ;', 'u:location = "corner" ;',
                 ':title = "Test hydrostatic model with API" ;', ':institution = "PNNL" ;', ":history = "]:
        assert frag in hdr, frag
    hdr = subprocess.run(["ncmpidump", "-h", str(out / "restart.nc19010101_000000.nc")], capture_output=True, text=True).stdout
    for frag in ["double dbl_eta(time, nprog, cells, layers) ;", "double dbl_eta_f(time, ntend, cells, layers) ;",
                 "double dbl_mss(time, nprog, cells) ;", "double dbl_ts(time, cells) ;", "nprog = 2 ;", "ntend = 3 ;"]:
        assert frag in hdr, frag
    assert "dbl_tht_ifc" not in hdr  # no data in the model: not defined
    hdr = subprocess.run(["ncmpidump", "-h", str(out / "grid.nc")], capture_output=True, text=True).stdout
    for frag in ["int grid ;", 'grid:standard_name = "mesh_topology" ;', "float grid_corner_lat(corners) ;",
                 "int edge_corners(edges, endpoints) ;", "int cell_neighbors(cells, cellneighbors) ;",
                 "float corner_cell_map_lon(cells, cellcorners) ;", "float area(cells) ;"]:
        assert frag in hdr, frag
    hdr = subprocess.run(["ncmpidump", "-h", str(out / "heating_19010101_000000.nc")], capture_output=True, text=True).stdout
    assert "float heating_sw_lyr_avg(time, cells, layers) ;" in hdr
    r = load_json(js)
    assert r["summary"]["write_bytes"] == r["summary"]["planned_data_bytes"]
    assert "nc_header_align_size" in p.stdout and "MPI File Info" in p.stdout
    assert {"write flush", "write post", "write open", "write close"} <= set(r["summary"]["api_seconds"])
    assert r["summary"]["memory_bytes"]["max"] > 0


def test_rollover_allfiles_and_restart_overwrite(gcrm):
    txt = (gcrm / "zgrd.in").read_text()
    txt = txt.replace("end_minutes 1", "end_minutes 75").replace("cdf_output_nsamples  8", "cdf_output_nsamples  3")
    txt = txt.replace("cdf_grid_option      sep_grid", "cdf_grid_option      all_files")
    txt = txt.replace("restart_interval   60", "restart_interval   2700").replace("restart_overwrite  false", "restart_overwrite  true")
    (gcrm / "zgrd.in").write_text(txt)
    # L3: dt 900 s, 75 min -> dumps at 0, 15, ..., 75 min = 6 records -> 2 files per group
    p, out, js = run_gcrm(4, gcrm, "--level", "3", "--fcfg", gcrm / "ZGrd.CP.lyr.fcfg.one", "-a", nc_backend(), "-k")
    assert passed(p)
    names = sorted(x.name for x in out.iterdir())
    ext = ".nc"
    assert names == sorted(["zgrd_19010101_000000" + ext, "zgrd_19010101_004500" + ext, "restart.nc"])


def test_model_memory_high_water(gcrm):
    p, _, js = run_gcrm(4, gcrm, "--level", "4", "--fcfg", gcrm / "ZGrd.LZ.fcfg.nophys", "-a", "mpiio",
                        "--model-memory", "--model-arrays", "250", "--no-verify")
    s = load_json(js)["summary"]
    # L4 on 4 ranks: nsdm 10, im = jm = 10: 250 * 10*10*10*256 doubles = 488 MiB per rank
    assert s["memory_bytes"]["min"] > 250 * 10 * 10 * 10 * 256 * 8
    assert "model arrays per rank    = 488.28 MiB" in p.stdout


def test_invalid_process_count_level_iotype(gcrm):
    p, _, _ = run_gcrm(3, gcrm, check=False)
    assert_all_ranks_fail(p, "GCRM cannot run on 3 processes")
    (gcrm / "bad.in").write_text("level_max 2\n")
    p = iok(4, "gcrm", gcrm / "bad.in", "-o", gcrm.parent / "out", check=False)
    assert_all_ranks_fail(p, "level_max 2 is outside 3..13")
    (gcrm / "bad.in").write_text("level_max 3\niotype interleaved\n")
    p = iok(4, "gcrm", gcrm / "bad.in", "-o", gcrm.parent / "out", check=False)
    assert_all_ranks_fail(p, "iotype 'interleaved' is not known", "bad.in:2")
    (gcrm / "bad.in").write_text("level_max 3\n")  # iota 2 on 16 ranks needs L >= 4
    p = iok(16, "gcrm", gcrm / "bad.in", "-o", gcrm.parent / "out", "--dry-run", check=False)
    assert_all_ranks_fail(p, "too coarse for 16 processes")


def test_stale_files_are_refused(gcrm):
    args = ("--level", "3", "--fcfg", gcrm / "ZGrd.CP.lyr.fcfg.one", "-a", nc_backend(), "-k")
    run_gcrm(4, gcrm, *args)
    p, _, _ = run_gcrm(4, gcrm, *args, check=False)
    assert_all_ranks_fail(p, "already exists")
    p, _, _ = run_gcrm(4, gcrm, *args, "--overwrite")
    assert passed(p)


def test_verification_fails_on_corrupted_data(gcrm):
    if "pnetcdf" not in registered_backends():
        pytest.skip("needs pnetcdf (netCDF4-python reads CDF-5)")
    args = ("--level", "3", "--fcfg", gcrm / "ZGrd.CP.lyr.fcfg.one", "-k")
    run_gcrm(4, gcrm, *args)
    ok, _, _ = run_gcrm(4, gcrm, *args, "--read-only")
    assert passed(ok)
    import netCDF4
    path = gcrm.parent / "out" / "zgrd_19010101_000000.nc"
    with netCDF4.Dataset(path, "a") as nc:
        nc["mass"][0, 100, 7] = -12345.0
    p, _, _ = run_gcrm(4, gcrm, *args, "--read-only", check=False)
    assert_all_ranks_fail(p, "verification failed", "mass")
