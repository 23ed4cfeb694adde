"""The suite runner (python/iokernels): matrix expansion, suite-file
validation, report/CSV formatting, compare's MPI-IO layer check, plotting,
and real runs through `python3 -m iokernels run` (raw_write; the E3SM G case
when the e3sm kernel is built)."""
import csv
import io
import json
import os
import re
import subprocess
import sys
import time

import pytest

from conftest import BUILD_DIR, IOKERNELS, SOURCE_DIR, mpirun, tool
from iokernels import compare, launch, paths, results, suite, table
from iokernels.errors import UsageError


def cli(*args, cwd=None):
    env = dict(os.environ, IOK_BUILD_DIR=str(BUILD_DIR))
    return subprocess.run([sys.executable, "-m", "iokernels", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=900)


def write(path, text):
    path.write_text(text)
    return path


# ---------------------------------------------------------------- expansion

def test_matrix_expands_to_cross_product_in_order():
    s = suite.from_dict({
        "suite": {"name": "t", "repeats": 2},
        "case": [{"name": "F", "kernel": "e3sm", "ranks": [4, 16], "backend": ["pnetcdf", "hdf5"],
                  "strategy": "canonical", "args": ["-r", "{records}"], "matrix": {"records": [1, 5]}}]})
    runs = s.runs
    assert len(runs) == 2 * 2 * 2 * 2          # ranks x backend x records x repeats
    # repeats run in rounds: every combination once, then every one again
    assert [(r.ranks, r.backend, r.matrix["records"], r.repeat) for r in runs[:5]] == [
        (4, "pnetcdf", "1", 0), (4, "pnetcdf", "5", 0), (4, "hdf5", "1", 0), (4, "hdf5", "5", 0),
        (16, "pnetcdf", "1", 0)]
    assert [r.index for r in runs] == list(range(1, 17)) and {r.total for r in runs} == {16}
    assert len({r.run_id for r in runs}) == 16
    assert runs[2].run_id == "003-F-hdf5-canonical-records=1-4p-r1"
    assert runs[2].label() == "e3sm F hdf5 canonical records=1 4 ranks"
    assert runs[8].label().endswith("4 ranks repeat 2")


def test_env_lists_expand_and_suite_defaults_merge():
    s = suite.from_dict({
        "suite": {"env": {"A": "1"}, "launcher": "srun", "io_layer": "romio"},
        "case": [{"kernel": "raw_write", "ranks": 2, "env": {"OMPI_MCA_io": ["ompio", "romio341"], "B": 7}},
                 {"name": "second", "kernel": "raw_write", "launcher": "mpirun -np {ranks}", "io_layer": "ompio"}]})
    first, second, third = s.runs
    assert first.env == {"A": "1", "OMPI_MCA_io": "ompio", "B": "7"}
    assert second.env["OMPI_MCA_io"] == "romio341"
    assert first.axes() == {"OMPI_MCA_io": "ompio"}      # only what varies shows in labels/ids
    assert first.launcher == ["srun", "-n", "{ranks}"] and first.io_layer == "romio"
    assert third.launcher == ["mpirun", "-np", "{ranks}"] and third.io_layer == "ompio"
    assert third.case == "second" and first.case == "raw_write"


def test_command_line_and_environment(tmp_path):
    s = suite.from_dict({"case": [{"name": "G", "kernel": "e3sm", "ranks": 4, "backend": "hdf5",
                                   "strategy": "rearrange", "io_layer": "ompio",
                                   "args": ["-o", "{outdir}/g.nc", "{shared}/datasets/e3sm/g.nc"]},
                                  {"kernel": "raw_write", "ranks": 2, "io_layer": "ompio", "args": "-n 1000"},
                                  {"name": "s3d", "kernel": "s3d", "strategy": "fpp", "strategy_flag": "--method"}]})
    g, raw, s3d = s.runs
    argv = launch.command(g, tmp_path / "o", tmp_path / "g.json", BUILD_DIR)
    assert argv[:4] == ["mpiexec", "--oversubscribe", "-n", "4"]
    assert argv[4:] == [str(IOKERNELS), "--io-layer", "ompio", "e3sm", "-a", "hdf5", "-x", "rearrange",
                        "-o", f"{tmp_path}/o/g.nc", argv[-3], "--json", str(tmp_path / "g.json")]
    assert argv[-3] == f"{paths.shared_dir()}/datasets/e3sm/g.nc"  # {shared}: $IOK_SHARED or ../shared
    assert launch.environment(g) == {"OMPI_MCA_io": "ompio"}
    argv = launch.command(raw, tmp_path, tmp_path / "r.json", BUILD_DIR)
    assert argv[4:] == [str(tool("raw_write")), "-n", "1000", "--json", str(tmp_path / "r.json")]
    assert launch.command(s3d, tmp_path, tmp_path / "s.json", BUILD_DIR)[5:8] == ["s3d", "--method", "fpp"]


# ---------------------------------------------------------------- validation

@pytest.mark.parametrize("doc, fragments", [
    ({"case": [{"kernel": "e3sm", "backnd": "hdf5"}]},
     ["case #1 ('e3sm'): unknown key 'backnd'", "did you mean 'backend'?"]),
    ({"suite": {"lancher": "srun"}, "case": [{"kernel": "e3sm"}]}, ["[suite]: unknown key 'lancher'"]),
    ({"cases": []}, ["top level: unknown key 'cases'"]),
    ({"case": []}, ["no cases"]),
    ({"case": [{"backend": "hdf5"}]}, ["'kernel' is missing"]),
    ({"case": [{"kernel": "e3sm", "ranks": 0}]}, ["'ranks' must be positive, got 0"]),
    ({"case": [{"kernel": "e3sm", "ranks": "4"}]},
     ["'ranks' must be an integer or a list of them, got '4'", "hint: write e.g. ranks = 4"]),
    ({"case": [{"kernel": "e3sm", "ranks": []}]}, ["'ranks' is an empty list"]),
    ({"case": [{"kernel": "e3sm", "io_layer": "mpich"}]}, ["io_layer 'mpich' is not one of romio, ompio"]),
    ({"case": [{"kernel": "e3sm", "repeats": 0}]}, ["'repeats' must be a positive integer"]),
    ({"case": [{"kernel": "e3sm", "args": ["-r", "{recs}"]}]}, ["unknown placeholder {recs}"]),
    ({"case": [{"kernel": "e3sm", "matrix": {"ranks": [1]}}]}, ["matrix name 'ranks' is reserved"]),
    ({"case": [{"kernel": "raw_write", "backend": "hdf5"}]}, ["raw_write takes no backend or strategy"]),
    ({"case": [{"kernel": "e3sm", "launcher": "aprun"}]}, ["launcher 'aprun' is not mpiexec, srun"]),
    ({"case": [{"kernel": "e3sm"}, {"kernel": "e3sm"}]}, ["two cases are named 'e3sm'"]),
    ({"suite": {"env": "A=1"}, "case": [{"kernel": "e3sm"}]}, ["[suite]: 'env' must be a table"]),
    ({"case": [{"kernel": "e3sm", "env": ["A=1"]}]}, ["'env' must be a table"]),
])
def test_validation_errors_name_the_problem(doc, fragments):
    with pytest.raises(UsageError) as e:
        suite.from_dict(doc, "s.toml")
    for f in fragments:
        assert f in str(e.value), str(e.value)


def test_cli_rejects_bad_suite_with_one_clear_message(tmp_path):
    bad = write(tmp_path / "bad.toml", '[[case]]\nkernel = "e3sm"\nrank = 4\n')
    p = cli("run", bad, "--results", tmp_path / "r")
    assert p.returncode == 2
    assert p.stderr.startswith(f"iokernels run: error: {bad}: case #1 ('e3sm'): unknown key 'rank'")
    assert "hint: did you mean 'ranks'?" in p.stderr
    assert not (tmp_path / "r").exists()            # nothing ran, nothing stored
    syntax = write(tmp_path / "syntax.toml", "[[case]\n")
    p = cli("run", syntax)
    assert p.returncode == 2 and "not valid TOML" in p.stderr
    p = cli("run", tmp_path / "absent.toml")
    assert p.returncode == 2 and "does not exist" in p.stderr


def test_dry_run_prints_commands_and_runs_nothing(tmp_path):
    s = write(tmp_path / "s.toml", '[[case]]\nkernel = "raw_write"\nranks = [1, 2]\nio_layer = "ompio"\n'
                                   'args = ["-n", "1000", "-o", "{outdir}/raw.dat"]\n')
    p = cli("run", s, "--dry-run", "--results", tmp_path / "r")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "[1/2] raw_write ompio 1 ranks" and lines[2] == "[2/2] raw_write ompio 2 ranks"
    assert lines[3].strip().startswith("OMPI_MCA_io=ompio mpiexec --oversubscribe -n 2 ")
    assert f"-o {tmp_path}/r/out/002-raw_write-ompio-2p-r1/raw.dat --json" in lines[3]
    assert not (tmp_path / "r").exists()


def test_refuses_non_empty_results_dir(tmp_path):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "old.json").write_text("{}")
    s = write(tmp_path / "s.toml", '[[case]]\nkernel = "raw_write"\n')
    p = cli("run", s, "--results", tmp_path / "r")
    assert p.returncode == 2 and "is not empty" in p.stderr
    (tmp_path / "f").write_text("a file, not a directory")   # one message, no traceback, the file untouched
    p = cli("run", s, "--results", tmp_path / "f")
    assert p.returncode == 2 and "is a file" in p.stderr and "Traceback" not in p.stderr
    assert (tmp_path / "f").read_text() == "a file, not a directory"


