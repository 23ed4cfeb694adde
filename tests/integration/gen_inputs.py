"""Small, self-made inputs for the kernels, so tests need nothing from ../shared.

gcrm_inputs() writes a minimal GCRM input set in the reference's syntax
(zgrd.in parameters, ZGrd.desc variable description, .fcfg file
configuration): a few history variables on cells, corners and edges, the
grid variables of the separate grid file, two restart variables, physics off.
At level 3 (model step 900 s) with 30 simulated minutes and history and
restart every 900 s it makes 3 dumps.

e3sm_map() writes a small F-case-like decomposition map with the project's
own e3sm_mapgen tool.
"""
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
    ("u", "float", "time ns_ew i_uniq_corner layers", ['units m/sec', 'long_name "U wind at corners"', "slice component 1"]),
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


def gcrm_inputs(directory):
    """Writes zgrd.in, mini.desc and mini.fcfg into directory; returns the parameter file path."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    desc = ['property title "iokernels matrix test"', 'property institution "test"', ""]
    for name, typ, dims, extra in _GCRM_VARS:
        desc += [f"name {name}", f"type {typ}", f"dimension {dims}", *extra, ""]
    (d / "mini.desc").write_text("\n".join(desc))
    fcfg = []
    for prefix, fields in _GCRM_FILES:
        fcfg += ["#", f'file_prefix "{prefix}"', "field     time", *[f"field     {f}" for f in fields]]
    (d / "mini.fcfg").write_text("\n".join(fcfg) + "\n")
    param = d / "zgrd.in"
    param.write_text(GCRM_PARAMS.format(desc="mini.desc", fcfg="mini.fcfg"))
    return param


def e3sm_map(mapgen, path, ncol=64, nlev=4, nprocs=4, seed=1):
    """Writes a small F-case-like map with e3sm_mapgen; returns its path."""
    subprocess.run([str(mapgen), "-o", str(path), "--ncol", str(ncol), "--nlev", str(nlev),
                    "--nprocs", str(nprocs), "--seed", str(seed)], check=True, capture_output=True, text=True)
    return Path(path)
