#!/usr/bin/env python3
"""Embed the E3SM case descriptions (cases/*.cdl) and their listing orders
(cases/*.listing-order) into the program.

Writes OUTPUT (a C++ source) with each file as a raw string literal, so an
installed iokernels needs no source tree.  Run by the build (a CMake custom
command in src/CMakeLists.txt), never by hand; the output is not committed.

    python3 embed_cases.py OUTPUT.cpp CASE.cdl... [CASE.listing-order...]
"""
import pathlib
import sys

DELIM = "iokcdl"
ORDER_SUFFIX = ".listing-order"


def table(function, files) -> list:
    parts = [
        f"const std::vector<EmbeddedCdl>& {function}() {{\n",
        "    static const std::vector<EmbeddedCdl> files = {\n",
    ]
    for stem, path in sorted(files.items()):
        text = path.read_text()
        if f'){DELIM}"' in text:
            sys.exit(f"{path}: contains the raw-string delimiter ){DELIM}\"")
        parts.append(f'        {{"{stem}", R"{DELIM}({text}){DELIM}"}},\n')
    parts.append("    };\n    return files;\n}\n\n")
    return parts


def generate(cdls, orders) -> str:
    parts = [
        "// GENERATED at build time by src/kernels/e3sm/cases/embed_cases.py from\n",
        f"// cases/*.cdl and cases/*{ORDER_SUFFIX}; do not edit.\n",
        '#include "kernels/e3sm/case_cdl.hpp"\n\n',
        "namespace iok::e3sm {\n\n",
    ]
    parts += table("embedded_case_cdls", cdls)
    parts += table("embedded_listing_orders", orders)
    parts.append("}  // namespace iok::e3sm\n")
    return "".join(parts)


def by_stem(paths, suffix):
    files = {}
    for p in paths:
        stem = p.name[: -len(suffix)]
        if stem in files:
            sys.exit(f"duplicate case name {stem}: {files[stem]} and {p}")
        files[stem] = p
    return files


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    out = pathlib.Path(sys.argv[1])
    paths = [pathlib.Path(a) for a in sys.argv[2:]]
    other = [p for p in paths if not p.name.endswith((".cdl", ORDER_SUFFIX))]
    if other:
        sys.exit(f"not a case description (.cdl) or listing order ({ORDER_SUFFIX}): {other[0]}")
    cdls = by_stem([p for p in paths if p.name.endswith(".cdl")], ".cdl")
    orders = by_stem([p for p in paths if p.name.endswith(ORDER_SUFFIX)], ORDER_SUFFIX)
    for stem, p in orders.items():
        if stem not in cdls:
            sys.exit(f"{p}: orders no case description ({stem}.cdl is not given)")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(generate(cdls, orders))
    return 0


if __name__ == "__main__":
    sys.exit(main())
