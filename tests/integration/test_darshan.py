"""`iokernels replay LOG.darshan` (docs/darshan.md): the logs PyDarshan
ships (no outside data) and the real logs of ../shared/datasets/darshan
(skipped without it): the dry-run table of log counters beside the replay
plan's with exact counts and bytes, scaled 4-rank runs that verify their
data, each bad input refused in one line on every rank with nothing
written."""
import json
import subprocess
from pathlib import Path

import pytest

from conftest import BUILD_DIR, IOKERNELS, SHARED, SOURCE_DIR, assert_all_ranks_fail, iok, load_json, mpirun
from suite_cli import cli, ok

CONVERTER = BUILD_DIR / "src" / "iokernels-darshan"
DARSHAN = SHARED / "datasets" / "darshan"


def converter_python():
    return CONVERTER.read_text().splitlines()[0][2:].strip()


@pytest.fixture(scope="module")
def examples():
    """PyDarshan's own example logs (installed with it by scripts/setup.sh)."""
    if not CONVERTER.exists():
        pytest.fail(f"{CONVERTER} is not built", pytrace=False)
    p = subprocess.run([converter_python(), "-c", "import os, darshan.examples.example_logs as e; "
                        "print(os.path.dirname(e.__file__))"], capture_output=True, text=True)
    assert p.returncode == 0, f"PyDarshan is not installed for {converter_python()} (scripts/setup.sh): {p.stderr}"
    return Path(p.stdout.strip())


