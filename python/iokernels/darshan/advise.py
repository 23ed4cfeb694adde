"""Measured advice for a Darshan log: its (scaled) replay run through the
strategies, aggregator counts and MPI-IO hints by the shared advice code
(iokernels/advise.py; docs/darshan.md).

The job's own way, the baseline, is `--calls recorded` (the application's
MPI-IO calls: its opens, flavours and collectiveness; exact for DXT logs,
synthesized otherwise); the others replay the log's accesses as one plan
per file (`--calls plan`), collective unless the configuration says not.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from .. import advise as shared
from ..launch import layer_env


def advise(program: str, log: str, ranks: int, scale: float, repeats: int, striping: bool,
           quiet: bool = True) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="iok-advise-out-") as tmp:
        out = Path(tmp)

        def clean() -> None:                    # a replay keeps nothing, but a failed one may leave files
            for f in out.iterdir():
                f.unlink()

        argv = ["replay", "-q", "-o", str(out), "--ranks", str(ranks), "--scale", f"{scale:g}", log]
        runner = shared.Runner(program, ranks, env={"OMPI_MCA_io": layer_env("romio")}, after_run=clean)
        baseline = shared.Config("the job's own calls (--calls recorded)", ["--calls", "recorded"])
        tried = [shared.Config("one collective call per file (-x canonical)", [], collective=True),
                 *shared.configs(ranks, striping, ["rearrange"], "canonical")]
        doc = shared.advise(runner, argv, baseline, tried, repeats,
                            {"subject": f"Darshan log {log} (1/{scale:g} of its accesses)", "log": log,
                             "scale": scale, "io_layer": "romio"},
                            log=None if quiet else lambda m: print(m, file=sys.stderr, flush=True))
    # the commands as the user runs them: the temporary output directory is gone
    for c in doc["configs"]:
        c["command"] = [a.replace(str(out), "OUTDIR") for a in c["command"]]
    if "best" in doc:
        doc["best"]["command"] = doc["best"]["command"].replace(str(out), "OUTDIR")
    return doc


advice_text = shared.advice_text
