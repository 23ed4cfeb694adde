"""The driver's promises, checked on the real program: the registries describe
every backend and strategy, --param keys are validated centrally on every
kernel, combinations a library cannot express exit 2 with one line, results
record the strategy beside the backend, and the layering holds in the
sources (kernels call no library, core includes no backend)."""
import json
import os
import re
import subprocess

import pytest

from conftest import IOKERNELS, SOURCE_DIR, assert_all_ranks_fail, iok, load_json, tool


def backends_json():
    out = subprocess.run([str(IOKERNELS), "backends", "--json"], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


REG = backends_json()
BACKENDS = [b["name"] for b in REG["backends"]]
STRATEGIES = [s["name"] for s in REG["strategies"]]


def test_registry_lists_backends_strategies_and_options():
    assert {"mpiio", "pnetcdf", "hdf5"} <= set(BACKENDS)
    assert STRATEGIES[0] == "canonical" and set(STRATEGIES) == {"canonical", "rearrange", "blob", "log"}
    by = {b["name"]: b for b in REG["backends"]}
    assert by["pnetcdf"]["extension"] == ".nc"
    api = {o["key"]: o for o in by["pnetcdf"]["options"]}["pnetcdf.api"]
    assert api["default"] == "varn" and api["choices"] == ["varn", "blocking", "vard"]
    fmt = {o["key"]: o for o in by["pnetcdf"]["options"]}["pnetcdf.format"]
    assert fmt["default"] == "cdf5" and fmt["choices"] == ["cdf5", "cdf2", "cdf1"]
    assert by["hdf5"]["capabilities"]["compound_files"] is True
    assert by["pnetcdf"]["capabilities"]["compound_files"] is False
    for b in REG["backends"]:  # every key carries its owner's prefix
        for o in b["options"]:
            assert o["key"].split(".")[0] in (b["name"], "hdf5"), o["key"]
    log = {s["name"]: s for s in REG["strategies"]}["log"]
    assert log["writes_with"] == "mpiio" and log["output_is_directory"] is True
    text = subprocess.run([str(IOKERNELS), "backends"], capture_output=True, text=True, check=True).stdout
    assert "--param rearrange.aggregators=" in text and "capabilities:" in text


def test_backends_refuses_unknown_option():
    p = subprocess.run([str(IOKERNELS), "backends", "--yaml"], capture_output=True, text=True)
    assert p.returncode == 2 and "unknown option '--yaml'" in p.stderr


def test_singleton_leaves_no_shared_memory_segment(tmp_path):
    """A program started without mpiexec is an MPI singleton; Open MPI 5 leaves
    its btl/sm segment file behind at exit (shown by a plain MPI_Init +
    MPI_Finalize program), ours take the transport out (core/mpi_layer.hpp)."""
    mpicc = tool("mpicc")
    src = tmp_path / "plain.c"
    src.write_text("#include <mpi.h>\nint main(int c, char** v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n")
    subprocess.run([str(mpicc), str(src), "-o", str(tmp_path / "plain")], check=True, capture_output=True)
    for name, argv in (("plain", [str(tmp_path / "plain")]), ("ours", [str(IOKERNELS), "backends"])):
        segs = tmp_path / f"sm_{name}"
        segs.mkdir()
        env = dict(os.environ, OMPI_MCA_btl="self,sm", OMPI_MCA_btl_sm_backing_directory=str(segs))
        for k in ("PMIX_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK"):
            env.pop(k, None)
        subprocess.run(argv, env=env, check=True, capture_output=True)
        left = sorted(p.name for p in segs.iterdir())
        if name == "plain":
            assert left and left[0].startswith("sm_segment"), left  # Open MPI's behaviour the fix is for
        else:
            assert left == [], left


KERNEL_ARGS = {
    "e3sm": ["-o", "{d}/f.nc", "{map}"],
    "s3d": ["--grid", "8,8,8", "-o", "{d}"],
    "gcrm": ["{d}/zgrd.in"],
    "vpic": ["--dim-1", "64", "-o", "{d}/p.h5"],
    "bdcats": ["--dim-1", "64", "-i", "{d}/p.h5"],
    "noncontig": ["-o", "{d}/nc.dat", "{map}"],
}


@pytest.fixture(scope="module")
def small_map(tmp_path_factory):
    d = tmp_path_factory.mktemp("map")
    subprocess.run([str(tool("e3sm_mapgen")), "-o", str(d / "map.nc"), "--ncol", "64", "--nlev", "4", "--nprocs", "4"],
                   check=True, capture_output=True)
    return d / "map.nc"


@pytest.mark.parametrize("kernel", sorted(KERNEL_ARGS))
def test_unknown_param_names_valid_keys(kernel, tmp_path, small_map):
    """A typo in --param is an error on every kernel, listing the valid keys."""
    args = [a.format(d=tmp_path, map=small_map) for a in KERNEL_ARGS[kernel]]
    p = iok(2, kernel, "--param", "nosuch=1", *args, check=False, timeout=60)
    assert_all_ranks_fail(p, "--param nosuch is not a setting of backend", "valid keys:")
    assert not list(tmp_path.glob("*.nc")) and not list(tmp_path.glob("*.h5"))


@pytest.mark.parametrize("value,fragment", [("pnetcdf.api=vardd", "use pnetcdf.api=varn|blocking|vard"),
                                            ("pnetcdf.format=cdf3", "use pnetcdf.format=cdf5|cdf2|cdf1"),
                                            ("rearrange.aggregators=2", "valid keys: pnetcdf.api"),
                                            ("pnetcdf.api", "write it as KEY=VALUE")])
def test_param_values_checked(tmp_path, value, fragment):
    p = iok(2, "s3d", "--grid", "8,8,8", "-o", tmp_path, "--param", value, check=False, timeout=60)
    assert_all_ranks_fail(p, fragment)


def test_old_unprefixed_keys_still_accepted(tmp_path, small_map):
    """README and seed wrappers used api=..., aggregators=...: renamed, not refused."""
    iok(4, "e3sm", "-r", "1", "-a", "pnetcdf", "-x", "rearrange", "--param", "api=blocking", "--param", "aggregators=2",
        "--json", tmp_path / "r.json", "-o", tmp_path / "f.nc", small_map, timeout=120)
    params = load_json(tmp_path / "r.json")["params"]
    assert params["backend_params"]["pnetcdf.api"] == "blocking"
    assert params["backend_params"]["rearrange.aggregators"] == "2"


def test_unexpressible_combination_exits_2(tmp_path):
    """A kernel need the library lacks: one line naming it and who has it, exit 2 on every rank."""
    p = iok(2, "vpic", "--dim-1", "64", "--file-pattern", "INTERLEAVED", "-a", "pnetcdf", "-o", tmp_path / "p.nc",
            check=False, timeout=60)
    assert p.returncode == 2, p.stderr
    assert_all_ranks_fail(p, "needs compound files, which backend pnetcdf does not have", "use -a hdf5")
    assert not (tmp_path / "p.nc").exists()


@pytest.mark.parametrize("strategy", ["rearrange", "blob", "log"])
def test_results_record_strategy_and_writing_library(tmp_path, strategy):
    out = tmp_path / "out"
    out.mkdir()
    iok(4, "s3d", "--grid", "16,16,8", "--procs", "2,2,1", "-c", "1", "-a", "hdf5", "-x", strategy, "-o", out,
        "--json", tmp_path / "r.json", "--csv", tmp_path / "r.csv", timeout=120)
    doc = load_json(tmp_path / "r.json")
    assert doc["params"]["strategy"] == strategy
    assert doc["params"]["backend"] == ("mpiio" if strategy == "log" else "hdf5")
    if strategy == "log":
        assert doc["params"]["requested_backend"] == "hdf5"
    modes = [(f["mode"], f["strategy"]) for f in doc["files"]]
    assert modes == [("write", strategy), ("read", strategy)]
    assert doc["files"][1]["verify"]["mismatches"] == 0
    rows = (tmp_path / "r.csv").read_text().splitlines()
    assert rows[0].startswith("kernel,backend,strategy,processes,label,mode")
    assert len(rows) == 3 and rows[1].split(",")[:4] == ["s3d", '"' + doc["params"]["backend"] + '"',
                                                          f'"{strategy}"', "4"]


def test_help_lists_common_options_with_defaults():
    for kernel in KERNEL_ARGS:
        out = subprocess.run([str(IOKERNELS), kernel, "--help"], capture_output=True, text=True, check=True).stdout
        assert re.search(r"-x,--strategy TEXT \[canonical\]", out), kernel
        assert "--param" in out and "-a,--api" in out, kernel


def sources(folder):
    return sorted((SOURCE_DIR / "src" / folder).rglob("*.[ch]pp"))


def test_layering_kernels_call_no_library_core_includes_no_backend():
    library_headers = re.compile(r'#include\s*[<"](pnetcdf\.h|hdf5\.h|netcdf\.h|netcdf_par\.h|adios2\.h|backends/)')
    offenders = [str(p) for p in sources("kernels") if library_headers.search(p.read_text())]
    assert offenders == [], "kernels must reach libraries through the driver only"
    offenders = [str(p) for p in sources("core") if re.search(r'#include\s*"(backends|driver|runner|kernels)/',
                                                                p.read_text())]
    assert offenders == [], "core serves all and depends on none of them"
    # No kernel calls MPI-IO: noncontig's reference path and `replay --calls
    # recorded` go through the MPI-IO backend like every other I/O.
    mpiio = [str(p) for p in sources("kernels") if re.search(r"\bMPI_File_\w+\s*\(", p.read_text())]
    assert mpiio == []
