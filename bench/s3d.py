#!/usr/bin/env python3
"""S3D-IO checkpoints on every library beside raw_write of the same bytes, same directory, same run.

    scripts/run.sh python3 bench/s3d.py [--ranks 8] [--grid 200,200,200] [--procs 2,2,2] [--checkpoints 5]
                                        [--dir DIR] [--io-layer romio|ompio] [--libraries pnetcdf,hdf5]

The default is the issue's case: a 200^3 grid on 8 ranks (2 x 2 x 2), 5
checkpoints (5 files of 1.02 GB each), on PnetCDF (nonblocking and blocking,
as the reference's method 1 and 0), HDF5, NetCDF-4, ADIOS2 and plain MPI-IO,
each followed by raw_write of exactly the bytes it wrote (one contiguous share
per rank, MPI_File_write_at_all).  Two tables: open-to-close time and
bandwidth with ratios ours / raw; and S3D's own figures (write bandwidth =
write amount / put+wait time, as the reference prints it) beside raw.
Checkpoints are not read back unless --verify (the kernel's tests do that).
"""
from benchlib import Bench, bench_arguments, main_guard
from iokernels.table import render

# (label, backend, extra kernel arguments)
LIBRARIES = [
    ("pnetcdf nonblocking", "pnetcdf", ["--method", "nonblocking"]),
    ("pnetcdf blocking", "pnetcdf", ["--method", "blocking"]),
    ("hdf5", "hdf5", []),
    ("netcdf4", "netcdf4", []),
    ("adios", "adios", []),
    ("mpiio", "mpiio", []),
]


def main():
    p = bench_arguments("s3d", ranks=8, description=__doc__.split("\n\n")[0])
    p.add_argument("--grid", default="200,200,200", help="global grid NX,NY,NZ (default 200,200,200)")
    p.add_argument("--procs", default="2,2,2", help="process grid NPX,NPY,NPZ (default 2,2,2; product = --ranks)")
    p.add_argument("--checkpoints", type=int, default=5, help="checkpoints = files per run (default 5)")
    p.add_argument("--libraries", help="comma-separated labels or backends (default: all the build has)")
    p.add_argument("--verify", action="store_true", help="read every checkpoint back and verify it (slower)")
    a = p.parse_args()
    b = Bench("s3d", a)
    case = ["--grid", a.grid, "--procs", a.procs, "-c", a.checkpoints, "-o", "{outdir}"]
    if not a.verify:
        case.append("--no-verify")
    have = set(b.backends())
    wanted = {w.strip() for w in a.libraries.split(",")} if a.libraries else None

    runs, refs = [], []
    for label, backend, extra in LIBRARIES:
        if wanted and label not in wanted and backend not in wanted:
            continue
        if backend not in have:
            print(f"skipping {label}: this build has no {backend} backend")
            continue
        run = b.kernel(f"s3d {label}", "s3d", case + extra, backend=backend)
        runs.append(run)
        refs.append(b.raw_for(run))
    title = (f"S3D {a.grid.replace(',', 'x')} on {a.ranks} ranks ({a.procs.replace(',', 'x')}), "
             f"{a.checkpoints} checkpoints: open-to-close, ratios to raw_write of the same bytes")
    b.table(runs, refs=refs, title=title)

    # The reference's own figures (data-only write bandwidth) beside raw.
    body = []
    for run, raw in zip(runs, refs, strict=False):
        if not run.ok:
            continue
        s = run.summary
        bw = s["bandwidth_mib_s"]["write"]
        raw_bw = raw.mib_s if raw is not None and raw.ok else None
        body.append([run.label, f"{s['seconds']['open']:.3f}", f"{s['seconds']['write']:.3f}",
                     f"{s['seconds']['close']:.3f}", f"{bw:.1f}", f"{raw_bw:.1f}" if raw_bw else "-",
                     f"{bw / raw_bw:.2f}" if raw_bw else "-"])
    if body:
        text = render(["run", "open s", "write s", "close s", "write MiB/s", "raw MiB/s", "write bw / raw"], body,
                      numeric=range(1, 7))
        text = "\nS3D-IO figures (write = put + wait, slowest rank per checkpoint, summed)\n" + text
        print(text, flush=True)
        b.store.index.setdefault("tables", []).append({"title": "S3D-IO figures", "text": text})
        b.store.save_index()
    return b.finish()


if __name__ == "__main__":
    main_guard(main)
