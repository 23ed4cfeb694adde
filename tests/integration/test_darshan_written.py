"""Darshan logs written here by libdarshan-util's own writer
(`iokernels-darshan write`, python/iokernels/darshan/logwrite.py): jobs no
Darshan runtime here can record — every MPI-IO call flavour of a shared
file, files per process, a DXT trace whose buffer overflowed — read back by
the same path as any job's log, planned with exact counters and replayed
with their data verified.  No outside data."""
import json
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR, iok, load_json
from test_darshan import CONVERTER, assert_exact, converter_python, dry_run, examples  # noqa: F401 (fixture)

MiB = 1 << 20


def convert(*args, check=True):
    p = subprocess.run([str(CONVERTER), *map(str, args)], capture_output=True, text=True, timeout=300)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def write(tmp_path, doc, name="job.darshan"):
    spec, log = tmp_path / f"{name}.json", tmp_path / name
    spec.write_text(json.dumps(doc))
    convert("write", spec, "-o", log)
    return log


def records(log):
    return json.loads(convert("records", log).stdout)


def written(res, name):
    """Bytes the replay wrote to the log's file `name`."""
    return sum(f["bytes"]["total"] for f in res["files"]
               if f["mode"] == "write" and f["captured_file"].endswith("/" + name))


def flavours_job(nprocs=8):
    """A shared file written by collective (2 x 1 MiB a rank), split
    collective (64 KiB), nonblocking (4 KiB) and independent (100 B) calls
    and read back collectively, plus a file per process written with four
    consecutive 1 MiB writes from byte 0 (3 of 4 consecutive, as Darshan
    counts: the first is compared with byte 0)."""
    n = nprocs
    shared = {"MPIIO_COLL_OPENS": 2 * n, "MPIIO_COLL_WRITES": 2 * n, "MPIIO_SPLIT_WRITES": n, "MPIIO_NB_WRITES": n,
              "MPIIO_INDEP_WRITES": n, "MPIIO_COLL_READS": 2 * n,
              "MPIIO_BYTES_WRITTEN": n * (2 * MiB + 65536 + 4096 + 100), "MPIIO_BYTES_READ": 2 * n * MiB,
              "MPIIO_SIZE_WRITE_AGG_100K_1M": 2 * n, "MPIIO_SIZE_WRITE_AGG_10K_100K": n,
              "MPIIO_SIZE_WRITE_AGG_1K_10K": n, "MPIIO_SIZE_WRITE_AGG_0_100": n, "MPIIO_SIZE_READ_AGG_100K_1M": 2 * n,
              "MPIIO_ACCESS1_ACCESS": MiB, "MPIIO_ACCESS1_COUNT": 4 * n, "MPIIO_ACCESS2_ACCESS": 65536,
              "MPIIO_ACCESS2_COUNT": n, "MPIIO_ACCESS3_ACCESS": 4096, "MPIIO_ACCESS3_COUNT": n,
              "MPIIO_ACCESS4_ACCESS": 100, "MPIIO_ACCESS4_COUNT": n}
    recs = [{"module": "MPI-IO", "name": "/scratch/job/out.nc", "rank": -1, "c": shared}]
    for r in range(n):
        recs.append({"module": "POSIX", "name": f"/scratch/job/ckpt.{r:04d}", "rank": r, "c": {
            "POSIX_OPENS": 1, "POSIX_WRITES": 4, "POSIX_BYTES_WRITTEN": 4 * MiB, "POSIX_SIZE_WRITE_100K_1M": 4,
            "POSIX_CONSEC_WRITES": 3, "POSIX_SEQ_WRITES": 3, "POSIX_ACCESS1_ACCESS": MiB,
            "POSIX_ACCESS1_COUNT": 4}})
    return {"nprocs": n, "exe": "./model --flavours", "jobid": 42, "run_time": 3.5,
            "hints": "cb_nodes=2", "records": recs}


def test_records_and_write_round_trip(examples, tmp_path):  # noqa: F811 (fixture)
    """PyDarshan's example log, as records, written and read again: the same
    job, records and counters."""
    before = records(examples / "example.darshan")
    (tmp_path / "ex.json").write_text(json.dumps(before))
    convert("write", tmp_path / "ex.json", "-o", tmp_path / "ex.darshan")
    after = records(tmp_path / "ex.darshan")
    assert after == before
    assert after["nprocs"] == 2048 and after["jobid"] == 4478544 and after["run_time"] == 117.0
    assert after["exe"].endswith("vpicio.hdf5 32") and after["hints"] == "romio_no_indep_rw=true;cb_nodes=4"
    assert len(after["records"]) == 2


def test_every_flavour_planned_exactly(tmp_path):
    log = write(tmp_path, flavours_job())
    assert records(log)["records"][0]["c"]["MPIIO_SPLIT_WRITES"] == 8
    p, res = dry_run(log, tmp_path)
    d = res["params"]["darshan"]
    assert d["nprocs"] == 8 and len(d["files"]) == 9 and {f["mode"] for f in d["files"]} == {"synthesized"}
    tab = d["table"]
    assert_exact(tab)
    r = {x["counter"]: x for x in tab[0]["rows"]}
    for counter, n in [("MPIIO_COLL_WRITES", 16), ("MPIIO_SPLIT_WRITES", 8), ("MPIIO_NB_WRITES", 8),
                       ("MPIIO_INDEP_WRITES", 8), ("MPIIO_COLL_READS", 16), ("MPIIO_BYTES_WRITTEN", 17335072),
                       ("MPIIO_BYTES_READ", 16 * MiB), ("MPIIO_SIZE_WRITE_AGG_0_100", 8), ("MPIIO opens", 16)]:
        assert r[counter]["log"] == r[counter]["plan"] == n, (counter, r[counter])
    ckpt = {x["counter"]: x for x in tab[1]["rows"]}
    assert ckpt["POSIX_CONSEC_WRITES %"]["log"] == ckpt["POSIX_CONSEC_WRITES %"]["plan"] == 75.0
    assert ckpt["POSIX_WRITES"]["plan"] == 4


