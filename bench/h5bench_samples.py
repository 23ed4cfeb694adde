#!/usr/bin/env python3
"""h5bench's sample configurations, as they are, through the suite runner (shrunk sizes).

    scripts/run.sh python3 bench/h5bench_samples.py --samples H5BENCH/samples [--glob 'sync-*.json']
                                                    [--work DIR] [--particles 4096]

h5bench (github.com/hpc-io/h5bench) ships JSON driver configurations in its
samples/ folder.  This script takes each one matching --glob, shrinks only its
sizes -- particles per rank to at most --particles (DIM_1, with BLOCK_CNT,
STDEV_DIM_1 and NUM_PARTICLES scaled alike; 2-D/3-D sides to at most 64/16;
openpmd's minBlock halved to at most 4 cells a side),
emulated compute to 1 ms per step, amrex to 16 cells a side without sleeps,
macsio to 64K parts and 2 dumps, e3sm's records to 2 and its map to one
e3sm_mapgen makes (HDF5, the sample's rank count); an overwrite/append entry
on a file no earlier entry writes gets a write entry before it (h5bench
leaves making that file to the user) -- and runs it with
`python3 -m iokernels run`.  Every other key, benchmark name and MPI setting
stays as the sample has it.  Nothing of h5bench is stored in this repository:
point --samples at a checkout.

The table says, per sample, what happened: "ok" (every entry ran, reads
verified), "refused" (the runner named why before running), or "failed" with
the first error line of the entry that failed.  Exit status 0 when no sample
failed.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import checkout  # noqa: F401  (the checkout's python/ when iokernels is not installed)
from iokernels import h5bench_form, paths
from iokernels.table import render


def count_of(text):
    """h5bench's counts: "4194304", "1 M", "16K" -> int."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMGT]?)\s*", str(text), re.IGNORECASE)
    if not m:
        return None
    return int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(2).upper()]


