#!/usr/bin/env python3
"""iokernels openpmd_write beside openPMD-api writing the same series, on one rank.

    scripts/run.sh python3 bench/openpmd_versus_api.py [--dim 3] [--min-block "32 32 32"]
                                                      [--grid "4 4 4"] [--steps 2] [--ratio 1] [--dir DIR]

h5bench_openpmd_write is openPMD-api's example 8a built with MPI; the PyPI
wheel of openPMD-api (scripts/setup.sh's virtual environment) has no MPI, so
this compares on one rank: the same iterations, meshes (E, B per axis, rho)
and particles (id, charge, position/x, constant positionOffset/x) written
through openPMD-api's Python API as 8a writes them through its C++ API, and
by `iokernels openpmd_write -a hdf5`.  It prints the whole-process time of
each (best of --repeat) and their ratio, and the structure of both HDF5 files
(every group and dataset with its shape and type, every attribute name):
what only one of them has.  Nothing of openPMD-api or h5bench is stored here.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import checkout  # noqa: F401  (the checkout's python/ when iokernels is not installed)
from iokernels import paths

VENV_PY = Path(os.environ.get("IOK_LINT_VENV", "/opt/iokernels-venv")) / "bin" / "python"

# 8a's AbstractPattern::store on one rank (one block per component), through openPMD-api.
API_WRITE = r"""
import sys
import numpy as np
import openpmd_api as io
path, block, grid = sys.argv[1], sys.argv[3], sys.argv[4]
dim, steps, ratio = int(sys.argv[2]), int(sys.argv[5]), int(sys.argv[6])
shape = [int(b) * int(g) for b, g in zip(block.split()[:dim], grid.split()[:dim])]
n = int(np.prod(shape)) * ratio
s = io.Series(path, io.Access.create)
s.iteration_encoding = io.Iteration_Encoding.group_based
s.set_meshes_path("fields")
for step in range(1, steps + 1):
    it = s.iterations[step]
    for axis in "xyz"[:dim]:
        for rec in ("E", "B"):
            c = it.meshes[rec][axis]
            c.reset_dataset(io.Dataset(np.dtype("float64"), shape))
            c.store_chunk(np.full(shape, 1.0 + 0.01 * step), [0] * dim, shape)
    rho = it.meshes["rho"][io.Mesh_Record_Component.SCALAR]
    rho.reset_dataset(io.Dataset(np.dtype("float64"), shape))
    rho.store_chunk(np.full(shape, 1.0 + 0.01 * step), [0] * dim, shape)
    sp = it.particles["ion"]
    sp.set_attribute("particleSmoothing", "none")
    sp.set_attribute("openPMD_STEP", step)
    sp.set_attribute("p2mRatio", ratio)
    pid = sp["id"][io.Record_Component.SCALAR]
    pid.reset_dataset(io.Dataset(np.dtype("uint64"), [n]))
    pid.store_chunk(np.arange(n, dtype=np.uint64), [0], [n])
    for rec in ("charge",):
        c = sp[rec][io.Record_Component.SCALAR]
        c.reset_dataset(io.Dataset(np.dtype("float64"), [n]))
        c.store_chunk(np.full(n, 0.1 * step), [0], [n])
    px = sp["position"]["x"]
    px.reset_dataset(io.Dataset(np.dtype("float64"), [n]))
    px.store_chunk(np.full(n, 1.0 * step), [0], [n])
    po = sp["positionOffset"]["x"]
    po.reset_dataset(io.Dataset(np.dtype("float64"), [n]))
    po.make_constant(0.0)
    it.close()
s.close()
"""

# Every object of an HDF5 file: path -> [kind, shape, dtype, sorted attribute names].
H5_LIST = r"""
import json, sys, h5py
if not hasattr(h5py, "File"):
    from h5py import _debian_h5py_mpi as h5py
out = {}
with h5py.File(sys.argv[1], "r") as f:
    out["/"] = ["group", None, None, sorted(f.attrs)]
    def visit(name, obj):
        ds = isinstance(obj, h5py.Dataset)
        out["/" + name] = ["dataset" if ds else "group", list(obj.shape) if ds else None,
                           str(obj.dtype) if ds else None, sorted(obj.attrs)]
    f.visititems(visit)
print(json.dumps(out))
"""


def timed(cmd, repeat):
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, text=True)
        t = time.perf_counter() - t0
        best = t if best is None else min(best, t)
    return best


def listing(path):
    p = subprocess.run([sys.executable, "-c", H5_LIST, str(path)], check=True, capture_output=True, text=True)
    return json.loads(p.stdout)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dim", type=int, default=3)
    p.add_argument("--min-block", default="32 32 32")
    p.add_argument("--grid", default="4 4 4")
    p.add_argument("--steps", type=int, default=2)
    p.add_argument("--ratio", type=int, default=1)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--dir", default="results/openpmd-versus-api")
    p.add_argument("--build-dir", help="build directory (default: IOK_BUILD_DIR or build/)")
    a = p.parse_args()
    if not VENV_PY.exists():
        sys.exit(f"error: no {VENV_PY}\n  hint: scripts/setup.sh test installs openpmd-api into it")
    d = Path(a.dir).resolve()
    d.mkdir(parents=True, exist_ok=True)
    api_file, ours_file = d / "api.h5", d / "ours.h5"
    conf = [str(a.dim), a.min_block, a.grid, str(a.steps), str(a.ratio)]
    t_api = timed([str(VENV_PY), "-c", API_WRITE, str(api_file), *conf], a.repeat)
    prog = paths.program(paths.build_dir(a.build_dir), "iokernels")
    t_ours = timed(["mpiexec", "--oversubscribe", "-n", "1", str(prog), "openpmd_write", "-a", "hdf5", "--dim",
                    str(a.dim), "--min-block", a.min_block, "--grid", a.grid, "--steps", str(a.steps), "--ratio",
                    str(a.ratio), "-o", str(ours_file), "--keep", "--overwrite", "-q"], a.repeat)
    print(f"whole process, best of {a.repeat}: openPMD-api {t_api:.3f} s, iokernels {t_ours:.3f} s, "
          f"ratio iokernels/openPMD-api {t_ours / t_api:.2f}")
    api, ours = listing(api_file), listing(ours_file)
    for name in sorted(set(api) | set(ours)):
        x, y = api.get(name), ours.get(name)
        if x is None or y is None:
            print(f"{name}: only in {'iokernels' if x is None else 'openPMD-api'}'s file")
            continue
        if x[:3] != y[:3]:
            print(f"{name}: openPMD-api {x[:3]}, iokernels {y[:3]}")
        if x[3] != y[3]:
            print(f"{name}: attributes only openPMD-api's {sorted(set(x[3]) - set(y[3]))}, "
                  f"only iokernels' {sorted(set(y[3]) - set(x[3]))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
