#!/usr/bin/env python3
"""E3SM F case beside raw_write of the same bytes, same directory, same run.

    scripts/run.sh python3 bench/e3sm.py [--ranks 16] [--records 5] [--dir DIR] [--io-layer romio|ompio]

1. The F case (h0 and h1 history files) with PnetCDF, canonical layout, then
   raw_write of exactly the bytes it wrote: times, bandwidths, ratios ours/raw,
   and the share of the write time spent preparing requests
   (summary.prepare_fraction_of_write).
2. The same case on every library this build has (pnetcdf canonical and vard,
   hdf5 canonical and rearranged, hdf5_md, netcdf4, adios), ratios to raw.
3. With --romio-too (default when no --io-layer is given): PnetCDF canonical
   and raw_write again under ROMIO, since the two layers differ severalfold.
Results (JSON per run, index, tables) go to --results; `python3 -m iokernels
report RESULTS` shows them again.
"""
from benchlib import Bench, bench_arguments, main_guard, paths

# (label, backend, strategy, extra kernel arguments) of the cross-library table.
LIBRARIES = [
    ("pnetcdf canonical", "pnetcdf", "canonical", []),
    ("pnetcdf vard", "pnetcdf", "canonical", ["--param", "pnetcdf.api=vard"]),
    ("hdf5 canonical", "hdf5", "canonical", []),
    ("hdf5 rearrange", "hdf5", "rearrange", []),
    ("hdf5_md canonical", "hdf5_md", "canonical", []),
    ("netcdf4 canonical", "netcdf4", "canonical", []),
    ("adios canonical", "adios", "canonical", []),
]
MAP_NAMES = ("map_f_case_16p.nc", "f_case_866x72_16p.nc")


def default_map():
    for name in MAP_NAMES:
        p = paths.shared_dir() / "datasets" / "e3sm" / name
        if p.is_file():
            return str(p)
    return None


def main():
    p = bench_arguments("e3sm", ranks=16, description=__doc__.split("\n\n")[0])
    p.add_argument("--records", type=int, default=5, help="records (time steps) per file (default 5)")
    p.add_argument("--map", default=default_map(), help="decomposition map (default: the F-case map in ../shared)")
    p.add_argument("--libraries", help="comma-separated labels or backends of the cross-library table "
                                       "(default: all the build has)")
    p.add_argument("--romio-too", action="store_true", default=None,
                   help="also run pnetcdf canonical and raw under ROMIO (default when --io-layer is not given)")
    p.add_argument("--no-romio", dest="romio_too", action="store_false", help="skip the ROMIO variants")
    p.add_argument("--verify", action="store_true", help="read every file back and verify it (slower)")
    a = p.parse_args()
    if not a.map:
        p.error(f"no F-case map found in {paths.shared_dir()}/datasets/e3sm; give --map FILE")
    b = Bench("e3sm", a)
    case_args = ["-r", a.records, "-o", "{outdir}/f_case.nc", a.map] + (["--verify"] if a.verify else [])
    have = set(b.backends())

    # 1. the headline: PnetCDF canonical beside raw
    run, raw = b.pair("e3sm F pnetcdf canonical", "e3sm", case_args, backend="pnetcdf", strategy="canonical")
    b.table([run], raw, title=f"E3SM F case, {a.ranks} ranks, {a.records} records, beside raw_write (same bytes)")
    if run.ok:
        frac = run.summary.get("prepare_fraction_of_write")
        prep = run.summary.get("prepare_seconds", {}).get("max")
        if frac is not None:
            print(f"prepare (building requests from the map): {prep:.3f} s max = {100 * frac:.2f} % of the write time")

    # 2. every library, same case, ratios to the same raw reference
    wanted = {w.strip() for w in a.libraries.split(",")} if a.libraries else None
    runs, refs = [], []
    for label, backend, strategy, extra in LIBRARIES:
        if wanted and label not in wanted and backend not in wanted:
            continue
        if backend not in have:
            print(f"skipping {label}: this build has no {backend} backend")
            continue
        r = run if (backend, strategy, extra) == ("pnetcdf", "canonical", []) else \
            b.kernel(f"e3sm F {label}", "e3sm", case_args + extra, backend=backend, strategy=strategy)
        runs.append(r)
        refs.append(b.raw_for(r) if r.ok else raw)
    b.table(runs, refs=refs, title="E3SM F case on every library (ratios to raw_write of the same bytes)")

    # 3. ROMIO variants: the layer changes results severalfold
    if a.romio_too or (a.romio_too is None and a.io_layer is None):
        rr, rraw = b.pair("e3sm F pnetcdf canonical", "e3sm", case_args, backend="pnetcdf",
                          strategy="canonical", io_layer="romio")
        b.table([run, rr], refs=[raw, rraw],
                title="PnetCDF canonical under each MPI-IO layer (ratio to raw, same layer)")
    return b.finish()


if __name__ == "__main__":
    main_guard(main)
