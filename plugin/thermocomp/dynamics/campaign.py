"""The identification campaign as the command line runs it: design, rehearse on a simulated robot, identify.

One function per command (``thermocomp excite``, ``simulate-recording``,
``identify``); each reads its inputs, calls the pure core and writes its
outputs all or none (:func:`thermocomp.io.atomic.atomic_write_all`), never
over an input. docs/dynamics.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from thermocomp._typing import PathLike
from thermocomp.dynamics.excitation import Excitation, ExcitationOptions, design_excitation
from thermocomp.dynamics.identify import Identification, IdentifyOptions, identify
from thermocomp.dynamics.report import TorqueCheck, check_torques, report_text
from thermocomp.errors import InputError
from thermocomp.io.atomic import atomic_write_all, check_not_input
from thermocomp.io.recording_csv import Recording, read_recording_csv, write_recording_csv
from thermocomp.robot.chain import Chain


def _outputs(outputs: list[PathLike | None], inputs: list[PathLike]) -> None:
    given = [Path(o) for o in outputs if o]
    for o in given:
        check_not_input(o, [i for i in inputs if i and Path(i).exists()])
    if len({o.resolve() for o in given}) != len(given):
        raise InputError(f"expected distinct output files, got {', '.join(str(o) for o in given)}")


def excitation_report(chain: Chain, excitation: Excitation, rate: float) -> str:
    """What ``thermocomp excite`` prints: per joint the sine's centre, amplitude, frequency, peak speed, cycles."""
    lines = [
        f"Excitation for {chain.name}: {excitation.duration:.6g} s at {rate:.6g} Hz, one sine per joint "
        "q_i(t) = centre_i + amplitude_i sin(2 pi f_i t) (seed 003)",
        f"frequency set: {excitation.check.quality}",
        *[f"  {issue.quality}: {issue.cause}: {issue.text}" for issue in excitation.check.issues],
        "joint  centre_deg  amplitude_deg  frequency_Hz  peak_speed_deg_s  limit_%  range_%  cycles",
    ]
    span = np.minimum(chain.upper - chain.lower, 2 * math.pi)
    for i in range(chain.n_joints):
        limit = chain.velocity[i]
        pct = 100 * excitation.peak_speed[i] / limit if math.isfinite(limit) else math.nan
        lines.append(
            f"{i + 1:>5}  {math.degrees(excitation.centre[i]):>10.4g}  {math.degrees(excitation.amplitude[i]):>13.4g}  "
            f"{excitation.frequency[i]:>12.6g}  {math.degrees(excitation.peak_speed[i]):>16.4g}  {pct:>7.0f}  "
            f"{100 * 2 * excitation.amplitude[i] / span[i]:>7.0f}  {excitation.frequency[i] * excitation.duration:>6.3g}")
    return "\n".join(lines) + "\n"


def run_excite(chain: Chain, options: ExcitationOptions, rate: float, out: PathLike,
               report: PathLike | None = None, inputs: tuple[PathLike, ...] = ()) -> tuple[Excitation, str]:
    """Design an excitation for ``chain``, write its trajectory (``time_s, q, qd, qdd``) and report.

    Returns the excitation and the report text.
    """
    if not (math.isfinite(rate) and rate > 0):
        raise InputError(f"--rate-hz: expected > 0, got {rate!r}")
    _outputs([out, report], list(inputs))
    excitation = design_excitation(chain, options)
    t = excitation.times(rate)
    q, qd, qdd = excitation.states(t)
    trajectory = Recording(time=t, q=q, tau=np.zeros_like(q), qd=qd, qdd=qdd)
    text = excitation_report(chain, excitation, rate)
    comments = (f"excitation of {chain.name} by thermocomp excite (seed 003): "
                + ", ".join(f"f{i + 1} = {f:.6g} Hz" for i, f in enumerate(excitation.frequency)),)
    writes = [(out, lambda p: write_recording_csv(p, trajectory, comments, torques=False))]
    if report:
        writes.append((report, lambda p: p.write_text(text, encoding="utf-8")))
    atomic_write_all(writes)
    return excitation, text


