"""scripts/failure_digest.py on a real ctest run: a scratch CMake project
with a failing pytest file, a failing shell command and a passing test, run
by ctest with --output-junit as scripts/iok runs it.  The digest names each
failed entry and case with its error lines, and nothing of what passed."""
import subprocess
import sys

from conftest import SOURCE_DIR

DIGEST = SOURCE_DIR / "scripts" / "failure_digest.py"

CMAKE = """cmake_minimum_required(VERSION 3.20)
project(digest NONE)
enable_testing()
add_test(NAME py_entry COMMAND {python} -m pytest -q -rfEs -p no:cacheprovider ${{CMAKE_SOURCE_DIR}}/test_cases.py)
add_test(NAME sh_entry COMMAND sh -c "echo first; echo last words; exit 3")
add_test(NAME fine_entry COMMAND sh -c "echo all well")
"""

CASES = '''
def test_wrong_bytes():
    assert 1 == 2, "bytes on disk 10 != 12"

def test_fine():
    pass

def test_raises():
    raise RuntimeError("mpiexec failed (1)")
'''


def run_digest(tmp_path, *args):
    (tmp_path / "CMakeLists.txt").write_text(CMAKE.format(python=sys.executable))
    (tmp_path / "test_cases.py").write_text(CASES)
    subprocess.run(["cmake", "-S", tmp_path, "-B", tmp_path / "b"], check=True, capture_output=True)
    junit = tmp_path / "j.xml"
    p = subprocess.run(["ctest", "--test-dir", tmp_path / "b", "--output-junit", junit], capture_output=True)
    assert p.returncode == 8, p.stdout  # ctest: some tests failed
    return subprocess.run([sys.executable, DIGEST, junit, *args], capture_output=True, text=True, check=True).stdout


def test_digest_names_failed_entries_cases_and_errors(tmp_path):
    out = run_digest(tmp_path).splitlines()
    assert out[0] == "[test] py_entry failed:"
    assert "  test_wrong_bytes" in out and "  test_raises" in out
    assert any("AssertionError: bytes on disk 10 != 12" in ln for ln in out)
    assert any("RuntimeError: mpiexec failed (1)" in ln for ln in out)
    assert "[test] sh_entry failed:" in out and "    last words" in out
    text = "\n".join(out)
    assert "test_fine" not in text and "fine_entry" not in text and "all well" not in text


def test_digest_keeps_the_number_of_error_lines_asked(tmp_path):
    out = run_digest(tmp_path, "1").splitlines()
    i = out.index("  test_wrong_bytes")
    assert out[i + 1].strip().startswith("AssertionError")
    assert out[i + 2] == "  test_raises"  # the second E line of the case is dropped
