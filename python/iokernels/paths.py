"""Where the checkout, the programs and the user's shared data are.

The programs (iokernels, raw_write, e3sm_mapgen, ...) come from, in order:
  1. --build-dir DIR, else $IOK_BUILD_DIR: a build directory (programs in
     DIR/src), an install prefix (DIR/bin) or a directory holding them;
  2. the checkout this package is in, when it has a build (<checkout>/build);
  3. the directory of the running command, when `iokernels` is there
     (P/bin/iokernels-suite beside P/bin/iokernels);
  4. the installation this package belongs to (P/share/iokernels/python ->
     P/bin), as `cmake --install` lays it out;
  5. the directory of `iokernels` on PATH (a loaded module, a pip-installed
     runner beside a centre's installation).
"""
import os
import shutil
import sys
from pathlib import Path

from ._types import StrPath

PACKAGE_DIR = Path(__file__).resolve().parent
SOURCE_DIR = PACKAGE_DIR.parents[1]
PROGRAM = "iokernels"


def in_checkout() -> bool:
    """True when this package is python/iokernels of a source checkout."""
    return (SOURCE_DIR / "CMakeLists.txt").is_file() and (SOURCE_DIR / "src" / "main.cpp").is_file()


def source_dir() -> Path:
    return Path(os.environ.get("IOK_SOURCE_DIR", SOURCE_DIR))


def _has_program(d: StrPath) -> bool:
    return (Path(d) / PROGRAM).is_file() and os.access(Path(d) / PROGRAM, os.X_OK)


def _installed_bin() -> Path | None:
    """P/bin of the installation holding this package (P/share/iokernels/python/iokernels)."""
    if PACKAGE_DIR.parent.name == "python" and PACKAGE_DIR.parents[1].name == "iokernels":
        bindir = PACKAGE_DIR.parents[3] / "bin"
        if _has_program(bindir):
            return bindir
    return None


def found_programs() -> tuple[Path | None, str]:
    """(directory, how it was found) without --build-dir/IOK_BUILD_DIR, or
    (None, what was tried)."""
    if in_checkout() and _has_program(source_dir() / "build" / "src"):
        return (source_dir() / "build").resolve(), "the checkout's build"
    here = Path(sys.argv[0]).resolve().parent if sys.argv and sys.argv[0] else None
    if here and _has_program(here):
        return here, f"beside {Path(sys.argv[0]).name}"
    installed = _installed_bin()
    if installed:
        return installed.resolve(), "the installation of this package"
    on_path = shutil.which(PROGRAM)
    if on_path:
        return Path(on_path).resolve().parent, "on PATH"
    return None, "no build, no installation beside this package, no iokernels on PATH"


def build_dir(explicit: StrPath | None = None) -> Path:
    """--build-dir, else $IOK_BUILD_DIR, else where the programs were found
    (see the module's docstring); <checkout>/build when nothing was."""
    if explicit:
        return Path(explicit).resolve()
    if os.environ.get("IOK_BUILD_DIR"):
        return Path(os.environ["IOK_BUILD_DIR"]).resolve()
    found, _ = found_programs()
    return found if found else (source_dir() / "build").resolve()


def bin_dir(build: StrPath) -> Path:
    """The directory holding the programs of `build`: a build directory's
    src/, an install prefix's bin/, or the directory itself."""
    build = Path(build)
    if (build / "src" / PROGRAM).exists() or (build / "CMakeCache.txt").exists():
        return build / "src"
    if (build / "bin").is_dir() and not _has_program(build):
        return build / "bin"
    return build


def program(build: StrPath, name: str) -> Path:
    """The path of program `name` (`iokernels` or a tool such as raw_write)."""
    return bin_dir(build) / name


def not_found_hint() -> str:
    """What to do when the programs are not where we looked."""
    if in_checkout():
        return ("build first (scripts/iok build), or point --build-dir / IOK_BUILD_DIR at a build or an "
                "install prefix")
    return ("put the installation's bin directory on PATH (module load iokernels), or point --build-dir / "
            "IOK_BUILD_DIR at an install prefix or a build")


def shared_dir() -> Path:
    return Path(os.environ.get("IOK_SHARED", source_dir().parent / "shared")).resolve()