def run_simulate_recording(truth: PathLike, trajectory: PathLike, out: PathLike, *, friction: PathLike | None = None,
                           drives=None, seed: int | None = None, with_derivatives: bool = False) -> Recording:
    """Play ``trajectory`` on PyBullet with the ``truth`` URDF (and friction CSV) and write what the drives report."""
    from thermocomp.dynamics.simulate import DriveOptions, SimulatedRobot
    from thermocomp.io.friction_csv import read_friction_csv

    _outputs([out], [truth, trajectory, friction])
    motion = read_recording_csv(trajectory, torques=False)
    if motion.qd is None or motion.qdd is None:
        raise InputError("expected the columns qd<i>_rad_s and qdd<i>_rad_s2 (a trajectory from thermocomp excite)",
                         path=str(trajectory))
    table = read_friction_csv(friction, motion.n_joints) if friction else None
    with SimulatedRobot(truth, table, drives or DriveOptions(), rng=np.random.default_rng(seed)) as robot:
        if robot.chain.n_joints != motion.n_joints:
            raise InputError(f"expected a trajectory of {robot.chain.n_joints} joints, got {motion.n_joints}",
                             path=str(trajectory))
        recording = robot.record(motion.time, motion.q, motion.qd, motion.qdd, with_derivatives=with_derivatives)
    comment = (f"simulated by thermocomp simulate-recording: truth {truth}, friction {friction or 'none'}",)
    atomic_write_all([(out, lambda p: write_recording_csv(p, recording, comment))])
    return recording


@dataclass(frozen=True, eq=False)
class IdentifyRun:
    """What ``thermocomp identify`` did: the identification, its checks and the report text."""

    identification: Identification
    own: TorqueCheck
    validation: TorqueCheck | None
    text: str

    @property
    def success(self) -> bool:
        return self.own.success and (self.validation is None or self.validation.success)


def run_identify(robot: PathLike, recording: PathLike, *, urdf_out: PathLike | None = None,
                 friction_out: PathLike | None = None, report: PathLike | None = None,
                 validate: PathLike | None = None, options: IdentifyOptions | None = None) -> IdentifyRun:
    """Identify from ``recording`` starting from the URDF ``robot``; write the identified URDF, friction and report.

    The outputs are written whether the identification succeeds or not (the
    report says which, as softMC's IDNT file does); all or none.
    """
    from thermocomp.io.friction_csv import write_friction_csv
    from thermocomp.io.urdf_inertials import read_urdf_parameters, urdf_with_parameters

    if Path(robot).suffix.lower() != ".urdf":
        raise InputError("expected a .urdf file carrying the reference (CAD) inertials, e.g. from thermocomp inertia",
                         path=str(robot))
    _outputs([urdf_out, friction_out, report], [robot, recording, validate])
    info = read_urdf_parameters(robot)
    chain = info.chain
    rec = read_recording_csv(recording, chain.n_joints)
    result = identify(chain, rec, info.parameters, options or IdentifyOptions(), attached=info.attached)
    own = check_torques(result, rec, data=result.data, mask=result.mask)
    validation = check_torques(result, read_recording_csv(validate, chain.n_joints)) if validate else None
    text = report_text(result, own, validation, source=str(recording), validation_source=str(validate or ""))
    if info.notes:
        text += "\nnotes on the input URDF:\n" + "\n".join(f"  {note}" for note in info.notes) + "\n"
    writes = []
    if urdf_out:
        urdf_text = urdf_with_parameters(robot, result.parameters)
        writes.append((urdf_out, lambda p: p.write_text(urdf_text, encoding="utf-8")))
    if friction_out:
        writes.append((friction_out, lambda p: write_friction_csv(
            p, result.friction, (f"identified by thermocomp identify from {recording} (Coulomb and viscous; Fs = Fc)",))))
    if report:
        writes.append((report, lambda p: p.write_text(text, encoding="utf-8")))
    atomic_write_all(writes)
    return IdentifyRun(result, own, validation, text)


__all__ = ["IdentifyRun", "excitation_report", "run_excite", "run_identify", "run_simulate_recording"]
