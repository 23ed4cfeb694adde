"""Where the integration tests' time goes, launch by launch.

    IOK_LAUNCH_LOG=/tmp/launches.jsonl scripts/iok test
    python3 scripts/launch_profile.py /tmp/launches.jsonl [N]

tests/integration/conftest.py appends one JSON line per mpiexec launch when
IOK_LAUNCH_LOG is set (test, ranks, program and kernel, seconds).  This prints,
per test file, the launches and their seconds split by rank count, then the N
(15) test cases that spend most in launches: what to shrink first when the
suite outgrows its budget."""

import json
import sys
from collections import defaultdict


def load(path: str) -> list[dict]:
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rows = load(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    files: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    cases: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        name = r["test"].split("::", 1)[0].rsplit("/", 1)[-1]
        files[name][int(r["ranks"])].append(float(r["seconds"]))
        cases[r["test"]].append(float(r["seconds"]))
    total = sum(float(r["seconds"]) for r in rows)
    print(f"{len(rows)} launches, {total:.0f} s in all")
    print(f"{'test file':32} {'launches':>8} {'seconds':>8}   by ranks (launches/seconds)")
    for name, by in sorted(files.items(), key=lambda kv: -sum(sum(v) for v in kv[1].values())):
        secs = sum(sum(v) for v in by.values())
        split = "  ".join(f"{k}: {len(v)}/{sum(v):.0f}" for k, v in sorted(by.items()))
        print(f"{name:32} {sum(len(v) for v in by.values()):8d} {secs:8.1f}   {split}")
    print(f"\nthe {n} test cases with the most launch time:")
    for test, secs in sorted(cases.items(), key=lambda kv: -sum(kv[1]))[:n]:
        print(f"  {sum(secs):7.1f} s {len(secs):4d} launches  {test}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
