"""E3SM-IO's command line as its users type it, on a generated G map (no
../shared): -a hdf5_ra (HDF5 + rearranger) and -a hdf5_log (the log layout)
rewritten with a note and verified by reading back, -a netcdf4, -c/-z
(chunk shapes by E3SM-IO's rule and deflate level 6, checked in h5dump -p,
on NetCDF-4 also in ncdump -hs; values read back), and the refusals: an unknown filter, -c/-z on libraries
without chunking and on the blob/log layouts, hdf5_ra/hdf5_log with a
contradicting -x; E3SM-IO's environment variables give notes."""
import re
import subprocess

import numpy as np
import pytest

from conftest import assert_all_ranks_fail, iok, load_json, registered_backends

RANKS = 2


def need(*libs):
    for lib in libs:
        if lib not in registered_backends():
            pytest.skip(f"{lib} backend not built")


def h5_datasets(path):
    """{name: (dims, maxdims, element bytes, chunk dims or None, deflate level or 0)} from h5dump -p -H."""
    text = subprocess.run(["h5dump", "-p", "-H", str(path)], capture_output=True, text=True, check=True).stdout
    sizes = {"H5T_IEEE_F64LE": 8, "H5T_IEEE_F32LE": 4, "H5T_STD_I32LE": 4, "H5T_STD_I64LE": 8, "H5T_STD_I8LE": 1,
             "H5T_STD_U8LE": 1, "H5T_STD_I16LE": 2}
    out = {}
    for block in text.split('DATASET "')[1:]:
        name = block.split('"', 1)[0]
        m = re.search(r"DATASPACE\s+SIMPLE \{ \( ([\d, ]+) \) / \( ([\w, ]+) \)", block)
        if not m:
            continue  # scalars
        dims = tuple(int(x) for x in m.group(1).split(","))
        maxdims = tuple(x.strip() for x in m.group(2).split(","))
        t = re.search(r"DATATYPE\s+(\w+)", block)
        chunk = re.search(r"CHUNKED \( ([\d, ]+) \)", block)
        level = re.search(r"DEFLATE \{ LEVEL (\d+) \}", block)
        out[name] = (dims, maxdims, sizes.get(t.group(1)) if t else None,
                     tuple(int(x) for x in chunk.group(1).split(",")) if chunk else None,
                     int(level.group(1)) if level else 0)
    return out


def e3sm_rule(fixed_dims, element_bytes, chunk_bytes):
    """E3SM-IO's chunk shape (its HDF5 driver), written again here."""
    chunk, size = [1] * len(fixed_dims), element_bytes
    for i in reversed(range(len(fixed_dims))):
        if size < chunk_bytes:
            chunk[i] = fixed_dims[i]
            size *= fixed_dims[i]
    return chunk


def run(tmp_path, mapfile, *args, name="o.h5", check=True, env=None):
    out, res = tmp_path / name, tmp_path / (name + ".json")
    p = iok(RANKS, "e3sm", "-k", "--json", res, "-o", out, "-r", "2", "--verify", *args, mapfile, check=check,
            env=env, timeout=300)
    return p, out, (load_json(res) if p.returncode == 0 else None)


@pytest.mark.parametrize("api,strategy", [("hdf5_ra", "rearrange"), ("hdf5_log", "log")])
def test_seed_api_names_run_their_pairs(tmp_path, small_g_map, api, strategy):
    need("hdf5")
    p, out, res = run(tmp_path, small_g_map, "-a", api)
    assert f"note: -a {api} is E3SM-IO's name for" in p.stdout and f"running -a hdf5 -x {strategy}" in p.stdout
    assert res["params"]["strategy"] == strategy
    # the rearranger writes through HDF5; the log layout's data and index go through MPI-IO
    assert res["params"]["backend"] == ("hdf5" if strategy == "rearrange" else "mpiio")
    assert res["summary"]["verification_mismatches"] == 0
    # E3SM-IO's own pairing is accepted too
    seed_x = "canonical" if api == "hdf5_ra" else "log"
    p, _, res = run(tmp_path, small_g_map, "-a", api, "-x", seed_x, name="o2.h5")
    assert res["params"]["strategy"] == strategy


@pytest.mark.parametrize("api,x", [("hdf5_ra", "blob"), ("hdf5_log", "canonical")])
def test_seed_api_names_with_another_strategy_are_refused(tmp_path, small_g_map, api, x):
    need("hdf5")
    p, out, _ = run(tmp_path, small_g_map, "-a", api, "-x", x, check=False)
    assert_all_ranks_fail(p, f"-a {api}", f"with -x {x}")
    assert not out.exists()


