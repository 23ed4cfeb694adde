"""Repeats, sweeps and the regression check: repeats alternate between
combinations; hints are sweep axes passed as --hint; the progress says how
long is left; report gives median/min/max/CV and flags a case above 10 %;
`compare --fail-above` fails on a slower matched row (real runs, doctored
copies), matches on hints, and names manifest differences."""
import json
import re
import shutil

import pytest

from conftest import tool
from iokernels import launch, stats, suite
from suite_cli import cli, ok, one_error

SUITE = """
[suite]
name = "sweep"
repeats = 2

[[case]]
name = "raw"
kernel = "raw_write"
ranks = [1, 2]
args = ["-n", "1000000", "-c", "65536", "-o", "{outdir}/r.dat"]
hints = { cb_nodes = [1, 2] }
"""


def test_repeats_alternate_and_hints_are_axes():
    s = suite.from_dict({"suite": {"repeats": 3, "hints": {"striping_unit": 1048576}},
                         "case": [{"name": "a", "kernel": "raw_write", "ranks": [1, 2], "hints": {"cb_nodes": [1, 2]}},
                                  {"name": "b", "kernel": "raw_write", "repeats": 1}]})
    order = [(r.case, r.ranks, r.hints.get("cb_nodes"), r.repeat) for r in s.runs]
    assert len(order) == 4 * 3 + 1
    # round 1: every combination once (file order), then round 2, then round 3
    assert order[:5] == [("a", 1, "1", 0), ("a", 1, "2", 0), ("a", 2, "1", 0), ("a", 2, "2", 0), ("b", 1, None, 0)]
    assert order[5:9] == [("a", 1, "1", 1), ("a", 1, "2", 1), ("a", 2, "1", 1), ("a", 2, "2", 1)]
    assert all(a[:3] != b[:3] for a, b in zip(order, order[1:], strict=False))       # never back to back
    assert s.runs[0].hints == {"striping_unit": "1048576", "cb_nodes": "1"}
    assert s.runs[1].run_id == "002-a-cb_nodes=2-1p-r1"
    assert s.runs[5].label() == "raw_write a cb_nodes=1 1 ranks repeat 2"


def test_bad_hints_are_refused(tmp_path):
    for text, fragment in (('hints = "cb_nodes=2"', "'hints' must be a table"),
                           ('hints = { "cb nodes" = 2 }', "is not an MPI-IO hint name"),
                           ("hints = { cb_nodes = [] }", "hint 'cb_nodes' is an empty list")):
        f = tmp_path / "bad.toml"
        f.write_text(f'[[case]]\nkernel = "raw_write"\n{text}\n')
        one_error(cli("run", f, "--dry-run"), fragment)


