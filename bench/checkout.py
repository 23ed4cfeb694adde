"""The checkout the bench scripts belong to, and its suite runner package.

The tests and a build's Python (build/python-venv/bin/python, see
tests/CMakeLists.txt) reach `iokernels` through an editable install.  The
bench scripts are also run as `python3 bench/x.py` (scripts/run.sh python3
...) from a plain clone, with a Python that has no iokernels installed: only
then is this checkout's python/ put on sys.path, so that works too."""
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1]

try:
    import iokernels  # noqa: F401  (only probing: installed, e.g. editable?)
except ImportError:
    sys.path.insert(0, str(SOURCE / "python"))
