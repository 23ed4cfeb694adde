"""VPIC (write) and BDCATS (read) particle kernels, as h5bench_write/h5bench_read:
every supported write pattern in 1/2/3-D on 1, 4 and 16 ranks with the file
structure checked by h5dump -H, byte totals = ranks x particles x 32 x steps,
the data read back and verified by bdcats (interleaved files too), values
identical across rank counts, layouts and libraries and equal to the pattern,
read patterns, the h5bench config form, the other libraries (PnetCDF,
NetCDF-4, ADIOS2, raw MPI-IO: structs in memory, read into separate arrays),
and negative tests: a value changed in the file's bytes, named by the
read-back, on every library and for 2-D, 3-D, strided and file-per-process
files; config errors.  Each case skips only when the backend it runs on is
missing.  HDF5 files are read by h5dump or by h5py in a child process (h5py
next to netCDF4 or adios2 in one process crashes)."""
import csv
import hashlib
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import assert_all_ranks_fail, iok, load_json, pattern_value, registered_backends
from file_values import replace_stored_value
from gen_inputs import h5bench_config

FIELDS = ["x", "y", "z", "px", "py", "pz", "id_1", "id_2"]
EXT = {"hdf5": ".h5", "hdf5_md": ".h5", "pnetcdf": ".nc", "netcdf4": ".nc", "adios": ".bp", "mpiio": ".bin"}


def backends():
    return registered_backends()


def need(backend):
    if backend not in backends():
        pytest.skip(f"{backend} backend not built")


def write_cfg(path, **kv):
    return h5bench_config(path, **kv)


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
    """The configuration of one case, in a file of its own (named by the
    case and a digest of the extra keys): a test using several never reads
    one in place of another."""
    d1, d2, d3 = DIMS[nd]
    kv = dict(MEM_PATTERN=mem, FILE_PATTERN=file, TIMESTEPS=STEPS, NUM_DIMS=nd, DIM_1=d1, DIM_2=d2, DIM_3=d3,
              COLLECTIVE_DATA="YES", COLLECTIVE_METADATA="YES", EMULATED_COMPUTE_TIME_PER_TIMESTEP="10ms")
    if file == "STRIDED":  # 96 of each rank's 130 particles: blocks of 8 every 11
        kv.update(DIM_1=130, BLOCK_SIZE=8, BLOCK_CNT=12, STRIDE_SIZE=11)
    kv.update(extra)
    tag = hashlib.sha1(repr(sorted((k, str(v)) for k, v in extra.items())).encode()).hexdigest()[:8]
    return write_cfg(tmp / f"case_{mem}_{file}_{nd}d_{tag}.cfg", **kv)


def expected_shape(file, nd, ranks):
    d1, d2, d3 = DIMS[nd]
    if file == "STRIDED":
        return (ranks * 130,)
    return {1: (d1 * ranks,), 2: (d1 * ranks, d2), 3: (d1 * ranks, d2, d3)}[nd]


# Every case on 1 and 4 ranks; 16 ranks (oversubscribed, the slowest launch
# here) where the shape of what 16 writers put side by side is worth seeing:
# contiguous 1-, 2- and 3-D, structs into the compound dataset, strided.
SIXTEEN = {("CONTIG", "CONTIG", 1), ("CONTIG", "CONTIG", 2), ("CONTIG", "CONTIG", 3),
           ("INTERLEAVED", "INTERLEAVED", 2), ("CONTIG", "STRIDED", 1)}
WRITE_RUNS = [(*c, r) for c in CASES for r in (1, 4)] + [(*c, 16) for c in CASES if c in SIXTEEN]


@pytest.mark.parametrize("mem,file,nd,ranks", WRITE_RUNS, ids=[f"{m[0]}{f[0]}{n}d-{r}" for m, f, n, r in WRITE_RUNS])
def test_write_pattern_structure_bytes_and_readback(tmp_path, mem, file, nd, ranks):
    need("hdf5")
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
    assert "-DIM_" not in header  # h5bench's files name no dimensions (E3SM's HDF5 files do)
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
        r = iok(ranks, "bdcats", cfg, out, "--read-option", read_opt, "--mem-pattern", "CONTIG", "--json", rj)
        assert "passed (every particle read matches the pattern)" in r.stdout
        assert "memory_struct" not in load_json(rj)["files"][0]


