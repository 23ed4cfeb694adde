"""E3SM decomposition maps the project makes itself, so the kernel's tests
need nothing from ../shared: e3sm_mapgen's F, G and I cases at 16 processes
(the sizes of the user's real 16-process maps), under the real maps' names.
Tests that compare against the real data use conftest's e3sm_maps instead.

The `case_maps` fixture (conftest.py) makes them once per session."""
import subprocess

from conftest import tool

MAP_NAMES = {"F": "map_f_case_16p.nc", "G": "map_g_case_16p.nc", "I": "map_i_case_16p.nc"}


def make_case_map(case, path, nprocs=16, fmt="cdf5", *options):
    """Writes the generated map of `case` (F, G or I) with e3sm_mapgen's
    further `options` (e.g. "--ne", "2"); returns its path."""
    subprocess.run([str(tool("e3sm_mapgen")), "--case", case, "--nprocs", str(nprocs), "--format", fmt,
                    *map(str, options), "-o", str(path)], check=True, capture_output=True, text=True, timeout=300)
    return path
