"""The real headless Chromium the HTML tests open reports in (the Debian
package scripts/setup.sh installs; tests skip without it): a screenshot and
its ink, and how many of a page's images decoded."""
import re
import shutil
import subprocess

import pytest

# Injected into a copy of the page only (the report itself has no script):
# after load, the number of images that decoded.
PROBE = ("<script>window.addEventListener('load', () => { document.body.dataset.decoded = "
         "[...document.images].filter(i => i.complete && i.naturalWidth > 0).length; });</script>")


def chromium():
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.skip("Chromium is not installed (scripts/setup.sh installs the Debian package chromium)")
    return path


def browse(html_path, workdir, *mode):
    """Runs headless Chromium on the file; returns (stdout, console lines)."""
    argv = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            f"--user-data-dir={workdir / 'chromium-profile'}", "--enable-logging=stderr", "--v=0",
            "--hide-scrollbars", *mode, html_path.resolve().as_uri()]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr[-2000:]
    console = [line for line in p.stderr.splitlines() if ":CONSOLE" in line]
    return p.stdout, console


def screenshot(html_path, png, workdir):
    _, console = browse(html_path, workdir, f"--screenshot={png}", "--window-size=1400,2600")
    assert png.is_file(), f"Chromium wrote no screenshot {png}"
    return console


def decoded_images(html_path, workdir):
    probe = workdir / ("probe-" + html_path.name)
    probe.write_text(html_path.read_text().replace("</body>", PROBE + "</body>"))
    dom, console = browse(probe, workdir, "--dump-dom")
    m = re.search(r'data-decoded="(\d+)"', dom)
    assert m, "the probe did not run (page did not load?)"
    return int(m.group(1)), console


def ink(png):
    """Fraction of pixels that are not (nearly) white, and distinct colours."""
    import matplotlib.image
    import numpy as np
    img = matplotlib.image.imread(str(png))[:, :, :3]
    dark = (img < 0.9).any(axis=2).mean()
    colours = len(np.unique((img * 255).astype("uint8").reshape(-1, 3), axis=0))
    return dark, colours