def test_hdf5_file_in_e3sm_io_layout(tmp_path, small_g_map):
    """E3SM-IO's HDF5 driver's file (h5dump of the two agrees but for storage
    offsets on the F case): the newest format, every dimension a root
    attribute -DIM_<name> (the record one H5S_UNLIMITED), text attributes
    with their NUL, char variables 8-bit integers, no fill value defined.
    Dimensions and texts are those of the PnetCDF file of the same run."""
    need("hdf5")
    netCDF4 = pytest.importorskip("netCDF4")
    _, h5, _ = run(tmp_path, small_g_map, "-a", "hdf5")
    _, nc, _ = run(tmp_path, small_g_map, "-a", "pnetcdf", name="o.nc")
    text = subprocess.run(["h5dump", "-B", "-A", "-p", str(h5)], capture_output=True, text=True, check=True).stdout
    assert "SUPERBLOCK_VERSION 3" in text  # H5F_LIBVER_LATEST, as E3SM-IO creates its files
    stored = {m[0]: int(m[1]) for m in re.findall(
        r'ATTRIBUTE "-DIM_(\w+)" \{\s+DATATYPE  H5T_STD_U64LE\s+DATASPACE  SCALAR\s+DATA \{\s+\(0\): (\d+)', text)}
    with netCDF4.Dataset(nc) as ds:
        dims = {n: (2**64 - 1 if d.isunlimited() else len(d)) for n, d in ds.dimensions.items()}
        texts = {n: ds.getncattr(n) for n in ds.ncattrs() if isinstance(ds.getncattr(n), str)}
        chars = [n for n, v in ds.variables.items() if v.dtype == np.dtype("S1")]
        nvars = len(ds.variables)
    assert stored == dims and "Time" in dims
    root = text[text.index('GROUP "/"'):text.index("DATASET")]
    assert texts
    for name, value in texts.items():
        m = re.search(rf'ATTRIBUTE "{re.escape(name)}" \{{\s+DATATYPE  H5T_STRING \{{\s+STRSIZE (\d+);', root)
        assert m and int(m[1]) == len(value) + 1, name
    assert chars
    for name in chars:
        assert re.search(rf'DATASET "{name}" \{{\s+DATATYPE  H5T_STD_I8LE', text), name
    assert text.count("H5D_FILL_VALUE_UNDEFINED") == nvars and text.count("H5D_FILL_TIME_NEVER") == nvars


def test_netcdf4(tmp_path, small_g_map):
    need("netcdf4")
    p, out, res = run(tmp_path, small_g_map, "-a", "netcdf4", name="o.nc4")
    assert res["params"]["backend"] == "netcdf4" and res["summary"]["verification_mismatches"] == 0
    assert out.read_bytes()[:8] == b"\x89HDF\r\n\x1a\n"  # NetCDF-4 = HDF5 container


@pytest.mark.parametrize("api,z", [("hdf5", ["-z", "deflate"]), ("hdf5_md", ["-z", "deflate"]), ("hdf5_ra", []),
                                   ("netcdf4", ["-z", "deflate"]), ("netcdf4", [])])
def test_chunk_and_deflate(tmp_path, small_g_map, api, z):
    need({"hdf5_md": "hdf5_md", "netcdf4": "netcdf4"}.get(api, "hdf5"))
    p, out, res = run(tmp_path, small_g_map, "-a", api, "-c", "64", *z, name="o.nc4" if api == "netcdf4" else "o.h5")
    assert res["summary"]["verification_mismatches"] == 0
    ds = h5_datasets(out)
    record = {n: v for n, v in ds.items() if v[1] and v[1][0] == "H5S_UNLIMITED"}
    fixed = {n: v for n, v in ds.items() if n not in record}
    assert record and fixed
    for n, (dims, _maxdims, esize, chunk, level) in ds.items():
        if esize is None:
            continue
        fixed_dims = list(dims[1:] if n in record else dims)
        expect = ([1] if n in record else []) + e3sm_rule(fixed_dims, esize, 64)
        assert chunk == tuple(expect), (n, dims, chunk, expect)
        assert level == (6 if z else 0), n


def test_deflate_alone_compresses_record_variables(tmp_path, small_g_map):
    need("hdf5")
    p, out, res = run(tmp_path, small_g_map, "-z", "zlib", "-a", "hdf5")
    assert res["summary"]["verification_mismatches"] == 0
    ds = h5_datasets(out)
    n_rec = 0
    for n, (dims, maxdims, _esize, chunk, level) in ds.items():
        if maxdims and maxdims[0] == "H5S_UNLIMITED":
            n_rec += 1
            assert chunk == (1, *dims[1:]) and level == 6, n
        else:
            assert chunk is None and level == 0, n  # fixed-size: contiguous, as E3SM-IO
    assert n_rec > 0
    # -c alone: chunked, nothing compressed
    p, out, res = run(tmp_path, small_g_map, "-c", "1048576", "-a", "hdf5", name="c.h5")
    assert all(v[4] == 0 for v in h5_datasets(out).values())
    assert any(v[3] is not None and v[1][0] != "H5S_UNLIMITED" for v in h5_datasets(out).values())


