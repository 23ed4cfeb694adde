#!/usr/bin/env python3
"""The layers of src/ and the includes allowed between them (issue 30).

    core <- model <- formats <- backends <- runner <- driver <- kernels <- tools, main.cpp

A file in src/<layer>/ may include headers of its own layer and of the layers
below it, never of one above.  More rules:
  - tools/ and main.cpp include no kernel: the driver runs kernels by name,
    and what a tool shares with a kernel (the E3SM maps) is a format;
  - a kernel (src/kernels/<name>/) includes no other kernel's headers: what
    two kernels share belongs in a lower layer;
  - src/capture/ (the LD_PRELOAD capture library, built on its own) includes
    nothing of the layers; kernels and programs may read its header-only
    trace format (capture/run_groups.hpp).

Run by the build before anything compiles (src/CMakeLists.txt) and as the
test layers.check; exits 1 naming every violating include as file:line.

    check_layers.py [SRC_DIR]            check (default: the src/ beside this script)
    check_layers.py --report [SRC_DIR]   also print the include edges between layers
                                         and the cycles among layers and headers
    check_layers.py --stamp FILE ...     touch FILE when the check passes (build step)
"""
import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

ORDER = ["core", "model", "formats", "backends", "runner", "driver", "kernels", "tools"]
RANK = {name: i for i, name in enumerate(ORDER)}
RANK["program"] = RANK["tools"]  # src/main.cpp
# Not in the stack: built alone; read (header only) by these layers.
CAPTURE_READERS = {"kernels", "tools", "program"}
INCLUDE = re.compile(r'^\s*#\s*include\s*["<]([^">]+)[">]')
SUFFIXES = {".cpp", ".hpp", ".h", ".cc", ".in"}


def layer_of(rel):
    """Layer of a path relative to src/ ('core/x.hpp' -> 'core'), or None."""
    parts = Path(rel).parts
    if len(parts) == 1:
        return "program" if parts[0].endswith((".cpp", ".hpp")) else None
    top = parts[0]
    if top in RANK or top == "capture":
        return top
    return None


def kernel_of(rel):
    parts = Path(rel).parts
    return parts[1] if len(parts) > 2 and parts[0] == "kernels" else None


def includes(src):
    """(file relative to src, line, included path relative to src) for every
    include of a file under src/ that names a file of src/."""
    out = []
    for f in sorted(src.rglob("*")):
        if not f.is_file() or f.suffix not in SUFFIXES:
            continue
        rel = f.relative_to(src).as_posix()
        for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            inc = m.group(1)
            if "/" not in inc:  # "x.hpp": beside the including file
                if (f.parent / inc).exists():
                    out.append((rel, n, (f.parent / inc).relative_to(src).as_posix()))
                continue
            if layer_of(inc) is not None:
                out.append((rel, n, inc))
    return out


def violation(rel, inc):
    """Why `rel` may not include `inc`, or None."""
    a, b = layer_of(rel), layer_of(inc)
    if a is None or b is None:
        return None
    if a == "capture" or b == "capture":
        if a == b:
            return None
        if a == "capture":
            return "capture/ is built alone (LD_PRELOAD) and includes nothing of the layers"
        if a in CAPTURE_READERS:
            return None
        return f"only {', '.join(sorted(CAPTURE_READERS))} may read capture/'s headers"
    if RANK[b] > RANK[a]:
        return (f"layer '{a}' includes layer '{b}' above it "
                f"(a layer includes only its own and lower ones: {' <- '.join(ORDER)})")
    if b == "kernels" and a in ("tools", "program"):
        return f"'{a}' includes a kernel (kernels are run by name through the driver; share code through a lower layer)"
    ka, kb = kernel_of(rel), kernel_of(inc)
    if ka and kb and ka != kb:
        return f"kernel '{ka}' includes kernel '{kb}' (kernels share code through a lower layer)"
    return None


def cycles(edges):
    """Strongly connected components with more than one node (Tarjan)."""
    graph = defaultdict(set)
    for a, b in edges:
        if a != b:
            graph[a].add(b)
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(set(graph) | {b for s in graph.values() for b in s}):
        if v not in index:
            visit(v)
    return out


def report(edges):
    def group(rel):
        a = layer_of(rel)
        return f"kernels/{kernel_of(rel)}" if a == "kernels" and kernel_of(rel) else a

    counts = defaultdict(int)
    for rel, _, inc in edges:
        a, b = layer_of(rel), layer_of(inc)
        if a != b:
            counts[(a, b)] += 1
    print("include edges between layers (from -> to: count)")
    for (a, b), n in sorted(counts.items(), key=lambda kv: (RANK.get(kv[0][0], -1), kv[0])):
        bad = violation((a + "/x.cpp") if a != "program" else "main.cpp", b + "/x.hpp")
        print(f"  {a:>8} -> {b:<8} {n:4d}{'  FORBIDDEN' if bad else ''}")
    kk = defaultdict(int)
    for rel, _, inc in edges:
        ka, kb = kernel_of(rel), kernel_of(inc)
        if ka and kb and ka != kb:
            kk[(ka, kb)] += 1
    for (a, b), n in sorted(kk.items()):
        print(f"  kernels/{a} -> kernels/{b} {n}  FORBIDDEN")
    layer_cycles = cycles({(group(r), group(i)) for r, _, i in edges})
    print("cycles among layers (kernels by kernel):", layer_cycles or "none")
    file_cycles = cycles({(r, i) for r, _, i in edges})
    print("cycles among files:", file_cycles or "none")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", nargs="?", default=str(Path(__file__).resolve().parent.parent / "src"))
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--stamp")
    args = ap.parse_args()
    src = Path(args.src)
    if not src.is_dir():
        sys.exit(f"check_layers: {src}: not a directory")
    edges = includes(src)
    if args.report:
        report(edges)
    bad = [(rel, n, inc, why) for rel, n, inc in edges if (why := violation(rel, inc))]
    for rel, n, inc, why in bad:
        print(f"{src / rel}:{n}: error: includes \"{inc}\": {why}", file=sys.stderr)
    if bad:
        print(f"check_layers: {len(bad)} include(s) cross the layers the wrong way", file=sys.stderr)
        return 1
    if args.stamp:
        Path(args.stamp).write_text("layers checked\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
