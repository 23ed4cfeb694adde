#!/usr/bin/env bash
# Run a command where the iokernels library stack is available.
#
#   scripts/run.sh COMMAND [ARGS...]
#
# On a new-enough host this simply executes COMMAND.  Otherwise COMMAND runs
# inside the Debian 13 root made by scripts/setup.sh, in a private mount
# namespace (nothing stays mounted afterwards), with /proc, /sys, /dev and the
# directory holding this checkout (and ../shared beside it) bind-mounted at the
# same paths, so every path means the same thing inside and outside.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/common.sh"

# MPI settings every run needs on these machines: we run as root, with more
# ranks than cores, on one node (shared memory transport only).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl="${OMPI_MCA_btl:-self,sm}"
export OMPI_MCA_rmaps_base_oversubscribe=1
# Debian's python3-adios2 picks its serial bindings (not installed) unless told.
export ADIOS2_ALWAYS_USE_MPI="${ADIOS2_ALWAYS_USE_MPI:-1}"
export PRTE_MCA_rmaps_default_mapping_policy="${PRTE_MCA_rmaps_default_mapping_policy:-:oversubscribe}"

if iok_host_is_new_enough; then
    exec "$@"
fi

ROOT="$IOK_SYSROOT"
if ! iok_set_ready demo; then
    echo "iokernels: the Debian 13 root $ROOT is missing or unfinished; run scripts/setup.sh first" >&2
    exit 1
fi
PROJECT_PARENT="$(cd "$HERE/../.." && pwd)"

exec unshare --mount --propagation private -- bash -s -- "$ROOT" "$PROJECT_PARENT" "$PWD" "$@" <<'INNER'
set -euo pipefail
ROOT="$1"; PARENT="$2"; CWD="$3"; shift 3
mount -t proc proc "$ROOT/proc"
mount --rbind /sys "$ROOT/sys"
mount --rbind /dev "$ROOT/dev"
mkdir -p "$ROOT$PARENT"
mount --rbind "$PARENT" "$ROOT$PARENT"
# ../shared may be a symlink out of PARENT (worktrees): its target too
if [[ -L "$PARENT/shared" ]]; then
    TARGET="$(readlink -f "$PARENT/shared")"
    if [[ -d "$TARGET" && "$TARGET" != "$PARENT"* ]]; then
        mkdir -p "$ROOT$TARGET"
        mount --rbind "$TARGET" "$ROOT$TARGET"
    fi
fi
[[ "$CWD" == "$PARENT"* ]] || CWD="$PARENT"
exec chroot "$ROOT" /usr/bin/env -C "$CWD" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
INNER
