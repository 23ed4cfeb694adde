"""noncontig kernel: the reference's figures for the mpi_io_test decompositions
(D2 with 1000 variables: 185.40 MiB), both tiles verified on 4 and 16 ranks
under ROMIO and OMPIO, E3SM maps as input, a flipped value caught, and the
input errors."""
import re
import struct

import pytest

from conftest import assert_all_ranks_fail, iok, load_json

A = 48602  # array_size of both mpi_io_test decompositions


def report_value(stdout, label):
    m = re.search(rf"^  {re.escape(label)}\s+= (.*)$", stdout, re.M)
    assert m, f"no line {label!r} in:\n{stdout}"
    return m.group(1)


@pytest.fixture
def decomp(shared):
    d = shared / "datasets" / "mpi_io_test"
    if not (d / "48602x72_512p_D2.nc").is_file():
        pytest.skip(f"needs {d}")
    return d


def test_d2_1000_variables(decomp, tmp_path):
    out = tmp_path / "testfile"
    js = tmp_path / "r.json"
    # ROMIO: OMPIO needs minutes for 3 M hindexed blocks per rank on 4 ranks
    p = iok(4, "--io-layer", "romio", "noncontig", "-q", "-n", "1000", "-o", out, "-k",
            decomp / "48602x72_512p_D2.nc", "--json", js)
    o = p.stdout
    assert report_value(o, "Total write amount") == "185.40 MiB = 0.18 GiB (194,408,000 bytes)"
    assert report_value(o, "Max no. noncontig requests per var") == "64"
    assert report_value(o, "Min no. noncontig requests per var") == "15"
    assert report_value(o, "Max length of contig request") == "24 bytes"
    assert report_value(o, "Min length of contig request") == "4 bytes"
    assert report_value(o, "Decomposition") == "mpi_io_test, 512 processes, array_size 48,602, 11,058 runs"
    assert report_value(o, "MPI-IO layer") == "ROMIO"
    assert report_value(o, "Verification").startswith("passed (tile 0 and tile 1")
    assert out.stat().st_size == 2 * 1000 * A * 4
    s = load_json(js)["summary"]
    assert s["write_bytes"] == 194_408_000 and s["file_size"] == 2 * 1000 * A * 4
    assert s["noncontig_over_contig"] == pytest.approx(s["seconds"]["write_noncontig"] / s["seconds"]["write_contig"])
    assert o.rstrip().splitlines()[-1].startswith("  Noncontig / contig write time")


@pytest.mark.parametrize("layer", ["romio", "ompio"])
@pytest.mark.parametrize("ranks", [4, 16])
def test_tiles_verified(decomp, tmp_path, ranks, layer):
    p = iok(ranks, "--io-layer", layer, "noncontig", "-n", "5", "-o", tmp_path / "t", decomp / "48602x72_512p_D2.nc")
    o = p.stdout
    assert report_value(o, "MPI-IO layer") == layer.upper()
    assert report_value(o, "Total number of MPI processes") == str(ranks)
    assert report_value(o, "Map processes per rank") == str(512 // ranks)
    assert report_value(o, "Total write amount").endswith(f"({5 * A * 4:,} bytes)")
    assert report_value(o, "File size").startswith(f"{2 * 5 * A * 4:,} bytes")
    assert report_value(o, "Verification").startswith("passed")
    assert not (tmp_path / "t").exists()  # removed without -k


def test_d1_request_ranges_and_independent(decomp, tmp_path):
    p = iok(4, "noncontig", "-n", "3", "--independent", "-o", tmp_path / "t", decomp / "48602x72_512p_D1.nc")
    o = p.stdout
    assert report_value(o, "Decomposition") == "mpi_io_test, 512 processes, array_size 48,602, 2,011 runs"
    assert report_value(o, "Max no. noncontig requests per var") == "7"
    assert report_value(o, "Min no. noncontig requests per var") == "2"
    assert report_value(o, "Max length of contig request") == "288 bytes"
    assert report_value(o, "Min length of contig request") == "24 bytes"
    assert report_value(o, "Access") == "independent (MPI_File_write)"
    assert report_value(o, "Verification").startswith("passed")


def test_e3sm_map_input(shared, tmp_path):
    m = shared / "datasets" / "e3sm" / "map_f_case_16p.nc"
    if not m.is_file():
        pytest.skip(f"needs {m}")
    p = iok(4, "noncontig", "-n", "2", "--decomp", "D2", "-o", tmp_path / "t", m)
    assert report_value(p.stdout, "Decomposition").startswith("e3sm map (D2), 16 processes")
    assert report_value(p.stdout, "Verification").startswith("passed")


def test_flipped_value_is_caught(decomp, tmp_path):
    out = tmp_path / "t"
    nvars = 4
    iok(4, "noncontig", "-n", nvars, "-k", "-o", out, decomp / "48602x72_512p_D2.nc")
    # tile 1, variable 2, element 12345
    at = ((1 * nvars + 2) * A + 12345) * 4
    with open(out, "r+b") as f:
        f.seek(at)
        (v,) = struct.unpack("<f", f.read(4))
        f.seek(at)
        f.write(struct.pack("<f", v + 0.5))
    p = iok(4, "noncontig", "-n", nvars, "--verify-existing", "-o", out, decomp / "48602x72_512p_D2.nc", check=False)
    assert_all_ranks_fail(p, "failed verification", "1 element(s) differ",
                          f"tile 1, variable 2, element 12345 (file byte {at})")
    assert out.exists()  # never delete a file this run did not create


def test_error_malformed_decomposition(tmp_path):
    bad = tmp_path / "garbage.nc"
    bad.write_bytes(b"this is not a netcdf file at all\n" * 4)
    p = iok(4, "noncontig", "-o", tmp_path / "t", bad, check=False)
    assert_all_ranks_fail(p, str(bad))
    netCDF4 = pytest.importorskip("netCDF4")
    f = tmp_path / "outside.nc"
    with netCDF4.Dataset(f, "w", format="NETCDF3_CLASSIC") as nc:
        nc.createDimension("num_procs", 2)
        nc.createDimension("array_size", 10)
        for p_, (o, n) in enumerate([(0, 5), (5, 8)]):
            nc.createDimension(f"nreq_{p_:05d}", 1)
            nc.createVariable(f"off_{p_:05d}", "i4", (f"nreq_{p_:05d}",))[:] = [o]
            nc.createVariable(f"len_{p_:05d}", "i4", (f"nreq_{p_:05d}",))[:] = [n]
    p = iok(4, "noncontig", "-o", tmp_path / "t", f, check=False)
    assert_all_ranks_fail(p, "process 1, run 0 [5, 13) leaves the array of 10 elements")


def test_error_nvars_not_positive(decomp, tmp_path):
    p = iok(4, "noncontig", "-n", "0", "-o", tmp_path / "t", decomp / "48602x72_512p_D1.nc", check=False)
    assert_all_ranks_fail(p, "number of variables (-n) is 0, must be positive")


def test_error_unwritable_output(decomp, tmp_path):
    p = iok(4, "noncontig", "-o", tmp_path / "missing" / "t", decomp / "48602x72_512p_D1.nc", check=False)
    assert_all_ranks_fail(p, "does not exist")
    p = iok(4, "noncontig", "-o", "/proc/iok_noncontig_test", decomp / "48602x72_512p_D1.nc", check=False)
    assert_all_ranks_fail(p, "/proc/iok_noncontig_test")
