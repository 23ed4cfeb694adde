"""A file system that fills up during a run: one clear message naming it, a
non-zero exit on every rank, never a hang, and the run's own partial output
removed.  The full file system is a 1 MiB tmpfs mounted for the test (needs
root, as inside scripts/run.sh; skipped otherwise).

Two ways a library fails there: every rank gets the error back and the
ranks agree (hdf5, pnetcdf, mpiio: a clean exit), or one rank gets it while
the others stay blocked inside a collective library call (netcdf4's close):
that rank waits IOK_FAILURE_WAIT_SECONDS, prints its message and aborts,
or, when no rank returns from the library (PnetCDF's wait_all here), the
full-disk watchdog ends the job after the same time (core/full_disk_watchdog)."""
import subprocess

import pytest

from conftest import assert_all_ranks_fail, iok, registered_backends


@pytest.fixture
def full_fs(tmp_path):
    d = tmp_path / "small"
    d.mkdir()
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(d)], capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {p.stderr.strip()}")
    try:
        yield d
    finally:
        subprocess.run(["umount", "-l", str(d)], capture_output=True)


# 16 MiB on 4 ranks.  --no-size-check: these tests fill the disk in the middle
# of a run (a disk that other jobs fill, or a quota); a run that cannot fit at
# all is refused up front instead (test_bad_inputs.py, vpic-too-big-for-disk).
VPIC = ["vpic", "--dim-1", "64K", "--timesteps", "2", "--no-size-check"]


@pytest.mark.parametrize("backend", ["hdf5", "pnetcdf", "mpiio"])
def test_vpic_on_full_file_system(full_fs, backend):
    if backend not in registered_backends():
        pytest.skip(f"{backend} not built")
    out = full_fs / "p.out"
    p = iok(4, *VPIC, "-a", backend, "-o", out, check=False, timeout=120)
    assert_all_ranks_fail(p, f"the file system holding {full_fs} is full", "hint: free space there")
    assert not out.exists()  # created by the run, removed by it
    assert list(full_fs.iterdir()) == []


def test_rank_left_alone_by_the_library_aborts_instead_of_hanging(full_fs):
    if "netcdf4" not in registered_backends():
        pytest.skip("netcdf4 not built")
    out = full_fs / "p.nc"
    p = iok(4, *VPIC, "-a", "netcdf4", "-o", out, check=False, timeout=120,
            env={"IOK_FAILURE_WAIT_SECONDS": "2"})
    assert p.returncode != 0
    # the failing rank's deadline or the full-disk watchdog, whichever comes first
    assert "is full" in p.stderr, p.stderr
    assert "the job is aborted" in p.stderr or "did not report it on every rank" in p.stderr, p.stderr


def test_s3d_on_full_file_system(full_fs):
    """PnetCDF's collective wait_all: some ranks never return from it."""
    p = iok(8, "s3d", "--grid", "64,64,64", "--procs", "2,2,2", "-c", "2", "--no-size-check", "-o", full_fs,
            check=False, timeout=120,
            env={"IOK_FAILURE_WAIT_SECONDS": "3"})
    assert_all_ranks_fail(p, "is full", "hint: free space there")
    assert list(full_fs.iterdir()) == []


def test_an_ordinary_error_with_a_file_open_still_exits_cleanly(tmp_path):
    """Reading a file written with another layout fails while it is open: the
    ranks agree, one message, exit 1 (no abort)."""
    out = tmp_path / "p.h5"
    iok(4, *VPIC, "-o", out, "--keep")
    p = iok(4, "bdcats", "--dim-1", "64K", "--timesteps", "3", "-i", out, check=False, timeout=120)
    assert_all_ranks_fail(p, "record 2")
