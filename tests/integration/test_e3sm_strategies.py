"""E3SM kernel with the blob and log strategies and their replay tools, on the
F, G and I maps the project generates (e3sm_inputs).

Blob and log outputs are written with 4 or 16 ranks (16 on the G map), read back by the kernel with
the writer's count (blob read mode), replayed to a canonical CDF-5 file with a
DIFFERENT process count (3), verified by the kernel's read test on the
canonical file, and compared value by value with the canonical outputs the
libraries write directly (pnetcdf, hdf5, hdf5_md, netcdf4).  A corrupted
subfile value must make replay+verify fail naming the element.

Values are compared with file_values (every variable, every value)."""
import json
import subprocess
import sys

import pytest

from conftest import assert_all_ranks_fail, iok, mpirun, registered_backends, tool
from file_values import VARIABLES, assert_same_values, dump

MAPS = {"F": "map_f_case_16p.nc", "G": "map_g_case_16p.nc", "I": "map_i_case_16p.nc"}

@pytest.fixture
def needs_pnetcdf():
    if "pnetcdf" not in registered_backends():
        pytest.skip("pnetcdf backend not in this build")


def blob_replay():
    return tool("blob_replay")


def outputs(stem, case):
    """History files the kernel writes for one -o stem (F and I have h0 and h1)."""
    if case == "G":
        return [stem]
    return [stem.with_name(stem.stem + "_h0" + stem.suffix), stem.with_name(stem.stem + "_h1" + stem.suffix)]


def write_blob_and_replay(case, nranks, records, mapfile, tmp_path, library="pnetcdf", subfiles=None):
    blob = tmp_path / f"blob_{case}_{nranks}.nc"
    args = ["e3sm", "-k", "-r", str(records), "-a", library, "-x", "blob", "-o", blob, mapfile]
    if subfiles:
        args[1:1] = ["-g", str(subfiles)]
    iok(nranks, *args, "--json", tmp_path / "blob.json")
    params = json.loads((tmp_path / "blob.json").read_text())["params"]
    assert (params["backend"], params["strategy"]) == (library, "blob")
    canon = []
    for b in outputs(blob, case):
        assert b.is_dir() and (b / "blob.json").is_file(), b
        c = b.with_name(b.stem + "_replayed.nc")
        r = mpirun(3, [blob_replay(), b, "-o", c]).stdout
        assert "Replay processes" in r and "Writer processes" in r
        canon.append(c)
    return blob, canon


# 16 writers on the G map (one map partition per rank, 16 blocks per
# subfile), the F case's two files at 4: the F case at 16 ranks added four
# minutes to the suite here and no path the others do not take.
@pytest.mark.parametrize("case,nranks", [("G", 4), ("G", 16), ("F", 4)])
def test_blob_replay_equals_canonical(case, nranks, case_maps, tmp_path, needs_pnetcdf):
    mapfile = case_maps / MAPS[case]
    blob, replayed = write_blob_and_replay(case, nranks, 2, mapfile, tmp_path)
    # subfiles: one per node by default (this machine: one node)
    index = json.loads((outputs(blob, case)[0] / "blob.json").read_text())
    assert index["writers"] == nranks and index["library"] == "pnetcdf"
    assert index["nrecords"] == (1 if case == "F" else 2)  # F h0 holds one record whatever -r says
    assert sum(len(s["ranks"]) for s in index["subfiles"]) == nranks
    # blob read mode: the kernel reads the blob output back with the writer's count
    r = iok(nranks, "e3sm", "-r", "2", "-x", "blob", "-i", blob, mapfile).stdout
    assert "Verification" in r and "passed" in r
    # the replayed canonical file passes the kernel's read test (any rank count)
    stem = replayed[0].with_name(f"blob_{case}_{nranks}_replayed.nc")
    if case != "G":  # the kernel derives h0/h1 names from one stem: link them under it
        for label, c in zip(("h0", "h1"), replayed, strict=False):
            c.rename(stem.with_name(stem.stem + "_" + label + stem.suffix))
    r = iok(4, "e3sm", "-r", "2", "-i", stem, mapfile).stdout
    assert "passed" in r
    # and it holds the same values as the library's own canonical output
    canon = tmp_path / f"canon_{case}.nc"
    iok(nranks, "e3sm", "-k", "-r", "2", "-o", canon, mapfile)
    for c, b, nvars in zip(outputs(canon, case), outputs(stem, case), VARIABLES[case], strict=False):
        assert_same_values(dump(c, tmp_path), dump(b, tmp_path), f"{case} {b.name}", nvars)


