#!/usr/bin/env bash
# Prepare the library stack iokernels needs, by need:
#
#   scripts/setup.sh demo   what building and running a kernel needs: MPI,
#                           PnetCDF, parallel HDF5, parallel NetCDF-C, ADIOS2
#                           with MPI, CLI11, nlohmann-json, the compiler
#   scripts/setup.sh test   (the default) that, plus what only the tests need:
#                           GoogleTest, Python modules, Chromium, Slurm and
#                           munge, clang, valgrind, ruff and mypy (PyPI)
#   -v                      show everything apt and mmdebstrap print
#
# (common.sh lists both sets.)  On Debian 13 / Ubuntu 24.04 and newer the
# distribution packages are installed natively.  On an older host (Debian 12
# lacks ADIOS2-MPI and HDF5 1.14) a Debian 13 root is created once with
# mmdebstrap in $IOK_SYSROOT, outside the source tree, and reused on every
# later run; scripts/run.sh executes commands inside it.
#
# Python tools that Debian does not package (ruff; mypy at one version with
# it; PyDarshan, which reads Darshan logs for `iokernels replay LOG.darshan`) go into the virtual environment $IOK_VENV (/opt/iokernels-venv, inside
# the root), which also sees the distribution's Python packages.
#
# Quiet: one line per stage with its time; apt's output goes to $IOK_LOG
# (printed on failure with what to do).  Idempotent: each package set and the
# virtual environment carry stamps listing their packages; when they match,
# this script returns in well under a second.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/common.sh
source "$HERE/common.sh"

want=test
for a in "$@"; do
    case "$a" in
        demo | test) want="$a" ;;
        -v | --verbose) IOK_VERBOSE=1 ;;
        *) echo "usage: scripts/setup.sh [demo|test] [-v]" >&2; exit 2 ;;
    esac
done
sets=(demo)
[[ "$want" == test ]] && sets+=(test)

# Runs a command inside the root with /proc, /sys and /dev mounted (in a
# private mount namespace: nothing stays mounted), as scripts/run.sh does:
# without them apt and the packages' scripts warn on every step.
in_root() {
    unshare --mount --propagation private -- bash -c '
        set -e; r="$1"; shift
        mount -t proc proc "$r/proc"; mount --rbind /sys "$r/sys"; mount --rbind /dev "$r/dev"
        exec chroot "$r" /usr/bin/env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"' \
        bash "$ROOT" "$@"
}

apt_install() {  # apt_install pkg...  (into the root when ROOT is set)
    local run=()
    [[ -n "$ROOT" ]] && run=(in_root)
    local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -y -q -o Dpkg::Use-Pty=0
               -o DPkg::Options::=--force-unsafe-io -o APT::Install-Recommends=false)
    "${run[@]}" "${apt[@]}" update && "${run[@]}" "${apt[@]}" install "$@"
}

# The virtual environment IOK_VENV with IOK_PIP_PACKAGES (inside the root
# when there is one): made once, stamped with its package list like the root.
venv_ready() { [[ -f "$ROOT$IOK_VENV/.iokernels-stamp" && "$(cat "$ROOT$IOK_VENV/.iokernels-stamp")" == "${IOK_PIP_PACKAGES[*]}" ]]; }
python_venv() {
    local run=()
    [[ -n "$ROOT" ]] && run=(in_root)
    # pip inside the root trusts what the host's pip trusts (a site's proxy
    # CA in PIP_CERT / REQUESTS_CA_BUNDLE / SSL_CERT_FILE), as it resolves
    # names with the host's resolv.conf
    local cert="${PIP_CERT:-${REQUESTS_CA_BUNDLE:-${SSL_CERT_FILE:-}}}"
    local pipenv=(env)
    if [[ -n "$ROOT" && -f "$cert" ]]; then
        mkdir -p "$ROOT/etc/iokernels" && cp "$cert" "$ROOT/etc/iokernels/pip-ca.pem" || return 1
        local c=/etc/iokernels/pip-ca.pem
        pipenv=(env PIP_CERT=$c SSL_CERT_FILE=$c REQUESTS_CA_BUNDLE=$c)
    fi
    { [[ -x "$ROOT$IOK_VENV/bin/python" ]] || "${run[@]}" python3 -m venv --system-site-packages "$IOK_VENV"; } &&
        "${run[@]}" "${pipenv[@]}" "$IOK_VENV/bin/python" -m pip install --disable-pip-version-check \
            "${IOK_PIP_PACKAGES[@]}" &&
        darshan_util "${run[@]}" "${pipenv[@]}" &&
        echo "${IOK_PIP_PACKAGES[*]}" > "$ROOT$IOK_VENV/.iokernels-stamp"
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
    echo "PyDarshan $ver has no wheel for this Python: taking libdarshan-util from its cp312 wheel"
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
    "$@" "$py" -c 'import darshan' || { echo "PyDarshan still cannot load libdarshan-util" >&2; return 1; }
}


