# Shared settings for scripts/setup.sh and scripts/run.sh (sourced, not run).

# Where the Debian 13 root lives on hosts too old for the native packages.
# Outside the source tree so that fresh clones (and CI) reuse it.
IOK_SYSROOT="${IOK_SYSROOT:-/var/lib/iokernels/trixie-root}"
IOK_DEBIAN_MIRROR="${IOK_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

# The packages, in two sets installed by need (scripts/setup.sh demo|test):
# what building and running a kernel needs, and what only the tests need on
# top.  Each set carries its own stamp, so a second run checks two small files.
IOK_PACKAGES_DEMO=(
    build-essential cmake ninja-build pkg-config git ca-certificates
    libopenmpi-dev openmpi-bin
    libpnetcdf-dev pnetcdf-bin
    libhdf5-mpi-dev hdf5-tools
    libnetcdf-mpi-dev netcdf-bin
    libadios2-mpi-c++11-dev libadios2-mpi-c-dev adios2-mpi-bin
    libcli11-dev nlohmann-json3-dev
    python3
)
IOK_PACKAGES_TEST=(
    libgtest-dev
    python3-pytest python3-numpy python3-matplotlib
    python3-mpi4py python3-h5py python3-h5py-mpi python3-netcdf4 python3-adios2 python3-adios2-mpi
    # the build's own virtual environment for the integration tests (tests/CMakeLists.txt)
    # and tests/integration/test_install.py: pip-installs the suite runner into a
    # fresh venv (no network: setuptools from here) and loads the module files
    python3-setuptools python3-pip python3-venv lmod
    # the suite runner's HTML report is checked in a headless browser, its
    # Slurm batch scripts against a one-node Slurm on localhost
    chromium fonts-dejavu-core
    munge slurmctld slurmd slurm-client
    # bench/fuzz.sh: libFuzzer harnesses of the input parsers (not used by CI)
    clang libclang-rt-19-dev
    # scripts/format.sh (.clang-format) and scripts/tidy.sh (.clang-tidy)
    clang-format clang-tidy
    # profiling the kernels (bench/README.md: perf record, valgrind --tool=callgrind on one rank)
    linux-perf valgrind
    # rebuilds after a fresh clone or a reformat reuse the compiled objects (scripts/iok: CCACHE_BASEDIR)
    ccache
)
# Everything (the older single list; its stamp is still honoured).
IOK_PACKAGES=("${IOK_PACKAGES_DEMO[@]}" "${IOK_PACKAGES_TEST[@]}")

# Python tools from PyPI (Debian 13 has no ruff), in a virtual environment
# that sees the distribution's packages (numpy, h5py, netCDF4, adios2, pytest):
# the python.lint test's ruff and mypy.  Inside the root when there is one.
IOK_VENV="${IOK_VENV:-/opt/iokernels-venv}"
IOK_PIP_PACKAGES=(ruff==0.17.6 mypy==2.4.1 darshan==3.5.0)

# True when the host itself has the libraries we need in its archive
# (Debian >= 13, Ubuntu >= 24.04).
iok_host_is_new_enough() {
    [[ -r /etc/os-release ]] || return 1
    local id ver
    id=$(. /etc/os-release; echo "${ID:-}")
    ver=$(. /etc/os-release; echo "${VERSION_ID:-0}")
    case "$id" in
        debian) [[ "${ver%%.*}" -ge 13 ]] ;;
        ubuntu) [[ "${ver%%.*}" -ge 24 ]] ;;
        *) return 1 ;;
    esac
}