def test_blob_aggregate_writes_the_same_subfiles(case_maps, tmp_path, needs_pnetcdf):
    """blob.aggregate=0 (the default: each rank writes its own pieces, library
    I/O independent, ROMIO's data sieving off) and blob.aggregate=1 (collective,
    as E3SM-IO's blob) write the same bytes; the manifest records the hints each
    asked for, and a hint the user gives wins over the strategy's."""
    mapfile = case_maps / MAPS["F"]
    runs = {}
    for agg, extra in (("0", []), ("1", []), ("0-given", ["--hint", "romio_ds_write=enable"])):
        out, js = tmp_path / f"blob{agg}.nc", tmp_path / f"blob{agg}.json"
        iok(4, "e3sm", "-k", "-r", "2", "-x", "blob", "--param", f"blob.aggregate={agg[0]}", *extra, "-o", out,
            "--json", js, mapfile)
        res = json.loads(js.read_text())
        assert res["params"]["backend_params"]["blob.aggregate"] == agg[0]
        runs[agg] = (out, res["manifest"]["mpiio_hints_requested"])
    alone, collective, given = runs["0"][1], runs["1"][1], runs["0-given"][1]
    assert (alone["romio_ds_write"], alone["romio_ds_read"]) == ("disable", "disable")
    assert "romio_ds_write" not in collective and "romio_ds_read" not in collective
    assert (given["romio_ds_write"], given["romio_ds_read"]) == ("enable", "disable")
    for out0, out1 in zip(outputs(runs["0"][0], "F"), outputs(runs["1"][0], "F"), strict=True):
        subs = sorted(p.name for p in out0.glob("subfile_*"))
        assert subs and subs == sorted(p.name for p in out1.glob("subfile_*"))
        for name in subs:
            a, b = (out0 / name).read_bytes(), (out1 / name).read_bytes()
            assert len(a) > 100_000 and a == b, name
    r = iok(4, "e3sm", "-r", "2", "-x", "blob", "--param", "blob.aggregate=1", "-i", runs["0"][0], mapfile).stdout
    assert "passed" in r


def adios_data_writers(subfile):
    """Bytes each rank wrote to the subfile's data file (ADIOS2's profiling.json:
    transport_0 is the data file); ranks that wrote none are absent."""
    prof = json.loads((subfile / "profiling.json").read_text())
    return {p["rank"]: p["transport_0"]["wbytes"] for p in prof if p.get("transport_0", {}).get("wbytes")}


def test_blob_adios_each_rank_writes_its_pieces(case_maps, tmp_path):
    """With ADIOS2 (BP5) the blob asks for AggregationType=EveryoneWrites unless
    blob.aggregate=1 or the user names one: every rank writes its own bytes to
    the subfile's data file, where ADIOS2's default gathers them at one rank.
    Both read back verified; the manifest records what was asked."""
    if "adios" not in registered_backends():
        pytest.skip("adios backend not in this build")
    mapfile = case_maps / MAPS["F"]
    runs = {}
    for name, extra in (("each", []), ("aggregate", ["--param", "blob.aggregate=1"]),
                        ("given", ["--param", "adios.aggregationtype=TwoLevelShm"])):
        out, js = tmp_path / f"{name}.bp", tmp_path / f"{name}.json"
        iok(4, "e3sm", "-k", "-r", "2", "-a", "adios", "-x", "blob", *extra, "-o", out, "--json", js, mapfile)
        params = json.loads(js.read_text())["params"]["backend_params"]
        h1 = outputs(out, "F")[1] / "subfile_0000.bp"
        runs[name] = (out, params, adios_data_writers(h1), (h1 / "data.0").stat().st_size)
    _, params, writers, size = runs["each"]
    assert params["adios.AggregationType"] == "EveryoneWrites"
    # the same data bytes either way; the file is longer by the gaps that align each step (and each rank's pieces)
    written = runs["aggregate"][2].get(0)
    assert sorted(writers) == [0, 1, 2, 3] and sum(writers.values()) == written > 100_000 and size >= written
    for name in ("aggregate", "given"):
        _, params, writers, size = runs[name]
        assert "adios.AggregationType" not in params, name
        assert list(writers) == [0] and writers[0] == written <= size, name  # one aggregator wrote it all
    assert runs["given"][1]["adios.aggregationtype"] == "TwoLevelShm"
    for name in ("each", "aggregate"):
        r = iok(4, "e3sm", "-r", "2", "-a", "adios", "-x", "blob", "-i", runs[name][0], mapfile).stdout
        assert "passed" in r, name


