"""The storage ceiling (`python3 -m iokernels ceiling`): real contiguous
MPI-IO writes and cold reads (raw_write) and a synced write in a directory,
stored as a result; runs in that directory shown as % of it; a suite that
measures its own ceiling first."""
import json

import pytest

from conftest import tool
from iokernels import ceiling, results
from suite_cli import cli, ok, one_error

MiB = 1 << 20


def test_ceiling_measures_five_ways_and_stores_a_result(tmp_path):
    tool("raw_write")
    target = tmp_path / "storage"
    target.mkdir()
    out = tmp_path / "ceil.json"
    p = ok(cli("ceiling", target, "--ranks", "2", "--size", "8MiB", "--chunk", "1MiB", "-o", out))
    doc = json.loads(out.read_text())
    assert doc["schema"] == results.SCHEMA and doc["kernel"] == "ceiling"
    assert [(f["label"], f["mode"]) for f in doc["files"]] == [
        ("collective", "write"), ("collective", "read"), ("independent", "write"), ("independent", "read"),
        ("synced", "write")]
    for f in doc["files"]:
        assert f["bytes"]["total"] == 8 * MiB
        secs = f["seconds"]["end_to_end"]["max"]
        assert secs > 0 and f["bandwidth_mib_s"]["open_to_close"] == pytest.approx(8 / secs)
    s = doc["summary"]
    assert s["write_mib_s"] == max(s["collective_write_mib_s"], s["independent_write_mib_s"])
    assert s["read_mib_s"] == max(s["collective_read_mib_s"], s["independent_read_mib_s"])
    c = doc["ceiling"]
    assert c["directory"] == str(target.resolve()) and c["size"] == 8 * MiB and c["filesystem"] != ""
    assert c["write_cache_defeated"] is False and "may be absorbed by the page cache" in c["write_cache_note"]
    assert c["read_cache"] == "posix_fadvise(DONTNEED)"
    assert doc["manifest"]["processes"] == 2 and doc["manifest"]["mpiio_layer"] in ("OMPIO", "ROMIO")
    assert doc["params"]["chunk"] == MiB
    assert list(target.iterdir()) == []                  # the measurement file is gone
    assert "synced write" in p.stdout and "may be absorbed by the page cache" in p.stdout
    # report reads it like any result: five rows
    rep = ok(cli("report", out))
    assert sum(1 for line in rep.stdout.splitlines() if line.startswith("ceiling ")) == 5


def test_ceiling_refuses_bad_directories_and_sizes(tmp_path):
    one_error(cli("ceiling", tmp_path / "absent", "--ranks", "1", "--size", "1MiB"), "is not a directory")
    one_error(cli("ceiling", tmp_path, "--ranks", "1", "--size", "100PiB"), "is not a size")
    one_error(cli("ceiling", tmp_path, "--ranks", "1", "--size", "1000TiB"), "do not fit")
    assert list(tmp_path.iterdir()) == []


def test_default_size_defeats_the_cache_or_says_why(tmp_path, monkeypatch):
    monkeypatch.setattr(ceiling, "ram_bytes", lambda: 1 << 20)
    size, _ = ceiling.choose_size(tmp_path)
    assert size == 2 << 20                               # twice the RAM fits: the cache is defeated
    monkeypatch.setattr(ceiling, "ram_bytes", lambda: 1 << 60)
    size, free = ceiling.choose_size(tmp_path)
    assert size < 2 << 60 and size <= free * 0.45 + 1    # it does not: half the free space, and a note


def fake_ceiling(directory, write=200.0, read=400.0):
    return {"schema": results.SCHEMA, "kernel": "ceiling", "params": {"ranks": 2, "size": 1, "strategy": "-"},
            "summary": {"write_mib_s": write, "read_mib_s": read, "synced_write_mib_s": 50.0},
            "files": [], "ceiling": {"directory": str(directory), "host": "h", "mount_point": "/nowhere"}}


def run_doc(cwd, mib_s, mode="write"):
    return {"schema": results.SCHEMA, "kernel": "e3sm", "manifest": {"host": "other-host"},
            "files": [{"label": "h0", "mode": mode, "bytes": {"total": MiB}, "seconds": {"end_to_end": {"max": 1.0}},
                       "bandwidth_mib_s": {"open_to_close": mib_s}}],
            "suite_run": {"cwd": str(cwd), "status": "ok", "case": "F"}}


def test_runs_are_placed_against_the_ceiling_of_their_directory(tmp_path):
    outer, inner = fake_ceiling(tmp_path, write=1000.0), fake_ceiling(tmp_path / "deep", write=100.0)
    w = run_doc(tmp_path / "deep" / "run1", 50.0)
    assert ceiling.find(w, [outer, inner]) is inner      # the deepest directory holding the run
    (row,) = results.rows(w)
    assert ceiling.percent(row, w, [outer, inner]) == pytest.approx(50.0)
    r = run_doc(tmp_path / "deep" / "run2", 100.0, mode="read")
    assert ceiling.percent(results.rows(r)[0], r, [inner]) == pytest.approx(25.0)    # reads vs cold read
    elsewhere = run_doc("/somewhere/else", 50.0)
    assert ceiling.find(elsewhere, [outer, inner]) is None
    # report: the % column for the run, nothing for a run without a ceiling
    for name, d in (("c.json", inner), ("w.json", w), ("e.json", elsewhere)):
        (tmp_path / name).write_text(json.dumps(d))
    rep = ok(cli("report", tmp_path / "c.json", tmp_path / "w.json", tmp_path / "e.json"))
    lines = [line for line in rep.stdout.splitlines() if line.startswith("e3sm ")]
    assert "50%" in lines[0].split() and not any(x.endswith("%") for x in lines[1].split())


def test_suite_measures_its_ceiling_before_the_runs(tmp_path):
    tool("raw_write")
    s = tmp_path / "s.toml"
    s.write_text('[suite]\nname = "c"\nceiling = { size = "4MiB", ranks = 2 }\n'
                 '[[case]]\nname = "raw"\nkernel = "raw_write"\nranks = 2\n'
                 'args = ["-n", "2000000", "-o", "{outdir}/r.dat"]\n')
    dry = ok(cli("run", s, "--dry-run"))
    assert "ceiling of RESULTS/out before the runs: 2 ranks, size 4194304" in dry.stdout
    res = tmp_path / "res"
    p = ok(cli("run", s, "--results", res))
    assert p.stdout.splitlines()[5].startswith(f"ceiling of {res.resolve()}/out (")
    index = json.loads((res / "index.json").read_text())
    assert index["ceiling"] == "ceiling.json" and [r["status"] for r in index["runs"]] == ["ok"]
    docs = results.load_dir(res)
    assert [d["kernel"] for d in docs] == ["ceiling", "raw_write"]
    run = docs[1]
    pct = ceiling.percent(results.rows(run)[0], run, [docs[0]])
    assert pct == pytest.approx(100.0 * run["summary"]["write_mib_s"] / docs[0]["summary"]["write_mib_s"])
    rep = ok(cli("report", res))
    assert f"{pct:.0f}%" in next(line for line in rep.stdout.splitlines() if line.startswith("raw_write")).split()
    bad = tmp_path / "bad.toml"
    bad.write_text('[suite]\nceiling = { size = "huge" }\n[[case]]\nkernel = "raw_write"\n')
    one_error(cli("run", bad, "--dry-run"), "[suite] ceiling: 'size'", "is not a size")