READ_H5 = r"""
import sys, numpy as np
import h5py
if not hasattr(h5py, "File"):
    from h5py import _debian_h5py_mpi as h5py
path, out = sys.argv[1:3]
arrays = {}
with h5py.File(path, "r") as f:
    for step in f:
        for name, d in f[step].items():
            a = d[...]
            for field in (a.dtype.names or [None]):
                arrays[f"{step}/{field or name}"] = a[field] if field else a
np.savez(out, **arrays)
"""


def read_particles(path, tmp_path):
    """{'Timestep_1/x': array, ...} of an HDF5 particle file, plain or
    compound, read by h5py in a child process."""
    out = tmp_path / (path.name + ".npz")
    p = subprocess.run([sys.executable, "-c", READ_H5, str(path), str(out)], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    with np.load(out) as z:
        return {k: z[k] for k in z.files}


def read_raw(path, n, steps):
    """The fields of a raw MPI-IO particle file (records of 8 variables of n values)."""
    raw = np.fromfile(path, dtype="<f4").reshape(steps, 8, n)
    return {f"Timestep_{t}/{f}": (raw[t, i].view("<i4") if f == "id_1" else raw[t, i])
            for t in range(steps) for i, f in enumerate(FIELDS)}


def pattern(field, n, step):
    return np.array([pattern_value(field, e, step) for e in range(n)], dtype="<f4")


def test_values_identical_across_ranks_layouts_and_libraries(tmp_path):
    """The pattern depends on the particle, not on who wrote it or how: HDF5
    on 1 and 4 ranks, compound and per-field, raw MPI-IO, all equal, and the
    float fields are the pattern itself."""
    need("hdf5")
    cc = case_cfg(tmp_path, "CONTIG", "CONTIG", 1)
    iok(1, "vpic", cc, tmp_path / "a1.h5")
    iok(4, "vpic", cc, tmp_path / "a4.h5")
    ci = case_cfg(tmp_path, "CONTIG", "INTERLEAVED", 1)
    iok(4, "vpic", ci, tmp_path / "i4.h5")
    a1, a4, i4 = (read_particles(tmp_path / n, tmp_path) for n in ("a1.h5", "a4.h5", "i4.h5"))
    assert sorted(a4) == sorted(i4) == sorted(f"Timestep_{t}/{f}" for t in range(STEPS) for f in FIELDS)
    libs = []
    if "mpiio" in backends():
        iok(4, "vpic", cc, tmp_path / "m4.bin", "-a", "mpiio")
        libs.append(read_raw(tmp_path / "m4.bin", 4 * 96, STEPS))
    for key in a4:
        assert np.array_equal(a1[key], a4[key][:96]), key
        assert np.array_equal(a4[key], i4[key]), key
        for other in libs:
            assert np.array_equal(a4[key], other[key]), key
    for t in range(STEPS):
        for f in ("x", "py", "id_2"):
            assert np.array_equal(a4[f"Timestep_{t}/{f}"], pattern(f, 4 * 96, t)), (t, f)
    # Time steps and fields differ from each other.
    assert not np.array_equal(a4["Timestep_0/x"], a4["Timestep_1/x"])
    assert not np.array_equal(a4["Timestep_0/x"], a4["Timestep_0/y"])


# Negatives: one stored value of `py` changed in the file's bytes (whichever
# library, byte order or layout), and the read-back names variable, step and
# element.  (backend, MEM, FILE, NUM_DIMS, extra config, file changed, element)
NEGATIVES = [
    ("hdf5", "CONTIG", "CONTIG", 1, {}, None, 200),
    ("hdf5", "INTERLEAVED", "CONTIG", 1, {}, None, 200),    # one-member compounds
    ("hdf5", "CONTIG", "INTERLEAVED", 1, {}, None, 200),    # the compound dataset
    ("hdf5", "INTERLEAVED", "INTERLEAVED", 1, {}, None, 200),
    ("hdf5", "CONTIG", "CONTIG", 2, {}, None, 200),         # 24 x 16: row 12, column 8 (rank 2)
    ("hdf5", "CONTIG", "CONTIG", 3, {}, None, 200),         # 16 x 6 x 4: [8, 2, 0] (rank 2)
    ("hdf5", "CONTIG", "STRIDED", 1, {}, None, 200),        # rank 1's region, block 6
    ("hdf5", "CONTIG", "CONTIG", 1, {"FILE_PER_PROC": "YES"}, "_1", 5),  # rank 1's own file, its element 5
    ("pnetcdf", "CONTIG", "CONTIG", 1, {}, None, 200),
    ("pnetcdf", "CONTIG", "CONTIG", 2, {}, None, 200),
    ("netcdf4", "CONTIG", "CONTIG", 1, {}, None, 200),
    ("netcdf4", "CONTIG", "CONTIG", 3, {}, None, 200),
    ("netcdf4", "INTERLEAVED", "CONTIG", 2, {}, None, 200),
    ("adios", "CONTIG", "CONTIG", 1, {}, None, 200),
    ("adios", "CONTIG", "CONTIG", 2, {}, None, 200),
    ("mpiio", "CONTIG", "CONTIG", 1, {}, None, 200),
    ("mpiio", "INTERLEAVED", "CONTIG", 2, {}, None, 200),
]


@pytest.mark.parametrize("backend,mem,layout,nd,extra,suffix,elem", NEGATIVES,
                         ids=[f"{b}-{m[0]}{f[0]}{n}d{'-fpp' if s else ''}" for b, m, f, n, _, s, _ in NEGATIVES])
def test_corrupted_value_fails_verification(tmp_path, backend, mem, layout, nd, extra, suffix, elem):
    need(backend)
    cfg = case_cfg(tmp_path, mem, layout, nd, **extra)
    out = tmp_path / f"p{EXT[backend]}"
    read_opt = ["--read-option", "STRIDED"] if layout == "STRIDED" else []
    iok(4, "vpic", cfg, out, "-a", backend)
    r = iok(4, "bdcats", cfg, out, "-a", backend, *read_opt)  # intact: passes
    assert "passed (every particle read matches the pattern)" in r.stdout
    target = out.with_name(f"p{suffix}{EXT[backend]}") if suffix else out
    region = None
    if backend == "hdf5" and layout != "INTERLEAVED":  # py of time step 1 only: a strided file has unwritten gaps
        import h5py
        with h5py.File(target, "r") as h:
            ds = h["Timestep_1/py"]
            region = (ds.id.get_offset(), ds.id.get_offset() + ds.id.get_storage_size())
    replace_stored_value(target, np.float32(pattern_value("py", elem, 1)), region=region)
    p = iok(4, "bdcats", cfg, out, "-a", backend, *read_opt, check=False)
    where = f"{target.name}: " if suffix else ""  # file per process: the file is named
    assert_all_ranks_fail(p, "verification failed", "1 element(s) differ",
                          f"{where}variable py, record 1, element {elem}")


# --no-verify reads and times only (h5bench_read compares nothing): the same
# corrupted file that fails above is read in full, said unverified in the
# report, the file's JSON and the summary; the default run still fails on it.
def test_no_verify_reads_without_comparing(tmp_path):
    need("hdf5")
    cfg = case_cfg(tmp_path, "CONTIG", "CONTIG", 1)
    out = tmp_path / "p.h5"
    iok(4, "vpic", cfg, out)
    replace_stored_value(out, np.float32(pattern_value("py", 200, 1)))
    js = tmp_path / "r.json"
    r = iok(4, "bdcats", cfg, out, "--no-verify", "--json", js)
    assert "not done (--no-verify: read and timed only)" in r.stdout and "passed" not in r.stdout
    res = load_json(js)
    assert res["summary"]["verified"] is False and res["summary"]["mismatches"] == 0
    assert res["summary"]["total_size_bytes"] == 4 * 96 * 32 * STEPS
    [f] = res["files"]
    assert f["verify"]["checked"] is False and "verify" not in f["seconds"]
    p = iok(4, "bdcats", cfg, out, check=False)
    assert_all_ranks_fail(p, "verification failed", "1 element(s) differ", "variable py, record 1, element 200")
    h = iok(1, "bdcats", "--help")
    assert "--no-verify" in h.stdout and "read and time only, as h5bench_read" in " ".join(h.stdout.split())


# 2-D read patterns on a 4-writer 2-D file: 4 x 6 = 24 rows, 16 columns.
READS_2D = {
    "LDC": (dict(BLOCK_SIZE=5, BLOCK_SIZE_2=6), 2 * 5 * 6),
    "RDC": (dict(BLOCK_SIZE=5, BLOCK_SIZE_2=6), 2 * 5 * 6),
    "PRL": (dict(BLOCK_SIZE=3, BLOCK_SIZE_2=2), 24 * 16 - (24 - 6) * (16 - 4)),
    "CS": (dict(BLOCK_SIZE=3, BLOCK_SIZE_2=2, STRIDE_SIZE=5, STRIDE_SIZE_2=3), 5 * 3 * 2),  # k=0..4
}


# Each pattern read by 1 and 4 ranks; by 16 (more readers than the 24 rows
# can split evenly) the corner and strided selections.
READS_2D_RUNS = [(o, r) for o in READS_2D for r in (1, 4)] + [("LDC", 16), ("CS", 16)]


@pytest.mark.parametrize("opt,ranks", READS_2D_RUNS, ids=[f"{o}-{r}" for o, r in READS_2D_RUNS])
def test_2d_read_patterns(tmp_path, opt, ranks):
    need("hdf5")
    wcfg = case_cfg(tmp_path, "CONTIG", "CONTIG", 2)
    out = tmp_path / "p.h5"
    iok(4, "vpic", wcfg, out)
    kv, elems = READS_2D[opt]
    args = [f"--{k.lower().replace('_', '-')}={v}" for k, v in kv.items()]
    js = tmp_path / "r.json"
    r = iok(ranks, "bdcats", wcfg, out, "--read-option", opt, "--writers", "4", *args, "--json", js)
    assert "passed (every particle read matches the pattern)" in r.stdout
    s = load_json(js)["summary"]
    assert s["particles"] == elems
    assert s["total_size_bytes"] == elems * 32 * STEPS


@pytest.mark.parametrize("opt,extra,elems", [
    ("FULL", {}, 4 * 96),
    ("PARTIAL", {"TO_READ_NUM_PARTICLES": 10}, 4 * 10),
    ("STRIDED", {"BLOCK_SIZE": 4, "STRIDE_SIZE": 9, "BLOCK_CNT": 10}, 4 * 40),
])
def test_1d_read_patterns(tmp_path, opt, extra, elems):
    need("hdf5")
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
    need("hdf5")
    cfg = write_cfg(tmp_path / "n.cfg", TIMESTEPS=2, DIM_1=1000, STDEV_DIM_1=300, SEED=11, COLLECTIVE_DATA="YES")
    out = tmp_path / "n.h5"
    js = tmp_path / "w.json"
    iok(4, "vpic", cfg, out, "--json", js)
    n = load_json(js)["summary"]["particles"]
    # the sum of 4 draws of N(1000, 300): N(4000, 600); drawn, so not exactly 4000
    assert n != 4000 and abs(n - 4000) < 4 * 600
    assert dataset_shapes(h5dump_header(out))["/Timestep_0/x"] == (n,)
    assert load_json(js)["summary"]["total_size_bytes"] == n * 32 * 2
    iok(4, "vpic", cfg, tmp_path / "again.h5", "--json", tmp_path / "w2.json")
    assert load_json(tmp_path / "w2.json")["summary"]["particles"] == n  # seeded: reproducible
    other = write_cfg(tmp_path / "n12.cfg", TIMESTEPS=2, DIM_1=1000, STDEV_DIM_1=300, SEED=12, COLLECTIVE_DATA="YES")
    iok(4, "vpic", other, tmp_path / "other.h5", "--json", tmp_path / "w3.json")
    assert load_json(tmp_path / "w3.json")["summary"]["particles"] != n  # another seed, other counts
    r = iok(4, "bdcats", cfg, out)
    assert "passed (every particle read matches the pattern)" in r.stdout


def test_netcdf4_compress(tmp_path):
    """COMPRESS=YES on NetCDF-4: each particle variable chunked along
    CHUNK_DIM_1 (one record per chunk) with h5bench's deflate level 9, as
    ncdump -hs reports it; bdcats reads every particle back."""
    need("netcdf4")
    cfg = write_cfg(tmp_path / "c.cfg", TIMESTEPS=2, DIM_1=4096, COMPRESS="YES", CHUNK_DIM_1=1024,
                    COLLECTIVE_DATA="YES")
    out = tmp_path / "c.nc"
    iok(4, "vpic", cfg, out, "-a", "netcdf4")
    h = subprocess.run(["ncdump", "-hs", str(out)], capture_output=True, text=True, check=True).stdout
    for v in ("x", "y", "z", "id_1", "id_2", "px", "py", "pz"):
        assert f"\t\t{v}:_ChunkSizes = 1, 1024 ;" in h and f"\t\t{v}:_DeflateLevel = 9 ;" in h, v
    r = iok(4, "bdcats", cfg, out, "-a", "netcdf4")
    assert "passed (every particle read matches the pattern)" in r.stdout


def test_file_per_proc_compress_align(tmp_path):
    need("hdf5")
    cfg = write_cfg(tmp_path / "f.cfg", TIMESTEPS=2, DIM_1=4096, FILE_PER_PROC="YES", COMPRESS="YES",
                    CHUNK_DIM_1=1024, COLLECTIVE_DATA="YES")
    out = tmp_path / "f.h5"
    iok(4, "vpic", cfg, out)
    for r in range(4):
        h = h5dump_header(tmp_path / f"f_{r}.h5", "-p")
        assert "DEFLATE" in h and "CHUNKED ( 1024 )" in h
        assert dataset_shapes(h)["/Timestep_1/id_2"] == (4096,)
    r = iok(4, "bdcats", cfg, out)
    assert "passed (every particle read matches the pattern)" in r.stdout
    acfg = write_cfg(tmp_path / "a.cfg", TIMESTEPS=1, DIM_1=4096, ALIGN="YES", ALIGN_LEN="64K",
                     ALIGN_THRESHOLD="1K", COLLECTIVE_DATA="YES")
    iok(4, "vpic", acfg, tmp_path / "a.h5")
    # every field's 64 KiB of data starts on a 64 KiB boundary (h5dump -p: STORAGE_LAYOUT's OFFSET)
    offsets = re.findall(r"CONTIGUOUS\s+SIZE (\d+)\s+OFFSET (\d+)", h5dump_header(tmp_path / "a.h5", "-p"))
    assert len(offsets) == 8 and all(int(size) == 4 * 4096 * 4 for size, _ in offsets), offsets
    assert all(int(at) % 65536 == 0 for _, at in offsets), offsets


@pytest.mark.parametrize("be", ["pnetcdf", "netcdf4", "adios", "mpiio"])
def test_other_libraries(tmp_path, be):
    need(be)
    ext = EXT[be]
    cfg = case_cfg(tmp_path, "CONTIG", "CONTIG", 1)
    out = tmp_path / f"p_{be}{ext}"
    js = tmp_path / f"{be}.json"
    iok(4, "vpic", cfg, out, "-a", be, "--json", js)
    assert load_json(js)["summary"]["total_size_bytes"] == 4 * 96 * 32 * STEPS
    if be == "mpiio":  # the raw file is the data: 2 records of 8 variables of 384 values
        assert out.stat().st_size == 4 * 96 * 32 * STEPS
        assert np.array_equal(read_raw(out, 4 * 96, STEPS)["Timestep_1/py"], pattern("py", 4 * 96, 1))
    r = iok(4, "bdcats", cfg, out, "-a", be)
    assert "passed (every particle read matches the pattern)" in r.stdout
    # structs in memory: packed per field for a library without compounds, values identical
    mcfg = case_cfg(tmp_path, "INTERLEAVED", "CONTIG", 1)
    assert mcfg != cfg
    mout = tmp_path / f"m_{be}{ext}"
    iok(4, "vpic", mcfg, mout, "-a", be, "--json", js)
    ms = load_json(js)["files"][0]["memory_struct"]
    assert (ms["requests_native"], ms["requests_packed"]) == (0, STEPS)
    if be == "mpiio":
        assert out.read_bytes() == mout.read_bytes()
    r = iok(4, "bdcats", mcfg, mout, "-a", be, "--json", js)
    assert "passed (every particle read matches the pattern)" in r.stdout
    ms = load_json(js)["files"][0]["memory_struct"]
    assert (ms["requests_native"], ms["requests_packed"]) == (0, STEPS)
    # the file written from structs, read into separate arrays (MEM_PATTERN=CONTIG)
    r = iok(4, "bdcats", cfg, mout, "-a", be, "--json", js)
    assert "passed (every particle read matches the pattern)" in r.stdout
    assert "memory_struct" not in load_json(js)["files"][0]
    assert load_json(js)["summary"]["total_size_bytes"] == 4 * 96 * 32 * STEPS
    # a 2-D file written from structs, read back both ways; a 3-D file (structs are 1-2 D)
    ncfg = case_cfg(tmp_path, "INTERLEAVED", "CONTIG", 2)
    iok(4, "vpic", ncfg, tmp_path / f"n2_{be}{ext}", "-a", be)
    for rcfg in (ncfg, case_cfg(tmp_path, "CONTIG", "CONTIG", 2)):
        r = iok(4, "bdcats", rcfg, tmp_path / f"n2_{be}{ext}", "-a", be)
        assert "passed (every particle read matches the pattern)" in r.stdout, rcfg.name
    ncfg = case_cfg(tmp_path, "CONTIG", "CONTIG", 3)
    iok(4, "vpic", ncfg, tmp_path / f"n3_{be}{ext}", "-a", be)
    r = iok(4, "bdcats", ncfg, tmp_path / f"n3_{be}{ext}", "-a", be)
    assert "passed (every particle read matches the pattern)" in r.stdout
    # the compound layout needs HDF5: refused, not silently flattened
    icfg = case_cfg(tmp_path, "CONTIG", "INTERLEAVED", 1)
    p = iok(1, "vpic", icfg, tmp_path / f"i_{be}{ext}", "-a", be, check=False)
    assert p.returncode == 2  # not expressible on this library (Unsupported), not a failure
    assert_all_ranks_fail(p, "FILE_PATTERN=INTERLEAVED", "needs compound files, which backend")
    assert not (tmp_path / f"i_{be}{ext}").exists()


def test_named_options_form(tmp_path):
    need("hdf5")
    out = tmp_path / "named.h5"
    iok(4, "vpic", "--dim-1", "1 K", "--timesteps", "3", "--collective-data", "YES", "-o", out, "--keep")
    assert dataset_shapes(h5dump_header(out))["/Timestep_2/x"] == (4096,)
    r = iok(4, "bdcats", "--dim-1", "1K", "--timesteps", "3", "-i", out)
    assert "passed (every particle read matches the pattern)" in r.stdout


@pytest.mark.parametrize("lines,frag", [
    ({"DIM_1": 64, "WIBBLE": 3}, "unknown configuration key 'WIBBLE'"),
    ({"DIM_1": "64Q"}, "unknown unit 'Q'"),
    ({"DIM_1": 64, "EMULATED_COMPUTE_TIME_PER_TIMESTEP": "5000"}, "has no time unit"),
    ({"DIM_1": 64, "EMULATED_COMPUTE_TIME_PER_TIMESTEP": "5 fortnights"}, "unknown time unit"),
    ({"DIM_1": 64, "NUM_DIMS": 3, "FILE_PATTERN": "INTERLEAVED"}, "is not a supported write pattern"),
    ({"DIM_1": 64, "NUM_DIMS": 2, "FILE_PATTERN": "STRIDED"}, "is not a supported write pattern"),
    ({"DIM_1": 64, "MEM_PATTERN": "STRIDED"}, "is not a supported write pattern"),
    ({"DIM_1": 64, "IO_OPERATION": "READ"}, "IO_OPERATION=READ in a write configuration"),
    ({"DIM_1": 64, "IO_OPERATION": "APPEND"}, "only UNLIMITED=YES files have"),
    ({"DIM_1": 64, "IO_OPERATION": "APPEND", "UNLIMITED": "YES"}, "IO_OPERATION=APPEND needs an existing file"),
    ({"DIM_1": 64, "IO_OPERATION": "OVERWRITE"}, "IO_OPERATION=OVERWRITE needs an existing file"),
    ({"DIM_1": 64, "MODE": "ASYNC"}, "async VOL connector could not be loaded"),
    ({"DIM_1": 64, "SUBFILING": "YES"}, "without the subfiling VFD"),
])
def test_write_config_errors(tmp_path, lines, frag):
    need("hdf5")  # the default library; COMPRESS, ASYNC and SUBFILING are HDF5's
    cfg = write_cfg(tmp_path / "bad.cfg", **lines)
    p = iok(4, "vpic", cfg, tmp_path / "x.h5", check=False)
    assert_all_ranks_fail(p, frag)
    assert not (tmp_path / "x.h5").exists()


@pytest.fixture(scope="module")
def written_once(tmp_path_factory):
    """nd -> a 4-writer CONTIG file of nd dimensions, written on first use
    (the read configuration errors all read one of two files)."""
    files = {}

    def get(nd):
        if nd not in files:
            d = tmp_path_factory.mktemp(f"written_{nd}d")
            iok(4, "vpic", case_cfg(d, "CONTIG", "CONTIG", nd), d / "p.h5")
            files[nd] = d / "p.h5"
        return files[nd]
    return get


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
def test_read_config_errors(tmp_path, written_once, lines, frag):
    need("hdf5")
    out = written_once(lines.get("NUM_DIMS", 1))
    cfg = write_cfg(tmp_path / "bad.cfg", TIMESTEPS=STEPS, **lines)
    p = iok(4, "bdcats", cfg, out, check=False)
    assert_all_ranks_fail(p, frag)


def test_reading_wrong_layout_is_clear(tmp_path):
    need("hdf5")
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
    need("hdf5_md")
    cfg = case_cfg(tmp_path, "INTERLEAVED", file, 1)
    out, js = tmp_path / "m.h5", tmp_path / "m.json"
    iok(4, "vpic", cfg, out, "-a", "hdf5_md", "--json", js)
    assert load_json(js)["files"][0]["memory_struct"]["requests_native"] == STEPS
    r = iok(4, "bdcats", cfg, out, "-a", "hdf5_md", "--json", js)
    assert "passed (every particle read matches the pattern)" in r.stdout
    ms = load_json(js)["files"][0]["memory_struct"]
    assert (ms["requests_native"], ms["requests_packed"]) == ((STEPS, 0) if file == "INTERLEAVED" else (0, STEPS))
    r = iok(4, "bdcats", cfg, out, "-a", "hdf5_md", "--mem-pattern", "CONTIG", "--json", js)
    assert "passed (every particle read matches the pattern)" in r.stdout
    assert "memory_struct" not in load_json(js)["files"][0]
