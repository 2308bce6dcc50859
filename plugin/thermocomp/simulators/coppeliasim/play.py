"""Play a compensated program in the scene: the corrected joint angles, target by target."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.errors import ConfigurationError
from thermocomp.kinematics.model import KinematicModel
from thermocomp.simulators.coppeliasim.connection import Session
from thermocomp.simulators.coppeliasim.scene import (
    SceneRobot,
    preserved,
    set_joint_positions,
    show_model,
)


def play(
    session: Session,
    robot: SceneRobot,
    q: FloatArray,
    *,
    model: KinematicModel | None = None,
    dwell_s: float = 0.5,
    on_row: Callable[[int], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Set the joints to each row of ``q`` [rad] ``(r, n)`` in turn, ``dwell_s`` seconds apart.

    With ``model``, the deformed robot is shown while playing. The scene is
    restored at the end, also on errors and Ctrl-C.
    """
    if not dwell_s >= 0:
        raise ConfigurationError(f"dwell: expected seconds >= 0, got {dwell_s!r}")
    q = np.atleast_2d(np.asarray(q, dtype=float))
    with preserved(session, robot):
        if model is not None:
            show_model(session, robot, model)
        for k, row in enumerate(q):
            set_joint_positions(session, robot, row)
            if on_row is not None:
                on_row(k)
            sleep(dwell_s)
