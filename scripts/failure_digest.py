"""What failed in a ctest run, in a few lines each, from the JUnit file ctest
writes (--output-junit): `python3 scripts/failure_digest.py FILE [LINES]`.

For each failed ctest entry it prints the failing pytest cases (their
section headers in the captured output) with the first LINES (12) of their
"E   " lines -- the assertion and the program's stderr it quotes -- or, for a
non-pytest entry, its last LINES lines.  `scripts/iok test` prints this when
tests fail, so a CI log that keeps only the terminal still says why."""

import re
import sys
import xml.etree.ElementTree as ET

SECTION = re.compile(r"^_{3,} (.+?) _{3,}$")


def pytest_failures(output: str, lines: int) -> list[list[str]]:
    """Each failed pytest case: its header, then its first `lines` 'E' lines."""
    cases: list[list[str]] = []
    for line in output.splitlines():
        m = SECTION.match(line)
        if m:
            cases.append([f"  {m.group(1)}"])
        elif line.startswith("E ") and cases and len(cases[-1]) <= lines:
            cases[-1].append(f"      {line[1:].strip()}"[:200])
    return cases


def digest(path: str, lines: int, most: int = 6) -> list[str]:
    """The report: per failed ctest entry its first `most` failed cases."""
    out: list[str] = []
    for tc in ET.parse(path).getroot().iter("testcase"):
        if tc.get("status") != "fail" and tc.find("failure") is None:
            continue
        text = "".join(n.text or "" for n in tc.iter("system-out"))
        out.append(f"[test] {tc.get('name', '?')} failed:")
        cases = pytest_failures(text, lines)
        for case in cases[:most]:
            out.extend(case)
        if len(cases) > most:
            out.append(f"  ... and {len(cases) - most} more failed cases (the log has them all)")
        if not cases:
            out.extend(f"    {ln}"[:200] for ln in text.splitlines()[-lines:])
    return out


def main() -> int:
    lines = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    try:
        report = digest(sys.argv[1], lines)
    except (OSError, ET.ParseError) as e:
        print(f"[test] no failure digest ({sys.argv[1]}: {e})", file=sys.stderr)
        return 1
    print("\n".join(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