# ---------------------------------------------------------------- synthetic results

def stat(mx, mn=None):
    return {"min": mn if mn is not None else mx / 2, "max": mx, "mean": mx * 0.75}


def file_entry(label, mode, backend, nbytes, secs, mib_s, rss=50 << 20):
    e = {"label": label, "path": f"/x/{label}.nc", "mode": mode, "backend": backend, "library": "L",
         "variables": 3, "attributes": 1, "records": 5, "flushes": 5,
         "requests": {"total": 100, "max": 10, "min": 1},
         "bytes": {"total": nbytes, "max": nbytes / 4, "min": nbytes / 8}, "bytes_on_disk": nbytes + 512,
         "overhead_bytes": 512, "seconds": {"open": stat(0.01), "post": stat(secs / 2), "end_to_end": stat(secs)},
         "bandwidth_mib_s": {"data_only": mib_s * 2, "open_to_close": mib_s},
         "memory_bytes": {"rss_peak": stat(rss), "library_hwm": stat(1 << 20)}}
    if mode == "read":
        e["verify"] = {"mismatches": 0, "first": ""}
    return e


def synthetic(layer="OMPIO", scale=1.0, backend="pnetcdf"):
    return {"schema": results.SCHEMA, "kernel": "e3sm",
            "params": {"case": "F", "api": backend, "strategy": "canonical"},
            "summary": {"prepare_fraction_of_write": 0.01},
            "files": [file_entry("h0", "write", backend, 35651584, 0.85 * scale, 40.0 / scale),
                      file_entry("h1", "write", backend, 1048576, 0.05 * scale, 20.0 / scale),
                      file_entry("h0", "read", backend, 35651584, 0.5 * scale, 68.0 / scale)],
            "manifest": {"mpiio_layer": layer, "processes": 16}}


def test_report_table_and_csv(tmp_path):
    doc = synthetic()
    write(tmp_path / "f.json", json.dumps(doc))
    p = cli("report", tmp_path / "f.json", "--csv", tmp_path / "f.csv")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    header = lines[0].split()
    assert header == ["kernel", "case", "file", "mode", "backend", "strategy", "ranks", "layer", "bytes", "max",
                      "s", "MiB/s", "RSS", "max", "lib", "mem", "verify", "status"]
    assert set(lines[1]) == {"-", " "}
    assert lines[2].split() == ["e3sm", "F", "h0", "write", "pnetcdf", "canonical", "16", "OMPIO", "34.0", "MiB",
                                "0.850", "40.0", "50.0", "MiB", "1.0", "MiB", "ok"]
    assert lines[4].split()[-2:] == ["ok", "ok"]        # read row: verified, run ok
    # numbers are right-aligned: their last characters line up under the title
    col_end = lines[0].index("MiB/s") + len("MiB/s")
    assert all(line[col_end - 1] != " " for line in lines[2:5])
    rows = list(csv.DictReader(io.StringIO((tmp_path / "f.csv").read_text())))
    assert [r["label"] for r in rows] == ["h0", "h1", "h0"]
    assert rows[0]["bytes"] == "35651584" and float(rows[0]["seconds"]) == 0.85
    assert float(rows[0]["mib_s"]) == 40.0 and float(rows[0]["data_mib_s"]) == 80.0
    assert rows[0]["rss_peak"] == str(50 << 20) and rows[0]["layer"] == "OMPIO" and rows[0]["ranks"] == "16"
    assert rows[2]["verify"] == "ok" and rows[0]["verify"] == ""