def test_a_written_job_replays_verified_at_4_ranks(tmp_path):
    log = write(tmp_path, flavours_job())
    out = tmp_path / "r.json"
    iok(4, "replay", "-o", tmp_path, "--ranks", "4", "--scale", "2", "--json", out, log)
    res = load_json(out)
    assert res["summary"]["verification_mismatches"] == 0
    assert res["params"]["darshan"]["replay_ranks"] == 4
    # --scale 2 keeps half of each file's accesses: half the shared file's bytes, 2 of 4 writes a checkpoint
    assert written(res, "out.nc") == 17335072 // 2
    assert written(res, "ckpt.0000") == 2 * MiB


def test_a_partial_dxt_trace_replays_what_was_traced(tmp_path):
    """DXT's buffer overflowed (the module's partial flag): 2 ranks counted
    50 writes each, the trace kept 30; the replay does those 60 and says so."""
    seg = 4096
    dxt = [{"module": "DXT_MPIIO", "name": "/scratch/job/trace.dat", "rank": r,
            "writes": [[(2 * k + r) * seg, seg, k * 1e-3, k * 1e-3 + 5e-4] for k in range(30)]} for r in range(2)]
    doc = {"nprocs": 2, "exe": "./tracer", "partial": ["DXT_MPIIO"], "dxt": dxt,
           "records": [{"module": "MPI-IO", "name": "/scratch/job/trace.dat", "rank": -1, "c": {
               "MPIIO_INDEP_OPENS": 2, "MPIIO_INDEP_WRITES": 100, "MPIIO_BYTES_WRITTEN": 100 * seg,
               "MPIIO_SIZE_WRITE_AGG_1K_10K": 100, "MPIIO_ACCESS1_ACCESS": seg, "MPIIO_ACCESS1_COUNT": 100}}]}
    log = write(tmp_path, doc)
    p, res = dry_run(log, tmp_path)
    f = res["params"]["darshan"]["files"][0]
    assert f["mode"] == "partial"
    assert any("60 of 100" in n for n in f["notes"]), f["notes"]
    out = tmp_path / "r.json"
    iok(2, "replay", "-o", tmp_path, "--json", out, log)
    res = load_json(out)
    assert res["summary"]["verification_mismatches"] == 0 and written(res, "trace.dat") == 60 * seg


def test_write_refuses_a_counter_the_module_has_not(tmp_path):
    doc = flavours_job(2)
    doc["records"][0]["c"]["MPIIO_BOGUS_WRITES"] = 1
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    p = convert("write", tmp_path / "bad.json", "-o", tmp_path / "bad.darshan", check=False)
    assert p.returncode == 2 and "MPI-IO has no counter 'MPIIO_BOGUS_WRITES'" in p.stderr, p.stderr
    assert p.stderr.count("\n") == 1
    assert not list(tmp_path.glob("bad.darshan*")), "no log, no partial file"


def test_the_scale_bench_runs_small(tmp_path):
    """bench/darshan_scale.py (issue 31's 65,536 processes and 1,000,000 DXT
    operations) on a small job, so that the bench itself is tested."""
    p = subprocess.run([converter_python(), SOURCE_DIR / "bench" / "darshan_scale.py", "--nprocs", "64",
                        "--dxt-ops", "4000"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "counters-only, 64 processes, 65 files" in p.stdout
    assert "DXT, 4000 operations on 4 ranks" in p.stdout


def test_the_logs_table_bench(tmp_path):
    """bench/darshan_logs.py (the closing note's table of every log of a
    directory) on two written logs: the counts it prints are the plan's."""
    logs = tmp_path / "logs"
    logs.mkdir()
    write(logs, flavours_job(4), "flavours.darshan")
    (logs / "flavours.darshan.json").unlink()
    (logs / "notes.darshan").write_text("not a log")
    out = tmp_path / "rows.json"
    p = subprocess.run([sys.executable, SOURCE_DIR / "bench" / "darshan_logs.py", logs, "--json", out,
                        "--out", tmp_path], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    rows = {r["log"]: r for r in json.loads(out.read_text())}
    f = rows["flavours.darshan"]
    assert (f["nprocs"], f["files"], f["modes"]) == (4, 5, ["synthesized"])
    assert f["ops"] == f["plan_ops"] == 4 * (2 + 1 + 1 + 1 + 2) + 4 * 4
    assert f["bytes"] == f["plan_bytes"] == 4 * (2 * MiB + 65536 + 4096 + 100) + 2 * 4 * MiB + 4 * 4 * MiB
    assert f["verified"] and f["scale"] == 1
    assert "nor is it a Darshan log" in rows["notes.darshan"]["refused"]


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
