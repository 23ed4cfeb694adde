# Shared settings for scripts/setup.sh and scripts/run.sh (sourced, not run).

# Where the Debian 13 root lives on hosts too old for the native packages.
# Outside the source tree so that fresh clones (and CI) reuse it.
IOK_SYSROOT="${IOK_SYSROOT:-/var/lib/iokernels/trixie-root}"
IOK_DEBIAN_MIRROR="${IOK_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

IOK_PACKAGES=(
    build-essential cmake ninja-build pkg-config git ca-certificates
    libopenmpi-dev openmpi-bin
    libpnetcdf-dev pnetcdf-bin
    libhdf5-mpi-dev hdf5-tools
    libnetcdf-mpi-dev netcdf-bin
    libadios2-mpi-c++11-dev libadios2-mpi-c-dev adios2-mpi-bin
    libcli11-dev nlohmann-json3-dev libgtest-dev
    python3 python3-pytest python3-numpy python3-matplotlib
    python3-mpi4py python3-h5py python3-h5py-mpi python3-netcdf4 python3-adios2 python3-adios2-mpi
    # the suite runner's HTML report is checked in a headless browser, its
    # Slurm batch scripts against a one-node Slurm on localhost
    chromium fonts-dejavu-core
    munge slurmctld slurmd slurm-client
    # tests/integration/test_install.py: pip-installs the suite runner into a
    # fresh venv (no network: setuptools from here) and loads the module files
    python3-setuptools python3-pip python3-venv lmod
    # bench/fuzz.sh: libFuzzer harnesses of the input parsers (not used by CI)
    clang libclang-rt-19-dev
    # scripts/format.sh (.clang-format) and scripts/tidy.sh (.clang-tidy)
    clang-format clang-tidy
    # profiling the kernels (bench/README.md: perf record, valgrind --tool=callgrind on one rank)
    linux-perf valgrind
)

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
