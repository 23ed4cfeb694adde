#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy: bugprone-* and a performance-* subset) over
# the project's sources, with the compile commands of a build directory.
#
#   scripts/tidy.sh [BUILD_DIR] [FILE_REGEX]
#
# BUILD_DIR defaults to build/ (configured by scripts/iok build; CMake writes
# compile_commands.json there); FILE_REGEX (default: src/ and tests/unit/)
# picks the translation units.  Exit status 1 when clang-tidy reports
# anything.  Not part of CI: it takes a clang parse of every file.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$(cd "$HERE/.." && pwd)"
BUILD="$(cd "${1:-$SRC/build}" && pwd)"
REGEX="${2:-$SRC/(src|tests/unit)/.*[.]cpp$}"

if ! command -v run-clang-tidy >/dev/null && [[ -z "${IOK_TIDY_IN_ROOT:-}" ]]; then
    exec "$HERE/run.sh" env IOK_TIDY_IN_ROOT=1 "$0" "$BUILD" "$REGEX"
fi
[[ -f "$BUILD/compile_commands.json" ]] || {
    echo "tidy.sh: $BUILD/compile_commands.json missing: configure that build directory first" >&2
    exit 2
}
# The flags are GCC's: clang does not know some of its warnings.
out="$(run-clang-tidy -quiet -p "$BUILD" -j "$(nproc)" -extra-arg=-Wno-unknown-warning-option \
    "$REGEX" 2>/dev/null || true)"
findings="$(grep -E '^/.*: (warning|error): ' <<<"$out" | sort -u || true)"
if [[ -n "$findings" ]]; then
    echo "$findings"
    echo "tidy.sh: $(wc -l <<<"$findings") finding(s)" >&2
    exit 1
fi
echo "tidy.sh: no findings"