def test_blob_g_subfiles_and_headers(case_maps, tmp_path, needs_pnetcdf):
    """-g 3 with 4 ranks: three subfiles, groups of consecutive ranks; each
    subfile is a plain CDF-5 file whose variables are 1-D."""
    blob, _ = write_blob_and_replay("G", 4, 1, case_maps / MAPS["G"], tmp_path, subfiles=3)
    index = json.loads((blob / "blob.json").read_text())
    assert [s["ranks"] for s in index["subfiles"]] == [[0, 1], [2], [3]]  # group = rank * g // size
    subs = sorted(p.name for p in blob.glob("subfile_*"))
    assert subs == ["subfile_0000.nc", "subfile_0001.nc", "subfile_0002.nc"]
    head = subprocess.run(["ncmpidump", "-h", str(blob / subs[2])], capture_output=True, text=True).stdout
    kind = subprocess.run(["ncmpidump", "-k", str(blob / subs[2])], capture_output=True, text=True).stdout.strip()
    assert kind == "64-bit data", kind  # CDF-5
    assert "blob_blocks_0" in head and "blob_canonical_dims" in head


def test_blob_i_case_once(case_maps, tmp_path, needs_pnetcdf):
    """The large I case (h0 ~244 MiB per record): 4 ranks, 1 record."""
    mapfile = case_maps / MAPS["I"]
    blob, replayed = write_blob_and_replay("I", 4, 1, mapfile, tmp_path)
    stem = tmp_path / "i_replayed.nc"
    for label, c in zip(("h0", "h1"), replayed, strict=False):
        c.rename(stem.with_name(stem.stem + "_" + label + stem.suffix))
    assert "passed" in iok(4, "e3sm", "-r", "1", "-i", stem, mapfile).stdout


def test_corrupt_subfile_value_is_named(case_maps, tmp_path, needs_pnetcdf):
    """One changed value in a subfile: blob read mode and replay+verify both
    fail, naming the variable and element."""
    mapfile = case_maps / MAPS["G"]
    blob, replayed = write_blob_and_replay("G", 4, 1, mapfile, tmp_path)
    code = r"""
import sys, netCDF4
with netCDF4.Dataset(sys.argv[1], "r+") as ds:
    ds.set_auto_maskandscale(False)
    v = ds.variables["vertTransportVelocityTop"]
    v[0, 7] = v[0, 7] + 1000.0
"""
    p = subprocess.run([sys.executable, "-c", code, str(blob / "subfile_0000.nc")], capture_output=True, text=True)
    if p.returncode and "No module named" in p.stderr:
        pytest.skip("netCDF4 python module missing")
    assert p.returncode == 0, p.stderr
    bad = iok(4, "e3sm", "-r", "1", "-x", "blob", "-i", blob, mapfile, check=False)
    assert_all_ranks_fail(bad, "verification failed", "vertTransportVelocityTop", "element")
    again = tmp_path / "corrupt_replayed.nc"
    mpirun(3, [blob_replay(), blob, "-o", again])
    bad = iok(4, "e3sm", "-r", "1", "-i", again, mapfile, check=False)
    assert_all_ranks_fail(bad, "verification failed", "vertTransportVelocityTop", "record 0")


def test_blob_read_with_other_rank_count_is_refused(case_maps, tmp_path, needs_pnetcdf):
    mapfile = case_maps / MAPS["G"]
    blob, _ = write_blob_and_replay("G", 4, 1, mapfile, tmp_path)
    bad = iok(2, "e3sm", "-r", "1", "-x", "blob", "-i", blob, mapfile, check=False)
    assert_all_ranks_fail(bad, "written by 4 processes", "blob_replay")


def test_replay_of_a_non_blob_is_refused(tmp_path, needs_pnetcdf):
    (tmp_path / "empty").mkdir()
    bad = mpirun(2, [blob_replay(), tmp_path / "empty", "-o", tmp_path / "x.nc"], check=False)
    assert_all_ranks_fail(bad, "blob.json")


def test_canonical_outputs_agree_across_backends(case_maps, tmp_path, needs_pnetcdf):
    """pnetcdf, hdf5, hdf5_md, netcdf4 canonical outputs and pnetcdf
    blob+replay hold the same values for every variable (G case, 4 ranks)."""
    mapfile = case_maps / MAPS["G"]
    have = registered_backends()
    ref_path = tmp_path / "g_pnetcdf.nc"
    iok(4, "e3sm", "-k", "-r", "2", "-o", ref_path, mapfile)
    ref = dump(ref_path, tmp_path)
    _, replayed = write_blob_and_replay("G", 4, 2, mapfile, tmp_path)
    compared = {"blob+replay": assert_same_values(ref, dump(replayed[0], tmp_path), "blob+replay", VARIABLES["G"][0])}
    for api, ext in (("hdf5", ".h5"), ("hdf5_md", ".h5"), ("netcdf4", ".nc4")):
        if api not in have:
            continue
        path = tmp_path / f"g_{api}{ext}"
        iok(4, "e3sm", "-k", "-r", "2", "-a", api, "-o", path, mapfile)
        compared[api] = assert_same_values(ref, dump(path, tmp_path, "h5" if ext == ".h5" else "nc"), api,
                                           VARIABLES["G"][0])
    assert set(compared) == {"blob+replay"} | ({"hdf5", "hdf5_md", "netcdf4"} & have), compared


