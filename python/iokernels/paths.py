"""Where the checkout, the build and the user's shared data are."""
import os
from pathlib import Path

SOURCE_DIR = Path(__file__).resolve().parents[2]


def source_dir():
    return Path(os.environ.get("IOK_SOURCE_DIR", SOURCE_DIR))


def build_dir(explicit=None):
    """--build-dir, else $IOK_BUILD_DIR, else <checkout>/build."""
    if explicit:
        return Path(explicit).resolve()
    return Path(os.environ.get("IOK_BUILD_DIR", source_dir() / "build")).resolve()


def shared_dir():
    return Path(os.environ.get("IOK_SHARED", source_dir().parent / "shared")).resolve()


def program(build, name):
    """build/src/<name>: `iokernels` or a tool such as raw_write."""
    return Path(build) / "src" / name