@pytest.mark.parametrize("args,frags", [
    (["-a", "hdf5", "-z", "bzip2"], ["unknown filter 'bzip2'", "deflate and zlib"]),
    (["-a", "pnetcdf", "-c", "4096"], ["-c 4096", "needs chunking, which backend pnetcdf does not have"]),
    (["-a", "netcdf4", "-z", "deflate", "--independent"], ["collectively"]),
    (["-a", "netcdf4", "-x", "rearrange", "-z", "zlib"], ["with -x rearrange", "collectively only"]),
    (["-a", "adios", "-c", "4096", "-z", "zlib"], ["needs chunking, which backend adios does not have"]),
    (["-a", "hdf5", "-x", "blob", "-c", "4096"], ["with -x blob", "no per-variable datasets"]),
    (["-a", "hdf5_log", "-z", "deflate"], ["with -x log", "no per-variable datasets"]),
    (["-a", "hdf5", "-z", "deflate", "--independent"], ["collectively"]),
    (["-a", "hdf5_ra", "-z", "deflate"], ["with -x rearrange", "collectively only"]),
])
def test_chunking_refusals(tmp_path, small_g_map, args, frags):
    need("hdf5" if args[1] in ("hdf5_log", "hdf5_ra") else args[1])
    p, out, _ = run(tmp_path, small_g_map, *args, check=False)
    assert_all_ranks_fail(p, *frags)
    assert not out.exists()


def ncdump_storage(path):
    """{variable: (_ChunkSizes tuple or None, _DeflateLevel or 0, _Storage)} from ncdump -hs."""
    text = subprocess.run(["ncdump", "-hs", str(path)], capture_output=True, text=True, check=True).stdout
    out = {}
    for m in re.finditer(r'^\t\t(\w+):_(Storage|ChunkSizes|DeflateLevel) = "?([^";]+)"? ;$', text, re.M):
        name, key, value = m.groups()
        st = out.setdefault(name, {"chunk": None, "level": 0, "storage": None})
        if key == "Storage":
            st["storage"] = value
        elif key == "ChunkSizes":
            st["chunk"] = tuple(int(x) for x in value.split(","))
        else:
            st["level"] = int(value)
    return out


def test_netcdf4_deflate_alone_in_ncdump(tmp_path, small_g_map):
    """-z without -c on NetCDF-4: record variables compressed in their
    one-record chunks, fixed ones contiguous (E3SM-IO's rule), as ncdump -hs
    reports them; every value read back by the kernel (--verify) and, read
    by netCDF4-python, equal to those of the uncompressed file (--fill: the
    elements no rank writes are defined too)."""
    need("netcdf4")
    p, out, res = run(tmp_path, small_g_map, "-a", "netcdf4", "-z", "zlib", "--fill", name="z.nc4")
    assert res["summary"]["verification_mismatches"] == 0
    st = ncdump_storage(out)
    rec = {n: v for n, v in st.items() if v["storage"] == "chunked"}
    fixed = {n: v for n, v in st.items() if v["storage"] == "contiguous"}
    assert rec and fixed
    assert all(v["level"] == 6 and v["chunk"][0] == 1 for v in rec.values()), rec
    assert all(v["level"] == 0 for v in fixed.values()), fixed
    p, plain, res = run(tmp_path, small_g_map, "-a", "netcdf4", "--fill", name="p.nc4")
    assert all(v["level"] == 0 for v in ncdump_storage(plain).values())
    import netCDF4
    with netCDF4.Dataset(out) as a, netCDF4.Dataset(plain) as b:
        assert set(a.variables) == set(b.variables)
        for name in a.variables:
            x, y = a[name][:], b[name][:]
            assert x.shape == y.shape and (x.mask == y.mask).all() and (x == y).all(), name


def test_environment_variables_give_notes(tmp_path, small_g_map):
    need("hdf5")
    p, _, res = run(tmp_path, small_g_map, "-a", "hdf5",
                    env={"E3SM_IO_HDF5_MERGE_VARN": "0", "E3SM_IO_HDF5_USE_LOGVOL_WRITEN": "1"})
    assert "note: E3SM_IO_HDF5_MERGE_VARN=0 is without effect" in p.stdout
    assert "note: E3SM_IO_HDF5_USE_LOGVOL_WRITEN is without effect" in p.stdout
    p, _, _ = run(tmp_path, small_g_map, "-a", "hdf5", name="q.h5")
    assert "note:" not in p.stdout
