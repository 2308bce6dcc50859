"""PyBullet's GUI: the deformed robot in its cell, driven from the parameter panel.

What the window shows: the scene, the deformed robot (orange) and the nominal
robot as a translucent ghost, the targets (red spheres) and the TCP path of
the last played program (red without compensation, green with), and a text
with the TCP error before and after compensation as PyBullet measured it.

The panel: a **minute** slider (0 to the program's end), a **magnification**
slider (1 to 1000, display only, like seed 002's Figure 12), and buttons to
**run the compensation** and to **play** the program with or without it.

Numerical work stays out of the drawing loop: the compensation and the
PyBullet measurement of every row run once, when the button is pressed
(:func:`make_plan`, in a separate DIRECT client); each frame then only
reads the panel, reloads the robot when the deformation shown changed,
and looks rows up in the plan.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.kinematics.ik import Status
from thermocomp.simulators.magnification import MAGNIFICATION_RANGE
from thermocomp.simulators.pybullet.cell import (  # noqa: F401 (VISIBLE_SHARE, display_magnification: the GUI's)
    VISIBLE_SHARE,
    Cell,
    Compensated,
    SimSetup,
    automatic_magnification,
    display_magnification,
    measure_compensated,
)
from thermocomp.simulators.pybullet.client import Client, open_client, paused_rendering
from thermocomp.simulators.pybullet.render import camera_framing, view_axes

#: Seconds between two targets when a program plays.
PLAY_INTERVAL = 0.4
#: Seconds per frame of the GUI loop (about 30 frames per second).
FRAME_SECONDS = 1.0 / 30.0
#: Lines of text drawn above the robot (status lines, the line saying what is shown, the play line), and their size.
TEXT_LINES = 5
TEXT_SIZE = 1.2
#: Share of the GUI's 3-D view that its side panels leave visible (measured on PyBullet 3.2.7's
#: window: about 780 of 1280 px).
GUI_VISIBLE_WIDTH = 0.6
#: Window size [px] asked of PyBullet's GUI.
WINDOW_SIZE = (1280, 860)
#: Colours of the TCP path (r, g, b in 0..1) without and with compensation.
PATH_RGB = {False: (0.85, 0.1, 0.1), True: (0.1, 0.65, 0.2)}


@dataclass(frozen=True)
class PanelValues:
    """One reading of the parameter panel.

    Attributes
    ----------
    minute
        Minute of the program shown [min].
    magnification
        Display factor of the deformation [-].
    compensate, play_nominal, play_corrected
        Click counts of the three buttons (PyBullet buttons count clicks).
    """

    minute: float = 0.0
    magnification: float = 1.0
    compensate: int = 0
    play_nominal: int = 0
    play_corrected: int = 0


class DebugPanel:
    """PyBullet's parameter panel: two sliders and three buttons (``addUserDebugParameter``)."""

    def __init__(self, client: Client, last_minute: float, start_minute: float = 0.0,
                 start_magnification: float = MAGNIFICATION_RANGE[0]) -> None:
        pb, cid = client.pb, client.id
        self.client = client
        lo, hi = MAGNIFICATION_RANGE
        self.ids = {
            "minute": pb.addUserDebugParameter("minute", 0.0, max(float(last_minute), 1e-9), float(start_minute),
                                               physicsClientId=cid),
            "magnification": pb.addUserDebugParameter("magnification", lo, hi, float(start_magnification),
                                                      physicsClientId=cid),
            # rangeMin > rangeMax makes a button; reading it gives the click count.
            "compensate": pb.addUserDebugParameter("run compensation", 1, 0, 0, physicsClientId=cid),
            "play_nominal": pb.addUserDebugParameter("play without compensation", 1, 0, 0, physicsClientId=cid),
            "play_corrected": pb.addUserDebugParameter("play with compensation", 1, 0, 0, physicsClientId=cid),
        }

    def read(self) -> PanelValues:
        pb, cid = self.client.pb, self.client.id
        v = {k: pb.readUserDebugParameter(i, physicsClientId=cid) for k, i in self.ids.items()}
        return PanelValues(minute=v["minute"], magnification=v["magnification"], compensate=int(v["compensate"]),
                           play_nominal=int(v["play_nominal"]), play_corrected=int(v["play_corrected"]))


class ScriptedPanel:
    """A panel that a script drives: from frame ``k`` on, the values ``script[k]`` set (tests, demos).

    Parameters
    ----------
    script
        Frame number -> changed values (keys of :class:`PanelValues`);
        button values are click counts.
    """

    def __init__(self, script: Mapping[int, Mapping[str, float]]) -> None:
        self.script = {int(k): dict(v) for k, v in script.items()}
        self.values = PanelValues()
        self.frame = 0

    def read(self) -> PanelValues:
        if self.frame in self.script:
            self.values = replace(self.values, **self.script[self.frame])
        self.frame += 1
        return self.values


