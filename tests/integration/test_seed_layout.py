"""The same bytes on disk as each seed tool (issue 17): for S3D-IO, E3SM-IO and
GCRM-IO, the files iokernels writes by default have the seed tool's header
(`ncmpidump -h`, order included), variable offsets (PnetCDF's `ncoffsets`) and
file size.

The expected listings are data kept under tests/integration/listings/ (see its
README.md): the seed tools' own output listed with the same two programs, made
once from builds of their public sources.  Where the seed's inputs are the
user's real data (E3SM maps, GCRM descriptions), the exact comparison reads
../shared and skips without it; the generated-input tests check what does not
depend on the input's sizes: the header text with dimension lengths left out,
and a data section that starts right after the header (E3SM-IO and S3D-IO ask
PnetCDF for no padding) with no gap between variables."""
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import SHARED, iok, load_json, mpirun, tool
from e3sm_inputs import make_case_map

LISTINGS = Path(__file__).parent / "listings"


def listing(path):
    """(header, offsets, size) of a file as the listings keep them: the first
    line of each tool's output (it names the file) dropped."""
    hdr = subprocess.run([str(tool("ncmpidump")), "-h", str(path)], capture_output=True, text=True, check=True).stdout
    off = subprocess.run([str(tool("ncoffsets")), str(path)], capture_output=True, text=True, check=True).stdout
    return hdr.split("\n", 1)[1], off.split("\n", 1)[1], path.stat().st_size


def expected(directory, name):
    base = directory / name
    return ((base.parent / (base.name + ".cdl")).read_text(), (base.parent / (base.name + ".offsets")).read_text(),
            int((base.parent / (base.name + ".size")).read_text()))


def expected_names(directory):
    return sorted(p.name[: -len(".size")] for p in directory.glob("*.size"))


def header_extent(off):
    return int(re.search(r"extent\s+=\s+(\d+) bytes", off).group(1))


def assert_same_layout(out_dir, listing_dir, check_size=True):
    """Every file of the listing exists in out_dir with the same header
    (format line included), offsets and size, and out_dir holds no other
    NetCDF file."""
    names = expected_names(listing_dir)
    assert names, f"no listing in {listing_dir}"
    written = sorted(p.name for p in out_dir.iterdir() if re.search(r"\.nc(\.\d+)?$", p.name))
    assert written == names
    for name in names:
        hdr, off, size = listing(out_dir / name)
        e_hdr, e_off, e_size = expected(listing_dir, name)
        assert hdr == e_hdr, f"{name}: header differs from the seed tool's"
        assert off == e_off, f"{name}: variable offsets differ from the seed tool's"
        if check_size:
            assert size == e_size, f"{name}: {size} bytes, the seed tool's has {e_size}"


def without_lengths(cdl):
    """Header text with the lengths of the fixed dimensions and the record
    count left out: what generated inputs of other sizes still share."""
    cdl = re.sub(r"^(\t\S+) = \d+ ;$", r"\1 = N ;", cdl, flags=re.M)
    return re.sub(r"// \(\d+ currently\)", "// (R currently)", cdl)


def offsets_packed(off, size):
    """From ncoffsets output: the header extent equals its size (no padding),
    every fixed-size variable starts where the previous ended, and so do
    the record variables within record 0; the file ends where the data do."""
    hsize = int(re.search(r"size\s+=\s+(\d+) bytes", off).group(1))
    extent = int(re.search(r"extent\s+=\s+(\d+) bytes", off).group(1))
    assert extent == hsize, f"header padded: size {hsize}, extent {extent}"
    spans = [(int(a), int(b))
             for a, b in re.findall(r"start file offset =\s+(\d+).*\n\s+end\s+file offset =\s+(\d+)", off)]
    assert spans and spans[0][0] == extent
    for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
        assert start == end, f"gap or overlap between variables at {end} / {start}"
    return spans


