#!/usr/bin/env bash
# Prepare the library stack iokernels needs (MPI, PnetCDF, parallel HDF5,
# parallel NetCDF-C, ADIOS2 with MPI, CLI11, nlohmann-json, GoogleTest, Python).
#
# On Debian 13 / Ubuntu 24.04 and newer the distribution packages are installed
# natively.  On an older host (Debian 12 lacks ADIOS2-MPI and HDF5 1.14) a
# Debian 13 root is created once with debootstrap, outside the source tree, and
# reused on every later run; scripts/run.sh executes commands inside it.
#
# Python tools that Debian does not package (ruff; mypy at one version with
# it; PyDarshan, which reads Darshan logs for `iokernels replay LOG.darshan`) go into the virtual environment $IOK_VENV (/opt/iokernels-venv, inside
# the root), which also sees the distribution's Python packages.
#
# Idempotent: a finished root and the virtual environment carry stamps
# listing their packages; when they match, this script returns in well under
# a second.
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

# The virtual environment IOK_VENV with IOK_PIP_PACKAGES (inside the root
# when there is one): made once, stamped with its package list like the root.
python_venv() {  # python_venv [chroot-dir]
    local root="$1" run=()
    [[ -n "$root" ]] && run=(chroot "$root")
    local vstamp="$root$IOK_VENV/.iokernels-stamp"
    if [[ -f "$vstamp" && "$(cat "$vstamp")" == "${IOK_PIP_PACKAGES[*]}" ]]; then
        return 0
    fi
    [[ $(id -u) -eq 0 ]] || { log "making $IOK_VENV needs root"; exit 1; }
    log "installing ${IOK_PIP_PACKAGES[*]} from PyPI into $IOK_VENV"
    # pip inside the root trusts what the host's pip trusts (a site's proxy
    # CA in PIP_CERT / REQUESTS_CA_BUNDLE / SSL_CERT_FILE), as it resolves
    # names with the host's resolv.conf
    local cert="${PIP_CERT:-${REQUESTS_CA_BUNDLE:-${SSL_CERT_FILE:-}}}"
    local pipenv=(env)
    if [[ -n "$root" && -f "$cert" ]]; then
        mkdir -p "$root/etc/iokernels"
        cp "$cert" "$root/etc/iokernels/pip-ca.pem"
        local c=/etc/iokernels/pip-ca.pem
        pipenv=(env PIP_CERT=$c SSL_CERT_FILE=$c REQUESTS_CA_BUNDLE=$c)
    fi
    [[ -x "$root$IOK_VENV/bin/python" ]] || "${run[@]}" python3 -m venv --system-site-packages "$IOK_VENV"
    "${run[@]}" "${pipenv[@]}" "$IOK_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        "${IOK_PIP_PACKAGES[@]}"
    darshan_util "${run[@]}" "${pipenv[@]}"
    echo "${IOK_PIP_PACKAGES[*]}" > "$vstamp"
}

# PyDarshan's wheels bundle libdarshan-util (darshan.libs/), but only for the
# Python versions its release was built for (3.5.0: up to 3.12); on a newer
# Python pip builds the pure-Python part from the sdist, which cannot read
# a log.  The library does not depend on the Python version (PyDarshan loads
# it with cffi's dlopen), so it is taken from the newest wheel PyPI has.
darshan_util() {  # darshan_util [run-prefix...]
    local py="$IOK_VENV/bin/python"
    "$@" "$py" -c 'import darshan' 2>/dev/null && return 0
    local ver
    ver=$(printf '%s\n' "${IOK_PIP_PACKAGES[@]}" | sed -n 's/^darshan==//p')
    log "PyDarshan $ver has no wheel for this Python: taking libdarshan-util from its cp312 wheel"
    "$@" "$py" - "$ver" <<'PY'
import glob, os, subprocess, sys, sysconfig, tempfile, zipfile
ver = sys.argv[1]
with tempfile.TemporaryDirectory() as d:
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                    "--python-version", "3.12", "--platform", "manylinux2014_x86_64", "-d", d,
                    f"darshan=={ver}"], check=True)
    whl = glob.glob(os.path.join(d, "darshan-*.whl"))[0]
    site = sysconfig.get_paths()["purelib"]
    with zipfile.ZipFile(whl) as z:
        for n in z.namelist():
            if n.startswith("darshan.libs/") and not n.endswith("/"):
                z.extract(n, site)
PY
    "$@" "$py" -c 'import darshan' || { log "PyDarshan still cannot load libdarshan-util"; exit 1; }
}

if iok_host_is_new_enough; then
    stamp=/var/lib/iokernels-native.stamp
    if [[ -f "$stamp" && "$(cat "$stamp")" == "${IOK_PACKAGES[*]}" ]]; then
        python_venv ""
        log "native packages already installed"
        exit 0
    fi
    [[ $(id -u) -eq 0 ]] || { log "run as root (or install: ${IOK_PACKAGES[*]})"; exit 1; }
    log "installing distribution packages natively"
    apt_install "" "${IOK_PACKAGES[@]}"
    mkdir -p "$(dirname "$stamp")"; echo "${IOK_PACKAGES[*]}" > "$stamp"
    python_venv ""
    exit 0
fi

ROOT="$IOK_SYSROOT"
stamp="$ROOT/.iokernels-stamp"
if [[ -f "$stamp" && "$(cat "$stamp")" == "${IOK_PACKAGES[*]}" ]]; then
    cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
    python_venv "$ROOT"
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
python_venv "$ROOT"
log "root ready: $ROOT"