# --- stamps ------------------------------------------------------------------
# A package set is installed when its stamp lists exactly its packages, or
# when the older all-in-one stamp (.iokernels-stamp) lists every one of them.
# Reading a file or two: a second run starts at once.
iok_stamp_dir() {  # where the stamps of this host's library stack live
    if ! iok_host_is_new_enough; then
        echo "$IOK_SYSROOT"
    elif compgen -G '/.iokernels-stamp*' >/dev/null; then
        echo ""  # inside the Debian 13 root itself (scripts/run.sh): its own stamps, at /
    else
        echo /var/lib/iokernels-native
    fi
}
iok_set_ready() {  # iok_set_ready demo|test
    local dir set="$1" want have p
    dir="$(iok_stamp_dir)"
    local -n pkgs="IOK_PACKAGES_${set^^}"
    want="${pkgs[*]}"
    [[ -f "$dir/.iokernels-stamp-$set" && "$(cat "$dir/.iokernels-stamp-$set")" == "$want" ]] && return 0
    [[ -f "$dir/.iokernels-stamp" ]] || return 1
    have=" $(cat "$dir/.iokernels-stamp") "
    for p in "${pkgs[@]}"; do [[ "$have" == *" $p "* ]] || return 1; done
}

# --- quiet stages ------------------------------------------------------------
# iok_stage TAG LABEL CMD...: one line "[TAG] LABEL … 58 s"; CMD's output goes
# to $IOK_LOG (also to the terminal when IOK_VERBOSE=1).  On failure: the
# log's last lines, where the whole log is, and $IOK_HINT (what to do).
# CMD runs with errexit off (as in any condition): a function given as CMD
# chains its commands with && so that its status is the first failure's.
IOK_LOG="${IOK_LOG:-/tmp/iokernels-setup.log}"
IOK_VERBOSE="${IOK_VERBOSE:-0}"
iok_elapsed() {  # seconds -> "58 s" / "3 min 12 s"
    local s="$1"
    if ((s < 60)); then echo "$s s"; else echo "$((s / 60)) min $((s % 60)) s"; fi
}
iok_say() { printf '[%s] %s\n' "$1" "$2" >&2; }
iok_stage() {
    local tag="$1" label="$2"; shift 2
    local t0=$SECONDS rc=0
    printf '\n=== [%s] %s (%s)\n' "$tag" "$label" "$(date -u +%H:%M:%S)" >>"$IOK_LOG"
    if [[ "$IOK_VERBOSE" == 1 ]]; then
        printf '[%s] %s …\n' "$tag" "$label" >&2
        set +e
        { "$@" 2>&1 </dev/null; } | tee -a "$IOK_LOG" >&2
        rc=${PIPESTATUS[0]}
        set -e
    else
        printf '[%s] %s … ' "$tag" "$label" >&2
        "$@" >>"$IOK_LOG" 2>&1 </dev/null || rc=$?
    fi
    if ((rc == 0)); then
        if [[ "$IOK_VERBOSE" == 1 ]]; then
            printf '[%s] %s: done, %s\n' "$tag" "$label" "$(iok_elapsed $((SECONDS - t0)))" >&2
        else
            printf '%s\n' "$(iok_elapsed $((SECONDS - t0)))" >&2
        fi
        return 0
    fi
    [[ "$IOK_VERBOSE" == 1 ]] || printf 'FAILED after %s\n' "$(iok_elapsed $((SECONDS - t0)))" >&2
    iok_fail "$tag" "$label failed (exit status $rc)" "$rc"
}
iok_fail() {  # iok_fail TAG MESSAGE [STATUS]: the log's tail, what to do, exit
    local tag="$1" msg="$2" rc="${3:-1}"
    {
        printf '[%s] %s\n' "$tag" "$msg"
        if [[ "$IOK_VERBOSE" != 1 && -s "$IOK_LOG" ]]; then
            printf '[%s] last lines of %s:\n' "$tag" "$IOK_LOG"
            tail -n 25 "$IOK_LOG" | sed 's/^/    /'
        fi
        [[ -n "${IOK_HINT:-}" ]] && printf '[%s] what to do: %s\n' "$tag" "$IOK_HINT"
        printf '[%s] whole log: %s; run again with -v to see everything as it happens\n' "$tag" "$IOK_LOG"
    } >&2
    exit "$rc"
}
