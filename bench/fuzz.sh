#!/usr/bin/env bash
# Fuzz every parser of outside input with libFuzzer (not part of CI).
#
#   scripts/run.sh bench/fuzz.sh [--fork N | --no-fork] [RUNS] [HARNESS...]
#
# Builds tests/fuzz with clang (ASan + UBSan + libFuzzer) in build-fuzz/,
# makes a seed corpus of valid inputs per harness (the generators the tests
# use, the E3SM case CDL files, maps written by a main build's e3sm_mapgen),
# runs each harness for RUNS executions (default 1,000,000) in its own
# scratch directory build-fuzz/work/<harness>/ and prints per harness:
# executions, crash inputs saved, and each distinct crash classified by its
# stack (see below) with its reproducer.
#
#   RUNS          executions per harness (default 1000000)
#   HARNESS...    default: all (cdf_classic pio_dat cdl gcrm_inputs
#                 h5bench_config blob_index log_index capture_trace decomp_map
#                 decomp_map_bpdir)
#   --fork N      run every harness in libFuzzer fork mode with N jobs at
#                 once (-fork=N -ignore_crashes=1 -ignore_ooms=1
#                 -ignore_timeouts=1): a crash ends only its job, the run
#                 goes on to RUNS executions and keeps every crash input in
#                 build-fuzz/work/<harness>/artifacts/.  Default: fork mode
#                 with 1 job for decomp_map and decomp_map_bpdir only (the
#                 HDF5, NetCDF-4 and ADIOS2 libraries they read through
#                 crash on mutated files within hundreds of executions),
#                 plain mode for the others
#   --no-fork     plain mode for every harness, decomp_map included: the run
#                 stops at the first crash (decomp_map then leaves out its
#                 BP3 seed, on which ADIOS2 crashes within ~16 executions)
#   -h, --help    this text
#
# Every crash input is run once more through its harness (ASan prints the
# stack, symbolized with addr2line; not while fuzzing) and classified by the first frame that
# is neither the sanitizer/libFuzzer runtime nor libc/libstdc++: in our
# sources (src/...) it is OUR bug -- fix the parser and add the input to
# tests/unit/test_parser_regressions.cpp; in libhdf5, libadios2, libnetcdf
# or libpnetcdf it is that library's (record it in docs/hardening.md).
# Crashes with the same kind, owner and function count as one.
# Environment: IOK_FUZZ_BUILD_DIR (default build-fuzz/), IOK_BUILD_DIR (the
# main build whose e3sm_mapgen/iokernels make seeds; default build/),
# IOK_FUZZ_TIMEOUT (seconds one input may take before it counts as a hang;
# default 10), IOK_FUZZ_MAX_TIME (seconds per harness after which it stops
# short of RUNS; default none), IOK_FUZZ_RERUNS (how many crash inputs, the
# smallest first, are re-run and classified; default 200).
set -euo pipefail
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${IOK_FUZZ_BUILD_DIR:-$SRC/build-fuzz}"
MAIN_BUILD="${IOK_BUILD_DIR:-$SRC/build}"
TIMEOUT="${IOK_FUZZ_TIMEOUT:-10}"
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
FORK=""  # empty: the default per harness; 0: never; N: always with N jobs
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --no-fork) FORK=0; shift ;;
        --fork) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --fork needs a number of jobs (1 or more)" >&2; exit 2; }
                FORK="$2"; shift 2 ;;
        --fork=*) FORK="${1#--fork=}"
                  [[ "$FORK" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --fork needs a number of jobs (1 or more)" >&2; exit 2; }
                  shift ;;
        -*) echo "fuzz.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
        *) break ;;
    esac
