"""PyBullet's GUI under a virtual display (Xvfb): the window opens, the panel drives it, it closes.

The GUI runs in a child process under ``xvfb-run`` (PyBullet's GUI ends the
whole process when it cannot reach an X server, which must not be pytest's).
A scripted panel stands in for the user: it presses "run compensation",
plays the program with compensation, moves the minute slider and the
magnification, then plays without compensation. The child reports what the
session did as JSON and saves the window's OpenGL picture.

Xvfb comes from the ``xvfb_run`` fixture (tests/conftest.py), which installs
it with apt-get when it is missing and the tests run as root, and skips,
saying why, otherwise.

The window's labels are checked on its pixels: Xvfb writes its screen to a
file (``-fbdir``), read here as XWD. PyBullet 3.2's ``addUserDebugPoints``
blanks every label of the window's widgets on a real X server; the GUI draws
its targets as spheres instead, and the test counts the text pixels of the
parameter panel against the same window with the parameters' names blank.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from helpers import REPO

pytest.importorskip("pybullet", reason="pybullet is a dependency of thermocomp (pip install -e .)")

from thermocomp.simulators.pybullet.render import read_png_rgb

CHILD = textwrap.dedent("""
    import json, sys
    import numpy as np
    from thermocomp.compensation.compensate import CompensationOptions
    from thermocomp.compensation.targets import Targets
    from thermocomp.io.targets_csv import read_targets_csv
    from thermocomp.app.sim import SimInputs, compensate_for_gui, load_setup
    from thermocomp.simulators.pybullet.gui import ScriptedPanel, run_gui

    repo, picture = sys.argv[1], sys.argv[2]
    full = read_targets_csv(repo + "/examples/targets_random50.csv")
    program = Targets(names=full.names[:4], R_world_tcp=full.R_world_tcp[:4], p_world_tcp=full.p_world_tcp[:4])
    setup = load_setup(SimInputs(None, repo + "/deformations/exaggerated.csv", program,
                       scene=repo + "/scenes/irb140_paper_cell.toml",
                       options=CompensationOptions(minutes=(0.0, 100.0, 200.0))))
    panel = ScriptedPanel({2: {"compensate": 1}, 3: {"play_corrected": 1}, 9: {"minute": 200.0},
                           10: {"magnification": 50.0}, 11: {"play_nominal": 1}})
    s = run_gui(setup, compensate=compensate_for_gui, panel=panel, max_frames=18, frame_seconds=0.0, play_interval=0.0,
                screenshot=picture)
    print("RESULT " + json.dumps({"frames": s.frames, "rows_played": s.rows_played, "planned": s.planned,
                                  "status": s.status, "reloads": s.reload_seconds}))
""")


@pytest.mark.slow
def test_gui_session_under_xvfb(tmp_path: Path, xvfb_run: str) -> None:
    picture = tmp_path / "gui.png"
    proc = subprocess.run(
        [xvfb_run, "-a", "-s", "-screen 0 1024x768x24", sys.executable, "-c", CHILD, str(REPO), str(picture)],
        capture_output=True, text=True, timeout=240, cwd=tmp_path, check=False,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, f"GUI child failed ({proc.returncode}):\n{proc.stderr[-3000:]}"
    result = json.loads(lines[-1][len("RESULT "):])
    assert result["planned"] and result["frames"] == 18
    assert result["rows_played"] == 8  # four targets with compensation, four without
    assert len(result["reloads"]) == 3  # minute 0, minute 200, minute 200 magnified 50 times
    assert "minute 200" in result["status"] and "measured in PyBullet" in result["status"]
    rgb = read_png_rgb(picture).astype(float)
    assert rgb.std() > 20.0  # the window drew the cell, not a blank screen
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    assert np.count_nonzero((r > 150) & (b < 90) & (r > g + 40)) > 500  # the orange deformed robot


PANEL_CHILD = textwrap.dedent("""
    import json
    from thermocomp.simulators.pybullet.client import open_client
    from thermocomp.simulators.pybullet.gui import DebugPanel

    client = open_client("gui")
    try:
        values = DebugPanel(client, 200.0, 100.5, 20.0).read()
        print("RESULT " + json.dumps({"minute": values.minute, "magnification": values.magnification}))
    finally:
        client.close()