def test_listing_checker_catches_changes(tmp_path):
    """The comparison fails for a file that differs from the listing in its
    header, in one byte of its size, or that is missing."""
    iok(4, "s3d", "--grid", "20,20,20", "--procs", "2,2,1", "-c", "1", "--keep", "-o", tmp_path, "-q")
    d = LISTINGS / "s3d" / "20x20x20_2x2x1"
    one = tmp_path / "one"
    one.mkdir()
    (tmp_path / "pressure_wave_test.0.000E+00.field.nc").rename(one / "pressure_wave_test.0.000E+00.field.nc")
    lone = tmp_path / "listing"
    lone.mkdir()
    for ext in ("cdl", "offsets", "size"):
        (lone / f"pressure_wave_test.0.000E+00.field.nc.{ext}").write_text(
            (d / f"pressure_wave_test.0.000E+00.field.nc.{ext}").read_text())
    assert_same_layout(one, lone)  # the real thing passes
    with open(one / "pressure_wave_test.0.000E+00.field.nc", "ab") as f:
        f.write(b"\0")
    with pytest.raises(AssertionError, match="bytes, the seed tool's has"):
        assert_same_layout(one, lone)
    (lone / "pressure_wave_test.0.000E+00.field.nc.cdl").write_text(
        (d / "pressure_wave_test.0.000E+00.field.nc.cdl").read_text().replace("tstep", "tstop"))
    with pytest.raises(AssertionError, match="header differs"):
        assert_same_layout(one, lone)
    (one / "pressure_wave_test.0.000E+00.field.nc").unlink()
    with pytest.raises(AssertionError):
        assert_same_layout(one, lone)
    with pytest.raises(AssertionError, match="header padded"):
        offsets_packed("size   = 588 bytes\n\textent = 1024 bytes\n", 0)


# ---------------------------------------------------------------- S3D-IO

S3D_GRIDS = ["20x20x20_2x2x1", "16x24x10_1x2x2", "40x10x20_4x1x1"]


@pytest.mark.parametrize("grid", S3D_GRIDS)
def test_s3d_as_s3d_io(grid, tmp_path):
    """S3D-IO's five checkpoints (its command line, nonblocking, no restart):
    588-byte header, no padding, same attributes, offsets and sizes."""
    g, p = grid.split("_")
    nx, ny, nz = g.split("x")
    px, py, pz = p.split("x")
    iok(int(px) * int(py) * int(pz), "s3d", nx, ny, nz, px, py, pz, "1", "F", tmp_path, "-q")
    assert_same_layout(tmp_path, LISTINGS / "s3d" / grid)
    _, off, size = listing(tmp_path / "pressure_wave_test.0.000E+00.field.nc")
    assert offsets_packed(off, size)[-1][1] == size


def test_s3d_restart_keeps_the_layout(tmp_path):
    """The restart form (read checkpoint 0, then write) writes the same files."""
    iok(4, "s3d", "20", "20", "20", "2", "2", "1", "1", "F", tmp_path, "-q")
    iok(4, "s3d", "20", "20", "20", "2", "2", "1", "0", "T", tmp_path, "-q")
    assert_same_layout(tmp_path, LISTINGS / "s3d" / "20x20x20_2x2x1")


# ---------------------------------------------------------------- E3SM-IO

E3SM_VARIANTS = {  # listing directory suffix -> iokernels options (E3SM-IO's: none, -j, -u)
    "double": [],
    "float": ["-j"],
    "fill": ["--fill"],
}
E3SM_CASES = [("f", "double"), ("f", "float"), ("f", "fill"), ("g", "double"), ("i", "double"), ("i", "float")]


def e3sm_write(tmp_path, map_path, options):
    out = tmp_path / "out"
    out.mkdir()
    iok(4, "e3sm", "-k", "-r", "2", "-o", out / f"{map_path.name.split('_')[1]}_case.nc", *options, map_path, "-q")
    return out


@pytest.mark.parametrize("case,variant", E3SM_CASES)
def test_e3sm_as_e3sm_io_real_maps(case, variant, tmp_path):
    """The user's 16-process maps, 4 ranks, -r 2: E3SM-IO's header, offsets and
    sizes (F h0 33,773,560 and h1 1,310,420 bytes in double)."""
    m = SHARED / "datasets" / "e3sm" / f"map_{case}_case_16p.nc"
    if not m.exists():
        pytest.skip(f"{m} not present (the user's data)")
    out = e3sm_write(tmp_path, m, E3SM_VARIANTS[variant])
    # I: same header and offsets; the size with E3SM-IO's map reading only
    # (test_e3sm_i_case_size_as_e3sm_io); with the map's own reading (this
    # run's), h0 holds the 288 doubles of plim_m that E3SM-IO never reaches
    assert_same_layout(out, LISTINGS / "e3sm" / f"{case}_{variant}", check_size=case != "i")
    if (case, variant) == ("i", "double"):
        seed_size = int((LISTINGS / "e3sm" / "i_double" / "i_case_h0.nc.size").read_text())
        assert (out / "i_case_h0.nc").stat().st_size == seed_size + 288 * 8


