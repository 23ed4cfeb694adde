"""Every variable's values of a NetCDF (classic or 4) or HDF5 file, and their
comparison, for tests that check two files hold the same data.

The files are read by the Python bindings in separate interpreters: h5py and
netCDF4 each bring their own HDF5, and loading both (or either with adios2)
in the pytest process crashes.  The child dumps every variable to .npz as
float64; the comparison here uses numpy only."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

DUMP = r"""
import sys, numpy as np
kind, path, out = sys.argv[1:4]
arrays = {}
def norm(a):
    a = np.asarray(a)
    if a.dtype.kind in "SUa" or a.dtype == np.int8:
        return a.view(np.uint8).astype(np.float64)  # chars and bytes: their codes
    return a.astype(np.float64)
if kind == "nc":
    import netCDF4
    with netCDF4.Dataset(path) as ds:
        ds.set_auto_maskandscale(False)
        ds.set_auto_chartostring(False)
        for name, v in ds.variables.items():
            arrays[name] = norm(v[...])
else:
    import h5py
    if not hasattr(h5py, "File"):
        from h5py import _debian_h5py_mpi as h5py
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and obj.dtype.kind != "V":
                arrays[name] = norm(obj[()])
        f.visititems(visit)
np.savez(out, **arrays)
"""


def dump(path, tmp_path, kind=None):
    """Every variable of a NetCDF (classic/4) or HDF5 file as float64 arrays."""
    kind = kind or ("h5" if str(path).endswith(".h5") else "nc")
    module = "h5py" if kind == "h5" else "netCDF4"
    if subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode:
        pytest.skip(f"python module {module} not installed")
    out = tmp_path / (path.name + ".npz")
    p = subprocess.run([sys.executable, "-c", DUMP, kind, str(path), str(out)], capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    with np.load(out) as z:
        return {k: z[k] for k in z.files}


# Variables of each history file, from the reference listings of real E3SM
# output (cases/*.cdl): a comparison must see every one of them.
VARIABLES = {"F": [414, 51], "G": [52], "I": [560, 552]}


def assert_same_values(a, b, what, nvars=None):
    """Every variable of a is in b and vice versa, with equal values (NaN
    equal to NaN); `nvars`: how many variables there must be."""
    assert set(a) == set(b), f"{what}: variables in one file only: {sorted(set(a) ^ set(b))}"
    if nvars is not None:
        assert len(a) == nvars, f"{what}: {len(a)} variables, expected {nvars}"
    for name in sorted(a):
        x, y = a[name], b[name]
        assert x.shape == y.shape, f"{what}: {name} shape {x.shape} vs {y.shape}"
        assert np.array_equal(x, y, equal_nan=True), (
            f"{what}: {name} differs at flat index {int(np.argmax(~((x == y) | (np.isnan(x) & np.isnan(y)))))}")
    return len(a)


def replace_stored_value(target, value, region=None):
    """Changes the one stored copy of `value` (a numpy scalar) in `target` (a
    file, or every file under a directory, as ADIOS and the blob/log
    strategies write them), whichever byte order the library chose, so a
    read-back of any library can be shown to catch it.  Returns the file
    changed; fails the test when the value is stored other than exactly once
    (pick another element then).  `region` (start, end): only byte offsets in
    that range of a single file count (a dataset's extent: space the library
    allocated but nobody wrote may hold stale copies of values)."""
    target = Path(target)
    files = [target] if target.is_file() else sorted(p for p in target.rglob("*") if p.is_file())
    patterns = {np.asarray(value).astype(np.asarray(value).dtype.newbyteorder(o)).tobytes() for o in "<>"}
    hits = []
    for f in files:
        data = f.read_bytes()
        for pat in patterns:
            at = data.find(pat)
            while at >= 0:
                hits.append((f, at, pat))
                at = data.find(pat, at + 1)
    if region is not None:
        hits = [h for h in hits if region[0] <= h[1] < region[1]]
    assert len(hits) == 1, f"{value!r} is stored {len(hits)} times in {target}"
    f, at, pat = hits[0]
    data = bytearray(f.read_bytes())
    data[at:at + len(pat)] = _changed(pat)
    f.write_bytes(bytes(data))
    return f


def _changed(pat):
    """Other bytes of the same length: the value's bytes with its middle byte flipped."""
    b = bytearray(pat)
    b[len(b) // 2] ^= 0x5A
    return bytes(b)
