"""GCRM kernel end to end on inputs the tests generate (gen_inputs: a
minimal parameter, description and file configuration set in three layouts):
file names and byte counts computed here from the grid formula (cells
10*4^L+2, corners 20*4^L, edges 30*4^L, 256 layers) and checked against the
files on disk, every I/O method on 4 and 20 ranks, every backend with a
changed stored value caught by the read-back, headers, rollover, model
memory, clear errors and stale-file refusal.  Against the user's real inputs
(../shared): the reference README case's bytes and file names, the
reference's five file configurations, and their headers.  Runs use level 3
(642 cells) to stay small on 2 oversubscribed cores."""
import re
import shutil
import subprocess

import numpy as np
import pytest

from conftest import assert_all_ranks_fail, iok, load_json, pattern_value, registered_backends
from file_values import replace_stored_value
from gen_inputs import GCRM_LAYOUTS, gcrm_inputs, gcrm_vars

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

REFERENCE_CONFIGS = {  # fcfg of ../shared -> history files at one dump
    "ZGrd.LZ.fcfg.nophys": 11,
    "ZGrd.CP.lyr.fcfg": 38,
    "ZGrd.CP.lyr.fcfg.groups": 12,
    "ZGrd.CP.lyr.fcfg.one": 1,
    "ZGrd.CP.fcfg": 38,
}
METHODS = ["nonblocking_collective", "nonblocking_independent", "blocking_collective", "blocking_independent"]
EXT = {"pnetcdf": ".nc", "netcdf4": ".nc", "hdf5": ".h5", "hdf5_md": ".h5", "adios": ".bp", "mpiio": ".bin"}


# ---------------------------------------------------------------- expected files, from the grid formula

def dim_length(word, extra, level):
    """Length of one dimension keyword of the description at `level`; None for time."""
    cells, corners, edges = 10 * 4 ** level + 2, 20 * 4 ** level, 30 * 4 ** level
    return {"time": None, "cells": cells, "i_cell_corners": corners, "i_uniq_corner": corners,
            "i_cell_edges": edges, "i_uniq_edge": edges, "celledges": 6, "endpoints": 2,
            "layers": 256, "interfaces": 257,
            "nprog": 2 if "index all" in extra else 1,  # else one slice of the prognostic index
            "ns_ew": 1}[word]                          # 'slice component 1'


def var_bytes(name, level):
    """Bytes of one record of a variable of gen_inputs' description."""
    typ, dims, extra = gcrm_vars()[name]
    if {"i_cell_corners", "i_cell_edges"} & set(dims):  # a cell's corners/edges, stored once each
        dims = [w for w in dims if w != "cells"]
    n = {"float": 4, "integer": 4, "double": 8}[typ]
    for w in dims:
        n *= dim_length(w, extra, level) or 1
    return n


def expected_files(layout, level=3, ext=".nc"):
    """{file name: data bytes} of gen_inputs' run: 3 history dumps (0, 15,
    30 min) in files of 2 records, restarts at 0 and 30 min, one grid file."""
    v = gcrm_vars()
    files = {"grid" + ext: sum(var_bytes(n, level) for n in v if "isgridvar" in v[n][2])}
    restart = sum(var_bytes(n, level) for n in v if "restart" in v[n][2])
    for stamp in ("000000", "003000"):
        files[f"restart.nc19010101_{stamp}{ext}"] = restart
    for prefix, fields in GCRM_LAYOUTS[layout]:
        rec = var_bytes("time", level) + sum(var_bytes(f, level) for f in fields)
        files[f"{prefix}19010101_000000{ext}"] = 2 * rec
        files[f"{prefix}19010101_003000{ext}"] = rec
    return files


def test_expected_bytes_formula():
    """The formula itself, on the numbers of one hand-checked level-3 run."""
    f = expected_files("groups", ext=".bin")
    assert f["grid.bin"] == 642 * 4 * 2 + 1280 * 4 + 642 * 6 * 4 + 1920 * 2 * 4 == 41024
    assert f["wind_19010101_003000.bin"] == 8 + 1280 * 256 * 4 + 1920 * 256 * 4
    assert sum(f.values()) == 18_453_768


