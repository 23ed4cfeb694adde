"""vpic --verify: the common option of every writing kernel (README,
"Common options").  h5bench_write never reads back, so it is off by default;
with it the particle file is read back whole after the last time step and
every element compared with the pattern: a second file entry with role
"verify" in the JSON and a "Read back (--verify)" line in the report, on any
library, shared file or a file per process.  A byte changed in the file
between the steps is found by the read-back (non-zero exit, the result
invalid).  IO_OPERATION=OVERWRITE/APPEND with --verify is refused on every
rank (the file is not this run's alone: bdcats reads it)."""
import os
import subprocess

import pytest

from conftest import IOKERNELS, assert_all_ranks_fail, iok, load_json, registered_backends

SMALL = ["--dim-1", "1K", "--timesteps", "2"]


@pytest.mark.parametrize("backend", ["hdf5", "mpiio", "pnetcdf"])
def test_verify_reads_back_every_element(tmp_path, backend):
    if backend not in registered_backends():
        pytest.skip(f"{backend} backend not built")
    js = tmp_path / "r.json"
    p = iok(4, "vpic", "-a", backend, *SMALL, "--verify", "--json", js, "-o", tmp_path / "p")
    assert "Read back (--verify)" in p.stdout and "every element verified" in p.stdout, p.stdout
    doc = load_json(js)
    write, check = doc["files"]
    assert write["role"] == "particles" and check["role"] == "verify"
    assert check["verify"]["mismatches"] == 0
    # 4 ranks x 1024 particles x 32 bytes x 2 steps, read as written
    assert write["bytes"]["total"] == check["bytes"]["total"] == 4 * 1024 * 32 * 2
    assert doc["valid"] is True


def test_file_per_process_verifies_each_file(tmp_path):
    js = tmp_path / "r.json"
    iok(2, "vpic", "-a", "hdf5", *SMALL, "--file-per-proc", "YES", "--verify", "--json", js, "-o", tmp_path / "p.h5")
    roles = [f["role"] for f in load_json(js)["files"]]
    assert roles.count("verify") >= 1 and all(f.get("verify", {}).get("mismatches", 0) == 0
                                              for f in load_json(js)["files"])


def test_off_by_default_and_no_verify(tmp_path):
    for extra in ([], ["--no-verify"]):
        js = tmp_path / "r.json"
        p = iok(2, "vpic", "-a", "mpiio", *SMALL, *extra, "--json", js, "-o", tmp_path / "p.bin")
        assert "Read back" not in p.stdout
        assert [f["role"] for f in load_json(js)["files"]] == ["particles"]


def test_a_changed_byte_is_found(tmp_path):
    """Record 0 changed on disk while the kernel computes between the two
    steps: the read-back after the last step names the mismatch."""
    data, js = tmp_path / "p.bin", tmp_path / "r.json"
    env = dict(os.environ, OMPI_MCA_btl=os.environ.get("OMPI_MCA_btl", "self,sm"))
    proc = subprocess.Popen(["mpiexec", "--oversubscribe", "-n", "2", str(IOKERNELS), "vpic", "-a", "mpiio", *SMALL,
                             "--emulated-compute-time-per-timestep", "3 s", "--verify", "--json", str(js),
                             "-o", str(data)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    seen = []
    for line in proc.stderr:  # rank 0's progress: step 1 is on disk, step 2 three seconds away
        seen.append(line)
        if "time step 1/2 written" in line:
            raw = bytearray(data.read_bytes())
            raw[len(raw) // 3] ^= 0x10
            data.write_bytes(bytes(raw))
            break
    out, err = proc.communicate(timeout=120)
    assert proc.returncode != 0, out
    assert "verification failed" in "".join(seen) + err
    doc = load_json(js)
    assert doc["valid"] is False and doc["files"][1]["verify"]["mismatches"] > 0


@pytest.mark.parametrize("operation", ["OVERWRITE", "APPEND"])
def test_update_with_verify_is_refused(tmp_path, operation):
    data = tmp_path / "p.h5"
    iok(2, "vpic", "-a", "hdf5", *SMALL, "--unlimited", "YES", "-k", "-o", data)
    p = iok(2, "vpic", "-a", "hdf5", *SMALL, "--unlimited", "YES", "--io-operation", operation, "--verify", "-o", data,
            check=False)
    assert_all_ranks_fail(p, "--verify reads back a file this run writes", f"IO_OPERATION={operation}")
    assert data.exists()