def test_headline_sums_written_files():
    nbytes, secs, bw = results.headline(synthetic())
    assert nbytes == 35651584 + 1048576
    assert secs == pytest.approx(0.90)
    assert bw == pytest.approx(nbytes / 2**20 / 0.90)


def test_failed_run_row_and_format_helpers():
    doc = {"schema": results.SCHEMA, "kernel": "e3sm", "files": [],
           "suite_run": {"id": "007-F", "case": "F", "backend": "hdf5", "strategy": "canonical", "ranks": 4,
                         "io_layer": "romio", "status": "failed"}}
    (row,) = results.rows(doc)
    assert (row["run"], row["backend"], row["layer"], row["status"], row["bytes"]) == \
        ("007-F", "hdf5", "ROMIO", "failed", None)
    assert table.format_bytes(1536) == "1.5 KiB" and table.format_bytes(512) == "512 B"
    assert launch.format_seconds(0.851) == "0.85" and launch.format_seconds(0.00123) == "0.0012"


def test_compare_warns_loudly_when_layers_differ(tmp_path):
    write(tmp_path / "a.json", json.dumps(synthetic("OMPIO")))
    write(tmp_path / "b.json", json.dumps(synthetic("ROMIO", scale=2.0)))
    p = cli("compare", tmp_path / "a.json", tmp_path / "b.json")
    assert p.returncode == 0
    assert "WARNING: the MPI-IO layers differ: base ran OMPIO, other ran ROMIO." in p.stderr
    assert "!" * 78 in p.stderr
    row = next(line for line in p.stdout.splitlines() if line.split()[:4] == ["e3sm", "F", "h0", "write"])
    assert row.split()[7:] == ["OMPIO!=ROMIO", "!", "0.850", "1.700", "2.00x", "40.0", "20.0", "0.50x"]
    assert "matched across different MPI-IO layers" in p.stdout
    assert cli("compare", "--strict", tmp_path / "a.json", tmp_path / "b.json").returncode == 1


def test_compare_same_layer_is_quiet_and_averages_repeats(tmp_path):
    (tmp_path / "base").mkdir()
    write(tmp_path / "base" / "r1.json", json.dumps(synthetic("ROMIO", scale=1.0)))
    write(tmp_path / "base" / "r2.json", json.dumps(synthetic("ROMIO", scale=3.0)))
    write(tmp_path / "b.json", json.dumps(synthetic("ROMIO", scale=4.0)))
    p = cli("compare", "--strict", tmp_path / "base", tmp_path / "b.json")
    assert p.returncode == 0 and "WARNING" not in p.stderr + p.stdout
    row = next(line for line in p.stdout.splitlines() if line.split()[:4] == ["e3sm", "F", "h0", "write"])
    assert row.split()[7:11] == ["ROMIO", "1.700", "3.400", "2.00x"]    # base mean of 0.85 and 2.55


def test_compare_layer_helpers():
    assert compare.layer_warning(["ROMIO"], ["ROMIO"]) is None
    assert compare.layer_warning(["OMPIO", "ROMIO"], ["OMPIO", "ROMIO"]) is None
    assert "do not say" in compare.layer_warning(["unknown"], ["unknown"])
    assert "differ" in compare.layer_warning(["ROMIO"], ["OMPIO", "ROMIO"])


def test_plot_writes_png(tmp_path):
    docs = [synthetic(backend="pnetcdf"), synthetic(backend="hdf5", scale=2.0)]
    raw = {"schema": results.SCHEMA, "kernel": "raw_write", "manifest": {"processes": 16, "mpiio_layer": "OMPIO"},
           "summary": {"bytes": 36700160, "write_seconds": 0.5, "write_mib_s": 70.0}}
    for i, d in enumerate(docs + [raw]):
        write(tmp_path / f"{i}.json", json.dumps(d))
    p = cli("plot", tmp_path, "--out", tmp_path / "p.png")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from iokernels import plot
    panels, ref = plot.series([results.load_doc(tmp_path / f"{i}.json") for i in range(3)])
    assert ref == {(16, "OMPIO"): [70.0]}
    bars = panels[("e3sm", "F", 16)]
    assert set(bars) == {"pnetcdf\nOMPIO", "hdf5\nOMPIO"}
    assert bars["hdf5\nOMPIO"][0] == pytest.approx(36700160 / 2**20 / 1.8)


# ---------------------------------------------------------------- real runs