def header_extent(path):
    """Bytes before the first variable of a NetCDF classic file (ncoffsets)."""
    if not shutil.which("ncoffsets"):
        pytest.skip("ncoffsets (PnetCDF utilities) not installed")
    out = subprocess.run(["ncoffsets", str(path)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"extent\s+=\s+(\d+) bytes", out).group(1))


def assert_files_on_disk(out, layout, backend, result, level=3):
    """The run's files are exactly the expected ones, each holding its data:
    raw MPI-IO files are the data, CDF files header + data; the result's
    per-file and total bytes equal the formula."""
    want = expected_files(layout, level, EXT[backend])
    assert sorted(x.name for x in out.iterdir()) == sorted(want)
    for name, data in want.items():
        path = out / name
        if backend == "mpiio":
            assert path.stat().st_size == data, name
        elif backend == "pnetcdf":
            assert path.stat().st_size == header_extent(path) + data, name
    written = {f["path"].rsplit("/", 1)[1]: f["bytes"]["total"] for f in result["files"] if f["mode"] == "write"}
    assert written == want
    s = result["summary"]
    assert s["write_bytes"] == s["planned_data_bytes"] == s["read_bytes"] == sum(want.values())


# ---------------------------------------------------------------- runs on generated inputs

@pytest.fixture
def gen(tmp_path):
    """Generated inputs (fields in groups) and an empty output directory."""
    (tmp_path / "out").mkdir()
    return gcrm_inputs(tmp_path / "in").parent


def passed(proc):
    return re.search(r"Verification\s+= passed \(every file read back matches the pattern\)", proc.stdout) is not None


def nc_backend():
    return "pnetcdf" if "pnetcdf" in registered_backends() else "mpiio"


def run_gcrm(n, inputs, *args, check=True):
    out = inputs.parent / "out"
    js = inputs.parent / f"r{n}.json"
    p = iok(n, "gcrm", inputs / "zgrd.in", "-o", out, "--json", js, *args, check=check)
    return p, out, js


@pytest.mark.parametrize("layout", sorted(GCRM_LAYOUTS))
def test_layouts_files_and_bytes(tmp_path, layout):
    inputs = gcrm_inputs(tmp_path / "in", layout).parent
    (tmp_path / "out").mkdir()
    be = nc_backend()
    p, out, js = run_gcrm(4, inputs, "-a", be, "-k")
    assert passed(p)
    assert_files_on_disk(out, layout, be, load_json(js))


@pytest.mark.parametrize("method", METHODS)
def test_each_method_4_ranks(gen, method):
    p, out, js = run_gcrm(4, gen, "--iotype", method, "-a", nc_backend())
    assert passed(p)
    assert re.search(rf"I/O method\s+= {method} \(", p.stdout)
    if nc_backend() == "pnetcdf":
        assert ("api=varn" if method.startswith("nonblocking") else "api=blocking") in p.stdout
        assert ("independent)" if method.endswith("independent") else "collective)") in p.stdout
    assert load_json(js)["summary"]["write_bytes"] == sum(expected_files("groups").values())


@pytest.mark.parametrize("layout,method", [("one", m) for m in METHODS] +
                         [(c, "nonblocking_collective") for c in ("groups", "each")])
def test_layouts_and_methods_20_ranks(tmp_path, layout, method):
    inputs = gcrm_inputs(tmp_path / "in", layout).parent
    (tmp_path / "out").mkdir()
    p, _, js = run_gcrm(20, inputs, "--iotype", method, "-a", nc_backend(), "-q")
    assert passed(p)
    r = load_json(js)
    assert r["params"]["nprocs"] == 20
    assert r["summary"]["write_bytes"] == r["summary"]["read_bytes"] == sum(expected_files(layout).values())


# Changed by the negative: relative(time, cells, layers) of the first history
# file, record 1, cell 200, layer 13 (a value stored once in every backend's
# file: the 24-bit pattern repeats some values, cell 100 layer 7's among them).
CORRUPT = ("relative", 1, 200 * 256 + 13)