""")


@pytest.mark.slow
def test_the_panel_starts_at_the_given_minute_and_magnification(tmp_path: Path, xvfb_run: str) -> None:
    """``thermocomp sim --minute M --magnification X`` (GUI): the sliders start there."""
    proc = subprocess.run(
        [xvfb_run, "-a", "-s", "-screen 0 1024x768x24", sys.executable, "-c", PANEL_CHILD],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, f"GUI child failed ({proc.returncode}):\n{proc.stderr[-3000:]}"
    assert json.loads(lines[-1][len("RESULT "):]) == {"minute": 100.5, "magnification": 20.0}


LABELS_CHILD = textwrap.dedent("""
    import json, shutil, sys, tempfile, time
    from thermocomp.compensation.compensate import CompensationOptions
    from thermocomp.app.sim import SimInputs, compensate_for_gui, load_setup
    from thermocomp.simulators.pybullet.client import open_client
    from thermocomp.simulators.pybullet.gui import WINDOW_SIZE, SimGui, display_magnification

    repo, screen, out, blank = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "blank"
    setup = load_setup(SimInputs("irb140", repo + "/deformations/exaggerated.csv", repo + "/examples/targets_random50.csv",
                       options=CompensationOptions(minutes=(0.0, 200.0))))
    client = open_client("gui", options=f"--width={WINDOW_SIZE[0]} --height={WINDOW_SIZE[1]}")
    if blank:  # the reference picture: the same window with every parameter's name blank
        named = client.pb.addUserDebugParameter
        client.pb.addUserDebugParameter = lambda name, *args, **kw: named(" ", *args, **kw)
    try:
        with tempfile.TemporaryDirectory() as work:
            gui = SimGui(setup, client, work, compensate=compensate_for_gui, start_minute=200.0,
                         start_magnification=display_magnification(setup, 200.0))
            summary = gui.run(max_frames=6, frame_seconds=0.03)
            time.sleep(1.0)  # the window's own thread draws the last frame
            shutil.copy(screen, out)
    finally:
        client.close()
    print("RESULT " + json.dumps({"shown": summary.shown_text}))
""")

#: Xvfb's screen for the label test [px]; the GUI window opens at its top left (gui.WINDOW_SIZE, 1280 x 860).
SCREEN = (1280, 900)
#: Where PyBullet's parameter panel (sliders and buttons) sits in that window: its right fifth, upper third
#: (measured on PyBullet 3.2.7: the "Params" tab, two sliders and three buttons, x 1040-1260, y 25-230).
PANEL_BOX = (slice(25, 300), slice(1024, 1262))  # rows, columns
#: A text pixel: dark grey to black, as the panel's glyphs are; its borders and handles are lighter grey.
TEXT_MAX_LEVEL = 90
#: The labels' glyphs ("minute", "magnification", "run compensation", "play without compensation", "play with
#: compensation": 79 characters) cover about 1,400 text pixels more than the blank-named panel; with PyBullet's
#: label bug none. A quarter of the glyphs must show.
MIN_LABEL_PIXELS = 350


def read_xwd_rgb(path: Path) -> np.ndarray:
    """The RGB pixels ``(h, w, 3)`` of an XWD file as Xvfb writes its screen (``-fbdir``; 24-bit depth, 32 bits a pixel)."""
    import struct

    data = path.read_bytes()
    fields = struct.unpack(">25I", data[:100])
    header_size, width, height, byte_order = fields[0], fields[4], fields[5], fields[7]
    bits_per_pixel, bytes_per_line, red_mask, ncolors = fields[11], fields[12], fields[14], fields[19]
    assert bits_per_pixel == 32 and byte_order == 0 and red_mask == 0xFF0000, fields  # LSB first: B, G, R, pad
    offset = header_size + 12 * ncolors
    rows = np.frombuffer(data, dtype=np.uint8, count=bytes_per_line * height, offset=offset).reshape(height, bytes_per_line)
    return rows[:, : 4 * width].reshape(height, width, 4)[..., [2, 1, 0]]


def _screens_of_gui(xvfb_run: str, tmp_path: Path, variants: tuple[str, ...]) -> list[tuple[np.ndarray, dict]]:
    """Run the label child once per variant, each under its own Xvfb, side by side; their screens and results."""
    runs = []
    for variant in variants:
        fbdir = tmp_path / f"fb_{variant}"
        fbdir.mkdir()
        out = tmp_path / f"{variant}.xwd"
        cmd = [xvfb_run, "-a", "-s", f"-screen 0 {SCREEN[0]}x{SCREEN[1]}x24 -fbdir {fbdir}", sys.executable, "-c",
               LABELS_CHILD, str(REPO), str(fbdir / "Xvfb_screen0"), str(out), variant]
        runs.append((out, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)))
    found = []
    for out, proc in runs:
        stdout, stderr = proc.communicate(timeout=240)
        lines = [line for line in stdout.splitlines() if line.startswith("RESULT ")]
        assert proc.returncode == 0 and lines, f"GUI child failed ({proc.returncode}):\n{stderr[-3000:]}"
        found.append((read_xwd_rgb(out), json.loads(lines[-1][len("RESULT "):])))
    return found


@pytest.mark.slow
def test_the_panel_labels_are_drawn(tmp_path: Path, xvfb_run: str) -> None:
    """The slider and button labels show on the screen (PyBullet's addUserDebugPoints would blank them all),
    and the window says the magnification it opened at (x1 for the exaggerated table at minute 200)."""
    (shown, result), (blank, _) = _screens_of_gui(xvfb_run, tmp_path, ("named", "blank"))
    assert shown.std() > 20.0  # the window drew something
    text = [int((image[PANEL_BOX].max(axis=2) <= TEXT_MAX_LEVEL).sum()) for image in (shown, blank)]
    print(f"text pixels in the parameter panel: {text[0]} named, {text[1]} blank-named")
    assert text[0] - text[1] >= MIN_LABEL_PIXELS, f"text pixels in the panel: {text[0]} named, {text[1]} blank-named"
    assert "magnified x1 " in result["shown"] and "minute 200" in result["shown"]