def test_e3sm_i_case_size_as_e3sm_io(tmp_path):
    """I case on the user's map with --map-reading e3sm-io: the file ends where
    E3SM-IO's does.  E3SM-IO (fill mode off) counts each rank's window of the
    map's concatenated runs by Dk.fill_starts; it never reaches the last 288
    elements of plim_m's last record that the map's own reading (the default)
    writes, 2,304 bytes in double."""
    m = SHARED / "datasets" / "e3sm" / "map_i_case_16p.nc"
    if not m.exists():
        pytest.skip(f"{m} not present (the user's data)")
    seed_size = int((LISTINGS / "e3sm" / "i_double" / "i_case_h0.nc.size").read_text())
    out = e3sm_write(tmp_path, m, ["--map-reading", "e3sm-io"])
    assert_same_layout(out, LISTINGS / "e3sm" / "i_double")
    assert (out / "i_case_h0.nc").stat().st_size == seed_size
    # the map's own reading (the default) writes 288 doubles more: checked on
    # test_e3sm_as_e3sm_io_real_maps[i-double]'s file


@pytest.mark.parametrize("case", ["F", "G", "I"])
def test_e3sm_generated_maps_define_order_and_packing(case, tmp_path):
    """Generated maps (other sizes): the header is E3SM-IO's but for the
    dimension lengths, the data start right after the header, and no
    variable is padded."""
    m = make_case_map(case, tmp_path / f"map_{case.lower()}_case_16p.nc")
    out = e3sm_write(tmp_path, m, [])
    listing_dir = LISTINGS / "e3sm" / f"{case.lower()}_double"
    for name in expected_names(listing_dir):
        hdr, off, size = listing(out / name)
        assert without_lengths(hdr) == without_lengths(expected(listing_dir, name)[0]), name
        offsets_packed(off, size)


def test_e3sm_listing_order_option(tmp_path):
    """--define-order listing: the older order of the seed's listings (lat lon
    area first), same variables and size."""
    m = make_case_map("F", tmp_path / "map_f_case_16p.nc")
    out = e3sm_write(tmp_path, m, ["--define-order", "listing", "-f", "1"])
    hdr, off, size = listing(out / "f_case_h1.nc")
    names = re.findall(r"^\t\w+ (\w+)\(", hdr, re.M)
    assert names[:3] == ["lat", "lon", "area"]
    seed_hdr, _, _ = expected(LISTINGS / "e3sm" / "f_double", "f_case_h1.nc")
    seed_names = re.findall(r"^\t\w+ (\w+)\(", seed_hdr, re.M)
    assert names != seed_names and sorted(names) == sorted(seed_names)
    offsets_packed(off, size)


def test_e3sm_data_rank_writes_and_verifies_the_writing_rank(tmp_path):
    """--data rank: every element holds the rank that wrote it, as E3SM-IO's
    buffers do; read back at the same rank count it verifies, and an element
    changed to another rank's value is caught."""
    import netCDF4
    import numpy as np
    m = make_case_map("G", tmp_path / "map_g_case_16p.nc")
    out = tmp_path / "g.nc"
    iok(4, "e3sm", "-k", "-r", "1", "--data", "rank", "--verify", "-q", "-o", out, m)
    with netCDF4.Dataset(out, "r+") as ds:
        ds.set_auto_mask(False)
        v = ds.variables["temperature"]
        values = np.unique(np.array(v[0]))
        assert set(values.tolist()) == {0.0, 1.0, 2.0, 3.0}, values
        v[0, 5, 3] = (v[0, 5, 3] + 1) % 4  # another rank's value
        element = 5 * v.shape[2] + 3
    p = iok(4, "e3sm", "-q", "--data", "rank", "-i", out, m, check=False)
    assert p.returncode != 0
    text = p.stdout + p.stderr
    assert "verification failed" in text and "variable temperature" in text and f"element {element}" in text, text


def first_difference(a, b):
    """Byte offset of the first difference between two files (cmp), or None
    when they are identical."""
    x, y = a.read_bytes(), b.read_bytes()
    for i in range(min(len(x), len(y))):
        if x[i] != y[i]:
            return i
    return None if len(x) == len(y) else min(len(x), len(y))


# what makes iokernels' files cmp-equal to E3SM-IO's, a change that must not
# (compared on the last file), and E3SM-IO's files
E3SM_CMP = {
    "f": (["--data", "rank"], ["-f", "1"], ["f_case_h0.nc", "f_case_h1.nc"]),  # the default pattern differs
    "g": (["--data", "rank"], [], ["g_case.nc"]),
    "i": (["--data", "rank", "--map-reading", "e3sm-io"], ["--data", "rank", "-f", "1"],  # the map's own runs differ
          ["i_case_h0.nc", "i_case_h1.nc"]),
}


