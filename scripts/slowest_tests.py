"""The slowest tests of a ctest run, from the JUnit file ctest writes
(--output-junit): `python3 scripts/slowest_tests.py FILE [N]` prints the N (10)
longest, slowest first, with the run's total test time, so that a test that
grew slow shows at the end of every `scripts/iok test`."""

import sys
import xml.etree.ElementTree as ET


def slowest(path: str, n: int) -> list[tuple[float, str]]:
    times = [(float(tc.get("time", "0")), tc.get("name", "?")) for tc in ET.parse(path).getroot().iter("testcase")]
    return sorted(times, reverse=True)[:n]


def main() -> int:
    path = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    try:
        rows = slowest(path, n)
        total = sum(float(tc.get("time", "0")) for tc in ET.parse(path).getroot().iter("testcase"))
    except (OSError, ET.ParseError) as e:
        print(f"[test] no timings ({path}: {e})", file=sys.stderr)
        return 1
    print(f"[test] the {len(rows)} slowest tests ({total:.0f} s of test time in all):")
    for t, name in rows:
        print(f"    {t:7.1f} s  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
