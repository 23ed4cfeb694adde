"""Small, self-made inputs for the kernels, so tests need nothing from ../shared.

gcrm_inputs() writes a minimal GCRM input set in the reference's syntax
(zgrd.in parameters, ZGrd.desc variable description, .fcfg file
configuration): a few history variables on cells, corners and edges, the
grid variables of the separate grid file, two restart variables, physics off.
At level 3 (model step 900 s) with 30 simulated minutes and history and
restart every 900 s it makes 3 dumps.  The file configuration comes in three
layouts, as the reference's own configurations do: fields in groups, every
field in one file, one file per field.

mpi_io_test_decomposition() writes a decomposition in the format of
E3SM-IO's mpi_io_test (a CDF-1 file of per-process offsets and lengths),
byte by byte, with no NetCDF library: loading netCDF4 next to h5py in one
process crashes.

h5bench_config() writes an h5bench KEY=VALUE configuration.

e3sm_map() writes a small F-case-like decomposition map with the project's
own e3sm_mapgen tool.

replay_trace() writes an MPI-IO trace as libiok_capture.so does (version 2,
docs/capture_trace.md) of a small job that nobody has to run.
"""
import json
import random
import struct
import subprocess
from pathlib import Path

GCRM_PARAMS = """\
! minimal GCRM parameter file (zgrd.in syntax) written by tests/integration/gen_inputs.py
level_max 3
end_days    0
end_hours   0
end_minutes 30
end_seconds 0
physics_mode disabled
iotype           nonblocking_collective
io_desc_file     {desc}
io_config_file   {fcfg}
cdf_output_path  ./
cdf_output_frequency 900     ! one history record per model step at level 3
cdf_output_nsamples  2       ! two records per history file: 3 dumps make 2 files per group
cdf_grid_option      sep_grid
cdf_sep_grid         grid
restart_interval   1800
restart_output     restart.nc
restart_overwrite  false
"""

# name, type, dimension keywords, extra lines
_GCRM_VARS = [
    ("time", "double", "time", ['units "days since 1901-01-01"', 'long_name "Time"', "restart"]),
    ("grid_center_lat", "float", "cells", ['units radians', 'long_name "Latitude of cell center"', "isgridvar"]),
    ("grid_center_lon", "float", "cells", ['units radians', 'long_name "Longitude of cell center"', "isgridvar"]),
    ("grid_corner_lat", "float", "cells i_cell_corners", ['long_name "Latitude of unique cell corners"', "isgridvar"]),
    ("cell_edges", "integer", "cells celledges", ['long_name "Indices of cell edges"', "isgridvar"]),
    ("edge_corners", "integer", "endpoints i_uniq_edge", ['long_name "Corners that define this edge"', "isgridvar"]),
    ("relative", "float", "time cells layers", ['units sec**-1', 'long_name "Relative vorticity"']),
    ("mass", "float", "time cells layers nprog", ['units Pa/K', 'long_name "Mass or pseudo-density"']),
    ("pressure", "float", "time cells interfaces", ['units Pa', 'long_name "Pressure"']),
    ("u", "float", "time ns_ew i_uniq_corner layers",
     ['units m/sec', 'long_name "U wind at corners"', "slice component 1"]),
    ("wind", "float", "time cells i_cell_edges layers", ['units m/sec', 'long_name "Wind at faces"']),
    ("clus_mask", "float", "time cells", ['units none', 'long_name "Cluster mask"']),
    ("dbl_psi", "double", "time cells layers", ['long_name "psi array in model"', "restart"]),
    ("dbl_mss", "double", "time cells nprog", ['long_name "mss array"', "index all", "restart"]),
]

# file prefix -> fields (time is added to every history file by the kernel)
_GCRM_FILES = [
    ("vorticity_mass_", ["relative", "mass"]),
    ("state_", ["pressure", "clus_mask"]),
    ("wind_", ["u", "wind"]),
]
_GCRM_FIELDS = [f for _, fields in _GCRM_FILES for f in fields]
GCRM_LAYOUTS = {
    "groups": _GCRM_FILES,
    "one": [("all_", _GCRM_FIELDS)],
    "each": [(f"{f}_", [f]) for f in _GCRM_FIELDS],
}


def gcrm_vars():
    """The description's variables: name -> (type, dimension keywords, extra lines)."""
    return {name: (typ, dims.split(), extra) for name, typ, dims, extra in _GCRM_VARS}