#: What the GUI reads its controls from.
Panel = DebugPanel | ScriptedPanel


@dataclass(frozen=True, eq=False)
class GuiPlan:
    """Rows the GUI plays and the errors it shows, computed once (not per frame).

    Attributes
    ----------
    minute, target
        Row time [min] and target index, ``(r,)``.
    q, q_nominal
        Corrected and nominal controller angles [rad] ``(r, n)``.
    ok, nominal_ok
        Whether the compensation and the nominal solution converged, ``(r,)``.
    nominal_error, corrected_error
        TCP miss PyBullet measured [m] ``(r,)`` (NaN where not solved).
    timed
        True when the targets have their own times (the program is a path in time).
    names
        Target names.
    """

    minute: FloatArray
    target: np.ndarray
    q: FloatArray
    q_nominal: FloatArray
    ok: np.ndarray
    nominal_ok: np.ndarray
    nominal_error: FloatArray
    corrected_error: FloatArray
    timed: bool
    names: tuple[str, ...]

    def rows_at(self, minute: float) -> np.ndarray:
        """Rows played at ``minute``: every row of a timed program, else the rows of that minute."""
        if self.timed:
            return np.arange(self.minute.size)
        return np.flatnonzero(self.minute == minute)

    def summary_lines(self, minute: float) -> list[str]:
        """The largest measured misses without and with compensation at ``minute``, as short lines."""
        rows = self.rows_at(minute) if not self.timed else np.flatnonzero(self.minute <= minute)
        if rows.size == 0:
            return [f"minute {minute:g}: no targets yet"]
        nom = self.nominal_error[rows][self.nominal_ok[rows]]
        cor = self.corrected_error[rows][self.ok[rows]]
        failed = int((~self.ok[rows]).sum())
        head = f"minute {minute:g}, {rows.size} targets" + (f", {failed} not compensated" if failed else "")
        return [
            head + ", TCP error measured in PyBullet:",
            "  without compensation: " + (f"up to {nom.max() * 1e3:.4f} mm" if nom.size else "n/a"),
            "  with compensation: " + (f"up to {cor.max() * 1e3:.2g} mm" if cor.size else "n/a"),
        ]

    def summary(self, minute: float) -> str:
        """:meth:`summary_lines` on one line."""
        return " ".join(line.strip() for line in self.summary_lines(minute))


def make_plan(setup: SimSetup, report: Compensated, workdir: PathLike | None = None) -> GuiPlan:
    """Measure every row of a compensation (``report``) in a PyBullet DIRECT client: the GUI's numbers.

    ``workdir``: folder for the generated files, shared with the GUI's cell (default: a temporary one).
    """
    m = measure_compensated(setup, report, workdir=workdir)
    return GuiPlan(minute=m.minute, target=m.target, q=m.q, q_nominal=m.q_nominal,
                   ok=m.status == Status.CONVERGED, nominal_ok=m.nominal_status == Status.CONVERGED,
                   nominal_error=m.nominal_distance, corrected_error=m.corrected_distance,
                   timed=setup.program.time_min is not None, names=setup.program.names)


@dataclass
class GuiSummary:
    """What a GUI session did (for tests and for the command line's last words).

    Attributes
    ----------
    frames
        Frames drawn.
    reload_seconds
        Duration of each reload of the deformed robot [s].
    rows_played
        Program rows shown while playing.
    status
        The last status text.
    planned
        Whether the compensation ran.
    start_minute, start_magnification
        Where the minute [min] and the display magnification started.
    shown_text
        The last text saying what was shown (minute and magnification).
    """

    frames: int = 0
    reload_seconds: list[float] = field(default_factory=list)
    rows_played: int = 0
    status: str = ""
    planned: bool = False
    start_minute: float = 0.0
    start_magnification: float = 1.0
    shown_text: str = ""


def _gui_field_of_view(client: Client) -> tuple[float, float]:
    """``(tan(vertical fov / 2), width / height)`` of the GUI's camera; a 45 deg, 4:3 view in DIRECT mode."""
    default = (float(np.tan(np.radians(22.5))), 4.0 / 3.0)
    if not client.gui:
        return default
    info = client.pb.getDebugVisualizerCamera(physicsClientId=client.id)
    P = np.array(info[3], dtype=float).reshape(4, 4).T  # OpenGL projection, column-major
    if P[0, 0] <= 0 or P[1, 1] <= 0:
        return default
    return 1.0 / P[1, 1], P[1, 1] / P[0, 0]


