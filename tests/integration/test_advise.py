"""`python3 -m iokernels advise -- KERNEL ARGS`: a real e3sm run (a 2-process
G-case map, 2 ranks, one repeat) through the strategies, aggregator counts
and hints: every configuration measured and verified, the fastest named with
its speed-up over the run as given and the exact settings; a configuration
that fails is shown failed and not recommended; a bad command is refused in
one line.  The advice's section of the HTML report, opened in Chromium."""
import json
import re
import statistics

import pytest

from browser import decoded_images, ink, screenshot
from conftest import registered_backends
from suite_cli import cli, ok, one_error


@pytest.fixture(scope="module")
def advice(small_g_map, tmp_path_factory):
    if "pnetcdf" not in registered_backends():
        pytest.skip("pnetcdf backend not built")
    d = tmp_path_factory.mktemp("advise")
    out = d / "advice.json"
    # "bogus" is not a strategy: its configuration fails (the kernel refuses it) and must not be recommended
    p = cli("advise", "--ranks", "2", "--repeats", "1", "--strategies", "rearrange,bogus", "-o", out, "--",
            "e3sm", "-a", "pnetcdf", "-x", "canonical", "-o", d / "g.nc", small_g_map)
    return d, out, ok(p)


def test_every_configuration_measured_and_verified(advice):
    _, out, p = advice
    doc = json.loads(out.read_text())
    assert doc["schema"] == "iokernels-advice/1" and doc["ranks"] == 2 and doc["repeats"] == 1
    by = {c["config"]: c for c in doc["configs"]}
    assert list(by) == ["the run as given", "-x rearrange", "-x bogus", "PnetCDF intra-node aggregation, 1 per node",
                        "collective, cb_nodes=1",
                        "collective, cb_nodes=2", "collective, cb_buffer_size=64 MiB",
                        "independent calls, no collective buffering"]
    assert by["-x bogus"]["failed"] == "exit 1: iokernels e3sm: error: unknown strategy 'bogus'"
    assert not by["-x bogus"]["verified"] and by["-x bogus"]["times_s"] == []
    good = [c for c in doc["configs"] if c["config"] != "-x bogus"]
    for c in good:
        assert c["verified"] and not c["failed"] and len(c["times_s"]) == 1 and c["times_s"][0] > 0, c
        assert c["min_s"] == c["median_s"] == c["max_s"] == c["times_s"][0]
        assert "--verify" in c["command"] and c["command"][:4] == ["mpiexec", "--oversubscribe", "-n", "2"]
    assert "--hint" in by["collective, cb_nodes=1"]["command"]
    assert "cb_nodes=1" in by["collective, cb_nodes=1"]["command"]
    assert "cb_config_list=*:2" in by["collective, cb_nodes=2"]["command"]
    assert "--independent" in by["independent calls, no collective buffering"]["command"]
    ina = by["PnetCDF intra-node aggregation, 1 per node"]
    assert ina["hints"] == {"nc_num_aggrs_per_node": "1"} and "nc_num_aggrs_per_node=1" in ina["command"]
    i = by["-x rearrange"]["command"].index("-x")
    assert by["-x rearrange"]["command"][i + 1] == "rearrange" and by["-x rearrange"]["command"].count("-x") == 1
    base = by["the run as given"]["median_s"]
    for c in good:
        assert c["speedup"] == pytest.approx(base / c["median_s"])
    # Every configuration's hints took effect (cb_nodes=2 with cb_config_list=*:2, cb_buffer_size at the
    # process's first open: test_open_hints.py); one that did not would be shown and never advised.
    assert [c["config"] for c in good if c["not_in_effect"]] == []
    b = doc["best"]
    fastest = min((c for c in good if not c["not_in_effect"]), key=lambda c: c["median_s"])
    assert b["config"] == fastest["config"] and b["median_s"] == fastest["median_s"]
    assert b["speedup"] == pytest.approx(base / b["median_s"]) and b["speedup"] >= 1.0
    assert b["spread_s"] == [fastest["min_s"], fastest["max_s"]] and b["baseline_median_s"] == base
    assert b["hints_file"] == "".join(f"{k} {v}\n" for k, v in fastest["hints"].items())
    assert b["command"].startswith("mpiexec --oversubscribe -n 2 ") and " e3sm " in b["command"]
    # the text names the same figures
    text = p.stdout
    assert re.search(rf"Fastest verified: {re.escape(b['config'])}: median {b['median_s']:.4f} s", text), text
    assert f"speed-up {b['speedup']:.2f}x" in text and "-x bogus" in text
    assert "FAILED: exit 1: iokernels e3sm: error: unknown strategy 'bogus'" in text
    assert f"command: {b['command']}" in text
    assert statistics.median(fastest["times_s"]) == b["median_s"]


def test_json_on_stdout_is_the_file(advice, small_g_map, tmp_path):
    """--json prints the document -o writes (one configuration: the run as given)."""
    p = ok(cli("advise", "--ranks", "2", "--repeats", "2", "--strategies", "", "--json", "-q", "--", "e3sm", "-a",
               "pnetcdf", "-o", tmp_path / "g.nc", small_g_map))
    doc = json.loads(p.stdout)
    assert p.stderr == ""
    given = doc["configs"][0]
    assert given["baseline"] and len(given["times_s"]) == 2
    assert given["min_s"] == min(given["times_s"]) and given["max_s"] == max(given["times_s"])


def test_bad_commands_are_refused(tmp_path):
    one_error(cli("advise", "--ranks", "2"), "no kernel command")
    one_error(cli("advise", "--", "nokernel", "x"), "unknown kernel 'nokernel'")
    one_error(cli("advise", "--ranks", "0", "--", "e3sm"), "--ranks and --repeats must be at least 1")


def test_html_report_has_the_advice_section(advice):
    d, out, _ = advice
    html = d / "advice.html"
    p = ok(cli("html", out, "-o", html, "--title", "advice"))
    assert p.stdout.endswith("1 figure(s), 0 result(s), 1 advice\n"), p.stdout
    text = html.read_text()
    doc = json.loads(out.read_text())
    b = doc["best"]
    assert "<h2>Measured advice</h2>" in text
    for h in ("configuration", "median s", "min s", "max s", "verified", "speed-up"):
        assert f"<th>{h}</th>" in text
    assert text.count('<img class="plot"') == 1 and "<script" not in text
    assert f"speed-up <b>{b['speedup']:.2f}x</b>" in text
    assert f'<td class="num faster">{b["speedup"]:.2f}x</td>' in text          # the best row highlighted
    assert text.count("<td>yes</td>") == 7 and text.count('<td class="flag">FAILED</td>') == 1
    png = d / "advice.png"
    console = screenshot(html, png, d)
    assert console == [], console
    dark, colours = ink(png)
    assert dark > 0.02 and colours > 20, (dark, colours)
    decoded, console = decoded_images(html, d)
    assert decoded == 1 and console == []