def gcrm_inputs(directory, layout="groups"):
    """Writes zgrd.in, mini.desc and mini.fcfg (fields grouped as GCRM_LAYOUTS[layout])
    into directory; returns the parameter file path."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    desc = ['property title "iokernels matrix test"', 'property institution "test"', ""]
    for name, typ, dims, extra in _GCRM_VARS:
        desc += [f"name {name}", f"type {typ}", f"dimension {dims}", *extra, ""]
    (d / "mini.desc").write_text("\n".join(desc))
    fcfg = []
    for prefix, fields in GCRM_LAYOUTS[layout]:
        fcfg += ["#", f'file_prefix "{prefix}"', "field     time", *[f"field     {f}" for f in fields]]
    (d / "mini.fcfg").write_text("\n".join(fcfg) + "\n")
    param = d / "zgrd.in"
    param.write_text(GCRM_PARAMS.format(desc="mini.desc", fcfg="mini.fcfg"))
    return param


def _cdf_name(name):
    b = name.encode()
    return struct.pack(">i", len(b)) + b + b"\0" * (-len(b) % 4)


def write_cdf1_ints(path, dims, variables):
    """A NetCDF classic (CDF-1) file of 1-D int variables, no attributes, no
    record dimension: dims [(name, length)], variables [(name, dim name, values)]."""
    dim_id = {name: i for i, (name, _) in enumerate(dims)}
    head = b"CDF\x01" + struct.pack(">i", 0)
    head += struct.pack(">ii", 0x0A, len(dims)) + b"".join(_cdf_name(n) + struct.pack(">i", size) for n, size in dims)
    head += struct.pack(">ii", 0, 0)  # no global attributes
    entries = [(_cdf_name(n) + struct.pack(">ii", 1, dim_id[d]) + struct.pack(">iiii", 0, 0, 4, 4 * len(v)), v)
               for n, d, v in variables]  # + begin (4 bytes) each
    begin = len(head) + 8 + sum(len(e) + 4 for e, _ in entries)
    body, data = [], []
    for e, v in entries:
        body.append(e + struct.pack(">i", begin))
        data.append(struct.pack(f">{len(v)}i", *v))
        begin += 4 * len(v)
    Path(path).write_bytes(head + struct.pack(">ii", 0x0B, len(entries)) + b"".join(body) + b"".join(data))
    return Path(path)


def mpi_io_test_decomposition(path, nprocs=32, array_size=6000, lengths=(1, 6), seed=1):
    """Writes an mpi_io_test decomposition like the real D2 (short runs of
    `lengths` floats, every element covered exactly once, each process's runs
    sorted and never adjacent); returns [(offsets, lengths)] per process."""
    rng = random.Random(seed)
    procs = [([], []) for _ in range(nprocs)]
    at, last = 0, -1
    while at < array_size:
        n = min(rng.randint(*lengths), array_size - at)
        p = rng.choice([q for q in range(nprocs) if q != last])
        procs[p][0].append(at)
        procs[p][1].append(n)
        at, last = at + n, p
    assert all(off for off, _ in procs), "a process without runs: use fewer processes or a larger array"
    dims = [("num_procs", nprocs), ("array_size", array_size)] + [(f"nreq_{p:05d}", len(o)) for p, (o, _) in
                                                                   enumerate(procs)]
    variables = []
    for p, (o, n) in enumerate(procs):
        variables += [(f"off_{p:05d}", f"nreq_{p:05d}", o), (f"len_{p:05d}", f"nreq_{p:05d}", n)]
    write_cdf1_ints(path, dims, variables)
    return procs


def h5bench_config(path, **kv):
    """Writes an h5bench configuration (one KEY=VALUE a line); returns its path."""
    Path(path).write_text("".join(f"{k}={v}\n" for k, v in kv.items()))
    return Path(path)


def e3sm_map(mapgen, path, ncol=64, nlev=4, nprocs=4, seed=1):
    """Writes a small F-case-like map with e3sm_mapgen; returns its path."""
    subprocess.run([str(mapgen), "-o", str(path), "--ncol", str(ncol), "--nlev", str(nlev),
                    "--nprocs", str(nprocs), "--seed", str(seed)], check=True, capture_output=True, text=True)
    return Path(path)


def write_pio_dat(path, dims, procs):
    """A PIO decomposition text file (.dat) as E3SM writes them: header
    'version 2001 npes N ndims K', the dimensions in Fortran order (fastest
    first), then per process its rank and count, and its 1-based offsets
    (0 = an entry the process skips).  Returns path."""
    lines = [f"version 2001 npes {len(procs)} ndims {len(dims)} ", " ".join(map(str, dims)) + " "]
    for rank, offs in enumerate(procs):
        lines += [f"{rank} {len(offs)}", " ".join(map(str, offs)) + " "]
    Path(path).write_text("\n".join(lines) + "\n")
    return Path(path)


# replay_trace's job: rank 0 writes a header, then every rank writes BLOCKS
# blocks through a strided view (its blocks interleaved with the others'),
# then every rank reads the header.
TRACE_HEADER, TRACE_BLOCK, TRACE_BLOCKS = 512, 256, 8


def replay_trace(path, nranks=4, captured_file="/scratch/app/matrix.dat"):
    """Writes the trace of the job above on nranks ranks; returns its path.
    The captured file is HEADER + nranks * BLOCKS * BLOCK bytes, every byte
    written once."""
    extent = nranks * TRACE_BLOCK
    contiguous = {"size": 1, "extent": 1, "runs": [0, 1, 0, 1]}
    strided = {"size": TRACE_BLOCK, "extent": extent, "runs": [0, TRACE_BLOCK, 0, 1]}
    write, collective, explicit = 1, 2, 4
    ranks = []
    for r in range(nranks):
        # [flags, shape, disp, voff, bytes, count, dstep, vstep, t_first, t_end, busy, views, view_step]
        ops = []
        if r == 0:
            ops.append([write | explicit, 0, 0, 0, TRACE_HEADER, 1, 0, 0, 0.001, 0.002, 0.001, 0, 0])
        ops.append([write | collective | explicit, 1, TRACE_HEADER + r * TRACE_BLOCK, 0, TRACE_BLOCKS * TRACE_BLOCK,
                    1, 0, 0, 0.003, 0.004, 0.001, 1, 0])
        ops.append([explicit, 0, 0, 0, TRACE_HEADER, 1, 0, 0, 0.005, 0.006, 0.001, 1, 0])
        session = {"file": captured_file, "amode": 9, "comm_size": nranks, "comm_rank": r, "hints": {},
                   "open": 0.0, "close": 0.007, "set_views": 2, "unknown_views": 0, "ops": ops}
        ranks.append({"rank": r, "sessions": [session], "shapes": [contiguous, strided]})
    doc = {"format": "iokernels-trace", "version": 2, "nranks": nranks, "program": "gen_inputs.replay_trace",
           "mpi": "none (generated)", "ranks": ranks}
    Path(path).write_text(json.dumps(doc))
    return Path(path)
