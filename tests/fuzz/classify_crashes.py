#!/usr/bin/env python3
"""Classify the crash inputs of one fuzzing run by whose code crashed.

    classify_crashes.py SRC WORK

bench/fuzz.sh runs every input in WORK/artifacts/ once more through its
harness and keeps the output in WORK/stacks/<input>.txt, with sanitizer
stack frames printed as "#N|module|function|file:line".  The owner of a
crash is the first frame that is neither the sanitizer/libFuzzer runtime
nor the C/C++ runtime: a frame compiled from SRC/src or SRC/tests/fuzz is
OUR bug; a frame in one of the I/O libraries is that library's.  Inputs
with the same kind, owner and function are one distinct crash; one line
each ("  " first), ours first, with the smallest reproducer.
"""
import hashlib
import os
import re
import sys

LIBRARIES = re.compile(r"^lib(hdf5|adios2|netcdf|pnetcdf)")
RUNTIME_MODULES = re.compile(r"^(libc\.so|libstdc\+\+|libgcc_s|libm\.so|ld-linux|libasan|libubsan)")
FRAME = re.compile(r"^\s*#(\d+)\|([^|]*)\|([^|]*)\|(.*)$")


def kind_of(text):
    """What went wrong, from the first report in the output."""
    m = re.search(r"ERROR: AddressSanitizer: (attempting [\w -]+|[\w-]+)", text)
    if m:
        return m.group(1)
    if "ERROR: LeakSanitizer" in text:
        return "memory leak"
    m = re.search(r"runtime error: ([^\n]{0,80})", text)
    if m:
        return "undefined behaviour: " + m.group(1)
    m = re.search(r"finding: (a parser threw [^\n]{0,80})", text)
    if m:
        return m.group(1)
    m = re.search(r"ERROR: libFuzzer: ([\w -]+)", text)
    if m:
        return m.group(1).strip()
    return None


def short(func):
    """A function name without its parameter list (C++ signatures are long)."""
    return re.sub(r"\[abi:\w+\]", "", func.split("(")[0]) or func


def owner_of(frames, src, binary):
    """(owner, where) of the first frame that is not runtime."""
    ours = (os.path.join(src, "src") + os.sep, os.path.join(src, "tests", "fuzz") + os.sep)
    for _, module, func, loc in frames:
        func = short(func)
        base = os.path.basename(module)
        path = loc.rsplit(":", 1)[0]
        if path.startswith(ours):
            rel = os.path.relpath(path, src) + ":" + loc.rsplit(":", 1)[1]
            return ("OUR" if path.startswith(ours[0]) else "OUR (harness)"), f"{func} {rel}"
        m = LIBRARIES.match(base)
        if m:
            return "lib" + m.group(1), f"{func} ({base}; name from its exported symbols)"
        if RUNTIME_MODULES.match(base) or os.path.realpath(module) == os.path.realpath(binary) or not module:
            continue  # sanitizer/libFuzzer runtime, inlined library headers, libc
        return base.split(".so")[0], f"{func} ({base})"
    return "unknown", "no frame outside the runtime"


def first_stack(text):
    """The frames of the first stack trace in the output."""
    frames, started = [], False
    for line in text.splitlines():
        m = FRAME.match(line)
        if m:
            frames.append(m.groups())
            started = True
        elif started:
            break
    return frames


def main():
    src, work = (os.path.realpath(a) for a in sys.argv[1:3])
    binary = None
    log = os.path.join(work, "log.txt")
    if os.path.exists(log):
        m = re.search(r"^(\S*fuzz_\w+)", open(log, errors="replace").read(), re.M)
        binary = m.group(1) if m else None
    harness = os.path.basename(work)
    binary = binary or os.path.join(os.path.dirname(os.path.dirname(work)), "fuzz_" + harness)
    art = os.path.join(work, "artifacts")
    groups = {}
    for name in sorted(os.listdir(art)) if os.path.isdir(art) else []:
        path = os.path.join(art, name)
        stack_file = os.path.join(work, "stacks", name + ".txt")
        text = open(stack_file, errors="replace").read() if os.path.exists(stack_file) else ""
        kind = kind_of(text)
        if kind is None:
            key = ("unreproduced", name.split("-")[0] + " that did not happen again on a re-run", "")
        else:
            ubsan = re.search(r"^(\S+?):(\d+):\d+: runtime error", text, re.M)
            owner, where = owner_of(first_stack(text), src, binary)
            if ubsan and ubsan.group(1).startswith(os.path.join(src, "src")):
                owner, where = "OUR", os.path.relpath(ubsan.group(1), src) + ":" + ubsan.group(2)
            key = (owner, kind, where)
        groups.setdefault(key, []).append(path)
    order = lambda k: (not k[0].startswith("OUR"), k[0] == "unreproduced", k)
    for key in sorted(groups, key=order):
        owner, kind, where = key
        paths = groups[key]
        smallest = min(paths, key=lambda p: (os.path.getsize(p), p))
        data = open(smallest, "rb").read()
        label = "OUR bug" if owner.startswith("OUR") else owner
        print(f"  {label}: {kind}" + (f" in {where}" if where else "") + f" -- {len(paths)} input(s)")
        print(f"      reproducer {smallest} ({len(data)} bytes, sha1 {hashlib.sha1(data).hexdigest()[:12]})")
        print(f"      stack: {os.path.join(work, 'stacks', os.path.basename(smallest) + '.txt')}")


if __name__ == "__main__":
    main()
