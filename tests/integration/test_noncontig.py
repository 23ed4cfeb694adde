"""noncontig kernel: the report's figures computed independently from
decompositions the tests generate (mpi_io_test format, gen_inputs), both
tiles verified on 4 and 16 ranks under ROMIO and OMPIO (chosen by
--io-layer and by Open MPI's own `--mca io` setting), the file's every
value checked against the pattern, E3SM maps as input, a changed value in
either tile caught under either layer, and the input errors.  The
reference's figures on the real ne30 decompositions (D2 with 1000
variables: 185.40 MiB) need ../shared."""
import re
import shutil
import struct
import subprocess

import numpy as np
import pytest

from conftest import assert_all_ranks_fail, iok, load_json, pattern_value
from gen_inputs import mpi_io_test_decomposition, write_cdf1_ints

A = 48602  # array_size of both real mpi_io_test decompositions
GEN_A = 6000  # array_size of the generated ones
GEN_PROCS = 32
PASSED = "passed (tile 0 and tile 1, every element; MPI_Pack output matches)"


def report_value(stdout, label):
    m = re.search(rf"^  {re.escape(label)}\s+= (.*)$", stdout, re.M)
    assert m, f"no line {label!r} in:\n{stdout}"
    return m.group(1)


@pytest.fixture(scope="module")
def gen_d2(tmp_path_factory):
    """A D2-like decomposition (runs of 1-6 floats) of 32 processes; read only."""
    path = tmp_path_factory.mktemp("noncontig") / "gen_6000_32p_D2.nc"
    return path, mpi_io_test_decomposition(path, nprocs=GEN_PROCS, array_size=GEN_A, lengths=(1, 6), seed=2)


@pytest.fixture(scope="module")
def gen_d1(tmp_path_factory):
    """A D1-like decomposition (runs of 6-72 floats) of 16 processes; read only."""
    path = tmp_path_factory.mktemp("noncontig") / "gen_6000_16p_D1.nc"
    return path, mpi_io_test_decomposition(path, nprocs=16, array_size=GEN_A, lengths=(6, 72), seed=1)


def rank_procs(nprocs, ranks):
    """Map processes of each rank, as the E3SM kernel distributes them (blocks)."""
    cnt, extra = divmod(nprocs, ranks)
    return [range(r * cnt + min(r, extra), (r + 1) * cnt + min(r + 1, extra)) for r in range(ranks)]


def expected_file(nvars, array_size):
    """Both tiles' values as the pattern defines them (variable v, element e,
    record = tile), little-endian floats in file order."""
    tiles = [[[pattern_value(f"noncontig_var{v}", e, t) for e in range(array_size)] for v in range(nvars)]
             for t in range(2)]
    return np.array(tiles, dtype="<f4").ravel()