@pytest.mark.parametrize("backend", ["pnetcdf", "hdf5", "hdf5_md", "netcdf4", "adios", "mpiio"])
def test_backends_bytes_and_corrupted_value(gen, backend):
    """Each library: the files and bytes of the formula; then one stored
    value of `relative` changed in the file's bytes, and the read-back names
    variable, record and element."""
    if backend not in registered_backends():
        pytest.skip(f"{backend} not in this build")
    args = ("-a", backend, "-k")
    p, out, js = run_gcrm(4, gen, *args)
    assert passed(p)
    assert_files_on_disk(out, "groups", backend, load_json(js))
    var, record, element = CORRUPT
    target = out / f"vorticity_mass_19010101_000000{EXT[backend]}"
    replace_stored_value(target, np.float32(pattern_value(var, element, record)))
    p, _, _ = run_gcrm(4, gen, *args, "--read-only", check=False)
    assert_all_ranks_fail(p, "verification failed", f"variable {var}, record {record}, element {element}")


def test_header_of_generated_description(gen):
    """Dimensions, variables and attributes as mini.desc defines them."""
    if "pnetcdf" not in registered_backends():
        pytest.skip("needs pnetcdf")
    p, out, _ = run_gcrm(4, gen, "-k")
    hdr = subprocess.run(["ncmpidump", "-h", str(out / "wind_19010101_000000.nc")], capture_output=True,
                         text=True, check=True).stdout
    for frag in ["time = UNLIMITED ; // (2 currently)", "corners = 1280 ;", "edges = 1920 ;", "layers = 256 ;",
                 "double time(time) ;", "float u(time, corners, layers) ;", "float wind(time, edges, layers) ;",
                 'u:units = "m/sec" ;', 'u:long_name = "U wind at corners" ;', 'wind:long_name = "Wind at faces" ;',
                 ':title = "iokernels matrix test" ;', ':institution = "test" ;']:
        assert frag in hdr, frag
    assert "float v(" not in hdr  # component 1 of ns_ew only
    hdr = subprocess.run(["ncmpidump", "-h", str(out / "restart.nc19010101_000000.nc")], capture_output=True,
                         text=True, check=True).stdout
    assert re.findall(r"^\t(?:double|float|int) (.*) ;", hdr, re.M) == [
        "time(time)", "dbl_psi(time, cells, layers)", "dbl_mss(time, nprog, cells)"]


def test_rollover_allfiles_and_restart_overwrite(tmp_path):
    inputs = gcrm_inputs(tmp_path / "in", "one").parent
    (tmp_path / "out").mkdir()
    txt = (inputs / "zgrd.in").read_text()
    for old, new in [("end_minutes 30", "end_minutes 75"), ("cdf_output_nsamples  2", "cdf_output_nsamples  3"),
                     ("cdf_grid_option      sep_grid", "cdf_grid_option      all_files"),
                     ("restart_interval   1800", "restart_interval   2700"),
                     ("restart_overwrite  false", "restart_overwrite  true")]:
        assert old in txt, old
        txt = txt.replace(old, new)
    (inputs / "zgrd.in").write_text(txt)
    # L3: dt 900 s, 75 min -> dumps at 0, 15, ..., 75 min = 6 records -> 2 files of 3
    p, out, js = run_gcrm(4, inputs, "-a", "mpiio", "-k")
    assert passed(p)
    names = sorted(x.name for x in out.iterdir())
    assert names == sorted(["all_19010101_000000.bin", "all_19010101_004500.bin", "restart.nc.bin"])
    v = gcrm_vars()
    grid = sum(var_bytes(n, 3) for n in v if "isgridvar" in v[n][2])
    rec = var_bytes("time", 3) + sum(var_bytes(f, 3) for f in GCRM_LAYOUTS["one"][0][1])
    for name in names[:2]:  # all_files: the grid variables in every history file
        assert (out / name).stat().st_size == grid + 3 * rec, name
    restart = sum(var_bytes(n, 3) for n in v if "restart" in v[n][2])
    assert (out / "restart.nc.bin").stat().st_size == restart  # overwritten in place: one record