def test_dry_run_lists_the_sweep_with_hints(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(SUITE)
    p = ok(cli("run", f, "--dry-run"))
    titles = [line for line in p.stdout.splitlines() if line.startswith("[")]
    assert len(titles) == 8 and titles[0] == "[1/8] raw_write raw cb_nodes=1 1 ranks"
    assert titles[4] == "[5/8] raw_write raw cb_nodes=1 1 ranks repeat 2"
    assert "--hint cb_nodes=2 --json RESULTS/002-raw-cb_nodes=2-1p-r1.json" in p.stdout


def test_progress_predicts_time_left_from_earlier_repeats():
    s = suite.from_dict({"suite": {"repeats": 2},
                         "case": [{"name": "a", "kernel": "raw_write", "ranks": [1, 2]}]})
    prog = launch.Progress(s.runs)
    assert prog.seconds_left() is None
    prog.record(s.runs[0], 10.0)                     # 1 rank: 10 s; 2 ranks unknown -> the mean so far
    assert prog.seconds_left() == pytest.approx(10.0 * 3)
    prog.record(s.runs[1], 30.0)                     # 2 ranks: 30 s; remaining: one of each
    assert prog.seconds_left() == pytest.approx(10.0 + 30.0)
    assert re.fullmatch(r"2/4 done, \d+:\d\d elapsed, ~0:40 left", prog.status())
    assert launch.format_clock(3725) == "1:02:05" and launch.format_clock(75) == "1:15"


def test_variance_statistics_and_flag():
    s = stats.summarize([100.0, 100.0, 100.0])
    assert (s["median"], s["min"], s["max"], s["cv"]) == (100.0, 100.0, 100.0, 0.0) and not stats.flagged(s)
    s = stats.summarize([90.0, 100.0, 110.0])
    assert s["cv"] == pytest.approx(0.10) and not stats.flagged(s)       # exactly 10 %: not above
    s = stats.summarize([80.0, 100.0, 130.0])
    assert s["median"] == 100.0 and s["cv"] == pytest.approx(25.166 / 103.333, rel=1e-3) and stats.flagged(s)
    assert not stats.flagged(stats.summarize([5.0]))                     # one run: nothing to flag


@pytest.fixture(scope="module")
def sweep_results(tmp_path_factory):
    """The real sweep, run once: 2 ranks x 2 cb_nodes x 2 repeats of raw_write."""
    tool("raw_write")
    d = tmp_path_factory.mktemp("sweep")
    f = d / "s.toml"
    f.write_text(SUITE)
    p = ok(cli("run", f, "--results", d / "res"))
    return d / "res", p


def test_real_sweep_runs_alternating_with_progress(sweep_results):
    res, p = sweep_results
    index = json.loads((res / "index.json").read_text())
    assert [(r["ranks"], r["hints"], r["repeat"]) for r in index["runs"]] == [
        (1, {"cb_nodes": "1"}, 1), (1, {"cb_nodes": "2"}, 1), (2, {"cb_nodes": "1"}, 1), (2, {"cb_nodes": "2"}, 1),
        (1, {"cb_nodes": "1"}, 2), (1, {"cb_nodes": "2"}, 2), (2, {"cb_nodes": "1"}, 2), (2, {"cb_nodes": "2"}, 2)]
    doc = json.loads((res / "004-raw-cb_nodes=2-2p-r1.json").read_text())
    assert doc["suite_run"]["command"][-4:-2] == ["--hint", "cb_nodes=2"]
    assert doc["manifest"]["mpiio_hints"].get("cb_nodes") in (None, "2")    # OMPIO ignores cb_nodes
    progress = [line for line in p.stderr.splitlines() if line.startswith("iokernels run: ")]
    assert len(progress) == 8 and progress[0].startswith("iokernels run: 1/8 done, ")
    assert "left" in progress[6] and progress[7].startswith("iokernels run: 8/8 done") and "left" not in progress[7]


def test_report_gives_median_min_max_cv_per_case(sweep_results):
    res, _ = sweep_results
    rep = ok(cli("report", res))
    lines = rep.stdout.splitlines()
    rows = [line for line in lines if line.startswith("raw_write") and " runs " not in line]
    per_run, per_case = rows[:8], rows[8:]
    assert len(per_case) == 4 and all(" cb_nodes=" in line for line in per_run)
    docs = [json.loads(p.read_text()) for p in sorted(res.glob("0*.json"))]
    for line in per_case:
        cells = line.split()
        ranks, hint, n = int(cells[6]), cells[8], int(cells[9])
        bw = [d["summary"]["write_mib_s"] for d in docs
              if d["suite_run"]["ranks"] == ranks and f"cb_nodes={d['suite_run']['hints']['cb_nodes']}" == hint]
        s = stats.summarize(bw)
        assert n == 2 and float(cells[10]) == pytest.approx(s["median"], abs=0.06)
        assert float(cells[11]) == pytest.approx(min(bw), abs=0.06)
        assert float(cells[12]) == pytest.approx(max(bw), abs=0.06)
        assert cells[13] == f"{s['cv'] * 100:.1f}%"
        assert (cells[-1] == "10%") == stats.flagged(s)       # "VARIES > 10%" ends the line when flagged


def test_fail_above_passes_on_itself_and_fails_on_a_slower_copy(sweep_results, tmp_path):
    res, _ = sweep_results
    p = ok(cli("compare", res, res, "--fail-above", "1.10"))
    assert "regression check: 0 of 4 matched rows more than 10% slower -> ok" in p.stdout
    slow = tmp_path / "slow"
    shutil.copytree(res, slow)
    victim = slow / "003-raw-cb_nodes=1-2p-r1.json"         # one case: both repeats 25 % slower
    for path in (victim, slow / "007-raw-cb_nodes=1-2p-r2.json"):
        d = json.loads(path.read_text())
        d["summary"]["write_seconds"] *= 1.25
        d["summary"]["write_mib_s"] /= 1.25
        path.write_text(json.dumps(d))
    p = cli("compare", res, slow, "--fail-above", "1.10")
    assert p.returncode == 1, p.stdout + p.stderr
    slower = [line for line in p.stdout.splitlines() if line.startswith("SLOWER ")]
    assert len(slower) == 1 and slower[0].startswith("SLOWER raw_write raw raw write raw-mpiio - 2 ranks cb_nodes=1: ")
    assert "(1.25x > 1.10x; medians of 2 and 2 runs)" in slower[0]
    assert "regression check: 1 of 4 matched rows more than 10% slower -> FAIL" in p.stdout
    table_row = next(line for line in p.stdout.splitlines() if line.endswith("SLOWER") and "cb_nodes=1" in line)
    assert " 2 " in table_row and "1.25x" in table_row and "0.80x" in table_row
    ok(cli("compare", res, slow, "--fail-above", "1.30"))   # under a looser limit it passes
    ok(cli("compare", res, slow))                            # without --fail-above no verdict
    one_error(cli("compare", res, slow, "--fail-above", "0.9"), "not a ratio above 1")


def synthetic(seconds, hints=(), pnetcdf="PnetCDF 1.14.0", layer="ROMIO", cb_effective="2"):
    argv = ["e3sm", "-a", "pnetcdf"] + [x for h in hints for x in ("--hint", h)] + ["map.nc"]
    return {"schema": "iokernels-result/1", "kernel": "e3sm", "params": {"case": "F", "strategy": "canonical"},
            "files": [{"label": "h0", "mode": "write", "backend": "pnetcdf", "bytes": {"total": 1 << 20},
                       "seconds": {"end_to_end": {"max": seconds}},
                       "bandwidth_mib_s": {"open_to_close": 1.0 / seconds}}],
            "manifest": {"mpiio_layer": layer, "processes": 4, "command_line": argv, "mpi": "Open MPI v5.0.7",
                         "libraries": {"pnetcdf": pnetcdf, "hdf5": "HDF5 1.14.5"},
                         "mpiio_hints": {"cb_nodes": cb_effective}}}


def test_matching_by_hints_and_named_manifest_differences(tmp_path):
    def put(name, doc):
        (tmp_path / name).write_text(json.dumps(doc))
        return tmp_path / name
    base = put("base.json", synthetic(1.0, hints=["cb_nodes=2"]))
    other_hint = put("h.json", synthetic(5.0, hints=["cb_nodes=4"]))
    p = cli("compare", base, other_hint, "--fail-above", "1.1")
    one_error(p, "no runs in common")                     # different requested hints never match
    newer = put("n.json", synthetic(1.5, hints=["cb_nodes=2"], pnetcdf="PnetCDF 1.13.0", cb_effective="1"))
    p = cli("compare", base, newer, "--fail-above", "1.1")
    assert p.returncode == 1
    assert ("manifests differ: e3sm F h0 write pnetcdf canonical 4 ranks cb_nodes=2: "
            "hint cb_nodes 2 vs 1; library pnetcdf PnetCDF 1.14.0 vs PnetCDF 1.13.0") in p.stdout
    assert "hdf5" not in p.stdout                          # only the library the row used
    same = put("s.json", synthetic(1.05, hints=["cb_nodes=2"]))
    p = ok(cli("compare", base, same, "--fail-above", "1.1"))
    assert "manifests differ" not in p.stdout and "-> ok" in p.stdout
