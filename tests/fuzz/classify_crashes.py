#!/usr/bin/env python3
"""Classify the crash inputs of one fuzzing run by whose code crashed.

    classify_crashes.py SRC WORK HARNESS_BINARY

bench/fuzz.sh runs every input in WORK/artifacts/ once more through its
harness and keeps the output in WORK/stacks/<input>.txt, with sanitizer
stack frames printed as "#N|module|offset|function|file:line" (when the
sanitizer could not symbolize, frames of the harness binary are looked up
here with addr2line).  The owner of a
crash is the first frame that is neither the sanitizer/libFuzzer runtime
nor the C/C++ runtime: a frame compiled from SRC/src or SRC/tests/fuzz is
OUR bug; a frame in one of the I/O libraries is that library's.  Inputs
with the same kind, owner and function are one distinct crash; one line
each ("  " first), ours first, with the smallest reproducer.
"""
import hashlib
import os
import re
import subprocess
import sys

LIBRARIES = re.compile(r"^lib(hdf5|adios2|netcdf|pnetcdf)")
RUNTIME_MODULES = re.compile(r"^(libc\.so|libstdc\+\+|libgcc_s|libm\.so|ld-linux|libasan|libubsan)")
FRAME = re.compile(r"^\s*#(\d+)\|([^|]*)\|([^|]*)\|([^|]*)\|(.*)$")


def kind_of(text):
    """What went wrong, from the first report in the output."""
    m = re.search(r"ERROR: AddressSanitizer: ([^\n]*)", text)
    if m:
        what = m.group(1)
        for words, kind in (("requested allocation size", "allocation-size-too-big"),
                            ("out of memory", "out-of-memory (one allocation)"),
                            ("attempting double-free", "double-free"),
                            ("attempting free", "bad-free")):
            if what.startswith(words):
                return kind
        return what.split()[0].rstrip(":")
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
        return re.sub(r" after \d+ seconds", "", m.group(1).strip())  # one kind whatever the limit
    return None


def short(func):
    """A function name without its parameter list (C++ signatures are long)."""
    return re.sub(r"\[abi:\w+\]", "", func.split("(")[0]) or func


def owner_of(frames, src, binary):
    """(owner, where) of the first frame that is not runtime."""
    ours = (os.path.join(src, "src") + os.sep, os.path.join(src, "tests", "fuzz") + os.sep)
    for module, func, loc, offset in frames:
        func = short(func) if func else ""
        base = os.path.basename(module)
        path = loc.rsplit(":", 1)[0]
        if path.startswith(ours):
            rel = os.path.relpath(path, src) + ":" + loc.rsplit(":", 1)[1]
            return ("OUR" if path.startswith(ours[0]) else "OUR (harness)"), f"{func} {rel}"
        m = LIBRARIES.match(base)
        if m:
            if not func:
                return "lib" + m.group(1), f"{base}+{offset}"
            return "lib" + m.group(1), f"{func} ({base}; name from its exported symbols)"
        if RUNTIME_MODULES.match(base) or os.path.realpath(module) == os.path.realpath(binary) or not module:
            continue  # sanitizer/libFuzzer runtime, inlined library headers, libc
        return base.split(".so")[0], f"{func} ({base})" if func else f"{base}+{offset}"
    return "unknown", "no frame outside the runtime"


def addr2line(module, offset):
    """(function, file:line) of an address in a module, inlined frames first."""
    try:
        out = subprocess.run(["addr2line", "-C", "-i", "-f", "-e", module, offset],
                             capture_output=True, text=True, timeout=30).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return [("", "")]
    return list(zip(out[0::2], out[1::2])) or [("", "")]


def first_stack(text, binary):
    """(module, function, file:line, offset) of each frame of the first stack trace."""
    frames, started = [], False
    for line in text.splitlines():
        m = FRAME.match(line)
        if m:
            _, module, offset, func, loc = m.groups()
            unnamed = func in ("", "??", "<null>")
            if unnamed and module and os.path.realpath(module) == binary:
                frames += [(module, f, l, offset) for f, l in addr2line(module, offset)]
            else:
                frames.append((module, "" if unnamed else func, loc, offset))
            started = True
        elif started:
            break
    return frames


def main():
    src, work, binary = (os.path.realpath(a) for a in sys.argv[1:4])
    art = os.path.join(work, "artifacts")
    groups = {}
    for name in sorted(os.listdir(art)) if os.path.isdir(art) else []:
        path = os.path.join(art, name)
        stack_file = os.path.join(work, "stacks", name + ".txt")
        if not os.path.exists(stack_file):
            continue  # not re-run (bench/fuzz.sh re-runs the smallest only)
        text = open(stack_file, errors="replace").read()
        kind = kind_of(text)
        if kind is None:
            key = ("unreproduced", name.split("-")[0] + " that did not happen again on a re-run", "")
        else:
            ubsan = re.search(r"^(\S+?):(\d+):\d+: runtime error", text, re.M)
            owner, where = owner_of(first_stack(text, binary), src, binary)
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