def shrink_pattern(cfg, particles):
    """Sizes of one h5bench_patterns configuration scaled down, in place."""
    nd = int(cfg.get("NUM_DIMS", "1"))
    dims = [count_of(cfg.get(f"DIM_{d}", "1")) or 1 for d in (1, 2, 3)]
    if nd == 1:
        factor = max(1, -(-dims[0] // particles))
    else:
        side = 64 if nd == 2 else 16
        factor = max(1, -(-max(dims[:nd]) // side))
    if factor > 1:
        for d in range(nd):
            cfg[f"DIM_{d + 1}"] = str(max(1, dims[d] // factor))
        for key in ("BLOCK_CNT", "STDEV_DIM_1", "NUM_PARTICLES", "TO_READ_NUM_PARTICLES"):
            if key in cfg and count_of(cfg[key]):
                cfg[key] = str(max(1, count_of(cfg[key]) // factor))
    if "EMULATED_COMPUTE_TIME_PER_TIMESTEP" in cfg:
        cfg["EMULATED_COMPUTE_TIME_PER_TIMESTEP"] = "1 ms"
    return factor


def shrink_openpmd(cfg):
    """openpmd write: minBlock halved until a mini block has at most 4^dim cells
    (the grid, which fixes how the ranks share the mesh, stays)."""
    if "minBlock" not in cfg:
        return 1
    block = [int(x) for x in str(cfg["minBlock"]).split()]
    factor = 1
    while max(block) > 4 and all(b % 2 == 0 for b in block):
        block = [b // 2 for b in block]
        factor *= 2
    cfg["minBlock"] = " ".join(map(str, block))
    return factor


def make_map(build, path, nprocs):
    subprocess.run([str(paths.program(build, "e3sm_mapgen")), "--case", "F", "--nprocs", str(nprocs),
                    "--format", "hdf5", "-o", str(path)], check=True, capture_output=True, timeout=600)


def shrink(doc, particles, work, build):
    notes = []
    for b in doc.get("benchmarks", []):
        cfg = b.get("configuration", {})
        if b.get("benchmark") == "e3sm":
            ranks = h5bench_form._launcher(doc["mpi"], "sample")[1]
            mp = work / f"map_f_{ranks}p.h5"
            if not mp.exists():
                make_map(build, mp, ranks)
            notes.append(f"e3sm map {cfg.get('map')} -> generated F map ({ranks} procs), -r {cfg.get('r')} -> 2")
            cfg["map"] = str(mp)
            if "r" in cfg:
                cfg["r"] = "2"
        elif b.get("benchmark") == "amrex":
            if int(cfg.get("ncells", 0)) > 16:
                notes.append(f"amrex: ncells {cfg['ncells']} -> 16")
                cfg["ncells"] = "16"
            if int(cfg.get("sleeptime", 0)) > 0:
                notes.append(f"amrex: sleeptime {cfg['sleeptime']} -> 0")
                cfg["sleeptime"] = "0"
        elif b.get("benchmark") == "macsio":
            notes.append(f"macsio: part_size {cfg.get('part_size', '80000')} -> 64K, num_dumps -> 2")
            cfg["part_size"] = "64K"
            cfg["num_dumps"] = "2"
        elif b.get("benchmark") == "openpmd":
            f = shrink_openpmd(cfg)
            if f > 1:
                notes.append(f"openpmd: minBlock / {f}")
        elif b.get("benchmark") in h5bench_form.BENCHMARKS:
            f = shrink_pattern(cfg, particles)
            if f > 1:
                notes.append(f"{b['benchmark']}: sizes / {f}")
    return notes


def existing_file_first(doc):
    """h5bench's overwrite and append benchmarks update a file that must
    exist; its sync-overwrite/-append samples leave that to the user (alone,
    h5bench_overwrite prints an error and exits 0).  A file an entry updates
    before any entry writes it is written first by a `write` entry (append:
    `write-unlimited`) with the same configuration."""
    notes, written, out = [], set(), []
    for b in doc.get("benchmarks", []):
        name, file = b.get("benchmark"), b.get("file")
        if name in ("overwrite", "append") and file not in written:
            maker = "write" if name == "overwrite" else "write-unlimited"
            cfg = {k: v for k, v in b.get("configuration", {}).items() if k not in ("READ_OPTION", "CSV_FILE")}
            out.append({"benchmark": maker, "file": file, "configuration": cfg})
            notes.append(f"{file} written first by {maker} (h5bench's {name} needs it)")
        if name in ("write", "write-unlimited", "write_var_normal_dist", "write_normal_dist", "overwrite", "append"):
            written.add(file)
        out.append(b)
    doc["benchmarks"] = out
    return notes


def first_error(text):
    for line in text.splitlines():
        if "error" in line.lower():
            return line.strip()[:160]
    return text.strip().splitlines()[-1][:160] if text.strip() else ""


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--samples", required=True, help="h5bench's samples/ directory")
    p.add_argument("--glob", default="sync-*.json", help="which samples (default sync-*.json)")
    p.add_argument("--work", default="results/h5bench-samples", help="working directory (cleared)")
    p.add_argument("--particles", type=int, default=4096, help="at most this many particles per rank (1-D)")
    p.add_argument("--build-dir", help="build directory (default: IOK_BUILD_DIR or build/)")
    a = p.parse_args()
    build = paths.build_dir(a.build_dir)
    samples = sorted(Path(a.samples).glob(a.glob))
    if not samples:
        sys.exit(f"error: no {a.glob} in {a.samples}\n"
                 "  hint: give h5bench's samples/ folder (git clone hpc-io/h5bench)")
    work = Path(a.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    rows, ran, refused, failed = [], 0, 0, 0
    for s in samples:
        doc = json.loads(s.read_text())
        names = [b.get("benchmark") for b in doc.get("benchmarks", [])]
        d = work / s.stem
        d.mkdir()
        notes = shrink(doc, a.particles, work, build) + existing_file_first(doc)
        cfg = d / s.name
        cfg.write_text(json.dumps(doc, indent=1))
        t0 = time.time()
        r = subprocess.run([sys.executable, "-m", "iokernels", "run", str(cfg), "--results", str(d / "res"),
                            "--build-dir", str(build)], cwd=d, capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(paths.PACKAGE_DIR.parent)})
        secs = time.time() - t0
        index = d / "res" / "index.json"
        statuses = [x["status"] for x in json.loads(index.read_text())["runs"]] if index.is_file() else []
        if not statuses and r.returncode == 2:
            status, why = "refused", first_error(r.stderr)
            refused += 1
        elif r.returncode == 0 and statuses and all(x == "ok" for x in statuses):
            status, why = "ok", "; ".join(notes)
            ran += 1
        else:
            status = "failed"
            why = first_error(r.stderr + r.stdout)
            for x in (json.loads(index.read_text())["runs"] if index.is_file() else []):
                if x["status"] != "ok":
                    log = d / "res" / "out" / x["id"] / "stderr.txt"
                    why = f"{x['id']}: " + (first_error(log.read_text()) if log.is_file() else x["status"])
                    break
            failed += 1
        rows.append([s.name, ",".join(map(str, names)), f"{len(statuses)}", status, f"{secs:.1f}", why])
    print(render(["sample", "benchmarks", "runs", "status", "s", "notes / first error"], rows))
    print(f"\n{len(samples)} samples: {ran} ran and verified, {refused} refused before running, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
