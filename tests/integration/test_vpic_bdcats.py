"""VPIC (write) and BDCATS (read) particle kernels, as h5bench_write/h5bench_read:
every supported write pattern in 1/2/3-D on 1, 4 and 16 ranks with the file
structure checked by h5dump -H, byte totals = ranks x particles x 32 x steps,
the data read back and verified by bdcats (interleaved files too), values
identical across rank counts and layouts, read patterns, the h5bench config
form, the other libraries, and negative tests (corrupted value, config errors)."""
import csv
import re
import subprocess

import numpy as np
import pytest

from conftest import IOKERNELS, assert_all_ranks_fail, iok, load_json, registered_backends

FIELDS = ["x", "y", "z", "px", "py", "pz", "id_1", "id_2"]


def backends():
    return registered_backends()


@pytest.fixture(scope="module", autouse=True)
def need_hdf5():
    if "hdf5" not in backends():
        pytest.skip("hdf5 backend not built")


def write_cfg(path, **kv):
    path.write_text("".join(f"{k}={v}\n" for k, v in kv.items()))
    return path


def h5dump_header(path, *extra):
    p = subprocess.run(["h5dump", "-H", *extra, str(path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def dataset_shapes(header):
    """{'/Timestep_0/x': (n,), ...} from h5dump -H text (groups tracked by braces)."""
    shapes, stack = {}, []  # stack of (kind, name) per open brace
    for line in header.splitlines():
        s = line.strip()
        m = re.match(r'(GROUP|DATASET) "([^"]+)" \{$', s)
        m_space = re.match(r"DATASPACE\s+SIMPLE \{ \( ([\d, ]+) \)", s)
        if m_space and stack and stack[-1][0] == "DATASET":
            groups = [n for k, n in stack[:-1] if k == "GROUP" and n != "/"]
            path = "/" + "/".join(groups + [stack[-1][1]])
            shapes[path] = tuple(int(x) for x in m_space.group(1).split(","))
        opens, closes = s.count("{"), s.count("}")
        if opens > closes:
            stack.append((m.group(1), m.group(2)) if m else ("OTHER", ""))
        for _ in range(closes - opens):
            stack.pop()
    return shapes


CASES = [  # (MEM, FILE, NUM_DIMS) as the spec's table
    ("CONTIG", "CONTIG", 1), ("CONTIG", "CONTIG", 2), ("CONTIG", "CONTIG", 3),
    ("CONTIG", "INTERLEAVED", 1), ("CONTIG", "INTERLEAVED", 2),
    ("INTERLEAVED", "CONTIG", 1), ("INTERLEAVED", "CONTIG", 2),
    ("INTERLEAVED", "INTERLEAVED", 1), ("INTERLEAVED", "INTERLEAVED", 2),
    ("CONTIG", "STRIDED", 1),
]
DIMS = {1: (96, 1, 1), 2: (6, 16, 1), 3: (4, 6, 4)}  # 96 particles per rank
STEPS = 2


def case_cfg(tmp, mem, file, nd, **extra):
    d1, d2, d3 = DIMS[nd]
    kv = dict(MEM_PATTERN=mem, FILE_PATTERN=file, TIMESTEPS=STEPS, NUM_DIMS=nd, DIM_1=d1, DIM_2=d2, DIM_3=d3,
              COLLECTIVE_DATA="YES", COLLECTIVE_METADATA="YES", EMULATED_COMPUTE_TIME_PER_TIMESTEP="10ms")
    if file == "STRIDED":  # 96 of each rank's 130 particles: blocks of 8 every 11
        kv.update(DIM_1=130, BLOCK_SIZE=8, BLOCK_CNT=12, STRIDE_SIZE=11)
    kv.update(extra)
    return write_cfg(tmp / "case.cfg", **kv)


def expected_shape(file, nd, ranks):
    d1, d2, d3 = DIMS[nd]
    if file == "STRIDED":
        return (ranks * 130,)
    return {1: (d1 * ranks,), 2: (d1 * ranks, d2), 3: (d1 * ranks, d2, d3)}[nd]


@pytest.mark.parametrize("ranks", [1, 4, 16])
@pytest.mark.parametrize("mem,file,nd", CASES, ids=[f"{m[0]}{f[0]}{n}d" for m, f, n in CASES])
def test_write_pattern_structure_bytes_and_readback(tmp_path, mem, file, nd, ranks):
    cfg = case_cfg(tmp_path, mem, file, nd, CSV_FILE=tmp_path / "w.csv")
    out = tmp_path / "p.h5"
    wj, rj = tmp_path / "w.json", tmp_path / "r.json"
    iok(ranks, "vpic", cfg, out, "--json", wj)
    s = load_json(wj)["summary"]
    per_rank = 96
    assert s["total_size_bytes"] == ranks * per_rank * 32 * STEPS
    assert s["particles"] == ranks * per_rank
    assert s["compute_seconds"] == pytest.approx(0.01 * (STEPS - 1))
    assert s["observed_seconds"] >= s["compute_seconds"]
    rows = {r[0].strip(): r[1].strip() for r in csv.reader(open(tmp_path / "w.csv"))}
    assert float(rows["total size"]) == ranks * per_rank * 32 * STEPS
    # Library calls per rank: 8 per step, but one for structs into the compound
    # dataset; INTERLEAVED memory reaches HDF5 as structs, never repacked.
    f0 = load_json(wj)["files"][0]
    assert f0["calls_per_rank"]["max"] == STEPS * (1 if (mem, file) == ("INTERLEAVED", "INTERLEAVED") else 8)
    if mem == "INTERLEAVED":
        assert f0["memory_struct"] == {"fields": 8, "bytes": 32, "requests_native": STEPS, "requests_packed": 0}
    else:
        assert "memory_struct" not in f0

    header = h5dump_header(out)
    shapes = dataset_shapes(header)
    shape = expected_shape(file, nd, ranks)
    for t in range(STEPS):
        assert f'GROUP "Timestep_{t}"' in header
        if file == "INTERLEAVED":
            assert shapes[f"/Timestep_{t}/particles"] == shape
        else:
            for f in FIELDS:
                assert shapes[f"/Timestep_{t}/{f}"] == shape, header
    assert f'GROUP "Timestep_{STEPS}"' not in header
    if (mem, file) == ("INTERLEAVED", "CONTIG"):
        # as h5bench: each field's dataset is a one-member compound
        for f in FIELDS:
            kind = "H5T_STD_I32LE" if f == "id_1" else "H5T_IEEE_F32LE"
            assert re.search(rf'DATASET "{f}" {{\s*DATATYPE\s+H5T_COMPOUND {{\s*{kind}\s+"{f}";\s*}}', header), header
    if file == "INTERLEAVED":
        assert "H5T_COMPOUND" in header
        for f in FIELDS:
            kind = "H5T_STD_I32LE" if f == "id_1" else "H5T_IEEE_F32LE"
            assert re.search(rf'{kind}\s+"{f}";', header), header
        assert len(shapes) == STEPS
    else:
        assert len(shapes) == STEPS * 8

    # BDCATS reads it back (interleaved included) and verifies every value.
    read_opt = "STRIDED" if file == "STRIDED" else "FULL"
    r = iok(ranks, "bdcats", cfg, out, "--read-option", read_opt, "--json", rj)
    assert "passed (every particle read matches the pattern)" in r.stdout
    rs = load_json(rj)["summary"]
    assert rs["total_size_bytes"] == ranks * per_rank * 32 * STEPS
    assert rs["mismatches"] == 0
    if mem == "INTERLEAVED":  # reading into structs too (bdcats honours MEM_PATTERN)
        rf = load_json(rj)["files"][0]
        assert rf["memory_struct"]["requests_native"] == STEPS
        # and into separate arrays, as h5bench_read would (it cannot read these files)
        r = iok(ranks, "bdcats", cfg, out, "--read-option", read_opt, "--mem-pattern", "CONTIG")
        assert "passed (every particle read matches the pattern)" in r.stdout


def read_field(path, dset, field=None):
    import h5py
    with h5py.File(path, "r") as f:
        d = f[dset][...]
    return d[field] if field else d


def test_values_identical_across_ranks_and_layouts(tmp_path):
    """The pattern depends on the particle, not on who wrote it or how."""
    cc = case_cfg(tmp_path, "CONTIG", "CONTIG", 1)
    iok(1, "vpic", cc, tmp_path / "a1.h5")
    iok(4, "vpic", cc, tmp_path / "a4.h5")
    ci = case_cfg(tmp_path, "CONTIG", "INTERLEAVED", 1)
    iok(4, "vpic", ci, tmp_path / "i4.h5")
    for f in FIELDS:
        a1 = read_field(tmp_path / "a1.h5", f"/Timestep_1/{f}")
        a4 = read_field(tmp_path / "a4.h5", f"/Timestep_1/{f}")
        i4 = read_field(tmp_path / "i4.h5", "/Timestep_1/particles", f)
        assert np.array_equal(a1, a4[:96])
        assert np.array_equal(a4, i4)
    # Time steps and fields differ from each other.
    assert not np.array_equal(read_field(tmp_path / "a4.h5", "/Timestep_0/x"),
                              read_field(tmp_path / "a4.h5", "/Timestep_1/x"))
    assert not np.array_equal(read_field(tmp_path / "a4.h5", "/Timestep_0/x"),
                              read_field(tmp_path / "a4.h5", "/Timestep_0/y"))


@pytest.mark.parametrize("mem,layout", [("CONTIG", "CONTIG"), ("CONTIG", "INTERLEAVED"),
                                        ("INTERLEAVED", "CONTIG"), ("INTERLEAVED", "INTERLEAVED")])
def test_corrupted_value_fails_verification(tmp_path, mem, layout):
    import h5py
    cfg = case_cfg(tmp_path, mem, layout, 1)
    out = tmp_path / "p.h5"
    iok(4, "vpic", cfg, out)
    iok(4, "bdcats", cfg, out)  # intact: passes
    with h5py.File(out, "r+") as f:
        if layout == "CONTIG" and mem == "CONTIG":
            f["/Timestep_1/py"][200] = f["/Timestep_1/py"][200] + 1.0
        elif layout == "CONTIG":  # one-member compound per field
            d = f["/Timestep_1/py"]
            rec = d[200]
            rec["py"] = rec["py"] + 1.0
            d[200] = rec
        else:
            d = f["/Timestep_1/particles"]
            rec = d[200]
            rec["py"] = rec["py"] + 1.0
            d[200] = rec
    p = iok(4, "bdcats", cfg, out, check=False)
    assert_all_ranks_fail(p, "verification failed", "1 element(s) differ", "variable py, record 1, element 200")


# 2-D read patterns on a 4-writer 2-D file: 4 x 6 = 24 rows, 16 columns.
READS_2D = {
    "LDC": (dict(BLOCK_SIZE=5, BLOCK_SIZE_2=6), 2 * 5 * 6),
    "RDC": (dict(BLOCK_SIZE=5, BLOCK_SIZE_2=6), 2 * 5 * 6),
    "PRL": (dict(BLOCK_SIZE=3, BLOCK_SIZE_2=2), 24 * 16 - (24 - 6) * (16 - 4)),
    "CS": (dict(BLOCK_SIZE=3, BLOCK_SIZE_2=2, STRIDE_SIZE=5, STRIDE_SIZE_2=3), 5 * 3 * 2),  # k=0..4
}


@pytest.mark.parametrize("ranks", [1, 4, 16])
@pytest.mark.parametrize("opt", list(READS_2D))
def test_2d_read_patterns(tmp_path, opt, ranks):
    wcfg = case_cfg(tmp_path, "CONTIG", "CONTIG", 2)
    out = tmp_path / "p.h5"
    iok(4, "vpic", wcfg, out)
    kv, elems = READS_2D[opt]
    args = [f"--{k.lower().replace('_', '-')}={v}" for k, v in kv.items()]
    js = tmp_path / "r.json"
    r = iok(ranks, "bdcats", wcfg, out, "--read-option", opt, "--writers", "4", *args, "--json", js)
    assert "passed" in r.stdout
    s = load_json(js)["summary"]
    assert s["particles"] == elems
    assert s["total_size_bytes"] == elems * 32 * STEPS


@pytest.mark.parametrize("opt,extra,elems", [
    ("FULL", {}, 4 * 96),
    ("PARTIAL", {"TO_READ_NUM_PARTICLES": 10}, 4 * 10),
    ("STRIDED", {"BLOCK_SIZE": 4, "STRIDE_SIZE": 9, "BLOCK_CNT": 10}, 4 * 40),
])
def test_1d_read_patterns(tmp_path, opt, extra, elems):
    cfg = case_cfg(tmp_path, "CONTIG", "CONTIG", 1)
    out = tmp_path / "p.h5"
    iok(4, "vpic", cfg, out)
    args = [f"--{k.lower().replace('_', '-')}={v}" for k, v in extra.items()]
    js = tmp_path / "r.json"
    iok(4, "bdcats", cfg, out, "--read-option", opt, *args, "--json", js)
    assert load_json(js)["summary"]["particles"] == elems
    # FULL by 16 ranks of a file 4 wrote: dim 0 split evenly, all verified
    if opt == "FULL":
        iok(16, "bdcats", cfg, out, "--writers", "4", "--json", js)
        assert load_json(js)["summary"]["particles"] == elems


def test_normal_distribution(tmp_path):
    cfg = write_cfg(tmp_path / "n.cfg", TIMESTEPS=2, DIM_1=1000, STDEV_DIM_1=300, SEED=11, COLLECTIVE_DATA="YES")
    out = tmp_path / "n.h5"
    js = tmp_path / "w.json"
    iok(4, "vpic", cfg, out, "--json", js)
    n = load_json(js)["summary"]["particles"]
    assert n != 4000  # counts vary
    assert dataset_shapes(h5dump_header(out))["/Timestep_0/x"] == (n,)
    assert load_json(js)["summary"]["total_size_bytes"] == n * 32 * 2
    iok(4, "vpic", cfg, tmp_path / "again.h5", "--json", tmp_path / "w2.json")
    assert load_json(tmp_path / "w2.json")["summary"]["particles"] == n  # seeded: reproducible
    iok(4, "bdcats", cfg, out)


def test_file_per_proc_compress_align(tmp_path):
    import h5py
    cfg = write_cfg(tmp_path / "f.cfg", TIMESTEPS=2, DIM_1=4096, FILE_PER_PROC="YES", COMPRESS="YES",
                    CHUNK_DIM_1=1024, COLLECTIVE_DATA="YES")
    out = tmp_path / "f.h5"
    iok(4, "vpic", cfg, out)
    for r in range(4):
        h = h5dump_header(tmp_path / f"f_{r}.h5", "-p")
        assert "DEFLATE" in h and "CHUNKED ( 1024 )" in h
        assert dataset_shapes(h)["/Timestep_1/id_2"] == (4096,)
    iok(4, "bdcats", cfg, out)
    acfg = write_cfg(tmp_path / "a.cfg", TIMESTEPS=1, DIM_1=4096, ALIGN="YES", ALIGN_LEN="64K",
                     ALIGN_THRESHOLD="1K", COLLECTIVE_DATA="YES")
    iok(4, "vpic", acfg, tmp_path / "a.h5")
    with h5py.File(tmp_path / "a.h5", "r") as f:
        for name in FIELDS:
            assert f[f"/Timestep_0/{name}"].id.get_offset() % 65536 == 0


def test_other_libraries(tmp_path):
    for be, ext in (("pnetcdf", ".nc"), ("netcdf4", ".nc"), ("adios", ".bp")):
        if be not in backends():
            continue
        cfg = case_cfg(tmp_path, "CONTIG", "CONTIG", 1)
        out = tmp_path / f"p_{be}{ext}"
        js = tmp_path / f"{be}.json"
        iok(4, "vpic", cfg, out, "-a", be, "--json", js)
        assert load_json(js)["summary"]["total_size_bytes"] == 4 * 96 * 32 * STEPS
        r = iok(4, "bdcats", cfg, out, "-a", be)
        assert "passed" in r.stdout
        # structs in memory: packed per field for a library without compounds, values identical
        mcfg = case_cfg(tmp_path, "INTERLEAVED", "CONTIG", 1)
        mout = tmp_path / f"m_{be}{ext}"
        iok(4, "vpic", mcfg, mout, "-a", be, "--json", js)
        ms = load_json(js)["files"][0]["memory_struct"]
        assert (ms["requests_native"], ms["requests_packed"]) == (0, STEPS)
        r = iok(4, "bdcats", mcfg, mout, "-a", be, "--json", js)
        assert "passed" in r.stdout
        r = iok(4, "bdcats", cfg, mout, "-a", be)  # and into separate arrays
        assert "passed" in r.stdout
        # the compound layout needs HDF5: refused, not silently flattened
        icfg = case_cfg(tmp_path, "CONTIG", "INTERLEAVED", 1)
        p = iok(1, "vpic", icfg, tmp_path / f"i_{be}{ext}", "-a", be, check=False)
        assert p.returncode == 2  # not expressible on this library (Unsupported), not a failure
        assert_all_ranks_fail(p, "FILE_PATTERN=INTERLEAVED", "needs compound files, which backend")


def test_named_options_form(tmp_path):
    out = tmp_path / "named.h5"
    iok(4, "vpic", "--dim-1", "1 K", "--timesteps", "3", "--collective-data", "YES", "-o", out, "--keep")
    assert dataset_shapes(h5dump_header(out))["/Timestep_2/x"] == (4096,)
    iok(4, "bdcats", "--dim-1", "1K", "--timesteps", "3", "-i", out)


@pytest.mark.parametrize("lines,frag", [
    ({"DIM_1": 64, "WIBBLE": 3}, "unknown configuration key 'WIBBLE'"),
    ({"DIM_1": "64Q"}, "unknown unit 'Q'"),
    ({"DIM_1": 64, "EMULATED_COMPUTE_TIME_PER_TIMESTEP": "5000"}, "has no time unit"),
    ({"DIM_1": 64, "EMULATED_COMPUTE_TIME_PER_TIMESTEP": "5 fortnights"}, "unknown time unit"),
    ({"DIM_1": 64, "NUM_DIMS": 3, "FILE_PATTERN": "INTERLEAVED"}, "is not a supported write pattern"),
    ({"DIM_1": 64, "NUM_DIMS": 2, "FILE_PATTERN": "STRIDED"}, "is not a supported write pattern"),
    ({"DIM_1": 64, "MEM_PATTERN": "STRIDED"}, "is not a supported write pattern"),
    ({"DIM_1": 64, "COMPRESS": "YES"}, "COMPRESS=YES needs CHUNK_DIM_1"),
    ({"DIM_1": 64, "MODE": "ASYNC"}, "async VOL connector could not be loaded"),
    ({"DIM_1": 64, "SUBFILING": "YES"}, "without the subfiling VFD"),
])
def test_write_config_errors(tmp_path, lines, frag):
    cfg = write_cfg(tmp_path / "bad.cfg", **lines)
    p = iok(4, "vpic", cfg, tmp_path / "x.h5", check=False)
    assert_all_ranks_fail(p, frag)
    assert not (tmp_path / "x.h5").exists()


@pytest.mark.parametrize("lines,frag", [
    ({"NUM_DIMS": 2, "DIM_1": 6, "DIM_2": 16, "READ_OPTION": "LDC", "BLOCK_SIZE": 25}, "does not fit the array"),
    ({"NUM_DIMS": 2, "DIM_1": 6, "DIM_2": 16, "READ_OPTION": "RDC", "BLOCK_SIZE": 13, "BLOCK_SIZE_2": 9},
     "corner blocks overlap"),
    ({"NUM_DIMS": 2, "DIM_1": 6, "DIM_2": 16, "READ_OPTION": "PRL", "BLOCK_SIZE_2": 9}, "frame is wider"),
    ({"NUM_DIMS": 2, "DIM_1": 6, "DIM_2": 16, "READ_OPTION": "CS", "BLOCK_SIZE": 4, "BLOCK_SIZE_2": 4,
      "STRIDE_SIZE": 2, "STRIDE_SIZE_2": 2}, "blocks overlap"),
    ({"DIM_1": 96, "READ_OPTION": "CS"}, "is a 2-D pattern"),
    ({"DIM_1": 96, "READ_OPTION": "PARTIAL", "TO_READ_NUM_PARTICLES": 97}, "exceeds rank"),
])
def test_read_config_errors(tmp_path, lines, frag):
    nd = lines.get("NUM_DIMS", 1)
    out = tmp_path / "p.h5"
    iok(4, "vpic", case_cfg(tmp_path, "CONTIG", "CONTIG", nd), out)
    cfg = write_cfg(tmp_path / "bad.cfg", TIMESTEPS=STEPS, **lines)
    p = iok(4, "bdcats", cfg, out, check=False)
    assert_all_ranks_fail(p, frag)


def test_reading_wrong_layout_is_clear(tmp_path):
    out = tmp_path / "p.h5"
    iok(1, "vpic", case_cfg(tmp_path, "CONTIG", "CONTIG", 1), out)
    p = iok(1, "bdcats", case_cfg(tmp_path, "CONTIG", "INTERLEAVED", 1), out, check=False)
    assert_all_ranks_fail(p, "compound dataset 'particles'")
    p = iok(1, "bdcats", case_cfg(tmp_path, "CONTIG", "CONTIG", 1, TIMESTEPS=3), out, check=False)
    assert_all_ranks_fail(p, "record 2")


@pytest.mark.parametrize("file", ["INTERLEAVED", "CONTIG"])
def test_structs_with_multi_dataset_backend(tmp_path, file):
    """hdf5_md writes structs natively; it reads the compound natively and
    one-member compounds through packed fields (H5Dread_multi cannot fill
    parts of one struct from several datasets); both verify."""
    if "hdf5_md" not in backends():
        pytest.skip("hdf5_md backend not built")
    cfg = case_cfg(tmp_path, "INTERLEAVED", file, 1)
    out, js = tmp_path / "m.h5", tmp_path / "m.json"
    iok(4, "vpic", cfg, out, "-a", "hdf5_md", "--json", js)
    assert load_json(js)["files"][0]["memory_struct"]["requests_native"] == STEPS
    r = iok(4, "bdcats", cfg, out, "-a", "hdf5_md", "--json", js)
    assert "passed" in r.stdout
    ms = load_json(js)["files"][0]["memory_struct"]
    assert (ms["requests_native"], ms["requests_packed"]) == ((STEPS, 0) if file == "INTERLEAVED" else (0, STEPS))
    r = iok(4, "bdcats", cfg, out, "-a", "hdf5_md", "--mem-pattern", "CONTIG")
    assert "passed" in r.stdout
