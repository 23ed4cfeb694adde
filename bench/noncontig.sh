#!/usr/bin/env bash
# noncontig: MPI collective write through an E3SM noncontiguous file view,
# from a contiguous and from a noncontiguous user buffer, beside raw_write of
# the same bytes (contiguous share per rank), same directory, same run.
#
#   scripts/run.sh bench/noncontig.sh [RANKS=16] [NVARS=100] [DIR=results/bench/noncontig-<time>]
#   environment: IOK_BUILD_DIR (default build), IO_LAYER=romio|ompio (default: both)
#
# Prints per decomposition (D1, D2) and MPI-IO layer: contiguous-buffer and
# noncontiguous-buffer write times, their ratio, raw_write's time for one
# tile's bytes, and the ratios of both kernel writes to raw.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$(cd "$HERE/.." && pwd)"
BUILD="${IOK_BUILD_DIR:-$SRC/build}"
RANKS="${1:-16}"
NVARS="${2:-100}"
OUT="${3:-$SRC/results/bench/noncontig-$(date +%Y%m%d-%H%M%S)}"
DATA="$SRC/../shared/datasets/mpi_io_test"
LAYERS="${IO_LAYER:-romio ompio}"
mkdir -p "$OUT"
[ -d "$DATA" ] || { echo "error: decompositions not found in $DATA" >&2; exit 2; }
run() { mpiexec --oversubscribe -n "$RANKS" "$@"; }
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" "$@"; }

printf '\nnoncontig, %s ranks, %s variables; files in %s\n' "$RANKS" "$NVARS" "$OUT"
printf '%-4s %-6s %12s %12s %10s %10s %9s %12s %12s\n' \
    decomp layer "contig s" "noncontig s" "nc/contig" "raw s" "raw MiB/s" "contig/raw" "noncontig/raw"
status=0
for D in D1 D2; do
    for L in $LAYERS; do
        js="$OUT/noncontig_${D}_${L}.json"
        if ! run "$BUILD/src/iokernels" --io-layer "$L" noncontig -q -n "$NVARS" --no-verify \
                -o "$OUT/testfile_${D}_${L}" "$DATA/48602x72_512p_${D}.nc" --json "$js" > "$OUT/noncontig_${D}_${L}.log" 2>&1; then
            echo "$D $L: noncontig FAILED (see $OUT/noncontig_${D}_${L}.log)"; status=1; continue
        fi
        bytes=$(field "$js" "['summary']['write_bytes']")
        tc=$(field "$js" "['summary']['seconds']['write_contig']")
        tn=$(field "$js" "['summary']['seconds']['write_noncontig']")
        rjs="$OUT/raw_${D}_${L}.json"
        # raw_write opens and closes too (the kernel's times are the write calls only)
        if ! OMPI_MCA_io="$([ "$L" = romio ] && echo romio341 || echo ompio)" \
                run "$BUILD/src/raw_write" -n "${bytes%.*}" -o "$OUT/raw_${D}_${L}.dat" --json "$rjs" > "$OUT/raw_${D}_${L}.log" 2>&1; then
            echo "$D $L: raw_write FAILED (see $OUT/raw_${D}_${L}.log)"; status=1; continue
        fi
        tr=$(field "$rjs" "['summary']['write_seconds']")
        br=$(field "$rjs" "['summary']['write_mib_s']")
        python3 - "$D" "$L" "$tc" "$tn" "$tr" "$br" <<'EOF'
import sys
d, l, tc, tn, tr, br = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:])
print(f"{d:<4} {l:<6} {tc:12.4f} {tn:12.4f} {tn / tc if tc else 0:10.2f} {tr:10.4f} {br:9.1f} "
      f"{tc / tr if tr else 0:12.2f} {tn / tr if tr else 0:12.2f}")
EOF
    done
done
echo "JSON results and logs: $OUT"
exit $status