def test_run_raw_write_suite(tmp_path):
    """raw_write on 1 and 2 ranks (and a failing case in between): every run
    stored with its command, the failure recorded with its stderr, the suite
    keeps going, the report reads the directory back."""
    s = write(tmp_path / "raw.toml", """
[suite]
name = "rawtest"
[[case]]
name = "raw"
kernel = "raw_write"
ranks = [1, 2]
args = ["-n", "{n}", "-o", "{outdir}/raw.dat", "--chunk", "65536"]
matrix = { n = [3000000] }
[[case]]
name = "broken"
kernel = "raw_write"
ranks = 2
args = ["--chunk", "0"]
[[case]]
name = "after"
kernel = "raw_write"
ranks = 2
io_layer = "ompio"
args = ["-n", "1000"]
""")
    res = tmp_path / "res"
    p = cli("run", s, "--results", res)
    assert p.returncode == 1, p.stdout + p.stderr       # one run failed
    lines = p.stdout.splitlines()
    assert re.fullmatch(r"\[1/4\] raw_write raw 1 ranks \.\.\. [0-9.e-]+ s, [0-9.]+ MiB/s", lines[1]), lines
    assert re.fullmatch(r"\[2/4\] raw_write raw 2 ranks \.\.\. [0-9.e-]+ s, [0-9.]+ MiB/s", lines[2]), lines
    assert lines[3] == "[3/4] raw_write broken 2 ranks ... FAILED (exit 1): " \
                       "iokernels raw_write: error: --chunk must be positive"
    assert lines[4].startswith("[4/4] raw_write after ompio 2 ranks ... ")
    assert lines[5].startswith("3 of 4 runs succeeded")
    index = json.loads((res / "index.json").read_text())
    assert index["suite"] == "rawtest" and "finished_utc" in index
    assert [r["status"] for r in index["runs"]] == ["ok", "ok", "failed", "ok"]
    assert [r["bytes"] for r in index["runs"] if r["status"] == "ok"] == [3000000, 3000000, 1000]
    doc = json.loads((res / "002-raw-2p-r1.json").read_text())
    assert doc["schema"] == results.SCHEMA and doc["summary"]["bytes"] == 3000000
    assert doc["manifest"]["processes"] == 2
    sr = doc["suite_run"]
    assert sr["status"] == "ok" and sr["returncode"] == 0 and sr["ranks"] == 2
    assert sr["command"] == ["mpiexec", "--oversubscribe", "-n", "2", str(tool("raw_write")), "-n", "3000000",
                             "-o", f"{res.resolve()}/out/002-raw-2p-r1/raw.dat", "--chunk", "65536",
                             "--json", str(res.resolve() / "002-raw-2p-r1.json")]
    assert (res / sr["stdout_log"]).read_text().count("raw contiguous MPI-IO") == 1
    assert not (res / "out").exists()                   # raw_write removed its file, runner its empty dirs
    bad = json.loads((res / "003-broken-2p-r1.json").read_text())
    assert bad["suite_run"]["returncode"] == 1
    assert any("--chunk must be positive" in line for line in bad["suite_run"]["stderr_tail"])
    after = json.loads((res / "004-after-ompio-2p-r1.json").read_text())
    assert after["manifest"]["mpiio_layer"] == "OMPIO"
    assert after["suite_run"]["env"]["OMPI_MCA_io"] == "ompio"

    rep = cli("report", res, "--csv", tmp_path / "r.csv")
    assert rep.returncode == 0, rep.stderr
    body = rep.stdout.splitlines()
    assert len(body) == 2 + 4 + 1                       # header, rule, 4 runs, CSV line
    assert body[4].split()[:4] == ["raw_write", "broken", "-", "2"] and body[4].split()[-1] == "failed"
    rows = list(csv.DictReader(io.StringIO((tmp_path / "r.csv").read_text())))
    assert [r["run"] for r in rows] == [r["id"] for r in index["runs"]]
    assert rows[1]["bytes"] == "3000000" and rows[1]["ranks"] == "2"


def test_io_layer_is_pinned_and_compare_sees_the_difference(tmp_path):
    """io_layer = romio / ompio reaches raw_write (manifests say ROMIO / OMPIO)
    and compare of the two warns."""
    s = write(tmp_path / "l.toml", '[[case]]\nkernel = "raw_write"\nranks = 2\nio_layer = ["romio", "ompio"]\n'
                                   'args = ["-n", "100000"]\n')
    p = cli("run", s, "--results", tmp_path / "res")
    assert p.returncode == 0, p.stdout + p.stderr
    a = json.loads((tmp_path / "res" / "001-raw_write-romio-2p-r1.json").read_text())
    b = json.loads((tmp_path / "res" / "002-raw_write-ompio-2p-r1.json").read_text())
    assert (a["manifest"]["mpiio_layer"], b["manifest"]["mpiio_layer"]) == ("ROMIO", "OMPIO")
    c = cli("compare", tmp_path / "res" / "001-raw_write-romio-2p-r1.json",
            tmp_path / "res" / "002-raw_write-ompio-2p-r1.json")
    assert "WARNING: the MPI-IO layers differ: base ran ROMIO, other ran OMPIO." in c.stderr
    assert re.search(r"raw_write\s+raw_write\s+raw\s+write\s+raw-mpiio\s+-\s+2\s+ROMIO!=OMPIO !", c.stdout), c.stdout


def e3sm_available():
    if not IOKERNELS.is_file():
        return False
    out = subprocess.run([str(IOKERNELS), "--help"], capture_output=True, text=True).stdout
    return re.search(r"^\s+e3sm\s", out, re.M) is not None


def test_run_e3sm_g_case(tmp_path, case_maps):
    if not e3sm_available():
        pytest.skip("`iokernels e3sm` is not in this build yet")
    s = write(tmp_path / "g.toml", f"""
[[case]]
name = "G"
kernel = "e3sm"
ranks = 4
backend = "pnetcdf"
strategy = "canonical"
args = ["-r", "1", "--verify", "-o", "{{outdir}}/g_case.nc", "{case_maps}/map_g_case_16p.nc"]
""")
    p = cli("run", s, "--results", tmp_path / "res")
    assert p.returncode == 0, p.stdout + p.stderr
    assert re.fullmatch(r"\[1/1\] e3sm G pnetcdf canonical 4 ranks \.\.\. [0-9.e-]+ s, [0-9.]+ MiB/s",
                        p.stdout.splitlines()[1]), p.stdout
    doc = json.loads((tmp_path / "res" / "001-G-pnetcdf-canonical-4p-r1.json").read_text())
    assert doc["kernel"] == "e3sm" and doc["params"]["case"] == "G"
    modes = [f["mode"] for f in doc["files"]]
    assert modes == ["write", "read"]
    w, r = doc["files"]
    assert w["bytes"]["total"] == r["bytes"]["total"] > 0 and r["verify"]["mismatches"] == 0
    index = json.loads((tmp_path / "res" / "index.json").read_text())
    assert index["runs"][0]["bytes"] == w["bytes"]["total"]
    rep = cli("report", tmp_path / "res")
    assert rep.returncode == 0 and len(rep.stdout.splitlines()) == 4


