"""Running `python3 -m iokernels ...` from the tests (the suite runner's
command line, with the installed package and this checkout's build)."""
import json
import os
import subprocess
import sys

from conftest import BUILD_DIR


def cli_env(**extra):
    return dict(os.environ, IOK_BUILD_DIR=str(BUILD_DIR), **extra)


def cli(*args, cwd=None, timeout=900):
    """CompletedProcess (text) of `python3 -m iokernels ARGS`."""
    return subprocess.run([sys.executable, "-m", "iokernels", *map(str, args)], capture_output=True, text=True,
                          env=cli_env(), cwd=cwd, timeout=timeout)


def ok(p):
    assert p.returncode == 0, f"exit {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    return p


def one_error(p, *fragments):
    """A refused command: exit 2, one 'error:' line naming the problem, no traceback."""
    assert p.returncode == 2, f"exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    assert p.stderr.count("error:") == 1 and "Traceback" not in p.stderr, p.stderr
    for f in fragments:
        assert f in p.stderr, f"{f!r} not in:\n{p.stderr}"


def run_suite_doc(tmp_path, doc, expect_ok=True):
    """Writes `doc` (a suite or h5bench JSON configuration) to TMP/h5b.json and
    runs it with results in TMP/res; returns (process, [(index entry, result
    doc or None)], results dir)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "h5b.json"
    path.write_text(json.dumps(doc))
    res = tmp_path / "res"
    p = cli("run", path, "--results", res, cwd=tmp_path)
    if expect_ok:
        ok(p)
    index = json.loads((res / "index.json").read_text())
    runs = []
    for r in index["runs"]:
        f = res / f"{r['id']}.json"
        runs.append((r, json.loads(f.read_text()) if f.is_file() else None))
    return p, runs, res