# E3SM-IO's e3sm_io binary (PnetCDF build): when given, its files are compared
# with cmp.  Without it the test is not collected at all (not skipped:
# IOK_REQUIRE_ALL=1 fails every skip, and CI has no seed build).
E3SM_IO = os.environ.get("IOK_E3SM_IO", "")
if E3SM_IO:
    @pytest.mark.parametrize("case", sorted(E3SM_CMP))
    def test_e3sm_data_rank_files_cmp_equal_to_e3sm_io(case, tmp_path):
        """--data rank on the user's map, 4 ranks, -r 2: every history file of
        F, G and I is byte for byte E3SM-IO's (cmp); in the I case with
        E3SM-IO's map reading.  Without them the files differ.  Runs the seed
        binary IOK_E3SM_IO names."""
        assert Path(E3SM_IO).is_file(), f"IOK_E3SM_IO={E3SM_IO} is not a file: point it at E3SM-IO's e3sm_io"
        m = SHARED / "datasets" / "e3sm" / f"map_{case}_case_16p.nc"
        if not m.exists():
            pytest.skip(f"{m} not present (the user's data)")
        same, other, names = E3SM_CMP[case]
        theirs = tmp_path / "e3sm_io"
        theirs.mkdir()
        mpirun(4, [E3SM_IO, "-k", "-r", "2", "-o", theirs / f"{case}_case.nc", m])
        ours = e3sm_write(tmp_path, m, same)
        assert sorted(p.name for p in theirs.iterdir()) == names
        for name in names:
            assert first_difference(ours / name, theirs / name) is None, f"{name} differs from E3SM-IO's"
        (tmp_path / "other").mkdir()
        differs = e3sm_write(tmp_path / "other", m, other)
        assert first_difference(differs / names[-1], theirs / names[-1]) is not None


# ---------------------------------------------------------------- GCRM-IO

GCRM_CONFIGS = {  # io_config_file -> physics_mode, as GCRM-IO's README pairs them
    "ZGrd.LZ.fcfg.nophys": "disabled",
    "ZGrd.CP.fcfg": "enabled",
    "ZGrd.CP.lyr.fcfg": "enabled",
    "ZGrd.CP.lyr.fcfg.groups": "enabled",
    "ZGrd.CP.lyr.fcfg.one": "enabled",
}


def gcrm_params(directory, fcfg, physics, level=3):
    """GCRM-IO's stock zgrd.in (from ../shared) with the level, configuration,
    physics mode and output path of this run."""
    text = (SHARED / "datasets" / "gcrm" / "zgrd.in").read_text()
    text = re.sub(r"^level_max .*$", f"level_max {level}", text, flags=re.M)
    text = re.sub(r"^io_config_file .*$", f"io_config_file {fcfg}", text, flags=re.M)
    text = re.sub(r"^physics_mode .*$", f"physics_mode {physics}", text, flags=re.M)
    text = re.sub(r"^(cdf_)?output_path .*$", lambda m: f"{m.group(1) or ''}output_path {directory}/", text, flags=re.M)
    for name in ("ZGrd.desc", fcfg):
        (directory / name).write_text((SHARED / "datasets" / "gcrm" / name).read_text())
    (directory / "zgrd.in").write_text(text)
    return directory / "zgrd.in"


@pytest.mark.parametrize("fcfg", list(GCRM_CONFIGS))
def test_gcrm_as_gcrm_io(fcfg, tmp_path):
    """Every configuration of the user's GCRM inputs at level 3 on 4 ranks:
    GCRM-IO's file names, format (CDF-2), headers (dimension order, attribute
    values with their trailing blanks, no empty attribute, the restart
    globals), offsets and sizes."""
    if not (SHARED / "datasets" / "gcrm" / fcfg).exists():
        pytest.skip(f"{SHARED / 'datasets' / 'gcrm'} not present (the user's data)")
    out = tmp_path / "out"
    out.mkdir()
    params = gcrm_params(tmp_path, fcfg, GCRM_CONFIGS[fcfg])
    iok(4, "gcrm", params, "-o", out, "--keep", "-q")
    # GCRM-IO writes CDF-2 (64-bit offsets) at level 3: its size check stays
    # under 2 GiB; the kernel asks the pnetcdf backend for the same format
    assert_same_layout(out, LISTINGS / "gcrm" / f"L3_{fcfg}")
    for f in out.iterdir():
        assert "// file format: CDF-2 (large file)\n" in listing(f)[0], f.name