def table(log, *extra):
    p = subprocess.run([str(CONVERTER), "table", str(log), "--json", *extra], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def rows(tab):
    return {(f["file"], r["counter"]): r for f in tab for r in f["rows"]}


def assert_exact(tab):
    """Every compared counter of every file agrees (fractions within 5 points)."""
    bad = [(f["file"], r) for f in tab for r in f["rows"] if not r["ok"]]
    assert not bad, bad


def dry_run(log, tmp_path, *extra):
    out = tmp_path / "dry.json"
    p = iok(1, "replay", "--dry-run", "--json", out, *extra, log)
    return p, load_json(out)


# --- logs PyDarshan ships -------------------------------------------------

def test_example_log_table_is_exact(examples):
    tab = table(examples / "example.darshan")
    assert_exact(tab)
    assert tab and all(f["mode"] == "synthesized" for f in tab)


def test_example_log_dry_run_prints_table_and_diagnosis(examples, tmp_path):
    p, res = dry_run(examples / "example.darshan", tmp_path)
    assert "Log counters beside the replay plan's" in p.stdout and "Diagnosis" in p.stdout
    d = res["params"]["darshan"]
    assert d["nprocs"] == res["params"]["captured_ranks"]
    assert {x["finding"] for x in d["diagnosis"]} >= {"small_requests", "random_access"}
    assert not list(tmp_path.glob("replay*"))


def test_example_log_replays_verified_on_4_ranks(examples, tmp_path):
    out = tmp_path / "r.json"
    # a 2048-process job writing 2 TiB (VPIC-IO through HDF5): 1/16384 of its accesses on 4 ranks
    iok(4, "replay", "-o", tmp_path, "--ranks", "4", "--scale", "16384", "--json", out, examples / "example.darshan")
    res = load_json(out)
    assert res["summary"]["verification_mismatches"] == 0
    assert any(f["role"] == "verify" for f in res["files"])
    assert res["params"]["darshan"]["replay_ranks"] == 4 and res["params"]["darshan"]["scaled"]


def test_lustre_log_names_stripe(examples, tmp_path):
    p, res = dry_run(examples / "sample-badost.darshan", tmp_path)
    found = [x for x in res["params"]["darshan"]["diagnosis"] if x["finding"] == "lustre_stripe"]
    assert found and all(x["figures"]["stripe_size"] > 0 for x in found)


def test_example_log_advice_in_text_json_and_html(examples, tmp_path):
    """advise on the log PyDarshan ships (1/16384 of it on 4 ranks, one
    repeat): the job's own calls are the baseline, every configuration ran
    and verified, the text and the -o JSON name the same fastest one, and the
    HTML report shows its section."""
    out = tmp_path / "advice.json"
    p = subprocess.run([str(CONVERTER), "advise", str(examples / "example.darshan"), "--ranks", "4", "--scale",
                        "16384", "--repeats", "1", "-o", str(out)], capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    assert doc["schema"] == "iokernels-advice/1" and doc["scale"] == 16384 and doc["ranks"] == 4
    given = doc["configs"][0]
    assert given["baseline"] and given["args"] == ["--calls", "recorded"]
    assert all(c["verified"] and len(c["times_s"]) == 1 for c in doc["configs"]), doc["configs"]
    b = doc["best"]
    assert b["median_s"] == min(c["median_s"] for c in doc["configs"])
    assert f"Fastest verified: {b['config']}: median {b['median_s']:.4f} s" in p.stdout
    assert f"speed-up {b['speedup']:.2f}x" in p.stdout
    html = tmp_path / "advice.html"
    ok(cli("html", out, "-o", html))
    text = html.read_text()
    assert "<h2>Measured advice</h2>" in text and f"speed-up <b>{b['speedup']:.2f}x</b>" in text
    assert text.count('<img class="plot"') == 1


SHIM_C = SOURCE_DIR / "tests" / "integration" / "capture" / "corrupt_on_close.c"
# example.darshan's file replayed at 1/16384 on 4 ranks: 128 MiB written from
# byte 4117397250048 on (the log's own offsets; below it the file is a hole).
CORRUPT_MATCH = "replay0_vpicio"
CORRUPT_AT = 4117397250048 + 5000


@pytest.mark.parametrize("calls", [["-a", "mpiio", "-x", "canonical"], ["--calls", "recorded"]],
                         ids=["plan", "recorded"])
def test_corrupted_replay_of_a_log_fails_verification(examples, tmp_path, calls):
    """One byte of the replayed file flipped on disk when its write closes,
    before the read-back (the PMPI shim of test_replay_recorded.py): the
    replay of the Darshan log fails verification on every rank, exit status
    1, naming the file and the element; without the shim's variables the
    same run passes."""
    shim = tmp_path / "libcorrupt.so"
    subprocess.run(["mpicc", "-shared", "-fPIC", "-O2", "-o", str(shim), str(SHIM_C)], check=True)
    log = examples / "example.darshan"
    run = [IOKERNELS, "replay", "--ranks", "4", "--scale", "16384", *calls]
    (tmp_path / "bad").mkdir()
    p = mpirun(4, ["-x", f"LD_PRELOAD={shim}", "-x", f"IOK_CORRUPT_MATCH={CORRUPT_MATCH}", "-x",
                   f"IOK_CORRUPT_AT={CORRUPT_AT}", *run, "-o", tmp_path / "bad", log], check=False)
    assert f"corrupt_on_close: flipped byte {CORRUPT_AT}" in p.stderr, p.stderr
    assert p.returncode == 1, p.stderr
    assert_all_ranks_fail(p, "error: verification failed: ", "element(s) differ; first: in ", CORRUPT_MATCH)
    (tmp_path / "ok").mkdir()
    p = mpirun(4, ["-x", f"LD_PRELOAD={shim}", *run, "-o", tmp_path / "ok", log])
    assert "passed" in p.stdout


# --- bad input ------------------------------------------------------------

def refused(log, tmp_path, *fragments):
    out = tmp_path / "out"
    out.mkdir()
    p = iok(2, "replay", "-o", out, log, check=False)
    assert_all_ranks_fail(p, *fragments)
    assert not list(out.iterdir()), "nothing is written"


def test_not_a_log(tmp_path):
    f = tmp_path / "notes.darshan"
    f.write_text("not a darshan log, just text with a .darshan name\n")
    refused(f, tmp_path, "is not valid JSON", "nor is it a Darshan log")   # no Darshan header


def test_binary_not_a_log_by_header(tmp_path, examples):
    f = tmp_path / "x.darshan"
    f.write_bytes(b"3.41\0\0\0\0" + b"\1" * 64)     # a version string, but no magic number
    refused(f, tmp_path, "nor is it a Darshan log (no Darshan header)")


def test_truncated_log(examples, tmp_path):
    b = (examples / "example.darshan").read_bytes()
    f = tmp_path / "cut.darshan"
    f.write_bytes(b[:len(b) - 100])
    refused(f, tmp_path, "is truncated")


def test_version_pydarshan_cannot_read(examples, tmp_path):
    b = bytearray((examples / "example.darshan").read_bytes())
    b[0:4] = b"2.06"
    f = tmp_path / "old.darshan"
    f.write_bytes(bytes(b))
    refused(f, tmp_path, "format version '2.06'", "3.x")


def test_log_without_io(examples, tmp_path):
    refused(examples / "noposix.darshan", tmp_path, "records no I/O")


def test_non_mpi_log(examples, tmp_path):
    refused(examples / "dxt.darshan", tmp_path, "non-MPI program")


def test_ranks_and_scale_refused_for_a_trace(tmp_path):
    t = tmp_path / "t.json"
    t.write_text(json.dumps({"format": "iokernels-trace", "version": 2, "nranks": 1,
                             "ranks": [{"rank": 0, "shapes": [{"size": 1, "extent": 1, "runs": [0, 1, 0, 1]}],
                                        "sessions": []}]}))
    p = iok(2, "replay", "--ranks", "2", t, check=False)
    assert_all_ranks_fail(p, "--ranks and --scale apply to a Darshan log")


def test_converter_interpreter_is_chosen_at_every_configure(tmp_path):
    """The demo configures before the test set-up makes the virtual
    environment with PyDarshan: a reconfigure must take it up, not keep the
    interpreter of the first configure in the cache."""
    venv = Path("/opt/iokernels-venv/bin/python")
    if not venv.exists():
        pytest.fail(f"{venv} is missing: scripts/setup.sh makes it", pytrace=False)
    b = tmp_path / "b"

    def configure(*defs):
        p = subprocess.run(["cmake", "-S", SOURCE_DIR, "-B", b, "-DIOK_BUILD_TESTS=OFF", *defs],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
        return (b / "src" / "iokernels-darshan").read_text().splitlines()[0]
    assert configure("-DIOK_DARSHAN_INTERPRETER=/usr/bin/python3") == "#!/usr/bin/python3"
    assert configure("-DIOK_DARSHAN_INTERPRETER=") == f"#!{venv}"
    assert configure() == f"#!{venv}"


# --- the real logs of ../shared ---------------------------------------------

REPLAYABLE = ["mpi-io-test-x86_64-3.1.6", "mpi-io-test-ppc64-3.1.6", "mpi-io-test-x86_64-3.2.1",
              "mpi-io-test-x86_64-3.4.7", "mpi-io-test-x86_64-3.5.0", "mpi-io-test", "partial_data_dxt",
              "hdf5_diagonal_write_1_byte_dxt", "hdf5_diagonal_write_bytes_range_dxt",
              "hdf5_diagonal_write_half_flush_dxt", "runtime_and_dxt_heatmaps_diagonal_write_only",
              "treddy_h5d_no_h5f"]


@pytest.fixture
def real(shared):
    if not DARSHAN.is_dir():
        pytest.skip(f"needs {DARSHAN}")
    return DARSHAN


@pytest.mark.parametrize("name", [n for n in REPLAYABLE if n.startswith("mpi-io-test")])
def test_mpi_io_test_table_exact(real, tmp_path, name):
    """mpi-io-test: 4 ranks, 4 independent 16 MiB writes and 4 reads of one shared file."""
    p, res = dry_run(real / f"{name}.darshan", tmp_path)
    d = res["params"]["darshan"]
    assert d["nprocs"] == 4 and len(d["files"]) == 1
    assert d["files"][0]["mode"] == ("exact" if "3.1.6" in name else "synthesized")
    tab = d["table"]
    assert_exact(tab)
    r = {x["counter"]: x for x in tab[0]["rows"]}
    assert r["MPIIO_INDEP_WRITES"]["log"] == r["MPIIO_INDEP_WRITES"]["plan"] == 4
    assert r["MPIIO_INDEP_READS"]["plan"] == 4
    assert r["MPIIO_BYTES_WRITTEN"]["plan"] == r["MPIIO_BYTES_READ"]["plan"] == 67108864
    assert r["MPIIO opens"]["plan"] == 8


def test_partial_dxt_replays_what_was_traced(real, tmp_path):
    p, res = dry_run(real / "partial_data_dxt.darshan", tmp_path)
    d = res["params"]["darshan"]
    assert d["files"][0]["mode"] == "partial"
    r = {x["counter"]: x for x in d["table"][0]["rows"]}
    assert r["MPIIO_INDEP_READS"]["log"] == 1000000 and r["MPIIO_INDEP_READS"]["plan"] == 65529
    assert any("65529 of 1000000" in n for n in d["files"][0]["notes"])


@pytest.mark.parametrize("name", [n for n in REPLAYABLE if not n.startswith(("mpi-io-test", "partial"))])
def test_posix_logs_table_exact(real, tmp_path, name):
    p, res = dry_run(real / f"{name}.darshan", tmp_path)
    d = res["params"]["darshan"]
    assert_exact(d["table"])
    assert any(f["mode"] == "exact" for f in d["files"])   # DXT_POSIX


@pytest.mark.parametrize("name", REPLAYABLE)
def test_scaled_4_rank_run_verifies(real, tmp_path, name):
    out = tmp_path / "r.json"
    iok(4, "replay", "-o", tmp_path, "--ranks", "4", "--scale", "16" if "partial" in name else "1",
        "--json", out, real / f"{name}.darshan")
    res = load_json(out)
    assert res["summary"]["verification_mismatches"] == 0
    assert res["params"]["darshan"]["replay_ranks"] == 4


def test_recorded_calls_of_a_dxt_log(real, tmp_path):
    out = tmp_path / "r.json"
    iok(4, "replay", "-o", tmp_path, "--calls", "recorded", "--json", out, real / "mpi-io-test-x86_64-3.1.6.darshan")
    res = load_json(out)
    assert res["summary"]["verification_mismatches"] == 0
    assert res["params"]["calls"] == "recorded"


def test_empty_log(real, tmp_path):
    refused(real / "empty_log.darshan", tmp_path, "records no I/O")


def test_anonymised_non_mpi_log(real, tmp_path):
    refused(real / "nonmpi_dxt_anonymized.darshan", tmp_path, "non-MPI program", "anonymised file names")


def test_advise_reports_fastest_verified(real, tmp_path):
    """advise: every configuration measured and verified; the fastest named
    with its speed-up over the job's own calls and the flags to use."""
    p = subprocess.run([str(CONVERTER), "advise", str(real / "mpi-io-test-x86_64-3.4.7.darshan"), "--ranks", "4",
                        "--scale", "4", "--repeats", "1", "--json"], capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout)
    assert all(c["times_s"] and not c["failed"] for c in res["configs"]), res["configs"]
    assert any("striping_factor" in c["hints"] for c in res["configs"])      # the log has a LUSTRE record
    b = res["best"]
    assert b["speedup"] == pytest.approx(b["baseline_median_s"] / b["median_s"])
    assert b["median_s"] == min(c["median_s"] for c in res["configs"])
