"""MPI-IO hints given at MPI_File_open take effect (src/open_hints).

Open MPI 5.0's ROMIO component drops every hint a program gives
MPI_File_open, and the ROMIO_HINTS file's value of a key the program also
names.  libiok_open_hints.so gives the per-access hints again with
MPI_File_set_info and the open-time ones (cb_buffer_size, cb_nodes, ...)
through a ROMIO hints file read at the process's first open, in our programs
(linked in) and in any other (LD_PRELOAD);
the manifest says which requested hints are in effect and which are not, and
a --hint that did not take is named on stderr.  The checks read the hints in
effect from ROMIO itself (MPI_File_get_info), on ROMIO."""
import json
import subprocess

import pytest

from conftest import BUILD_DIR, IOKERNELS, iok, mpirun
from test_noncontig import ompi_io_components

SHIM = BUILD_DIR / "src" / "open_hints" / "libiok_open_hints.so"

# Opens a file with the hints of argv[2..] ("key=value"), prints the hints in
# effect that were asked for, and writes 1 MiB a rank collectively, interleaved
# in 1 KiB blocks (the access collective buffering is for).
PROBE_C = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Info info;
    MPI_Info_create(&info);
    for (int i = 2; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        *eq = 0;
        MPI_Info_set(info, argv[i], eq + 1);
    }
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh) != MPI_SUCCESS) return 1;
    MPI_Datatype ft;
    MPI_Type_vector(1024, 1024, 1024 * size, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, (MPI_Offset)rank * 1024, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    char *buf = malloc(1 << 20);
    memset(buf, 'a' + rank, 1 << 20);
    MPI_File_write_all(fh, buf, 1 << 20, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_Info used;
    MPI_File_get_info(fh, &used);
    const char *keys[] = {"cb_buffer_size", "romio_cb_write", "romio_ds_write", "cb_nodes"};
    for (int k = 0; rank == 0 && k < 4; k++) {
        char v[MPI_MAX_INFO_VAL + 1];
        int flag;
        MPI_Info_get(used, keys[k], MPI_MAX_INFO_VAL, v, &flag);
        printf("%s=%s\n", keys[k], flag ? v : "-");
    }
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
"""


@pytest.fixture(scope="module")
def romio():
    """OMPI_MCA_io value of this Open MPI's ROMIO component."""
    names = sorted(c for c in ompi_io_components() if c.startswith("romio"))
    if not names:
        pytest.skip("this Open MPI has no ROMIO io component")
    return names[0]


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    d = tmp_path_factory.mktemp("open_hints")
    (d / "probe.c").write_text(PROBE_C)
    subprocess.run(["mpicc", "-O2", "-o", str(d / "probe"), str(d / "probe.c")], check=True)
    return d / "probe"


def run_probe(probe, out, romio, hints, env=None):
    p = mpirun(2, [probe, out, *hints], env={"OMPI_MCA_io": romio, **(env or {})})
    return dict(line.split("=", 1) for line in p.stdout.split())


def test_a_program_given_the_library_keeps_its_hints(probe, tmp_path, romio):
    """LD_PRELOAD: the probe's own hints are in effect, per-access ones given
    again after the open, open-time ones (cb_buffer_size above the default,
    cb_nodes with cb_config_list) through the hints file at its first open;
    ROMIO_HINTS adds the keys the program did not give (the program's value
    wins where both do).  IOK_OPEN_HINTS=as-mpi gives exactly what the MPI
    library gives without the library (the negative: the library is what
    changed the hints), and no hints file is left behind."""
    hints = ["cb_buffer_size=33554432", "romio_cb_write=disable", "romio_ds_write=disable", "cb_nodes=2",
             "cb_config_list=*:2"]
    bare = run_probe(probe, tmp_path / "a", romio, hints)
    env = {"LD_PRELOAD": str(SHIM), "TMPDIR": str(tmp_path)}
    kept = run_probe(probe, tmp_path / "b", romio, hints, env)
    assert kept == {"cb_buffer_size": "33554432", "romio_cb_write": "disable", "romio_ds_write": "disable",
                    "cb_nodes": "2"}
    off = run_probe(probe, tmp_path / "c", romio, hints, {**env, "IOK_OPEN_HINTS": "as-mpi"})
    assert off == bare
    file = tmp_path / "romio_hints"
    file.write_text("# a comment\nromio_ds_write disable\nromio_cb_write enable\ncb_buffer_size 524288\n")
    merged = run_probe(probe, tmp_path / "d", romio, ["romio_cb_write=disable", "cb_buffer_size=1048576"],
                       {**env, "ROMIO_HINTS": str(file)})
    assert merged["romio_ds_write"] == "disable" and merged["romio_cb_write"] == "disable"
    assert merged["cb_buffer_size"] == "1048576"
    assert not list(tmp_path.glob("iok_romio_hints_*"))
    # Every rank wrote its blocks where the view put them.
    data = (tmp_path / "d").read_bytes()
    assert len(data) == 2 << 20 and data[:1024] == b"a" * 1024 and data[1024:2048] == b"b" * 1024


def test_this_open_mpi_drops_open_hints(probe, tmp_path, romio):
    """What the library is for, measured on the stack the suite runs on:
    without it, a hint given at MPI_File_open is not in effect.  (An MPI
    whose ROMIO keeps them fails this test: then the library only costs one
    MPI_Allreduce an open, and docs/compatibility.md should say so.)"""
    bare = run_probe(probe, tmp_path / "a", romio, ["cb_buffer_size=262144"])
    assert bare["cb_buffer_size"] != "262144"


@pytest.mark.parametrize("api", ["pnetcdf", "hdf5"])
def test_the_manifest_says_which_hints_took_effect(tmp_path, romio, api):
    """iokernels links the library ahead of MPI, so the I/O libraries' own
    MPI_File_open reaches it: --hints are in effect on PnetCDF and HDF5 files,
    open-time ones included (the driver gives them to the library before any
    file is opened).  The manifest lists the hints asked for and those not in
    effect, and stderr names a --hint that did not take: cb_nodes=2 without
    cb_config_list stays 1, ROMIO's one aggregator per node.  With
    --open-hints as-mpi the same run lists what the MPI dropped; a mode it
    does not know is refused."""
    base = ["s3d", "-a", api, "--grid", "8,8,8", "--procs", "2,1,1", "-c", "1", "-q",
            "--hint", "cb_buffer_size=262144", "--hint", "romio_cb_write=disable"]
    out = tmp_path / "r.json"
    for d in "abc":
        (tmp_path / d).mkdir()
    iok(2, *base, "--hint", "cb_nodes=2", "--hint", "cb_config_list=*:2", "-o", tmp_path / "a", "--json", out,
        env={"OMPI_MCA_io": romio})
    m = json.loads(out.read_text())["manifest"]
    assert m["mpiio_open_hints"] == "reapply" and m["mpiio_hints_not_in_effect"] == {}
    assert (m["mpiio_hints"]["cb_buffer_size"], m["mpiio_hints"]["cb_nodes"], m["mpiio_hints"]["romio_cb_write"]) \
        == ("262144", "2", "disable")
    assert m["mpiio_hints_requested"]["cb_nodes"] == "2"
    p = iok(2, *base, "--hint", "cb_nodes=2", "-o", tmp_path / "b", "--json", out, env={"OMPI_MCA_io": romio})
    m = json.loads(out.read_text())["manifest"]
    assert m["mpiio_hints_not_in_effect"] == {"cb_nodes": {"requested": "2", "in_effect": "1"}}
    assert "MPI-IO hint(s) not in effect: cb_nodes=2 (in effect: 1)\n" in p.stderr
    mpirun(2, [IOKERNELS, "--open-hints", "as-mpi", *base, "-o", tmp_path / "c", "--json", out],
           env={"OMPI_MCA_io": romio})
    m = json.loads(out.read_text())["manifest"]
    assert m["mpiio_open_hints"] == "as-mpi"
    assert m["mpiio_hints_not_in_effect"] == {"cb_buffer_size": {"requested": "262144", "in_effect": "16777216"},
                                              "romio_cb_write": {"requested": "disable", "in_effect": "automatic"}}
    bad = subprocess.run([str(IOKERNELS), "--open-hints", "off", *base], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("iokernels: error: --open-hints off: not a mode\n  hint: ")


def test_the_programs_link_the_library_ahead_of_mpi():
    """The order that makes the I/O libraries reach it: before libmpi among
    the program's needed libraries."""
    for prog in (IOKERNELS, BUILD_DIR / "src" / "raw_write"):
        needed = [line.split("[", 1)[1].rstrip("]") for line in
                  subprocess.run(["readelf", "-d", str(prog)], capture_output=True, text=True, check=True)
                  .stdout.splitlines() if "(NEEDED)" in line]
        mpi = next(i for i, n in enumerate(needed) if n.startswith("libmpi"))
        assert "libiok_open_hints.so" in needed[:mpi], needed


def test_a_suite_sweep_marks_the_hints_not_in_effect(tmp_path):
    """A suite sweeping cb_nodes on ROMIO without cb_config_list: the progress
    line and the report say which values did not take (cb_nodes=2 stays 1:
    ROMIO places one aggregator per node), so the axis is not read as a
    measurement of it; romio_ds_write did take."""
    from suite_cli import cli, ok
    s = tmp_path / "s.toml"
    s.write_text('[suite]\nio_layer = "romio"\n[[case]]\nkernel = "raw_write"\nranks = 2\n'
                 'hints = { cb_nodes = [1, 2], romio_ds_write = "disable" }\n'
                 'args = ["-n", "1048576", "-o", "{outdir}/raw.dat"]\n')
    p = ok(cli("run", s, "--results", tmp_path / "r"))
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("[")]
    assert len(lines) == 2 and "(not in effect" not in lines[0], lines
    assert lines[1].endswith(" MiB/s (not in effect: cb_nodes=2)"), lines
    rep = ok(cli("report", tmp_path / "r")).stdout
    assert "cb_nodes=1 romio_ds_write=disable " in rep
    assert "cb_nodes=2(not in effect: 1) romio_ds_write=disable " in rep and "romio_ds_write=disable(not" not in rep
