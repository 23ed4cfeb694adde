#!/usr/bin/env bash
# Fuzz every parser of outside input with libFuzzer (not part of CI).
#
#   scripts/run.sh bench/fuzz.sh [RUNS] [HARNESS...]
#
# Builds tests/fuzz with clang (ASan + UBSan + libFuzzer) in build-fuzz/,
# makes a seed corpus of valid inputs per harness (the generators the tests
# use, the E3SM case CDL files), runs each harness for RUNS executions
# (default 1,000,000) in its own scratch directory and prints a table:
# harness, executions, crashes.  A crash leaves its input as
# build-fuzz/work/<harness>/crash-*; fix the parser and add the input to
# tests/unit/test_parser_regressions.cpp.
set -euo pipefail
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${IOK_FUZZ_BUILD_DIR:-$SRC/build-fuzz}"
RUNS="${1:-1000000}"; shift || true
ALL=(cdf_classic pio_dat cdl gcrm_inputs h5bench_config blob_index log_index capture_trace decomp_map)
HARNESSES=("${@:-${ALL[@]}}")
[[ $# -gt 0 ]] || HARNESSES=("${ALL[@]}")

[ -f "$OUT/CMakeCache.txt" ] || cmake -S "$SRC/tests/fuzz" -B "$OUT" -G Ninja \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$OUT" -j "$(nproc)" >/dev/null

# Seeds: one valid input or more per harness.
SEEDS="$OUT/seeds"
rm -rf "$SEEDS"; mkdir -p "$SEEDS"/{cdf_classic,pio_dat,cdl,gcrm_inputs,h5bench_config,blob_index,log_index,capture_trace,decomp_map}
PYTHONPATH="$SRC/tests/integration" python3 - "$SEEDS" <<'PY'
import json, struct, sys
from pathlib import Path
from gen_inputs import gcrm_inputs, h5bench_config, mpi_io_test_decomposition, write_cdf1_ints
s = Path(sys.argv[1])
mpi_io_test_decomposition(s / "cdf_classic" / "decomp.nc", nprocs=4, array_size=200)
write_cdf1_ints(s / "cdf_classic" / "small.nc", [("n", 3)], [("a", "n", [1, 2, 3])])
(s / "pio_dat" / "d1.dat").write_text("version 2001 npes 4 ndims 1 \n8 \n0 2\n1 2 \n1 2\n3 4 \n2 2\n5 6 \n3 2\n7 8 \n")
(s / "pio_dat" / "d2.dat").write_text("version 2001 npes 2 ndims 2 \n4 2 \n0 3\n1 0 3 \n1 6\n2 4 5 6 7 8 \n")
g = s / "gcrm_tmp"
gcrm_inputs(g)
for i, name in enumerate(["zgrd.in", "mini.desc", "mini.fcfg"]):
    (s / "gcrm_inputs" / name).write_bytes(bytes([i]) + (g / name).read_bytes())
h5bench_config(s / "h5bench_config" / "w.cfg", MEM_PATTERN="CONTIG", FILE_PATTERN="CONTIG", TIMESTEPS=2,
               NUM_DIMS=1, DIM_1="16K", EMULATED_COMPUTE_TIME_PER_TIMESTEP="1 s")
h5bench_config(s / "h5bench_config" / "r.cfg", MEM_PATTERN="CONTIG", FILE_PATTERN="CONTIG", TIMESTEPS=2,
               NUM_DIMS=2, DIM_1=64, DIM_2=32, READ_OPTION="LDC", BLOCK_SIZE=4, BLOCK_SIZE_2=4)
# the log index: a sequence of int64 (see strategy_log_layout); a small plausible one
(s / "log_index" / "idx").write_bytes(struct.pack("<8q", 1, 1, 0, 4, 1, 0, 0, 4))
(s / "blob_index" / "empty.json").write_text(json.dumps({"spec": {}, "library": "pnetcdf", "extension": ".nc"}))
PY
rm -rf "$SEEDS/gcrm_tmp"
cp "$SRC"/src/kernels/e3sm/cases/*.cdl "$SEEDS/cdl/"
# real blob/log indexes when a main build can make them
if [[ -x "$SRC/build/src/iokernels" && -x "$SRC/build/src/e3sm_mapgen" ]]; then
    t="$OUT/seedrun"; rm -rf "$t"; mkdir -p "$t"
    "$SRC/build/src/e3sm_mapgen" --case G --ncells 40 --nlev 3 --nprocs 2 -o "$t/g.nc" >/dev/null 2>&1 || true
    mpiexec --oversubscribe -n 2 "$SRC/build/src/iokernels" e3sm -x blob -k -q -o "$t/blob" "$t/g.nc" >/dev/null 2>&1 || true
    mpiexec --oversubscribe -n 2 "$SRC/build/src/iokernels" e3sm -x log -k -q -o "$t/log" "$t/g.nc" >/dev/null 2>&1 || true
    find "$t/blob" -name '*.json' -exec cp {} "$SEEDS/blob_index/" \; 2>/dev/null || true
    find "$t/log" -name '*.idx' -exec cp {} "$SEEDS/log_index/" \; 2>/dev/null || true
    # maps in the single-file containers E3SM-IO reads.  Not BP3: ADIOS2
    # 2.10.2's BP3 reader itself reads out of bounds on a shuffled BP3 map
    # within a few executions (heap-buffer-overflow in libadios2_mpi_core),
    # which would stop every run there; a library finding, not ours.
    for fmt in cdf1 cdf5 hdf5 netcdf4; do
        "$SRC/build/src/e3sm_mapgen" --case I --nlat 6 --nlon 8 --nprocs 2 --format "$fmt" -o "$SEEDS/decomp_map/i.$fmt" >/dev/null 2>&1 || true
    done
    # a real capture trace: the same run under the capture library
    cap="$SRC/build/src/capture/libiok_capture.so"
    [[ -f "$cap" ]] && mpiexec --oversubscribe -n 2 -x LD_PRELOAD="$cap" -x IOK_CAPTURE_TRACE="$SEEDS/capture_trace/e3sm.json" \
        "$SRC/build/src/iokernels" e3sm -a mpiio -q -o "$t/cap" "$t/g.nc" >/dev/null 2>&1 || true
fi

printf '%-16s %12s %8s %10s\n' harness executions crashes seconds
for h in "${HARNESSES[@]}"; do
    work="$OUT/work/$h"; rm -rf "$work"; mkdir -p "$work/corpus"
    cp -r "$SEEDS/$h/." "$work/corpus/"
    t0=$(date +%s)
    maxlen=4096; [[ "$h" == decomp_map ]] && maxlen=65536  # HDF5/NetCDF-4/BP maps are larger
    ( cd "$work" && "$OUT/fuzz_$h" -runs="$RUNS" -max_len="$maxlen" -timeout=10 -rss_limit_mb=4096 \
          -print_final_stats=1 corpus > log.txt 2>&1 ) || true
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log.txt" | grep -o '[0-9]*$' || echo "?")
    crashes=$(find "$work" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    printf '%-16s %12s %8s %10s\n' "$h" "$execs" "$crashes" "$(( $(date +%s) - t0 ))"
done