def test_gcrm_generated_inputs_follow_gcrm_io_rules(tmp_path):
    """Generated inputs (gen_inputs' minimal set, with a trailing blank in one
    value and an empty one): GCRM-IO's rules hold — dimensions in Fortran
    first-appearance order, the blank kept, the empty attribute left out,
    the fixed history stamp, the restart globals."""
    from gen_inputs import gcrm_inputs
    params = gcrm_inputs(tmp_path, "groups")
    desc = tmp_path / "mini.desc"
    text = desc.read_text()
    text = text.replace('units Pa/K', 'units Pa/K\nlocation    center \nz layers', 1)
    text = text.replace('units Pa\n', 'units \n', 1)
    desc.write_text(text)
    out = tmp_path / "out"
    out.mkdir()
    iok(4, "gcrm", params, "-o", out, "--keep", "-q")
    hist = [p for p in out.iterdir() if p.name.endswith(".nc") and not p.name.startswith(("grid", "restart"))]
    assert hist
    for path in hist:
        hdr, off, size = listing(path)
        dims = re.findall(r"^\t(\w+) = ", hdr, re.M)
        variables = re.findall(r"^\t\w+ (\w+)\(([^)]*)\)", hdr, re.M)
        order = []
        for _, ds in variables:
            for d in reversed([x.strip() for x in ds.split(",")]):
                if d not in order:
                    order.append(d)
        assert dims == order, f"{path.name}: dimensions {dims}, GCRM-IO's order {order}"
        assert ':history = "created on: 08-03-2017 at 16:33:00" ;' in hdr
        if "mass(" in hdr:
            assert 'mass:location = "center " ;' in hdr
        if "pressure(" in hdr:
            assert "pressure:units" not in hdr
            assert 'pressure:long_name = "Pressure" ;' in hdr
    restart = sorted(out.glob("restart*.nc"))
    assert restart
    hdr = listing(restart[0])[0]
    tail = hdr.split("// global attributes:", 1)[1]
    assert re.findall(r"^\t\t:(\w+) = ", tail, re.M)[-7:] == [
        "nprog", "nprog_index", "ntend", "ntend_index", "prs_top", "km", "level_max"]
    assert ":nprog_index = 0, 1 ;" in tail and ":level_max = 3 ;" in tail and ":prs_top = 20. ;" in tail


def gcrm_formats(out):
    """{file name: format line} of every NetCDF file in out."""
    return {p.name: listing(p)[0].split("\n", 1)[0] for p in out.iterdir()}


def test_gcrm_generated_inputs_file_format_as_gcrm_io(tmp_path):
    """GCRM-IO's format rule on generated inputs: CDF-2 at level 3; CDF-5 at
    level 4, where its size check of the cells x edges x layers field
    ("wind") passes 2 GiB; --param pnetcdf.format wins over the kernel's
    choice."""
    from gen_inputs import gcrm_inputs
    params = gcrm_inputs(tmp_path, "groups")
    runs = {"L3": [], "L4": ["--level", "4"], "L3_cdf5": ["--param", "pnetcdf.format=cdf5"]}
    formats = {}
    backend_params = {}
    for name, extra in runs.items():
        out = tmp_path / name
        out.mkdir()
        iok(4, "gcrm", params, "-o", out, "--keep", "-q", "--json", tmp_path / f"{name}.json", *extra)
        formats[name] = set(gcrm_formats(out).values())
        backend_params[name] = load_json(tmp_path / f"{name}.json")["params"]["backend_params"]
    # the results record the format asked for
    assert [backend_params[n]["pnetcdf.format"] for n in runs] == ["cdf2", "cdf5", "cdf5"]
    assert formats["L3"] == {"// file format: CDF-2 (large file)"}
    assert formats["L4"] == {"// file format: CDF-5 (big variables)"}
    assert formats["L3_cdf5"] == {"// file format: CDF-5 (big variables)"}


def test_gcrm_level4_byte_for_byte_layout(tmp_path):
    """Level 4 (GCRM-IO's variables pass 2 GiB in its size check, so it writes
    CDF-5 as the backend does): every header, offset and size is GCRM-IO's,
    format line included."""
    fcfg = "ZGrd.LZ.fcfg.nophys"
    if not (SHARED / "datasets" / "gcrm" / fcfg).exists():
        pytest.skip(f"{SHARED / 'datasets' / 'gcrm'} not present (the user's data)")
    out = tmp_path / "out"
    out.mkdir()
    iok(4, "gcrm", gcrm_params(tmp_path, fcfg, "disabled", level=4), "-o", out, "--keep", "-q")
    assert_same_layout(out, LISTINGS / "gcrm" / f"L4_{fcfg}")
