#!/usr/bin/env bash
# Prepare the library stack iokernels needs (MPI, PnetCDF, parallel HDF5,
# parallel NetCDF-C, ADIOS2 with MPI, CLI11, nlohmann-json, GoogleTest, Python).
#
# On Debian 13 / Ubuntu 24.04 and newer the distribution packages are installed
# natively.  On an older host (Debian 12 lacks ADIOS2-MPI and HDF5 1.14) a
# Debian 13 root is created once with debootstrap, outside the source tree, and
# reused on every later run; scripts/run.sh executes commands inside it.
#
# Idempotent: a finished root carries a stamp listing its packages; when the
# stamp matches, this script returns in well under a second.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/common.sh
source "$HERE/common.sh"

log() { printf '[setup] %s\n' "$*" >&2; }

apt_install() {  # apt_install [chroot-dir] pkg...
    local root="$1"; shift
    local run=()
    [[ -n "$root" ]] && run=(chroot "$root")
    DEBIAN_FRONTEND=noninteractive "${run[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${run[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

if iok_host_is_new_enough; then
    stamp=/var/lib/iokernels-native.stamp
    if [[ -f "$stamp" && "$(cat "$stamp")" == "${IOK_PACKAGES[*]}" ]]; then
        log "native packages already installed"
        exit 0
    fi
    [[ $(id -u) -eq 0 ]] || { log "run as root (or install: ${IOK_PACKAGES[*]})"; exit 1; }
    log "installing distribution packages natively"
    apt_install "" "${IOK_PACKAGES[@]}"
    mkdir -p "$(dirname "$stamp")"; echo "${IOK_PACKAGES[*]}" > "$stamp"
    exit 0
fi

ROOT="$IOK_SYSROOT"
stamp="$ROOT/.iokernels-stamp"
if [[ -f "$stamp" && "$(cat "$stamp")" == "${IOK_PACKAGES[*]}" ]]; then
    log "reusing Debian 13 root $ROOT"
    exit 0
fi
[[ $(id -u) -eq 0 ]] || { log "creating the Debian 13 root needs root (debootstrap, chroot)"; exit 1; }

if ! command -v debootstrap >/dev/null; then
    log "installing debootstrap on the host"
    apt_install "" debootstrap
fi
if [[ ! -x "$ROOT/usr/bin/apt-get" ]]; then
    log "creating Debian 13 (trixie) root in $ROOT (about a minute)"
    rm -rf "$ROOT"; mkdir -p "$(dirname "$ROOT")"
    debootstrap --variant=minbase trixie "$ROOT" "${IOK_DEBIAN_MIRROR}" >"$ROOT.debootstrap.log" 2>&1 \
        || { log "debootstrap failed; see $ROOT.debootstrap.log"; exit 1; }
fi
log "installing ${#IOK_PACKAGES[@]} packages inside the root"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
apt_install "$ROOT" "${IOK_PACKAGES[@]}"
echo "${IOK_PACKAGES[*]}" > "$stamp"
log "root ready: $ROOT"
