#!/usr/bin/env bash
# GCRM benchmark: level 6 on 16 ranks (the reference's example_output case),
# with ZGrd.CP.lyr.fcfg.one (all fields in one file) and the default
# ZGrd.CP.lyr.fcfg (one file per field), each of the four I/O methods, beside
# a raw contiguous MPI-IO write of the same number of bytes (the storage
# ceiling).  Prints bandwidth, the ratio to the raw write and the memory
# high-water marks; JSON results go to $OUT/*.json.
#
#   bench/gcrm.sh [BUILD_DIR] [OUT_DIR]     (run via scripts/run.sh or inside the root)
# Env: NP (16), LEVEL (6), BACKEND (pnetcdf), MODEL_MEMORY (0|1), SHARED (../shared)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BUILD="${1:-$HERE/../build}"
OUT="${2:-$HERE/../build/bench-gcrm}"
NP="${NP:-16}"; LEVEL="${LEVEL:-6}"; BACKEND="${BACKEND:-pnetcdf}"
SHARED="${SHARED:-$HERE/../../shared}"
IN="$SHARED/datasets/gcrm"
IOK="$BUILD/src/iokernels"
mkdir -p "$OUT"
extra=()
[[ "${MODEL_MEMORY:-0}" == 1 ]] && extra+=(--model-memory)

summary() {  # json -> "bytes MiB/s rssmax rssmin"
    python3 - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print(int(s["write_bytes"]), s["write_bandwidth_mib_s"], s["memory_bytes"]["max"] / 2**20, s["memory_bytes"]["min"] / 2**20)
PY
}

cat > "$OUT/raw_write.py" <<'PY'
import sys
import numpy as np
from mpi4py import MPI
comm = MPI.COMM_WORLD
path, total = sys.argv[1], int(sys.argv[2])
n = total // comm.size + (1 if comm.rank < total % comm.size else 0)
off = sum(total // comm.size + (1 if r < total % comm.size else 0) for r in range(comm.rank))
buf = np.full(n, comm.rank % 251, dtype=np.uint8)
fh = MPI.File.Open(comm, path, MPI.MODE_CREATE | MPI.MODE_WRONLY)
comm.Barrier(); t0 = MPI.Wtime()
fh.Write_at_all(off, buf)
fh.Close()
t = comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)
if comm.rank == 0:
    print(total / 2**20 / t)
PY

printf "%-26s %-26s %14s %10s %8s %12s\n" config iotype bytes MiB/s ratio "rss max/min"
for fcfg in ZGrd.CP.lyr.fcfg.one ZGrd.CP.lyr.fcfg; do
    for io in nonblocking_collective nonblocking_independent blocking_collective blocking_independent; do
        dir="$OUT/run"; rm -rf "$dir"; mkdir -p "$dir"
        js="$OUT/gcrm_${fcfg}_${io}.json"
        mpiexec --oversubscribe -n "$NP" "$IOK" gcrm "$IN/zgrd.in.r6" --level "$LEVEL" --fcfg "$IN/$fcfg" \
            --iotype "$io" -a "$BACKEND" -o "$dir" --no-verify -q --json "$js" "${extra[@]}" > "$OUT/gcrm_${fcfg}_${io}.txt"
        read -r bytes bw rmax rmin < <(summary "$js")
        # the ceiling: one contiguous collective MPI-IO write of the same bytes
        rm -rf "$dir"; mkdir -p "$dir"
        raw=$(mpiexec --oversubscribe -n "$NP" python3 "$OUT/raw_write.py" "$dir/raw.bin" "$bytes")
        rm -rf "$dir"
        ratio=$(python3 -c "print(f'{$bw/$raw:.3f}')")
        printf "%-26s %-26s %14s %10.1f %8s %6.0f/%-6.0f (raw %.1f MiB/s)\n" "$fcfg" "$io" "$bytes" "$bw" "$ratio" "$rmax" "$rmin" "$raw"
    done
done