class SimGui:
    """The GUI session: a :class:`Cell` in a GUI client, a panel, and the play state.

    Parameters
    ----------
    setup
        The inputs.
    client
        A GUI (or, for tests of the logic, DIRECT) client.
    workdir
        Folder for regenerated URDFs.
    panel
        :class:`DebugPanel` (default) or :class:`ScriptedPanel`.
    compensate
        Solves the program when the 'run compensation' button is pressed, keeping every row
        (``thermocomp sim`` hands down :func:`thermocomp.app.sim.compensate_for_gui`).
    play_interval
        Seconds between two targets when playing.
    start_minute, start_magnification
        Where the :class:`DebugPanel`'s sliders start [min], [-].
    """

    def __init__(self, setup: SimSetup, client: Client, workdir: PathLike, panel: Panel | None = None, *,
                 compensate: Callable[[SimSetup], Compensated], play_interval: float = PLAY_INTERVAL,
                 start_minute: float = 0.0, start_magnification: float = MAGNIFICATION_RANGE[0]) -> None:
        self.setup = setup
        self.compensate = compensate
        self.client = client
        self.start = (float(start_minute), float(start_magnification))
        with paused_rendering(client):
            self._build(workdir, panel, play_interval)
        self._set_status("press 'run compensation' to compensate the program")
        self._set_shown_text(*self.start)

    def _build(self, workdir: PathLike, panel: Panel | None, play_interval: float) -> None:
        setup, client = self.setup, self.client
        self.cell = Cell(setup, client, workdir, ghost=True)
        self.minutes = setup.minutes
        self.panel = panel if panel is not None else DebugPanel(client, float(self.minutes[-1]), *self.start)
        self.play_interval = play_interval
        self.plan: GuiPlan | None = None
        self.summary = GuiSummary()
        self.shown: tuple[float, float] | None = None  # (minute, magnification) of the robot on screen
        self.last = PanelValues()
        self.play_rows: np.ndarray | None = None
        self.play_corrected = False
        self.play_next = 0
        self.play_due = 0.0
        self.path_points: list[FloatArray] = []
        self.path_items: list[int] = []
        pb, cid = client.pb, client.id
        # Frame the cell with the window's own field of view, less the side panels that cover
        # its edges, and put the text in the upper left corner of what is left.
        tan_v, aspect = _gui_field_of_view(client)
        seen = GUI_VISIBLE_WIDTH * aspect
        cam = camera_framing(client, self.cell.framing_points(), fov_deg=float(np.degrees(2 * np.arctan(tan_v))),
                             width=round(1000 * seen), height=1000)
        right, up, _ = view_axes(client, cam.yaw_deg, cam.pitch_deg)
        reach_v, reach_h = tan_v * cam.distance, tan_v * seen * cam.distance  # visible half extents at the target
        corner = np.array(cam.target) + up * (0.9 * reach_v) - right * (0.92 * reach_h)
        self.text_at = [(corner - up * (0.075 * reach_v * k)).tolist() for k in range(TEXT_LINES)]
        self.text_items = [pb.addUserDebugText("", at, [0, 0, 0], TEXT_SIZE, physicsClientId=cid)
                           for at in self.text_at]
        self._draw_targets()
        if client.gui:
            pb.configureDebugVisualizer(pb.COV_ENABLE_RGB_BUFFER_PREVIEW, 0, physicsClientId=cid)
            pb.configureDebugVisualizer(pb.COV_ENABLE_DEPTH_BUFFER_PREVIEW, 0, physicsClientId=cid)
            pb.configureDebugVisualizer(pb.COV_ENABLE_SEGMENTATION_MARK_PREVIEW, 0, physicsClientId=cid)
            pb.resetDebugVisualizerCamera(cam.distance, cam.yaw_deg, cam.pitch_deg, list(cam.target),
                                          physicsClientId=cid)

    # -- drawing helpers (PyBullet calls only) ---------------------------------------------------

    def _draw_targets(self) -> None:
        # Small spheres, not debug points: PyBullet 3.2's addUserDebugPoints blanks every label of the
        # window's widgets (sliders, buttons, tabs, menus) on a real X server (tests/test_pybullet_gui.py
        # looks at the labels' pixels).
        self.cell.add_target_markers()

    def _set_line(self, k: int, text: str, rgb: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> None:
        pb, cid = self.client.pb, self.client.id
        self.text_items[k] = pb.addUserDebugText(text, self.text_at[k], list(rgb), TEXT_SIZE,
                                                 replaceItemUniqueId=self.text_items[k], physicsClientId=cid)

    def _set_status(self, lines: str | list[str]) -> None:
        """The status lines (all but the last text line)."""
        lines = [lines] if isinstance(lines, str) else lines
        self.summary.status = " ".join(line.strip() for line in lines)
        for k in range(TEXT_LINES - 2):
            self._set_line(k, lines[k] if k < len(lines) else "")

    def _set_shown_text(self, minute: float, magnification: float) -> None:
        """The line saying what the robot on screen is: its minute and the display magnification."""
        self.summary.shown_text = (f"minute {minute:g}: deformation shown magnified x{magnification:g} "
                                   "(display only; the ghost is the nominal robot)")
        self._set_line(TEXT_LINES - 2, self.summary.shown_text, (0.45, 0.2, 0.0))

    def _set_play_text(self, text: str) -> None:
        """The last text line: what is playing."""
        self._set_line(TEXT_LINES - 1, text, (0.1, 0.1, 0.55))

    def _clear_path(self) -> None:
        pb, cid = self.client.pb, self.client.id
        for item in self.path_items:
            pb.removeUserDebugItem(item, physicsClientId=cid)
        self.path_items, self.path_points = [], []

    def _show(self, minute: float, magnification: float) -> None:
        if self.shown != (minute, magnification):
            self.cell.robot.show(self.setup.fraction(minute), magnification)
            self.shown = (minute, magnification)
            self._set_shown_text(minute, magnification)

    # -- reacting to the panel -------------------------------------------------------------------

    def _snap(self, minute: float) -> float:
        """The program minute nearest the slider value."""
        return float(self.minutes[int(np.argmin(np.abs(self.minutes - minute)))])

    def frame(self, now: float) -> None:
        """One frame: read the panel, react to what changed, advance the play."""
        values = self.panel.read()
        minute = self._snap(values.minute)
        lo, hi = MAGNIFICATION_RANGE
        magnification = float(np.clip(values.magnification, lo, hi))
        if self.play_rows is None or not (self.plan is not None and self.plan.timed):
            self._show(minute, magnification)
        if values.compensate != self.last.compensate:
            self._compute()
        for clicks, corrected in ((values.play_nominal, False), (values.play_corrected, True)):
            if clicks != (self.last.play_corrected if corrected else self.last.play_nominal):
                self._start_play(minute, corrected, now)
        if self.plan is not None and minute != self._snap(self.last.minute):
            self._set_status(self.plan.summary_lines(minute))
        self.last = values
        if self.play_rows is not None and now >= self.play_due:
            self._play_step(minute, magnification, now)
        self.summary.frames += 1

    def _compute(self) -> None:
        self._set_status("compensating ...")
        self.plan = make_plan(self.setup, self.compensate(self.setup), self.cell.workdir)  # once, on the button
        self.summary.planned = True
        self._set_status(self.plan.summary_lines(self._snap(self.last.minute)))

    def _start_play(self, minute: float, corrected: bool, now: float) -> None:
        if self.plan is None:
            self._compute()
        assert self.plan is not None
        self.play_rows = self.plan.rows_at(minute)
        self.play_corrected = corrected
        self.play_next = 0
        self.play_due = now
        self._clear_path()

    def _play_step(self, minute: float, magnification: float, now: float) -> None:
        plan, rows = self.plan, self.play_rows
        assert plan is not None and rows is not None
        if self.play_next >= rows.size:
            self.play_rows = None
            self._set_play_text("")
            self._set_status(plan.summary_lines(minute))
            return
        i = int(rows[self.play_next])
        if plan.timed:
            self._show(float(plan.minute[i]), magnification)
        ok = plan.ok[i] if self.play_corrected else plan.nominal_ok[i]
        if ok:
            self.cell.robot.set_q(plan.q[i] if self.play_corrected else plan.q_nominal[i])
            if self.cell.ghost is not None and plan.nominal_ok[i]:
                self.cell.ghost.set_q(plan.q_nominal[i])
            self._trace()
        error = plan.corrected_error[i] if self.play_corrected else plan.nominal_error[i]
        how = "with" if self.play_corrected else "without"
        name = plan.names[int(plan.target[i])]
        shown = f"{error * 1e3:.6g} mm" if ok else "not solved"
        self._set_play_text(f"{how} compensation, minute {plan.minute[i]:g}, target {name} "
                            f"({self.play_next + 1}/{rows.size}): TCP error {shown}")
        self.summary.rows_played += 1
        self.play_next += 1
        self.play_due = now + self.play_interval

    def _trace(self) -> None:
        """Extend the drawn TCP path to where PyBullet now puts the deformed robot's TCP."""
        body = self.cell.robot.body
        assert body is not None
        point = body.link_position_single("tcp")
        if self.path_points:
            pb, cid = self.client.pb, self.client.id
            self.path_items.append(pb.addUserDebugLine(self.path_points[-1].tolist(), point.tolist(),
                                                       list(PATH_RGB[self.play_corrected]), 2.0,
                                                       physicsClientId=cid))
        self.path_points.append(point)

    def run(self, max_frames: int | None = None, frame_seconds: float = FRAME_SECONDS) -> GuiSummary:
        """Run until the window closes (or ``max_frames`` frames); returns the session's summary."""
        pb = self.client.pb
        while max_frames is None or self.summary.frames < max_frames:
            if not pb.isConnected(physicsClientId=self.client.id):
                break
            try:
                self.frame(time.monotonic())
            except pb.error:
                # The window was closed between the check above and a call in the frame.
                if pb.isConnected(physicsClientId=self.client.id):
                    raise
                break
            time.sleep(frame_seconds)
        self.summary.reload_seconds = list(self.cell.robot.reload_seconds)
        return self.summary


def run_gui(setup: SimSetup, *, compensate: Callable[[SimSetup], Compensated], panel: Panel | None = None,
            max_frames: int | None = None, frame_seconds: float = FRAME_SECONDS, play_interval: float = PLAY_INTERVAL,
            screenshot: PathLike | None = None, start_minute: float | None = None,
            start_magnification: float | None = None) -> GuiSummary:
    """Open PyBullet's GUI with the cell and run it until the window is closed.

    Parameters
    ----------
    setup
        The inputs (:func:`thermocomp.app.sim.load_setup`).
    compensate
        Solves the program on the 'run compensation' button (:class:`SimGui`).
    panel
        Default: PyBullet's parameter panel; a :class:`ScriptedPanel` drives it from a script.
    max_frames
        Stop after this many frames (default: when the window closes).
    frame_seconds, play_interval
        Pace of the loop and of the play.
    screenshot
        Save the GUI's own OpenGL picture of the last frame to this PNG.
    start_minute, start_magnification
        Where the minute [min] and magnification sliders start. Default: the
        program's last minute (the full deformation of a ramp), magnified by
        :func:`~thermocomp.simulators.pybullet.cell.automatic_magnification` so that it shows, without a
        link going below the plane the robot stands on.

    Raises
    ------
    thermocomp.simulators.pybullet.client.SimulatorUnavailable
        No display, or PyBullet refused the GUI connection.
    """
    if start_minute is None:
        start_minute = float(setup.minutes[-1])
    client = open_client("gui", options=f"--width={WINDOW_SIZE[0]} --height={WINDOW_SIZE[1]}")
    try:
        if start_magnification is None:
            start_magnification = automatic_magnification(setup, start_minute)
        with tempfile.TemporaryDirectory(prefix="thermocomp_gui_") as work:
            gui = SimGui(setup, client, work, panel, compensate=compensate, play_interval=play_interval,
                         start_minute=start_minute, start_magnification=start_magnification)
            summary = gui.run(max_frames, frame_seconds)
            summary.start_minute, summary.start_magnification = float(start_minute), float(start_magnification)
            if screenshot is not None and client.pb.isConnected(physicsClientId=client.id):
                _save_gui_picture(client, gui, Path(screenshot))
            return summary
    finally:
        client.close()


def _save_gui_picture(client: Client, gui: SimGui, path: Path) -> None:
    from thermocomp.simulators.pybullet.render import write_png

    pb, cid = client.pb, client.id
    cam = camera_framing(client, gui.cell.framing_points(), width=800, height=600)
    view = pb.computeViewMatrixFromYawPitchRoll(list(cam.target), cam.distance, cam.yaw_deg, cam.pitch_deg, 0.0, 2,
                                                physicsClientId=cid)
    proj = pb.computeProjectionMatrixFOV(cam.fov_deg, cam.width / cam.height, cam.distance / 100, cam.distance * 10,
                                         physicsClientId=cid)
    w, h, rgba, _, _ = pb.getCameraImage(cam.width, cam.height, view, proj, renderer=pb.ER_BULLET_HARDWARE_OPENGL,
                                         physicsClientId=cid)
    write_png(path, np.asarray(rgba, dtype=np.uint8).reshape(h, w, 4)[..., :3])


__all__ = ["DebugPanel", "GuiPlan", "GuiSummary", "PanelValues", "ScriptedPanel", "SimGui", "display_magnification",
           "make_plan", "run_gui"]
