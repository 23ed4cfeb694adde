"""The python.lint test (tests/CMakeLists.txt) can fail: ruff and mypy, with
the project's settings, reject a file with an unused import and an untyped
function, and pass the same file fixed (so the failure is the finding, not a
broken setup)."""
import os
import subprocess
from pathlib import Path

import pytest

from conftest import SOURCE_DIR

VENV = Path(os.environ.get("IOK_LINT_VENV", "/opt/iokernels-venv"))
BAD = "import os\n\n\ndef twice(x):\n    return 2 * x\n"
GOOD = "def twice(x: int) -> int:\n    return 2 * x\n"


def lint(tool, path):
    exe = VENV / "bin" / tool
    if not exe.is_file():
        pytest.fail(f"{exe} is missing: run scripts/setup.sh", pytrace=False)
    if tool == "ruff":
        argv = [exe, "check", "--no-cache", "--config", SOURCE_DIR / "python" / "pyproject.toml", path]
    else:
        argv = [exe, "--config-file", SOURCE_DIR / "python" / "pyproject.toml", "--no-incremental", path]
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=300, cwd=path.parent)


@pytest.mark.parametrize("tool, finding", [("ruff", "F401"), ("mypy", "no-untyped-def")])
def test_lint_fails_on_a_finding_and_passes_without(tmp_path, tool, finding):
    bad, good = tmp_path / "bad.py", tmp_path / "good.py"
    bad.write_text(BAD)
    good.write_text(GOOD)
    p = lint(tool, bad)
    assert p.returncode != 0 and finding in p.stdout, p.stdout + p.stderr
    p = lint(tool, good)
    assert p.returncode == 0, p.stdout + p.stderr