@pytest.mark.parametrize("library", ["hdf5", "netcdf4", "adios"])
def test_blob_over_other_libraries(library, case_maps, tmp_path, needs_pnetcdf):
    """The blob strategy wraps any backend: write G with 4 ranks, read back,
    replay (3 ranks) to canonical CDF-5 and compare with pnetcdf canonical."""
    if library not in registered_backends():
        pytest.skip(f"{library} not in this build")
    mapfile = case_maps / MAPS["G"]
    blob, replayed = write_blob_and_replay("G", 4, 2, mapfile, tmp_path, library=library)
    assert "passed" in iok(4, "e3sm", "-r", "2", "-a", library, "-x", "blob", "-i", blob, mapfile).stdout
    ref_path = tmp_path / "g_ref.nc"
    iok(4, "e3sm", "-k", "-r", "2", "-o", ref_path, mapfile)
    assert_same_values(dump(ref_path, tmp_path), dump(replayed[0], tmp_path), f"blob over {library}",
                       VARIABLES["G"][0])


@pytest.mark.parametrize("case,nranks", [("G", 16), ("F", 4)])  # 16 writers where it is cheap (see above)
def test_log_replay_equals_canonical(case, nranks, case_maps, tmp_path, needs_pnetcdf):
    """The log strategy (the seed's `-a hdf5 -x log`, built natively): write,
    read back with the writer's count, replay with 3 ranks, verify, compare."""
    mapfile = case_maps / MAPS[case]
    log = tmp_path / f"log_{case}.nc"
    iok(nranks, "e3sm", "-k", "-r", "2", "-a", "hdf5", "-x", "log", "-o", log, mapfile)
    assert "passed" in iok(nranks, "e3sm", "-r", "2", "-x", "log", "-i", log, mapfile).stdout
    stem = tmp_path / f"log_{case}_replayed.nc"
    for src, dst in zip(outputs(log, case), outputs(stem, case), strict=False):
        index = json.loads((src / "log.json").read_text())
        assert index["writers"] == nranks
        assert index["nrecords"] == (1 if src.stem.endswith("_h0") and case == "F" else 2)
        assert (src / "log_0000.bin").stat().st_size > 0 and (src / "index_0000.bin").is_file()
        r = mpirun(3, [tool("log_replay"), src, "-o", dst]).stdout
        assert "Replay processes" in r
    assert "passed" in iok(4, "e3sm", "-r", "2", "-i", stem, mapfile).stdout
    canon = tmp_path / f"canon_{case}.nc"
    iok(nranks, "e3sm", "-k", "-r", "2", "-o", canon, mapfile)
    for c, b, nvars in zip(outputs(canon, case), outputs(stem, case), VARIABLES[case], strict=False):
        assert_same_values(dump(c, tmp_path), dump(b, tmp_path), f"log {case} {b.name}", nvars)


def test_corrupt_log_byte_is_named(case_maps, tmp_path, needs_pnetcdf):
    mapfile = case_maps / MAPS["G"]
    log = tmp_path / "log_g.nc"
    iok(4, "e3sm", "-k", "-r", "1", "-x", "log", "-o", log, mapfile)
    data = log / "log_0000.bin"
    raw = bytearray(data.read_bytes())
    raw[len(raw) // 2] ^= 0x40  # one bit in the middle of the log
    data.write_bytes(bytes(raw))
    bad = iok(4, "e3sm", "-r", "1", "-x", "log", "-i", log, mapfile, check=False)
    assert_all_ranks_fail(bad, "verification failed", "element")
    again = tmp_path / "log_g_replayed.nc"
    mpirun(3, [tool("log_replay"), log, "-o", again])
    bad = iok(4, "e3sm", "-r", "1", "-i", again, mapfile, check=False)
    assert_all_ranks_fail(bad, "verification failed", "element")


def test_adios_blob_readable_by_bpls(case_maps, tmp_path, needs_pnetcdf):
    if "adios" not in registered_backends():
        pytest.skip("adios not in this build")
    bpls = tool("bpls", "bpls.mpi")
    blob = tmp_path / "g_adios.nc"
    iok(4, "e3sm", "-k", "-r", "2", "-a", "adios", "-x", "blob", "-g", "2", "-o", blob, case_maps / MAPS["G"])
    subs = sorted(blob.glob("subfile_*.bp"))
    assert [s.name for s in subs] == ["subfile_0000.bp", "subfile_0001.bp"]
    out = subprocess.run([bpls, "-la", str(subs[1])], capture_output=True, text=True).stdout
    assert "vertTransportVelocityTop" in out and "blob_blocks_0" in out and "2*{" in out
