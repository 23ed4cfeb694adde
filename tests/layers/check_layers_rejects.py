#!/usr/bin/env python3
"""The layer check fails on a wrong include (test layers.rejects).

Copies src/ to a temporary tree, adds one wrong include at a time and runs
scripts/check_layers.py on it: it must exit non-zero naming the file, the line
and the rule; the untouched copy must pass."""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "scripts" / "check_layers.py"

# (file, include added, words the message must hold)
CASES = [
    ("core/error.hpp", "model/selection.hpp", "layer 'core' includes layer 'model' above it"),
    ("formats/cdf_classic.cpp", "backends/backend.hpp", "layer 'formats' includes layer 'backends' above it"),
    ("model/plan.hpp", "runner/pattern.hpp", "layer 'model' includes layer 'runner' above it"),
    ("backends/registry.cpp", "driver/driver.hpp", "layer 'backends' includes layer 'driver' above it"),
    ("runner/runner.cpp", "kernels/s3d/s3d_plan.hpp", "layer 'runner' includes layer 'kernels' above it"),
    ("tools/dat2nc.cpp", "kernels/e3sm/case_spec.hpp", "'tools' includes a kernel"),
    ("kernels/noncontig/noncontig_pack.cpp", "kernels/e3sm/case_spec.hpp", "kernel 'noncontig' includes kernel 'e3sm'"),
    ("capture/capture_state.cpp", "core/error.hpp", "capture/ is built alone"),
]


def run(src):
    return subprocess.run([sys.executable, str(CHECK), str(src)], capture_output=True, text=True)


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        clean = Path(tmp) / "clean" / "src"
        shutil.copytree(ROOT / "src", clean)
        p = run(clean)
        if p.returncode != 0:
            failures.append(f"the untouched tree fails:\n{p.stderr}")
        for i, (file, inc, rule) in enumerate(CASES):
            src = Path(tmp) / f"case{i}" / "src"
            shutil.copytree(ROOT / "src", src)
            target = src / file
            lines = target.read_text().splitlines(keepends=True)
            # after the first line (#pragma once or the file's own header)
            lines.insert(1, f'#include "{inc}"\n')
            target.write_text("".join(lines))
            p = run(src)
            where = f"{target}:2:"
            if p.returncode == 0:
                failures.append(f"{file} including {inc}: the check passed")
            elif where not in p.stderr or rule not in p.stderr or inc not in p.stderr:
                failures.append(f"{file} including {inc}: expected '{where}' and '{rule}' in:\n{p.stderr}")
            else:
                print(f"rejected as expected: {p.stderr.splitlines()[0]}")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