need_root() { [[ $(id -u) -eq 0 ]] || iok_fail setup "$1 needs root: run this as root (sudo)"; }

ROOT=""
iok_host_is_new_enough || ROOT="$IOK_SYSROOT"
STAMPS="$(iok_stamp_dir)"

missing=()
for s in "${sets[@]}"; do iok_set_ready "$s" || missing+=("$s"); done
venv_missing=0
[[ "$want" == test ]] && ! venv_ready && venv_missing=1
[[ -n "$ROOT" && -d "$ROOT/etc" ]] && { cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true; }
if ((${#missing[@]} == 0 && venv_missing == 0)); then
    [[ "${IOK_SETUP_QUIET:-0}" == 1 ]] || iok_say setup "library stack ready ($want): ${ROOT:-native packages}"
    exit 0
fi

if [[ -n "$ROOT" && ! -x "$ROOT/usr/bin/apt-get" ]]; then
    # mmdebstrap makes the root and installs the first package set in one
    # pass (one apt resolution, downloads in parallel, one dpkg run): 5 min
    # 10 s where debootstrap then apt took 7 min 31 s, measured side by side
    # on this 2-core machine under the same load.
    need_root "creating the Debian 13 root (mmdebstrap, chroot)"
    if ! command -v mmdebstrap >/dev/null; then
        IOK_HINT="install mmdebstrap yourself (apt-get install mmdebstrap) and run again" \
            iok_stage setup "installing mmdebstrap on the host" \
            bash -c 'DEBIAN_FRONTEND=noninteractive apt-get update -q &&
                     DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends mmdebstrap'
    fi
    rm -rf "$ROOT"
    mkdir -p "$(dirname "$ROOT")"
    first="${missing[0]}"
    declare -n first_pkgs="IOK_PACKAGES_${first^^}"
    include="$(IFS=,; echo "${first_pkgs[*]}")"
    IOK_HINT="check that $IOK_DEBIAN_MIRROR is reachable (or set IOK_DEBIAN_MIRROR to a mirror that is), then run again" \
        iok_stage setup "creating Debian 13 root $ROOT with ${#first_pkgs[@]} packages ($first)" \
        mmdebstrap --variant=minbase --include="$include" --aptopt='APT::Install-Recommends "false"' \
            --dpkgopt=force-unsafe-io trixie "$ROOT" "$IOK_DEBIAN_MIRROR"
    cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
    [[ -z "$STAMPS" ]] || { mkdir -p "$STAMPS" && echo "${first_pkgs[*]}" > "$STAMPS/.iokernels-stamp-$first"; }
    unset -n first_pkgs
    missing=("${missing[@]:1}")
fi
if [[ -n "$ROOT" ]]; then
    # No services start inside the root (munge, slurmd): the tests start
    # what they need themselves.
    printf '#!/bin/sh\nexit 101\n' > "$ROOT/usr/sbin/policy-rc.d" && chmod +x "$ROOT/usr/sbin/policy-rc.d"
fi
[[ -z "$STAMPS" ]] || mkdir -p "$STAMPS"
for s in "${missing[@]}"; do
    need_root "installing packages"
    declare -n pkgs="IOK_PACKAGES_${s^^}"
    what="the $s packages"
    [[ "$s" == demo ]] && what="libraries and compiler"
    [[ "$s" == test ]] && what="test tools (Chromium, Slurm, munge, clang, valgrind, Python modules)"
    IOK_HINT="apt could not install them: check the network and the mirror, then run again (a second run resumes)" \
        iok_stage setup "installing ${#pkgs[@]} packages: $what" apt_install "${pkgs[@]}"
    echo "${pkgs[*]}" > "$STAMPS/.iokernels-stamp-$s"
    unset -n pkgs
done
if [[ "$want" == test ]] && ! venv_ready; then
    need_root "making $IOK_VENV"
    IOK_HINT="pip could not reach PyPI: check the network (a proxy's CA: PIP_CERT), then run again" \
        iok_stage setup "installing ${IOK_PIP_PACKAGES[*]} into $IOK_VENV" python_venv
fi
