"""The HTML report (`python3 -m iokernels html`) of a real suite — the
E3SM F case on a generated map, two libraries, two rank counts, repeats,
with --verify and the suite's storage ceiling — opened in headless Chromium:
the page renders (screenshot not blank), every figure decodes, nothing is
logged on the console, nothing is fetched from the network; and the checks
themselves catch a broken page."""
import json
import re
import shutil

import pytest

from browser import decoded_images, ink, screenshot
from conftest import tool
from suite_cli import cli, ok

SUITE = """
[suite]
name = "html"
repeats = 2
ceiling = { size = "8MiB", ranks = 2 }

[[input]]
name = "fmap"
file = "f_tiny.nc"
command = ["{build}/src/e3sm_mapgen", "--case", "F", "--nprocs", "2", "--ncol", "64", "--nlev", "4", "-o", "{path}"]

[[case]]
name = "F"
kernel = "e3sm"
ranks = [1, 2]
backend = ["pnetcdf", "hdf5"]
args = ["-r", "2", "--verify", "-q", "-o", "{outdir}/f.nc", "{fmap}"]
"""

@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """Runs the suite, a slower copy of it, and writes the report with the comparison."""
    tool("e3sm_mapgen")
    tool("raw_write")
    d = tmp_path_factory.mktemp("html")
    (d / "s.toml").write_text(SUITE)
    ok(cli("run", d / "s.toml", "--results", d / "res"))
    slow = d / "slow"
    shutil.copytree(d / "res", slow)
    victim = next(slow.glob("*-F-hdf5-2p-r*.json"))
    doc = json.loads(victim.read_text())
    h0 = next(f for f in doc["files"] if f["label"] == "h0" and f["mode"] == "write")
    h0["seconds"]["end_to_end"]["max"] *= 2
    h0["bandwidth_mib_s"]["open_to_close"] /= 2
    victim.write_text(json.dumps(doc))
    sibling = next(p for p in slow.glob("*-F-hdf5-2p-r*.json") if p != victim)   # the other repeat too
    doc = json.loads(sibling.read_text())
    h0 = next(f for f in doc["files"] if f["label"] == "h0" and f["mode"] == "write")
    h0["seconds"]["end_to_end"]["max"] *= 2
    h0["bandwidth_mib_s"]["open_to_close"] /= 2
    sibling.write_text(json.dumps(doc))
    out = d / "report.html"
    p = ok(cli("html", slow, "--base", d / "res", "-o", out, "--title", "E3SM F test report"))
    return d, out, p


def test_report_is_self_contained_with_every_section(report):
    d, out, p = report
    text = out.read_text()
    assert re.fullmatch(rf"{re.escape(str(out))}: \d+ KiB, 4 figure\(s\), 9 result\(s\)\n", p.stdout)
    for heading in ("Storage ceiling", "Bandwidth", "Repeats, variance and % of ceiling", "Phase breakdown",
                    "Scaling", "Comparison with the base results", "Manifests"):
        assert f"<h2>{heading}</h2>" in text, heading
    assert text.count('<img class="plot"') == 4                 # 2 bandwidth panels, phases, scaling
    assert text.count('src="data:image/svg+xml;base64,') == 4
    assert "<script" not in text
    # no network: nothing refers to another host
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    assert "url(" not in text and "@import" not in text
    # the doctored case is highlighted, nothing else
    assert text.count('class="num slower"') == 2                 # its time x and bw x cells
    assert "2.00x" in text and "0.50x" in text
    assert text.count('class="num faster"') == 0
    # every run's manifest (8 runs and the ceiling), with layer, hints and command
    assert text.count("<details>") == 9
    assert "MPI-IO layer" in text and "hints in effect" in text and "--verify" in text


def test_report_renders_in_chromium(report):
    d, out, _ = report
    png = d / "report.png"
    console = screenshot(out, png, d)
    assert console == [], f"console messages: {console}"
    dark, colours = ink(png)
    assert dark > 0.05 and colours > 50, (dark, colours)        # text, tables and plots drawn
    decoded, console = decoded_images(out, d)
    assert decoded == 4 and console == []                       # every figure decoded


def test_the_browser_checks_catch_a_broken_page(report, tmp_path):
    """The negative of every check above: a blank page, a figure that does
    not decode, a console error."""
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><html><head><link rel='icon' href='data:,'></head><body></body></html>")
    screenshot(blank, tmp_path / "blank.png", tmp_path)
    dark, colours = ink(tmp_path / "blank.png")
    assert dark < 0.001 and colours < 5
    _, out, _ = report
    broken = tmp_path / "broken.html"
    text = out.read_text()
    first = text.index("base64,") + len("base64,")
    broken.write_text(text[:first] + "!!not-base64!!" + text[first:].replace(
        "</body>", "<script>console.error('boom')</script></body>", 1))
    decoded, console = decoded_images(broken, tmp_path)
    assert decoded == 3
    assert len(console) == 1 and '"boom"' in console[0]
