#!/usr/bin/env python3
"""The compiler refuses an include that reaches up a layer (test layers.compiler).

Usage: compile_rejects.py CXX -I<dir>... (the include path of iok_formats).
With the formats layer's include path a formats header compiles and a
backends header is not found: the layers' include roots
(src/CMakeLists.txt) keep src/ itself off every layer's path."""
import subprocess
import sys

cxx, flags = sys.argv[1], sys.argv[2:]


def compile_(include):
    src = f'#include "{include}"\nint main() {{ return 0; }}\n'
    return subprocess.run([cxx, "-std=c++17", "-fsyntax-only", *flags, "-x", "c++", "-"],
                          input=src, capture_output=True, text=True)


ok = compile_("formats/cdf_classic.hpp")
if ok.returncode != 0:
    sys.exit(f"a formats header does not compile with the formats layer's flags:\n{ok.stderr}")
for up in ("backends/backend.hpp", "runner/pattern.hpp", "kernels/e3sm/case_spec.hpp"):
    p = compile_(up)
    if p.returncode == 0 or "No such file" not in p.stderr:
        sys.exit(f"{up} compiled (or failed otherwise) with the formats layer's flags:\n{p.stderr}")
    print(f"refused as expected: {p.stderr.strip().splitlines()[0]}")
