"""E3SM maps in every container E3SM-IO reads (NetCDF classic CDF-1/2/5,
HDF5, NetCDF-4, ADIOS2 BP3 files and BP4/BP5 directories), recognised by
content.

Without ../shared: one map made by e3sm_mapgen in each format drives
`iokernels e3sm` at 4 ranks to the same requests, bytes and output file (byte
for byte) as its CDF-5 twin; a garbage file, a truncated HDF5 map and an empty
directory named x.bp each stop every rank within seconds with one message.

With ../shared: E3SM-IO's nine maps (F, G, I x .h5/.nc4/.bp) give the same
requests as their .nc at 1, 4 and 16 ranks (dry runs) and per rank
(e3sm_mapstat), and F and G also in real runs, with identical output."""
import hashlib
import json
import subprocess
import time
from pathlib import Path

import pytest

from conftest import IOKERNELS, iok, load_json, mpirun, tool

FORMATS = ["cdf1", "cdf2", "cdf5", "hdf5", "netcdf4", "bp", "bp4", "bp5"]
SUFFIX = {"bp": ".bp", "bp4": ".bp4", "bp5": ".bp5", "hdf5": ".h5", "netcdf4": ".nc4"}


def gen(path, fmt, *args):
    p = subprocess.run([str(tool("e3sm_mapgen")), "-o", str(path), "--format", fmt, *map(str, args)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return path


def by_label(res):
    """label -> (requests total/max/min, bytes total/max/min) of the written files."""
    out = {}
    for f in res["files"]:
        if f["mode"] == "write":
            r, b = f["requests"], f["bytes"]
            out[f["label"]] = ((r["total"], r["max"], r["min"]), (b["total"], b["max"], b["min"]))
    return out


def run(tmp, nranks, mapfile, name, *args):
    """iokernels e3sm on `mapfile`: ({label: SHA-256 of the file written}, JSON result)."""
    res = tmp / f"{name}.json"
    iok(nranks, "e3sm", "-k", "-q", "--json", res, "-o", tmp / f"{name}.nc", *args, mapfile, timeout=900)
    r = load_json(res)
    written = {}
    for f in r["files"]:
        if f["mode"] == "write":
            path = Path(f["path"])
            written[f["label"]] = hashlib.sha256(path.read_bytes()).hexdigest()
            path.unlink()  # the I case writes ~100 MB per run
    assert written
    return written, r


# ---- generated maps: no outside data --------------------------------------------

@pytest.fixture(scope="module")
def g_maps(tmp_path_factory):
    """The G case (6 decompositions, 16 processes) in every format, and the
    CDF-5 map's run at 4 ranks as the reference."""
    d = tmp_path_factory.mktemp("formats")
    maps = {f: gen(d / f"g{SUFFIX.get(f, '.' + f + '.nc')}", f, "--case", "G") for f in FORMATS}
    out, res = run(d, 4, maps["cdf5"], "ref", "--verify")
    return maps, out, res


def test_generated_maps_are_the_containers_asked_for(g_maps):
    maps, _, _ = g_maps
    head = {f: (p.read_bytes()[:8] if p.is_file() else None) for f, p in maps.items()}
    assert head["cdf1"][:4] == b"CDF\x01" and head["cdf2"][:4] == b"CDF\x02" and head["cdf5"][:4] == b"CDF\x05"
    assert head["hdf5"] == head["netcdf4"] == b"\x89HDF\r\n\x1a\n"
    assert maps["bp"].is_file() and maps["bp"].read_bytes()[-1] == 3  # BP3: one file, version in the last byte
    for f, version in (("bp4", 4), ("bp5", 5)):
        idx = (maps[f] / "md.idx").read_bytes()
        assert maps[f].is_dir() and idx.startswith(b"ADIOS-BP") and idx[37] == version
    # E3SM-IO's layouts: dimensions as -DIM_ attributes (HDF5), /__pio__/dim/ scalars (BP)
    h5 = subprocess.run([str(tool("h5dump")), "-a", "/-DIM_decomp_nprocs", str(maps["hdf5"])],
                        capture_output=True, text=True)
    assert h5.returncode == 0 and "(0): 16" in h5.stdout, h5.stdout + h5.stderr
    bp = subprocess.run([str(tool("bpls", "bpls.mpi")), "-la", str(maps["bp"])], capture_output=True, text=True)
    assert "/__pio__/dim/decomp_nprocs" in bp.stdout and "D6.offsets" in bp.stdout, bp.stdout + bp.stderr


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "cdf5"])
def test_every_format_gives_the_same_requests_and_data(tmp_path, g_maps, fmt):
    maps, ref_out, ref = g_maps
    out, res = run(tmp_path, 4, maps[fmt], fmt, "--verify")
    assert res["summary"]["verification_mismatches"] == 0
    assert by_label(res) == by_label(ref)
    assert by_label(res)["hist"][0][0] > 10000  # requests: a real pattern, not an empty one
    assert out == ref_out, f"{fmt} map wrote other data than the cdf5 map"


