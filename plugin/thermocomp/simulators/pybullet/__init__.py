"""PyBullet: the deformed robot in a real simulator (headless and GUI).

A thin adapter (STYLE.md, practice 7): PyBullet is imported only when a
client is opened (:func:`open_client`), never by importing this package.
PyBullet's quaternions are ``(x, y, z, w)`` (:mod:`.conversions`);
thermocomp's are ``(w, x, y, z)``. Conventions: docs/conventions.md; how to
use it: docs/pybullet.md; scene files: docs/scenes.md.

The ``thermocomp sim`` job (inputs read, the compensation, files written) is
:mod:`thermocomp.app.sim`; this package is what talks to PyBullet::

    from thermocomp.app.sim import SimInputs, compensate_for_gui, load_setup, measure
    from thermocomp.simulators.pybullet import save_screenshot, run_gui
    setup = load_setup(SimInputs("irb140", "deformations/exaggerated.csv", "examples/targets_random50.csv",
                       scene="scenes/irb140_paper_cell.toml"))
    measurement, report = measure(setup, "measured.csv")    # the simulated laser tracker
    save_screenshot(setup, "cell.png", magnification=50)    # TinyRenderer, no display
    run_gui(setup, compensate=compensate_for_gui)           # PyBullet's window
"""

from thermocomp.simulators.pybullet.cell import (
    Cell,
    Screenshot,
    SimSetup,
    check_collisions,
    check_outputs,
    measure_compensated,
    render_screenshot,
    save_screenshot,
)
from thermocomp.simulators.pybullet.client import (
    Client,
    SimulatorUnavailable,
    connect,
    open_client,
)
from thermocomp.simulators.pybullet.collision import (
    CollisionOptions,
    CollisionReport,
    check_program_collisions,
)
from thermocomp.simulators.pybullet.geometry import RobotGeometry, robot_geometry
from thermocomp.simulators.pybullet.gui import run_gui
from thermocomp.simulators.pybullet.robot import (
    DeformedRobot,
    RobotBody,
    load_model,
    load_urdf_body,
)
from thermocomp.simulators.pybullet.tracker import (
    TrackerMeasurement,
    measure_program,
    write_tracker_csv,
)

__all__ = [
    "Cell",
    "Client",
    "CollisionOptions",
    "CollisionReport",
    "DeformedRobot",
    "RobotBody",
    "RobotGeometry",
    "Screenshot",
    "SimSetup",
    "SimulatorUnavailable",
    "TrackerMeasurement",
    "check_collisions",
    "check_outputs",
    "check_program_collisions",
    "connect",
    "load_model",
    "load_urdf_body",
    "measure_compensated",
    "measure_program",
    "open_client",
    "render_screenshot",
    "robot_geometry",
    "run_gui",
    "save_screenshot",
    "write_tracker_csv",
]