def test_suite_makes_its_inputs_once_and_runs_on_them(tmp_path):
    """[[input]]: a suite brings its own data (here a map from e3sm_mapgen),
    made in RESULTS/inputs before the runs, named in the index, passed to
    the runs as {name}; a failing input command stops the suite with one
    message (exit 2) before any run."""
    s = write(tmp_path / "in.toml", """
[[input]]
name = "f_map"
file = "map_f.nc"
command = ["{build}/src/e3sm_mapgen", "-o", "{path}"]

[[case]]
name = "F"
kernel = "e3sm"
ranks = 4
backend = "pnetcdf"
args = ["-r", "1", "-f", "1", "--verify", "-o", "{outdir}/f.nc", "{f_map}"]
""")
    p = cli("run", s, "--results", tmp_path / "res")
    assert p.returncode == 0, p.stdout + p.stderr
    made = tmp_path / "res" / "inputs" / "map_f.nc"
    assert made.read_bytes()[:4] == b"CDF\x05"
    assert p.stdout.splitlines()[0] == f"input f_map: {made} (made)"
    index = json.loads((tmp_path / "res" / "index.json").read_text())
    assert index["inputs"] == [{"name": "f_map", "path": str(made), "made": True,
                                "command": [str(tool("e3sm_mapgen")), "-o", str(made)]}]
    doc = json.loads((tmp_path / "res" / "001-F-pnetcdf-4p-r1.json").read_text())
    assert str(made) in doc["suite_run"]["command"]
    assert doc["files"][-1]["verify"]["mismatches"] == 0
    dry = cli("run", s, "--results", tmp_path / "res2", "--dry-run")
    assert dry.returncode == 0 and dry.stdout.startswith("input f_map: ") and not (tmp_path / "res2").exists()

    bad = write(tmp_path / "bad.toml", s.read_text().replace('"-o", "{path}"', '"--no-such-option", "{path}"'))
    p = cli("run", bad, "--results", tmp_path / "res3")
    assert p.returncode == 2 and "error: input f_map:" in p.stderr and "--no-such-option" in p.stderr
    assert not list((tmp_path / "res3").glob("0*.json"))     # no run started


@pytest.mark.parametrize("entry,fragment", [
    ({"name": "outdir", "command": ["true"]}, "reserved"),
    ({"name": "m", "command": []}, "'command' must be a non-empty list"),
    ({"name": "m", "command": ["gen", "{nope}"]}, "unknown placeholder {nope}"),
    ({"name": "m", "file": "../x", "command": ["gen"]}, "plain file name"),
    ({"name": "m", "command": ["gen"], "colour": 1}, "unknown key 'colour'"),
])
def test_input_validation_names_the_problem(entry, fragment):
    with pytest.raises(UsageError) as e:
        suite.from_dict({"input": [entry], "case": [{"kernel": "raw_write"}]})
    assert fragment in str(e.value)


def test_example_suite_is_valid():
    s = suite.load(SOURCE_DIR / "python" / "iokernels" / "suites" / "example.toml")
    assert s.name == "example" and len(s.runs) == 2 + 2 * 2 * 2
    assert {r.kernel for r in s.runs} == {"raw_write", "e3sm"}
    assert [r.io_layer for r in s.runs[:2]] == ["romio", "ompio"]
    assert [i.name for i in s.inputs] == ["g_map"]


def test_example_suite_runs_without_the_shared_data(tmp_path):
    """The README's example suite on a fresh clone: no ../shared, every run
    succeeds, and raw_write writes exactly the bytes the G case writes."""
    env = dict(os.environ, IOK_BUILD_DIR=str(BUILD_DIR),
               IOK_SHARED=str(tmp_path / "no_shared"))
    p = subprocess.run([sys.executable, "-m", "iokernels", "run", str(SOURCE_DIR / "python" / "iokernels" / "suites" /
                        "example.toml"), "--results", str(tmp_path / "res")], capture_output=True, text=True,
                       env=env, timeout=1800)
    assert p.returncode == 0, p.stdout + p.stderr
    index = json.loads((tmp_path / "res" / "index.json").read_text())
    assert [r["status"] for r in index["runs"]] == ["ok"] * 10
    docs = [json.loads((tmp_path / "res" / r["result"]).read_text()) for r in index["runs"]]
    g_bytes = {f["bytes"]["total"] for d in docs if d["kernel"] == "e3sm" for f in d["files"] if f["mode"] == "write"}
    raw_bytes = {d["summary"]["bytes"] for d in docs if d["kernel"] == "raw_write"}
    assert g_bytes == raw_bytes == {114920672}
    reads = [f for d in docs if d["kernel"] == "e3sm" for f in d["files"] if f["mode"] == "read"]
    assert len(reads) == 8 and all(f["verify"]["mismatches"] == 0 for f in reads)


def test_benchlib_runs_beside_raw_and_prints_ratios(tmp_path, capsys, monkeypatch):
    """bench/benchlib.py: a run and raw_write of the same bytes share one
    directory and one results index; the table's ratios are ours / raw."""
    monkeypatch.syspath_prepend(str(SOURCE_DIR / "bench"))          # benchlib is a script's module, not packaged
    import benchlib
    b = benchlib.Bench("t", ranks=2, results=tmp_path / "res", build_dir=BUILD_DIR)
    ours = b.raw(3000000, label="ours", extra=["--chunk", "4096"])     # stands in for a kernel
    ref = b.raw_for(ours, ranks=1)
    assert b.raw_for(ours, ranks=1) is ref                            # one reference per bytes/ranks/layer
    assert ours.ok and ref.ok and ours.bytes == ref.bytes == 3000000
    failed = b.kernel("missing", "no_such_kernel", [])
    text = b.table([ours, failed], ref, title="t")
    lines = text.strip().splitlines()
    row = lines[3].split()
    assert row[:4] == ["ours", ours.layer, "2.9", "MiB"]
    assert row[6] == f"{ours.seconds / ref.seconds:.2f}" and row[7] == f"{ours.mib_s / ref.mib_s:.2f}"
    assert "FAILED: iokernels: error: unknown kernel 'no_such_kernel'" in lines[4]
    assert lines[5].split()[:3] == ["raw_write", "(1", "ranks)"]
    assert lines[5].split()[-3:] == ["1.00", "1.00", "reference"]
    assert b.finish() == 1
    index = json.loads((tmp_path / "res" / "index.json").read_text())
    assert [r["status"] for r in index["runs"]] == ["ok", "ok", "failed"]
    assert index["tables"][0]["text"] == text
    cmds = [json.loads((tmp_path / "res" / r["result"]).read_text())["suite_run"]["command"] for r in index["runs"]]
    outputs = [c[c.index("-o") + 1] for c in cmds[:2]]
    assert outputs == [f"{tmp_path / 'res' / 'data'}/raw.dat"] * 2
    assert not (tmp_path / "res" / "data").exists()                   # cleaned up after