def test_report_figures_from_the_decomposition(gen_d2, tmp_path):
    """Every figure of the report, computed here from the generated runs."""
    path, procs = gen_d2
    nvars, ranks = 3, 4
    out, js = tmp_path / "t", tmp_path / "r.json"
    p = iok(ranks, "noncontig", "-n", nvars, "-k", "-o", out, path, "--json", js)
    o = p.stdout
    runs = [len(off) for off, _ in procs]
    lens = [n for _, ls in procs for n in ls]
    per_rank = [sum(runs[q] for q in qs) for qs in rank_procs(GEN_PROCS, ranks)]
    assert report_value(o, "Decomposition") == (f"mpi_io_test, {GEN_PROCS} processes, array_size 6,000, "
                                                f"{sum(runs):,} runs")
    assert report_value(o, "Map processes per rank") == str(GEN_PROCS // ranks)
    assert report_value(o, "Total number of variables") == str(nvars)
    assert report_value(o, "Total write amount").endswith(f"({nvars * GEN_A * 4:,} bytes)")
    assert report_value(o, "Max no. noncontig requests per var") == str(max(runs))
    assert report_value(o, "Min no. noncontig requests per var") == str(min(runs))
    assert report_value(o, "Max / min requests per var per rank") == f"{max(per_rank)} / {min(per_rank)}"
    assert report_value(o, "Max length of contig request") == f"{4 * max(lens)} bytes"
    assert report_value(o, "Min length of contig request") == f"{4 * min(lens)} bytes"
    assert report_value(o, "Verification") == PASSED
    s = load_json(js)["summary"]
    assert s["write_bytes"] == nvars * GEN_A * 4
    assert s["file_size"] == out.stat().st_size == 2 * nvars * GEN_A * 4
    # the file itself: tile 0 (contiguous buffer) then tile 1 (noncontiguous), every value
    assert np.array_equal(np.fromfile(out, dtype="<f4"), expected_file(nvars, GEN_A))


def test_own_map_processes_as_the_reference(gen_d2, tmp_path):
    """--map-processes own: rank r writes map process r, as the reference
    does on fewer ranks than the map has processes.  4 ranks of the
    32-process map write processes 0-3's runs only, verified; every other
    element of the file is a hole (zeros); the file ends at tile 1's last
    written run."""
    path, procs = gen_d2
    nvars, ranks = 2, 4
    out, js = tmp_path / "t", tmp_path / "r.json"
    p = iok(ranks, "noncontig", "-n", nvars, "-k", "--map-processes", "own", "-o", out, path, "--json", js)
    o = p.stdout
    mine = procs[:ranks]
    runs = [len(off) for off, _ in mine]
    elems = sum(sum(ls) for _, ls in mine)
    end = max(off[-1] + ls[-1] for off, ls in mine)
    assert report_value(o, "Decomposition") == (f"mpi_io_test, processes 0-{ranks - 1} of {GEN_PROCS} "
                                                f"(--map-processes own), array_size 6,000, {sum(runs):,} runs")
    assert report_value(o, "Map processes per rank") == "1"
    assert report_value(o, "Total write amount").endswith(f"({nvars * elems * 4:,} bytes)")
    assert report_value(o, "Max no. noncontig requests per var") == str(max(runs))
    assert report_value(o, "Max / min requests per var per rank") == f"{max(runs)} / {min(runs)}"
    size = ((2 * nvars - 1) * GEN_A + end) * 4
    want_size = f"{size:,} bytes (expected: to the end of tile 1's last written run = {size:,})"
    assert report_value(o, "File size") == want_size
    assert report_value(o, "Verification") == PASSED
    doc = load_json(js)
    assert doc["params"]["map_process_assignment"] == "own" and doc["params"]["map_processes"] == ranks
    assert doc["summary"]["write_bytes"] == nvars * elems * 4 and out.stat().st_size == size
    want = expected_file(nvars, GEN_A)
    written = np.zeros(GEN_A, dtype=bool)
    for off, ls in mine:
        for a, n in zip(off, ls, strict=True):
            written[a:a + n] = True
    want = np.where(np.tile(written, 2 * nvars), want, 0)[:size // 4]
    assert np.array_equal(np.fromfile(out, dtype="<f4"), want)
    one = iok(ranks, "noncontig", "-n", nvars, "--map-processes", "blocks", "-o", tmp_path / "b", path)
    assert report_value(one.stdout, "Map processes per rank") == str(GEN_PROCS // ranks)
    assert_all_ranks_fail(iok(ranks, "noncontig", "--map-processes", "mine", "-o", tmp_path / "c", path,
                              check=False), "--map-processes")


@pytest.mark.parametrize("layer", ["romio", "ompio"])
@pytest.mark.parametrize("ranks", [4, 16])
def test_tiles_verified(gen_d2, tmp_path, ranks, layer):
    path, _ = gen_d2
    p = iok(ranks, "--io-layer", layer, "noncontig", "-n", "5", "-o", tmp_path / "t", path)
    o = p.stdout
    assert report_value(o, "MPI-IO layer") == layer.upper()
    assert report_value(o, "Total number of MPI processes") == str(ranks)
    assert report_value(o, "Map processes per rank") == str(GEN_PROCS // ranks)
    assert report_value(o, "Total write amount").endswith(f"({5 * GEN_A * 4:,} bytes)")
    assert report_value(o, "File size").startswith(f"{2 * 5 * GEN_A * 4:,} bytes")
    assert report_value(o, "Verification") == PASSED
    assert not (tmp_path / "t").exists()  # removed without -k


def ompi_io_components():
    """The io components of this Open MPI (ompi_info), e.g. {'ompio', 'romio341'}."""
    if not shutil.which("ompi_info"):
        pytest.skip("ompi_info not installed: not Open MPI")
    out = subprocess.run(["ompi_info"], capture_output=True, text=True).stdout
    return set(re.findall(r"MCA io: (\w+)", out))


@pytest.mark.parametrize("component,layer", [("ompio", "OMPIO"), ("romio", "ROMIO")])
def test_mca_io_component_choice(gen_d2, tmp_path, component, layer):
    """Open MPI's own choice (`mpiexec --mca io X`, i.e. OMPI_MCA_io) is the
    layer that runs, and the report names it from the file's hints."""
    names = [c for c in ompi_io_components() if c.startswith(component)]
    if not names:
        pytest.skip(f"this Open MPI has no {component} io component")
    p = iok(4, "noncontig", "-n", "2", "-o", tmp_path / "t", gen_d2[0], env={"OMPI_MCA_io": names[0]})
    assert report_value(p.stdout, "MPI-IO layer") == layer
    assert report_value(p.stdout, "Verification") == PASSED


def test_d1_like_request_ranges_and_independent(gen_d1, tmp_path):
    path, procs = gen_d1
    runs = [len(off) for off, _ in procs]
    lens = [n for _, ls in procs for n in ls]
    p = iok(4, "noncontig", "-n", "3", "--independent", "-o", tmp_path / "t", path)
    o = p.stdout
    assert report_value(o, "Decomposition") == f"mpi_io_test, 16 processes, array_size 6,000, {sum(runs):,} runs"
    assert report_value(o, "Max no. noncontig requests per var") == str(max(runs))
    assert report_value(o, "Min no. noncontig requests per var") == str(min(runs))
    assert report_value(o, "Max length of contig request") == f"{4 * max(lens)} bytes"
    assert report_value(o, "Min length of contig request") == f"{4 * min(lens)} bytes"
    assert report_value(o, "Access") == "independent (MPI_File_write)"
    assert report_value(o, "Verification") == PASSED


def test_e3sm_map_input(small_g_map, tmp_path):
    """An E3SM map (e3sm_mapgen G case, 40 cells x 3 levels, 2 processes):
    its D2 has 119 elements (as e3sm_mapstat counts them); written, verified,
    and a decomposition it lacks is refused naming those it has."""
    out = tmp_path / "t"
    p = iok(2, "noncontig", "-n", "2", "--decomp", "D2", "-k", "-o", out, small_g_map)
    assert report_value(p.stdout, "Decomposition").startswith("e3sm map (D2), 2 processes, array_size 119, ")
    assert report_value(p.stdout, "Verification") == PASSED
    assert out.stat().st_size == 2 * 2 * 119 * 4
    p = iok(2, "noncontig", "--decomp", "D9", "-o", tmp_path / "u", small_g_map, check=False)
    assert_all_ranks_fail(p, "has no decomposition D9", "D1, D2")


def flip(path, at):
    """Changes the float at byte `at` of the file; returns the old value."""
    with open(path, "r+b") as f:
        f.seek(at)
        (v,) = struct.unpack("<f", f.read(4))
        f.seek(at)
        f.write(struct.pack("<f", v + 0.5))
    return v


@pytest.mark.parametrize("layer", ["romio", "ompio"])
@pytest.mark.parametrize("tile", [0, 1])
def test_flipped_value_is_caught(gen_d2, tmp_path, tile, layer):
    path, _ = gen_d2
    out = tmp_path / "t"
    nvars, var, elem = 4, 2, 4321
    iok(4, "--io-layer", layer, "noncontig", "-n", nvars, "-k", "-o", out, path)
    at = ((tile * nvars + var) * GEN_A + elem) * 4
    assert flip(out, at) == np.float32(pattern_value(f"noncontig_var{var}", elem, tile))
    p = iok(4, "--io-layer", layer, "noncontig", "-n", nvars, "--verify-existing", "-o", out, path, check=False)
    assert_all_ranks_fail(p, "failed verification", "1 element(s) differ",
                          f"tile {tile}, variable {var}, element {elem} (file byte {at})")
    assert out.exists()  # never delete a file this run did not create


def test_real_decompositions_reference_figures(shared, tmp_path):
    """The reference's figures on the real ne30 decompositions: D2 with 1000
    variables (its README: 185.40 MiB) and D1's request ranges."""
    d = shared / "datasets" / "mpi_io_test"
    out = tmp_path / "testfile"
    js = tmp_path / "r.json"
    # ROMIO: OMPIO needs minutes for 3 M hindexed blocks per rank on 4 ranks
    p = iok(4, "--io-layer", "romio", "noncontig", "-q", "-n", "1000", "-o", out, "-k",
            d / "48602x72_512p_D2.nc", "--json", js)
    o = p.stdout
    assert report_value(o, "Total write amount") == "185.40 MiB = 0.18 GiB (194,408,000 bytes)"
    assert report_value(o, "Max no. noncontig requests per var") == "64"
    assert report_value(o, "Min no. noncontig requests per var") == "15"
    assert report_value(o, "Max length of contig request") == "24 bytes"
    assert report_value(o, "Min length of contig request") == "4 bytes"
    assert report_value(o, "Decomposition") == "mpi_io_test, 512 processes, array_size 48,602, 11,058 runs"
    assert report_value(o, "MPI-IO layer") == "ROMIO"
    assert report_value(o, "Verification") == PASSED
    assert out.stat().st_size == 2 * 1000 * A * 4
    s = load_json(js)["summary"]
    assert s["write_bytes"] == 194_408_000 and s["file_size"] == 2 * 1000 * A * 4
    assert s["noncontig_over_contig"] == pytest.approx(s["seconds"]["write_noncontig"] / s["seconds"]["write_contig"])
    assert o.rstrip().splitlines()[-1].startswith("  Noncontig / contig write time")
    p = iok(4, "noncontig", "-n", "3", "-o", tmp_path / "t1", d / "48602x72_512p_D1.nc")
    o = p.stdout
    assert report_value(o, "Decomposition") == "mpi_io_test, 512 processes, array_size 48,602, 2,011 runs"
    assert report_value(o, "Max no. noncontig requests per var") == "7"
    assert report_value(o, "Min no. noncontig requests per var") == "2"
    assert report_value(o, "Max length of contig request") == "288 bytes"
    assert report_value(o, "Min length of contig request") == "24 bytes"
    assert report_value(o, "Verification") == PASSED


def test_error_malformed_decomposition(tmp_path):
    bad = tmp_path / "garbage.nc"
    bad.write_bytes(b"this is not a netcdf file at all\n" * 4)
    p = iok(4, "noncontig", "-o", tmp_path / "t", bad, check=False)
    assert_all_ranks_fail(p, str(bad))
    f = write_cdf1_ints(tmp_path / "outside.nc",
                        [("num_procs", 2), ("array_size", 10), ("nreq_00000", 1), ("nreq_00001", 1)],
                        [("off_00000", "nreq_00000", [0]), ("len_00000", "nreq_00000", [5]),
                         ("off_00001", "nreq_00001", [5]), ("len_00001", "nreq_00001", [8])])
    p = iok(4, "noncontig", "-o", tmp_path / "t", f, check=False)
    assert_all_ranks_fail(p, "process 1, run 0 [5, 13) leaves the array of 10 elements")
    f = write_cdf1_ints(tmp_path / "missing.nc", [("num_procs", 2), ("array_size", 10), ("nreq_00000", 1)],
                        [("off_00000", "nreq_00000", [0]), ("len_00000", "nreq_00000", [10])])
    p = iok(4, "noncontig", "-o", tmp_path / "t", f, check=False)
    assert_all_ranks_fail(p, "dimension nreq_00001 is missing (num_procs = 2)")


def test_error_nvars_not_positive(gen_d1, tmp_path):
    p = iok(4, "noncontig", "-n", "0", "-o", tmp_path / "t", gen_d1[0], check=False)
    assert_all_ranks_fail(p, "number of variables (-n) is 0, must be positive")


def test_error_unwritable_output(gen_d1, tmp_path):
    p = iok(4, "noncontig", "-o", tmp_path / "missing" / "t", gen_d1[0], check=False)
    assert_all_ranks_fail(p, f"output directory {tmp_path / 'missing'} does not exist")
    # a directory where the file should be: MPI_File_open itself fails
    (tmp_path / "adir").mkdir()
    p = iok(4, "noncontig", "--overwrite", "-o", tmp_path / "adir", gen_d1[0], check=False)
    assert_all_ranks_fail(p, f"cannot create {tmp_path / 'adir'}")