done
RUNS="${1:-1000000}"; shift || true
[[ "$RUNS" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: RUNS must be a number of executions, not '$RUNS' (see --help)" >&2; exit 2; }
ALL=(cdf_classic pio_dat cdl gcrm_inputs h5bench_config blob_index log_index capture_trace decomp_map decomp_map_bpdir)
HARNESSES=("${@:-${ALL[@]}}")
[[ $# -gt 0 ]] || HARNESSES=("${ALL[@]}")
# jobs in fork mode for harness $1 (0: plain mode)
fork_jobs() {
    if [[ -n "$FORK" ]]; then echo "$FORK"
    elif [[ "$1" == decomp_map* ]]; then echo 1
    else echo 0; fi
}

[ -f "$OUT/CMakeCache.txt" ] || cmake -S "$SRC/tests/fuzz" -B "$OUT" -G Ninja \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
targets=(); for h in "${HARNESSES[@]}"; do targets+=("fuzz_$h"); done
cmake --build "$OUT" -j "$(nproc)" --target "${targets[@]}" >/dev/null

# Seeds: one valid input or more per harness.
SEEDS="$OUT/seeds"
rm -rf "$SEEDS"; mkdir -p "$SEEDS"/{cdf_classic,pio_dat,cdl,gcrm_inputs,h5bench_config,blob_index,log_index,capture_trace,decomp_map,decomp_map_bpdir}
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
# real maps, blob/log indexes and capture traces when a main build can make them
t="$OUT/seedrun"; rm -rf "$t"; mkdir -p "$t"
if [[ -x "$MAIN_BUILD/src/e3sm_mapgen" ]]; then
    # maps in the single-file containers E3SM-IO reads.  BP3 only in fork
    # mode: ADIOS2 2.10.2's BP3 reader itself reads out of bounds on a
    # shuffled BP3 map within ~16 executions (heap-buffer-overflow in
    # libadios2_core), which stops a plain run there.  BP3 keeps its data in
    # <name>.dir/, which a mutated copy never has: the seed exercises the
    # metadata (index) reading only.
    fmts=(cdf1 cdf5 hdf5 netcdf4)
    [[ "$(fork_jobs decomp_map)" -gt 0 ]] && fmts+=(bp)
    for fmt in "${fmts[@]}"; do
        "$MAIN_BUILD/src/e3sm_mapgen" --case I --nlat 6 --nlon 8 --nprocs 2 --format "$fmt" -o "$t/i.$fmt" >/dev/null 2>&1 \
            && cp "$t/i.$fmt" "$SEEDS/decomp_map/" || true
    done
    # BP4/BP5 directories, packed as tests/fuzz/fuzz_decomp_map_bpdir.cpp
    # reads them: per file (md.idx md.0 mmd.0 data.0) a 4-byte
    # little-endian length and the bytes
    for fmt in bp4 bp5; do
        "$MAIN_BUILD/src/e3sm_mapgen" --case I --nlat 6 --nlon 8 --nprocs 2 --format "$fmt" -o "$t/i.$fmt" >/dev/null 2>&1 \
            && python3 - "$t/i.$fmt" "$SEEDS/decomp_map_bpdir/i.$fmt" <<'PY' || true
import struct, sys
from pathlib import Path
d, out = Path(sys.argv[1]), b""
for name in ["md.idx", "md.0", "mmd.0", "data.0"]:
    b = (d / name).read_bytes() if (d / name).is_file() else b""
    out += struct.pack("<I", len(b)) + b
Path(sys.argv[2]).write_bytes(out)
PY
    done
    "$MAIN_BUILD/src/e3sm_mapgen" --case G --ncells 40 --nlev 3 --nprocs 2 -o "$t/g.nc" >/dev/null 2>&1 || true
else
    echo "fuzz.sh: no $MAIN_BUILD/src/e3sm_mapgen: decomp_map starts without seeds (build it: scripts/iok build)" >&2
fi
if [[ -x "$MAIN_BUILD/src/iokernels" && -f "$t/g.nc" ]]; then
    mpiexec --oversubscribe -n 2 "$MAIN_BUILD/src/iokernels" e3sm -x blob -k -q -o "$t/blob" "$t/g.nc" >/dev/null 2>&1 || true
    mpiexec --oversubscribe -n 2 "$MAIN_BUILD/src/iokernels" e3sm -x log -k -q -o "$t/log" "$t/g.nc" >/dev/null 2>&1 || true
    find "$t/blob" -name '*.json' -exec cp {} "$SEEDS/blob_index/" \; 2>/dev/null || true
    find "$t/log" -name '*.idx' -exec cp {} "$SEEDS/log_index/" \; 2>/dev/null || true
    # a real capture trace: the same run under the capture library
    cap="$MAIN_BUILD/src/capture/libiok_capture.so"
    [[ -f "$cap" ]] && mpiexec --oversubscribe -n 2 -x LD_PRELOAD="$cap" -x IOK_CAPTURE_TRACE="$SEEDS/capture_trace/e3sm.json" \
        "$MAIN_BUILD/src/iokernels" e3sm -a mpiio -q -o "$t/cap" "$t/g.nc" >/dev/null 2>&1 || true
fi

# ASan/UBSan stacks in a form the classifier reads: frame|module|offset|function|file:line.
# No symbolizing while fuzzing: addr2line (Debian has no llvm-symbolizer
# without the whole llvm package) chokes on a frame in [stack] after a wild
# jump, ASan then fails a CHECK and the job hangs for ever.  Crash inputs
# are re-run with it below (under a timeout; without it if that fails).
SYM=/usr/bin/addr2line; command -v llvm-symbolizer >/dev/null && SYM="$(command -v llvm-symbolizer)"
FMT="stack_trace_format='    #%n|%m|%o|%f|%s:%l'"
sanitizer_env() {  # $1: 1 to symbolize
    local o="symbolize=$1:external_symbolizer_path=$SYM:$FMT"
    export ASAN_OPTIONS="${IOK_ASAN_OPTIONS:+$IOK_ASAN_OPTIONS:}$o"
    export UBSAN_OPTIONS="print_stacktrace=1:$o"
}
IOK_ASAN_OPTIONS="${ASAN_OPTIONS:-}"
sanitizer_env 0

# Fork mode: kill a job that has used no CPU for 60 s.  libFuzzer's own
# timeout handler can deadlock in a harness with threads (ADIOS2 runs one):
# the job then waits for ever and the whole run with it.
watchdog() {  # $1: pid of the fork-mode parent
    local -A last since
    local sh p t now
    while sleep 10; do
        now=$(date +%s)
        for sh in $(pgrep -P "$1" || true); do
            for p in $(pgrep -P "$sh" || true); do
                t=$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null) || continue
                if [[ "${last[$p]:-}" != "$t" ]]; then
                    last[$p]=$t; since[$p]=$now
                elif (( now - ${since[$p]} >= 60 )); then
                    kill -9 "$p" 2>/dev/null && echo "fuzz.sh: killed job process $p (no CPU for 60 s: a hang libFuzzer's timeout did not end)"
                fi
            done
        done
    done
}

SUMMARY="$OUT/summary.txt"; : > "$SUMMARY.rows"
row() { printf '%-16s %5s %12s %8s %9s %8s\n' "$@"; }
row harness fork executions crashes distinct seconds
for h in "${HARNESSES[@]}"; do
    work="$OUT/work/$h"; rm -rf "$work"; mkdir -p "$work/corpus" "$work/artifacts" "$work/tmp"
    cp -r "$SEEDS/$h/." "$work/corpus/"
    t0=$(date +%s)
    maxlen=4096; [[ "$h" == decomp_map* ]] && maxlen=65536  # HDF5/NetCDF-4/BP maps are larger
    jobs=$(fork_jobs "$h")
    mode=(); [[ "$jobs" -gt 0 ]] && mode=(-fork="$jobs" -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
    [[ -n "${IOK_FUZZ_MAX_TIME:-}" ]] && mode+=(-max_total_time="$IOK_FUZZ_MAX_TIME")
    ( cd "$work" && TMPDIR="$work/tmp" exec "$OUT/fuzz_$h" "${mode[@]}" -runs="$RUNS" -max_len="$maxlen" -timeout="$TIMEOUT" \
          -rss_limit_mb=4096 -artifact_prefix="$work/artifacts/" -print_final_stats=1 corpus > log.txt 2>&1 ) &
    fuzzer=$! wd=""
    [[ "$jobs" -gt 0 ]] && { watchdog "$fuzzer" >> "$work/watchdog.txt" 2>&1 & wd=$!; }
    wait "$fuzzer" || true
    [[ -n "$wd" ]] && { kill "$wd" 2>/dev/null || true; wait "$wd" 2>/dev/null || true; }
    rm -rf "$work"/fuzz_input_* "$work/tmp"  # the harness's input files, fork mode's job files
    if [[ "$jobs" -gt 0 ]]; then  # the parent's last status line: "#N: cov: ..."
        execs=$(grep -oE '^#[0-9]+:' "$work/log.txt" | tail -n 1 | tr -dc 0-9)
    else
        execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log.txt" | grep -o '[0-9]*$' || true)
    fi
    # Each crash input once more through the harness, for its symbolized stack.
    mkdir -p "$work/stacks"
    # (the smallest IOK_FUZZ_RERUNS of them, default 200: ADIOS2 harnesses
    # leave hundreds, mostly the same few library crashes)
    for a in $(ls -Sr "$work"/artifacts/ 2>/dev/null | head -n "${IOK_FUZZ_RERUNS:-200}" | sed "s|^|$work/artifacts/|"); do
        [[ -f "$a" ]] || continue
        st="$work/stacks/$(basename "$a").txt"
        for symbolize in 1 0; do
            sanitizer_env "$symbolize"
            ( cd "$work" && timeout $((TIMEOUT + 20)) "$OUT/fuzz_$h" -timeout="$TIMEOUT" -rss_limit_mb=4096 "$a" > "$st" 2>&1 ) || true
            rm -rf "$work"/fuzz_input_*
            grep -qE '^ *#[0-9]+\|' "$st" && break
        done
        sanitizer_env 0
    done
    python3 "$SRC/tests/fuzz/classify_crashes.py" "$SRC" "$work" "$OUT/fuzz_$h" > "$work/crashes.txt"
    rerun=$(ls "$work/stacks" | wc -l)
    [[ "$rerun" -lt "$(find "$work/artifacts" -maxdepth 1 -type f | wc -l)" ]] && \
        echo "    (only the $rerun smallest crash inputs were re-run and classified; IOK_FUZZ_RERUNS raises that)" >> "$work/crashes.txt"
    [[ -s "$work/watchdog.txt" ]] && echo "    (and $(wc -l < "$work/watchdog.txt") job(s) killed hung after a timeout: $work/watchdog.txt)" >> "$work/crashes.txt"
    crashes=$(find "$work/artifacts" -maxdepth 1 -type f | wc -l)
    distinct=$(grep -c '^  [^ ]' "$work/crashes.txt" || true)
    row "$h" "$jobs" "${execs:-?}" "$crashes" "$distinct" "$(( $(date +%s) - t0 ))" | tee -a "$SUMMARY.rows"
done

# The summary again at the end, with every distinct crash.
echo
echo "== summary (also in $SUMMARY)"
{
    row harness fork executions crashes distinct seconds
    cat "$SUMMARY.rows"
    for h in "${HARNESSES[@]}"; do
        [[ -s "$OUT/work/$h/crashes.txt" ]] || continue
        echo; echo "$h:"; cat "$OUT/work/$h/crashes.txt"
    done
} > "$SUMMARY"
rm -f "$SUMMARY.rows"
cat "$SUMMARY"
