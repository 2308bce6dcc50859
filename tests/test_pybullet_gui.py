"""PyBullet's GUI under a virtual display (Xvfb): the window opens, the panel drives it, it closes.

The GUI runs in a child process under ``xvfb-run`` (PyBullet's GUI ends the
whole process when it cannot reach an X server, which must not be pytest's).
A scripted panel stands in for the user: it presses "run compensation",
plays the program with compensation, moves the minute slider and the
magnification, then plays without compensation. The child reports what the
session did as JSON and saves the window's OpenGL picture.

Skipped, saying why, where Xvfb is not installed (CI installs only the
Python dependencies; ``apt-get install xvfb`` provides it).
"""

from __future__ import annotations

import json
import shutil
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
    from thermocomp.compensation.program import Program
    from thermocomp.io.targets_csv import read_targets_csv
    from thermocomp.simulators.pybullet.cell import load_setup
    from thermocomp.simulators.pybullet.gui import ScriptedPanel, run_gui

    repo, picture = sys.argv[1], sys.argv[2]
    full = read_targets_csv(repo + "/examples/targets_random50.csv")
    program = Program(names=full.names[:4], R_world_tcp=full.R_world_tcp[:4], p_world_tcp=full.p_world_tcp[:4])
    setup = load_setup(None, repo + "/deformations/exaggerated.csv", program,
                       scene=repo + "/scenes/irb140_paper_cell.toml",
                       options=CompensationOptions(minutes=(0.0, 100.0, 200.0)))
    panel = ScriptedPanel({2: {"compensate": 1}, 3: {"play_corrected": 1}, 9: {"minute": 200.0},
                           10: {"magnification": 50.0}, 11: {"play_nominal": 1}})
    s = run_gui(setup, panel=panel, max_frames=18, frame_seconds=0.0, play_interval=0.0, screenshot=picture)
    print("RESULT " + json.dumps({"frames": s.frames, "rows_played": s.rows_played, "planned": s.planned,
                                  "status": s.status, "reloads": s.reload_seconds}))
""")


def test_gui_session_under_xvfb(tmp_path: Path) -> None:
    xvfb_run = shutil.which("xvfb-run")
    if xvfb_run is None or shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (apt-get install xvfb); the GUI needs a display")
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


def test_the_panel_starts_at_the_given_minute_and_magnification(tmp_path: Path) -> None:
    """``thermocomp sim --minute M --magnification X`` (GUI): the sliders start there."""
    xvfb_run = shutil.which("xvfb-run")
    if xvfb_run is None or shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (apt-get install xvfb); the GUI needs a display")
    proc = subprocess.run(
        [xvfb_run, "-a", "-s", "-screen 0 1024x768x24", sys.executable, "-c", PANEL_CHILD],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, f"GUI child failed ({proc.returncode}):\n{proc.stderr[-3000:]}"
    assert json.loads(lines[-1][len("RESULT "):]) == {"minute": 100.5, "magnification": 20.0}