def test_model_memory_high_water(gen):
    p, _, js = run_gcrm(4, gen, "--level", "4", "-a", "mpiio", "--model-memory", "--model-arrays", "50",
                        "--no-verify")
    s = load_json(js)["summary"]
    # L4 on 4 ranks: nsdm 10, im = jm = 10: 50 * 10*10*10*256 doubles = 97.66 MiB per rank
    assert s["memory_bytes"]["min"] > 50 * 10 * 10 * 10 * 256 * 8
    assert "model arrays per rank    = 97.66 MiB" in p.stdout


def test_invalid_process_count_level_iotype(gen):
    p, _, _ = run_gcrm(3, gen, check=False)
    assert_all_ranks_fail(p, "GCRM cannot run on 3 processes")
    inputs = "io_desc_file mini.desc\nio_config_file mini.fcfg\n"
    (gen / "bad.in").write_text("level_max 2\n" + inputs)
    p = iok(4, "gcrm", gen / "bad.in", "-o", gen.parent / "out", check=False)
    assert_all_ranks_fail(p, "level_max 2 is outside 3..13")
    (gen / "bad.in").write_text("level_max 3\niotype interleaved\n" + inputs)
    p = iok(4, "gcrm", gen / "bad.in", "-o", gen.parent / "out", check=False)
    assert_all_ranks_fail(p, "iotype 'interleaved' is one of the original GCRM's methods", "bad.in:2")
    (gen / "bad.in").write_text("level_max 3\n" + inputs)  # iota 2 on 16 ranks needs L >= 4
    p = iok(16, "gcrm", gen / "bad.in", "-o", gen.parent / "out", "--dry-run", check=False)
    assert_all_ranks_fail(p, "too coarse for 16 processes")
    (gen / "bad.in").write_text("level_max 3\nio_desc_file absent.desc\n")
    p = iok(4, "gcrm", gen / "bad.in", "-o", gen.parent / "out", check=False)
    assert_all_ranks_fail(p, f"cannot read the variable description (io_desc_file) {gen / 'absent.desc'}")


def test_stale_files_are_refused(gen):
    args = ("-a", nc_backend(), "-k")
    run_gcrm(4, gen, *args)
    p, _, _ = run_gcrm(4, gen, *args, check=False)
    assert_all_ranks_fail(p, "already exists")
    p, _, _ = run_gcrm(4, gen, *args, "--overwrite")
    assert passed(p)


# ---------------------------------------------------------------- the user's real inputs (../shared)

@pytest.fixture
def gcrm(shared, tmp_path):
    """A private copy of the reference's inputs (zgrd.in points its outputs elsewhere)."""
    d = tmp_path / "in"
    shutil.copytree(shared / "datasets" / "gcrm", d)
    for f in d.iterdir():
        f.chmod(0o644)
    (tmp_path / "out").mkdir()
    return d


def test_reference_inputs(gcrm):
    """The reference's inputs, in one test so that a clone without ../shared
    skips one: the README case's plan, the five file configurations, the headers."""
    readme_case_plan(gcrm)
    reference_configs_4_ranks(gcrm)
    reference_headers(gcrm)


def readme_case_plan(gcrm):
    """20 ranks, zgrd.in as shipped: exactly the reference's bytes and file names."""
    p, out, _ = run_gcrm(20, gcrm, "--dry-run")
    assert "plan total data bytes = 3654442380" in p.stdout
    names = sorted(line.split()[2].rsplit("/", 1)[1] for line in p.stdout.splitlines()
                   if line.startswith("plan ") and " records " in line)
    assert names == sorted(README_FILES)
    assert "sbdmn_iota                         = 1" in p.stdout
    assert "nsdm (local blocks)                = 2" in p.stdout
    assert list(out.iterdir()) == []  # dry run wrote nothing


