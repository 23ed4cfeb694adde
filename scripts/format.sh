#!/usr/bin/env bash
# Formats the C and C++ sources of the checkout with .clang-format.
#
#   scripts/format.sh                 format every tracked source in place
#   scripts/format.sh --check         change nothing; name each file a format would
#                                     change, exit 1 if there is one
#   scripts/format.sh --stats         change nothing; count the files and lines a
#                                     format would change
#   scripts/format.sh [MODE] FILE...  only these files
#
# clang-format comes with scripts/setup.sh (Debian 13's, version 19: another
# version may format a few constructs differently, so CI and this script use
# that one); the script runs itself through scripts/run.sh when the host has none.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$(cd "$HERE/.." && pwd)"

mode=apply
case "${1:-}" in
    --apply) shift ;;
    --check) mode=check; shift ;;
    --stats) mode=stats; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "format.sh: unknown option '$1' (--check, --stats)" >&2; exit 2 ;;
esac

cd "$SRC"
if (($#)); then
    files=("$@")
else
    mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
fi
((${#files[@]})) || { echo "format.sh: no files" >&2; exit 2; }

# The list comes from git here: inside the root the worktree's git directory
# may not be visible.
if ! command -v clang-format >/dev/null; then
    if [[ -z "${IOK_FORMAT_IN_ROOT:-}" ]]; then
        exec "$HERE/run.sh" env IOK_FORMAT_IN_ROOT=1 "$0" "--$mode" "${files[@]}"
    fi
    echo "format.sh: clang-format not found (scripts/setup.sh installs it)" >&2
    exit 1
fi

if [[ "$mode" == apply ]]; then
    printf '%s\0' "${files[@]}" | xargs -0 -n 16 -P "$(nproc)" clang-format -i --style=file
    exit 0
fi

# One line per file a format changes: "<lines removed> <lines added> <file>".
changes="$(printf '%s\0' "${files[@]}" | xargs -0 -n 1 -P "$(nproc)" sh -c '
    out="$(clang-format --style=file "$1" | diff "$1" - | grep -c "^[<>]")" || true
    [ "$out" != 0 ] || exit 0
    clang-format --style=file "$1" | diff "$1" - | awk -v f="$1" "/^</{d++} /^>/{a++} END{print d+0, a+0, f}"
' sh | sort -k3)"

if [[ "$mode" == check ]]; then
    [[ -z "$changes" ]] && exit 0
    awk '{print $3 ": not formatted (" $1 " lines would change)"}' <<<"$changes" >&2
    echo "format.sh: $(wc -l <<<"$changes") of ${#files[@]} files are not formatted: run scripts/format.sh" >&2
    exit 1
fi
total_lines="$(cat "${files[@]}" | wc -l)"
[[ -n "$changes" ]] || { echo "a format would change none of ${#files[@]} files ($total_lines lines)"; exit 0; }
awk -v n="${#files[@]}" -v t="$total_lines" '
    {files++; del += $1; add += $2}
    END {printf "a format would change %d of %d files: %d of %d lines replaced by %d lines\n", files, n, del, t, add}
' <<<"$changes"
