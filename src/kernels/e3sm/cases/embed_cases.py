#!/usr/bin/env python3
"""Embed the E3SM case descriptions (cases/*.cdl) into the program.

Writes OUTPUT (a C++ source) with each CDL file as a raw string literal, so an
installed iokernels needs no source tree.  Run by the build (a CMake custom
command in src/CMakeLists.txt), never by hand; the output is not committed.

    python3 embed_cases.py OUTPUT.cpp CASE.cdl...
"""
import pathlib
import sys

DELIM = "iokcdl"


def generate(cdls) -> str:
    parts = [
        "// GENERATED at build time by src/kernels/e3sm/cases/embed_cases.py from cases/*.cdl; do not edit.\n",
        '#include "kernels/e3sm/case_cdl.hpp"\n\n',
        "namespace iok::e3sm {\n\n",
        "const std::vector<EmbeddedCdl>& embedded_case_cdls() {\n",
        "    static const std::vector<EmbeddedCdl> files = {\n",
    ]
    for path in sorted(cdls, key=lambda p: p.stem):
        text = path.read_text()
        if f'){DELIM}"' in text:
            sys.exit(f"{path}: contains the raw-string delimiter ){DELIM}\"")
        parts.append(f'        {{"{path.stem}", R"{DELIM}({text}){DELIM}"}},\n')
    parts.append("    };\n    return files;\n}\n\n}  // namespace iok::e3sm\n")
    return "".join(parts)


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    out = pathlib.Path(sys.argv[1])
    cdls = [pathlib.Path(a) for a in sys.argv[2:]]
    stems = [p.stem for p in cdls]
    if len(set(stems)) != len(stems):
        sys.exit(f"duplicate case names in {stems}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(generate(cdls))
    return 0


if __name__ == "__main__":
    sys.exit(main())