def reference_configs_4_ranks(gcrm):
    """Each of the reference's five file configurations: its file count,
    verified, and the bytes of the raw MPI-IO files it wrote."""
    for fcfg, nfiles in REFERENCE_CONFIGS.items():
        out = gcrm.parent / "out" / fcfg
        out.mkdir()
        js = gcrm.parent / f"{fcfg}.json"
        p = iok(4, "gcrm", gcrm / "zgrd.in", "-o", out, "--json", js, "--level", "3", "--fcfg", gcrm / fcfg,
                "-a", "mpiio", "-k")
        assert passed(p), fcfg
        # GCRM-IO's loop at L3 (dt 900 s > 60 s): dumps at 0 and 15 min (the
        # first step to reach the end), history files of 2 records + grid + two restarts
        assert len(list(out.iterdir())) == nfiles + 3, fcfg
        r = load_json(js)
        written = {f["path"].rsplit("/", 1)[1]: f["bytes"]["total"] for f in r["files"] if f["mode"] == "write"}
        # on disk: the data each file's report counts; grid.bin holds 4 bytes more,
        # the int scalar `grid` (mesh_topology, attributes only), defined but never written
        assert {f.name: f.stat().st_size for f in out.iterdir()} == {
            n: b + (4 if n == "grid.bin" else 0) for n, b in written.items()}, fcfg
        assert r["summary"]["write_bytes"] == r["summary"]["read_bytes"] == sum(written.values()), fcfg
        if fcfg == "ZGrd.CP.fcfg":  # _ifc fields have no data in the model: warned, time-only files
            assert "has no data" in p.stderr


def reference_headers(gcrm):
    if "pnetcdf" not in registered_backends():
        pytest.skip("needs pnetcdf")
    outdir = gcrm.parent / "out"
    shutil.rmtree(outdir)  # the configurations' runs above left their files
    outdir.mkdir()
    p, out, js = run_gcrm(4, gcrm, "--level", "4", "--fcfg", gcrm / "ZGrd.CP.lyr.fcfg.groups", "-k")
    hdr = subprocess.run(["ncmpidump", "-h", str(out / "wind_19010101_000000.nc")], capture_output=True,
                         text=True).stdout
    # L4: N = 2562 cells, 5120 corners, 7680 edges
    for frag in ["time = UNLIMITED ; // (2 currently)", "corners = 5120 ;", "edges = 7680 ;", "layers = 256 ;",
                 "interfaces = 257 ;", "float u(time, corners, layers) ;", "float v(time, corners, layers) ;",
                 "float wind(time, edges, layers) ;", "float w_vert(time, cells, interfaces) ;",
                 'u:long_name = "U wind component at cell corners" ;', 'u:units = "m/sec" ;', 'u:location = "corner" ;',
                 ':title = "Test hydrostatic model with API" ;', ':institution = "PNNL" ;', ":history = "]:
        assert frag in hdr, frag
    hdr = subprocess.run(["ncmpidump", "-h", str(out / "restart.nc19010101_000000.nc")], capture_output=True,
                         text=True).stdout
    for frag in ["double dbl_eta(time, nprog, cells, layers) ;", "double dbl_eta_f(time, ntend, cells, layers) ;",
                 "double dbl_mss(time, nprog, cells) ;", "double dbl_ts(time, cells) ;", "nprog = 2 ;", "ntend = 3 ;"]:
        assert frag in hdr, frag
    assert "dbl_tht_ifc" not in hdr  # no data in the model: not defined
    hdr = subprocess.run(["ncmpidump", "-h", str(out / "grid.nc")], capture_output=True, text=True).stdout
    for frag in ["int grid ;", 'grid:standard_name = "mesh_topology" ;', "float grid_corner_lat(corners) ;",
                 "int edge_corners(edges, endpoints) ;", "int cell_neighbors(cells, cellneighbors) ;",
                 "float corner_cell_map_lon(cells, cellcorners) ;", "float area(cells) ;"]:
        assert frag in hdr, frag
    hdr = subprocess.run(["ncmpidump", "-h", str(out / "heating_19010101_000000.nc")], capture_output=True,
                         text=True).stdout
    assert "float heating_sw_lyr_avg(time, cells, layers) ;" in hdr
    r = load_json(js)
    assert "nc_header_align_size" in p.stdout and "MPI File Info" in p.stdout
    assert {"write flush", "write post", "write open", "write close"} <= set(r["summary"]["api_seconds"])
    assert r["summary"]["memory_bytes"]["max"] > 0
