#!/usr/bin/env bash
# The README's main job: the E3SM F case on 16 ranks with PnetCDF, written,
# read back and verified, report on stdout, JSON result in results/.
# The map is made by the project's generator (e3sm_mapgen --case F --ne 4
# --nprocs 16: the cubed sphere and space-filling curve of the real 16-process
# F map, within a few percent of its request counts), so the demo needs no
# outside data and gives the same figures on every machine.
set -euo pipefail
BUILD="$1"; shift || true
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NRANKS="${IOK_DEMO_RANKS:-16}"
OUT="${IOK_DEMO_DIR:-$SRC/results/demo}"
mkdir -p "$OUT"
MAP="$OUT/map_f_ne4_16p.nc"
[[ -f "$MAP" ]] || "$BUILD/src/e3sm_mapgen" --case F --ne 4 --nprocs 16 -o "$MAP"
# scripts/iok makes the map as a stage of its own (its output to the log)
[[ "${IOK_DEMO_MAP_ONLY:-0}" == 1 ]] && exit 0
rm -f "$OUT"/f_case_h0.nc "$OUT"/f_case_h1.nc
# ROMIO: on this pattern OpenMPI's default OMPIO is 3-8x slower (see README);
# IOK_DEMO_IO_LAYER=ompio shows it.
exec mpiexec --oversubscribe -n "$NRANKS" "$BUILD/src/iokernels" --io-layer "${IOK_DEMO_IO_LAYER:-romio}" e3sm \
    -a pnetcdf -r 1 --verify --json "$OUT/e3sm_f_case.json" -o "$OUT/f_case.nc" "$@" "$MAP"