def every_rank_fails(tmp_path, mapfile, *fragments):
    """Run iokernels e3sm at 4 ranks, each under a shell that records its
    exit status and then exits 0 (so mpiexec kills no rank early): every rank
    must exit 1, with one message for the job, within seconds."""
    t0 = time.monotonic()
    p = mpirun(4, ["sh", "-c", '"$0" "$@"; echo "rank exit $?" >&2', IOKERNELS, "e3sm", "-q",
                   "-o", tmp_path / "never.nc", mapfile], check=False, timeout=120)
    elapsed = time.monotonic() - t0
    exits = [line for line in p.stderr.splitlines() if line.startswith("rank exit ")]
    assert exits == ["rank exit 1"] * 4, p.stderr
    for frag in fragments:
        assert frag in p.stderr, f"{frag!r} not in stderr:\n{p.stderr}"
    assert p.stderr.count("error:") == 1, f"expected one error message, got:\n{p.stderr}"
    assert "MPI_ABORT" not in p.stderr and "core dumped" not in p.stderr.lower(), p.stderr
    assert elapsed < 30, f"took {elapsed:.1f} s"
    assert not (tmp_path / "never.nc").exists()


def test_garbage_file_is_refused(tmp_path):
    bad = tmp_path / "map.nc"
    bad.write_bytes(b"\x00\x17garbage, not a map" * 10)
    size = bad.stat().st_size
    every_rank_fails(tmp_path, bad, f"{bad}: not a decomposition map file: it looks like a binary file of {size} bytes "
                                    "starting 00 17 67 61",
                     "maps are NetCDF classic (CDF-1, CDF-2, CDF-5), HDF5 or NetCDF-4 files, ADIOS2 BP3 files or "
                     "BP4/BP5 directories")


def test_truncated_hdf5_map_is_refused(tmp_path, g_maps):
    maps, _, _ = g_maps
    data = maps["hdf5"].read_bytes()
    cut = tmp_path / "cut.h5"
    cut.write_bytes(data[:len(data) // 2])
    every_rank_fails(tmp_path, cut, f"{cut}: has the HDF5 signature but HDF5 cannot open it",
                     "hint: the file is truncated or damaged")


def test_empty_directory_named_bp_is_refused(tmp_path):
    d = tmp_path / "x.bp"
    d.mkdir()
    every_rank_fails(tmp_path, d, f"{d}: not a decomposition map file: it looks like an empty directory without the "
                                  "md.idx of an ADIOS2 BP4/BP5 dataset")


# ---- E3SM-IO's own maps: ../shared ----------------------------------------------

CASES = ["f", "g", "i"]
CONTAINERS = ["h5", "nc4", "bp"]


def dry_requests(mapfile, nranks, tmp):
    res = tmp / "dry.json"
    p = subprocess.run([str(IOKERNELS), "e3sm", "--dry-run", "--ranks", str(nranks), "-q", "--json", str(res),
                        str(mapfile)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return {f["label"]: f["requests"] for f in load_json(res)["files"]}


def per_rank(mapfile):
    p = subprocess.run([str(tool("e3sm_mapstat")), "--json", "--ranks", "1,4,16", str(mapfile)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["maps"][0]["decomps"]


def test_e3sm_io_maps_give_the_classic_maps_requests_and_data(tmp_path, e3sm_maps):
    """E3SM-IO's nine maps, in one test so that a clone without ../shared
    skips one: each gives its .nc's requests at 1, 4 and 16 ranks (dry runs)
    and per rank (e3sm_mapstat); in the real collective write and read at 4
    ranks (F, G) and 16 (G, the quickest case) the same requests, bytes and
    output bytes.  (The I case's runs take 20 s each here: compared above.)"""
    figures = []
    for case in CASES:
        nc = e3sm_maps / f"map_{case}_case_16p.nc"
        ref = {n: dry_requests(nc, n, tmp_path) for n in (1, 4, 16)}
        ref_ranks = per_rank(nc)
        for ext in CONTAINERS:
            m = e3sm_maps / f"map_{case}_case_16p.{ext}"
            assert m.exists(), f"{m} is missing"
            for n in (1, 4, 16):
                got = dry_requests(m, n, tmp_path)
                assert got == ref[n], f"{m.name} at {n} ranks"
                figures.append(f"{m.name}@{n}: " + ", ".join(f"{k} {v['total']}" for k, v in got.items()))
            assert per_rank(m) == ref_ranks, f"{m.name}: per-rank requests differ from {nc.name}"
    print("\n".join(figures))
    for case, ranks in (("f", [4]), ("g", [4, 16])):
        for n in ranks:
            ref_out, ref = run(tmp_path, n, e3sm_maps / f"map_{case}_case_16p.nc", f"{case}nc{n}")
            assert by_label(ref)
            for ext in CONTAINERS:
                out, res = run(tmp_path, n, e3sm_maps / f"map_{case}_case_16p.{ext}", f"{case}{ext}{n}")
                assert by_label(res) == by_label(ref), f"map_{case}_case_16p.{ext} at {n} ranks"
                assert out == ref_out, f"map_{case}_case_16p.{ext} at {n} ranks: other data"