def test_bench_e3sm_script(tmp_path, case_maps):
    """bench/e3sm.py end to end (F case, 16 ranks, 1 record, ROMIO, two
    libraries): headline table with ratios to raw of the same bytes, the
    prepare fraction, the cross-library table, everything stored."""
    if not e3sm_available():
        pytest.skip("`iokernels e3sm` is not in this build yet")
    env = dict(os.environ, IOK_BUILD_DIR=str(BUILD_DIR))
    p = subprocess.Popen([sys.executable, str(SOURCE_DIR / "bench" / "e3sm.py"), "--ranks", "16", "--records", "1",
                          "--io-layer", "romio", "--libraries", "pnetcdf canonical,pnetcdf vard",
                          "--map", str(case_maps / "map_f_case_16p.nc"),
                          "--results", str(tmp_path / "res")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    try:
        stdout, stderr = p.communicate(timeout=900)
    except subprocess.TimeoutExpired:
        p.terminate()                   # benchlib kills its running launch on SIGTERM
        stdout, stderr = p.communicate()
        pytest.fail(f"bench/e3sm.py took over 900 s\n{stdout}\n{stderr}")
    assert p.returncode == 0, stdout + stderr
    out = stdout
    index = json.loads((tmp_path / "res" / "index.json").read_text())
    runs = {r["id"]: r for r in index["runs"]}
    e3sm_id = next(i for i in runs if "pnetcdf_canonical" in i)
    raw_id = next(i for i in runs if "raw_write" in i)
    doc = json.loads((tmp_path / "res" / f"{e3sm_id}.json").read_text())
    raw = json.loads((tmp_path / "res" / f"{raw_id}.json").read_text())
    written = sum(f["bytes"]["total"] for f in doc["files"] if f["mode"] == "write")
    assert raw["summary"]["bytes"] == written > 0                     # raw wrote the same bytes
    assert doc["manifest"]["mpiio_layer"] == raw["manifest"]["mpiio_layer"] == "ROMIO"
    assert [f["label"] for f in doc["files"]] == ["h0", "h1"]
    head = next(line for line in out.splitlines() if re.match(r"e3sm F pnetcdf canonical\s+ROMIO", line))
    secs = sum(f["seconds"]["end_to_end"]["max"] for f in doc["files"] if f["mode"] == "write")
    assert head.split()[9] == f"{secs / raw['summary']['write_seconds']:.2f}"
    frac = doc["summary"]["prepare_fraction_of_write"]
    assert f"= {100 * frac:.2f} % of the write time" in out
    assert "E3SM F case on every library" in out and re.search(r"^e3sm F pnetcdf vard\s+ROMIO", out, re.M)
    vard = json.loads((tmp_path / "res" / f"{next(i for i in runs if 'vard' in i)}.json").read_text())
    assert "pnetcdf.api=vard" in vard["suite_run"]["command"]
    assert sorted(r["status"] for r in runs.values()) == ["ok"] * 3   # pnetcdf, raw (shared), vard


def test_bench_vpic_script(tmp_path):
    """bench/vpic.py end to end at toy size (2 ranks, 4 Ki particles, 2 steps,
    one repeat, collective only): the table's ratios come from the stored runs,
    raw wrote and read the kernel's bytes, the particle and raw files are gone."""
    if "hdf5" not in subprocess.run([str(IOKERNELS), "vpic", "--help"], capture_output=True, text=True).stdout:
        pytest.skip("hdf5 backend not built")
    env = dict(os.environ, IOK_BUILD_DIR=str(BUILD_DIR))
    p = subprocess.run([sys.executable, str(SOURCE_DIR / "bench" / "vpic.py"), "--ranks", "2", "--particles", "4K",
                        "--steps", "2", "--repeat", "1", "--modes", "collective", "--io-layer", "romio",
                        "--results", str(tmp_path / "res")], capture_output=True, text=True, env=env, timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    index = json.loads((tmp_path / "res" / "index.json").read_text())
    docs = {r["id"]: json.loads((tmp_path / "res" / f"{r['id']}.json").read_text()) for r in index["runs"]}
    assert [r["status"] for r in index["runs"]] == ["ok"] * 5    # warm-up, vpic, bdcats, raw write, raw read
    vpic = next(d for i, d in docs.items() if "vpic" in i)
    raw = next(d for i, d in docs.items() if "raw_write_collective" in i)
    rread = next(d for i, d in docs.items() if "read-only" in i)
    nbytes = 2 * 4096 * 32 * 2
    assert vpic["summary"]["total_size_bytes"] == raw["summary"]["bytes"] == rread["summary"]["bytes"] == nbytes
    assert raw["summary"]["read_seconds"] == 0 and rread["summary"]["write_seconds"] == 0
    row = next(line for line in p.stdout.splitlines() if line.startswith("hdf5 collective"))
    w_secs = sum(f["seconds"]["end_to_end"]["max"] for f in vpic["files"])
    assert row.split()[4] == f"{raw['summary']['write_seconds'] / w_secs:.2f}"   # write/raw = time ratio inverted
    assert "target" in p.stdout and "h5bench figures" in p.stdout
    data = tmp_path / "res" / "data"                              # particle file and raw.dat removed
    assert not data.exists() or not list(data.iterdir())


def test_bench_e3sm_prepare_script(tmp_path):
    """bench/e3sm_prepare.py end to end at toy size (maps of 400 and 800
    columns x 4 levels, 8 and 16 map processes, 4 ranks, one run each): the
    maps are generated and kept, each size's numbers are those of its stored
    run, the growth exponent is printed; a single size is refused."""
    env = dict(os.environ, IOK_BUILD_DIR=str(BUILD_DIR))
    cmd = [sys.executable, str(SOURCE_DIR / "bench" / "e3sm_prepare.py"), "--ranks", "4", "--nlev", "4",
           "--cols-per-process", "50", "--repeat", "1", "--results", str(tmp_path / "res")]
    p = subprocess.run(cmd + ["--ncols", "400,800"], capture_output=True, text=True, env=env, timeout=900)
    assert p.returncode == 0, p.stdout + p.stderr
    out = json.loads((tmp_path / "res" / "e3sm_prepare.json").read_text())
    assert (out["ranks"], out["io_layer"], out["nlev"]) == (4, "romio", 4)
    assert [(n["ncol"], n["map_processes"], n["runs"]) for n in out["sizes"]] == [(400, 8, 1), (800, 16, 1)]
    index = json.loads((tmp_path / "res" / "index.json").read_text())
    docs = [json.loads((tmp_path / "res" / f"{r['id']}.json").read_text()) for r in index["runs"]]
    assert [d["suite_run"]["status"] for d in docs] == ["ok", "ok"]
    for n, d in zip(out["sizes"], docs, strict=False):
        assert n["requests_total"] == d["files"][0]["requests"]["total"] > 0
        assert n["prepare_s"] == d["summary"]["prepare_seconds"]["max"] > 0
        assert n["write_s"] == pytest.approx(n["prepare_s"] / d["summary"]["prepare_fraction_of_write"])
        assert (tmp_path / "res" / "maps" / f"F_{n['ncol']}x4_{n['map_processes']}p.nc").is_file()
    assert re.search(r"preparation grows as requests\^-?\d+\.\d\d over", p.stdout), p.stdout
    bad = subprocess.run(cmd + ["--ncols", "400", "--results", str(tmp_path / "bad")], capture_output=True,
                         text=True, env=env, timeout=60)
    assert bad.returncode == 2 and "two or more --ncols" in bad.stderr, bad.stdout + bad.stderr


def test_timeout_and_sigterm_kill_the_whole_launch(tmp_path):
    """A run over its time limit is killed with its process group and recorded
    as a timeout; SIGTERM to the runner takes the running launch down too."""
    s = write(tmp_path / "t.toml", """
[suite]
launcher = ["bash", "-c", "echo started; sleep 60 # {ranks}", "x"]
[[case]]
name = "slow"
kernel = "raw_write"
timeout = 4
[[case]]
name = "next"
kernel = "raw_write"
launcher = "mpiexec"
args = ["-n", "1000"]
""")
    p = cli("run", s, "--results", tmp_path / "res")
    assert p.returncode == 1
    assert p.stdout.splitlines()[1] == ("[1/2] raw_write slow 1 ranks ... timed out: iokernels run: killed after "
                                        "the 4 s time limit")
    assert p.stdout.splitlines()[2].startswith("[2/2] raw_write next 1 ranks ... ")
    doc = json.loads((tmp_path / "res" / "001-slow-1p-r1.json").read_text())
    assert doc["suite_run"]["status"] == "timeout" and doc["suite_run"]["returncode"] is None
    assert (tmp_path / "res" / "logs" / "001-slow-1p-r1.stdout").read_text() == "started\n"

    env = dict(os.environ, IOK_BUILD_DIR=str(BUILD_DIR))
    # exec -a names the launched process by the marker (bash would exec a
    # lone `sleep` with a cmdline that pgrep cannot tell from any other)
    marker = f"iok-orphan-check-{os.getpid()}-{tmp_path.name}"
    write(tmp_path / "u.toml", f'[suite]\nlauncher = ["bash", "-c", "exec -a {marker} sleep 60 # {{ranks}}", "x"]\n'
                               '[[case]]\nkernel = "raw_write"\n')
    runner = subprocess.Popen([sys.executable, "-m", "iokernels", "run", str(tmp_path / "u.toml"),
                               "--results", str(tmp_path / "res2")], env=env, stdout=subprocess.PIPE, text=True)
    assert runner.stdout.readline().startswith("suite u: 1 runs")
    for _ in range(600):                    # wait until the launch is running
        if subprocess.run(["pgrep", "-f", marker], capture_output=True).returncode == 0:
            break
        time.sleep(0.1)
    else:
        runner.kill()
        pytest.fail("the launch never started: the orphan check below would prove nothing")
    runner.terminate()
    assert runner.wait(timeout=30) == 143
    assert subprocess.run(["pgrep", "-f", marker], capture_output=True).returncode == 1   # no orphan left



def test_execute_reports_the_peak_rss_and_cpu_of_the_launched_tree(tmp_path):
    """execute(usage=...) reads wait4 of the launcher: a grandchild touching
    200 MiB shows in maxrss (the launcher folds in its reaped descendants'
    peaks), one touching nothing does not, and an earlier big run does not
    leak into a later small one (RUSAGE_CHILDREN of this process would)."""
    touch = "b = bytearray(200 << 20); b[::4096] = b'x' * len(b[::4096])"

    def run(code):
        usage = {}
        argv = ["bash", "-c", f'{sys.executable} -c "{code}"; true']     # python is bash's child, not bash
        rc, wall = launch.execute(argv, tmp_path, {}, 60, tmp_path / "o", tmp_path / "e", usage)
        assert rc == 0 and wall > 0
        return usage
    big, small = run(touch), run("pass")
    assert big["maxrss_bytes"] >= 200 << 20, big
    assert small["maxrss_bytes"] < 100 << 20, small
    assert big["user_s"] + big["sys_s"] > 0 and big["minor_faults"] > (200 << 20) // 4096 // 2, big
    assert launch.execute(["false"], tmp_path, {}, 60, tmp_path / "o", tmp_path / "e", {})[0] == 1


# ---------------------------------------------------------------- h5bench's JSON driver form

H5BENCH = {
    "mpi": {"command": "mpiexec", "ranks": "2", "configuration": "--oversubscribe -np 4"},
    "vol": {},
    "file-system": {"lustre": {"stripe-size": "1M", "stripe-count": "2"}},
    "directory": "storage",
    "benchmarks": [
        {"benchmark": "write", "file": "test.h5",
         "configuration": {"MEM_PATTERN": "INTERLEAVED", "FILE_PATTERN": "INTERLEAVED", "TIMESTEPS": "3",
                           "COLLECTIVE_DATA": "YES", "COLLECTIVE_METADATA": "YES", "NUM_DIMS": "1",
                           "EMULATED_COMPUTE_TIME_PER_TIMESTEP": "10 ms", "DIM_1": "4K", "DIM_2": "1",
                           "DIM_3": "1", "CSV_FILE": "output.csv", "MODE": "SYNC"}},
        {"benchmark": "read", "file": "test.h5",
         "configuration": {"MEM_PATTERN": "CONTIG", "FILE_PATTERN": "INTERLEAVED", "READ_OPTION": "PARTIAL",
                           "TO_READ_NUM_PARTICLES": "1000", "TIMESTEPS": "3", "NUM_DIMS": "1", "DIM_1": "4K",
                           "COLLECTIVE_DATA": "YES"}},
    ],
}


def test_h5bench_json_converts_to_cases(tmp_path):
    path = write(tmp_path / "h5b.json", json.dumps(H5BENCH))
    s = suite.load(path)
    w, r = s.runs
    assert (w.kernel, r.kernel) == ("vpic", "bdcats") and w.ranks == r.ranks == 4  # -np in configuration wins
    assert w.launcher == ["mpiexec", "--oversubscribe", "-n", "{ranks}"]
    assert w.args[w.args.index("--dim-1") + 1] == "4K"
    assert w.args[w.args.index("--emulated-compute-time-per-timestep") + 1] == "10 ms"
    assert w.args[w.args.index("-o") + 1] == "{cwd}/storage/test.h5" and "--keep" in w.args
    assert r.args[r.args.index("-i") + 1] == "{cwd}/storage/test.h5"
    assert "striping_unit=1048576" in w.args and "striping_factor=2" in r.args
    assert [str(d) for d in s.directories] == ["storage"]


@pytest.mark.parametrize("change,fragment", [
    ({"benchmarks": [{"benchmark": "wibble", "file": "a.h5"}]}, "benchmark 'wibble' has no iokernels counterpart"),
    ({"benchmarks": []}, "'benchmarks' must be a non-empty list"),
    ({"mpi": {"command": "mpirun", "ranks": "many"}}, "'mpi.ranks' must be a number of ranks"),
    ({"extra": 1}, "unknown h5bench key 'extra'"),
    ({"benchmarks": [{"benchmark": "write"}]}, "'file' is missing"),
])
def test_h5bench_json_errors_name_the_problem(tmp_path, change, fragment):
    path = write(tmp_path / "bad.json", json.dumps({**H5BENCH, **change}))
    p = cli("run", path, "--dry-run")
    assert p.returncode == 2 and fragment in p.stderr, p.stderr
    assert p.stderr.count("error:") == 1


@pytest.mark.skipif("hdf5" not in subprocess.run([str(IOKERNELS), "vpic", "--help"], capture_output=True,
                                                 text=True).stdout, reason="hdf5 backend not built")
def test_h5bench_json_runs_write_then_read_and_collects(tmp_path):
    """The reference's driver only checks exit codes; here the write and the
    (verified) read are collected and reported like any suite."""
    path = write(tmp_path / "h5b.json", json.dumps(H5BENCH))
    res = tmp_path / "res"
    p = cli("run", path, "--results", res, cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (tmp_path / "storage" / "test.h5").is_file()  # written once, kept for the read
    index = json.loads((res / "index.json").read_text())
    assert [r["status"] for r in index["runs"]] == ["ok", "ok"]
    wdoc = json.loads((res / f"{index['runs'][0]['id']}.json").read_text())
    rdoc = json.loads((res / f"{index['runs'][1]['id']}.json").read_text())
    assert wdoc["summary"]["total_size_bytes"] == 4 * 4096 * 32 * 3
    assert wdoc["files"][0]["calls_per_rank"]["max"] == 3  # structs into the compound: one H5Dwrite per step
    assert rdoc["summary"]["total_size_bytes"] == 4 * 1000 * 32 * 3 and rdoc["summary"]["mismatches"] == 0
    assert (res / "out" / index["runs"][0]["id"] / "output.csv").is_file()  # CSV_FILE beside the run
    rep = cli("report", res)
    assert rep.returncode == 0 and rep.stdout.count("vpic") >= 1 and rep.stdout.count("bdcats") >= 1


def test_versus_hints_reach_the_library_by_environment(tmp_path, small_g_map, monkeypatch):
    """bench/versus.py --hint: the seed tool and iokernels get the same hints
    through PNETCDF_HINTS and ROMIO_HINTS.  The environment it builds, given to
    a real 2-rank PnetCDF run, is in effect there: PnetCDF's own hint and
    ROMIO's both appear in the hints the file was written with; a hint that is
    not KEY=VALUE is refused in one message."""
    monkeypatch.syspath_prepend(str(SOURCE_DIR / "bench"))
    import versus
    env = versus.hint_env(["nc_num_aggrs_per_node=1", "cb_buffer_size=1048576"], tmp_path)
    assert env["PNETCDF_HINTS"] == "nc_num_aggrs_per_node=1"                   # PnetCDF's own keys
    assert (tmp_path / "romio_hints").read_text() == "cb_buffer_size 1048576\n"   # MPI-IO's, in ROMIO's file
    assert env["ROMIO_HINTS"] == str(tmp_path / "romio_hints") and versus.hint_env([], tmp_path) == {}
    for bad in ("cb_nodes", "=2", "cb_nodes=", "a=1;b=2", "k=v w"):
        with pytest.raises(UsageError, match="not KEY=VALUE"):
            versus.hint_env([bad], tmp_path)
    out = tmp_path / "r.json"
    mpirun(2, [IOKERNELS, "e3sm", "-a", "pnetcdf", "-o", tmp_path / "g.nc", small_g_map, "--json", out],
           env={**env, "OMPI_MCA_io": "romio341"})
    hints = json.loads(out.read_text())["manifest"]["mpiio_hints"]
    assert hints["nc_num_aggrs_per_node"] == "1" and hints["cb_buffer_size"] == "1048576"
    mpirun(2, [IOKERNELS, "e3sm", "-a", "pnetcdf", "-o", tmp_path / "g.nc", small_g_map, "--json", out],
           env={"OMPI_MCA_io": "romio341"})
    hints = json.loads(out.read_text())["manifest"]["mpiio_hints"]
    assert hints["nc_num_aggrs_per_node"] == "0" and hints["cb_buffer_size"] != "1048576"


def test_versus_gives_the_seed_tools_the_open_hints_library(tmp_path, monkeypatch):
    """bench/versus.py runs a seed tool's ranks through `env LD_PRELOAD=<the build's libiok_open_hints.so>`
    (keeping a preload already set), nothing with --open-hints as-mpi; a build without the library is refused
    with what to do."""
    monkeypatch.syspath_prepend(str(SOURCE_DIR / "bench"))
    import versus
    lib = BUILD_DIR / "src" / "open_hints" / "libiok_open_hints.so"
    monkeypatch.delenv("LD_PRELOAD", raising=False)
    assert versus.open_hints_prefix("reapply", BUILD_DIR) == ["env", f"LD_PRELOAD={lib}"]
    monkeypatch.setenv("LD_PRELOAD", "/x/libother.so")
    assert versus.open_hints_prefix("reapply", BUILD_DIR) == ["env", f"LD_PRELOAD={lib}:/x/libother.so"]
    assert versus.open_hints_prefix("as-mpi", BUILD_DIR) == []
    (tmp_path / "CMakeCache.txt").write_text("")
    with pytest.raises(UsageError, match="libiok_open_hints.so is not in the build"):
        versus.open_hints_prefix("reapply", tmp_path)
