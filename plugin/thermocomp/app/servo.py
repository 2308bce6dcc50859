"""The ``servo`` jobs (seed 004): write the identification program, identify the servo, track a print path.

Each job checks its options, declares its files in one :class:`~thermocomp.io.job.Job` (checked before any
work, written all or none), runs :mod:`thermocomp.printing` and returns a result whose ``text()`` the command
line prints (docs/printing.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.job import Job
from thermocomp.printing.identification import IdentificationOptions, ServoModels
from thermocomp.printing.mpc import MPCOptions
from thermocomp.printing.pid import PIDOptions
from thermocomp.printing.servo_sim import ServoOptions

#: A chosen model below this VAF [%] fails ``servo identify`` (seed 004, Section 4-6: 95 to 100 %).
MIN_VAF_PCT = 95.0
#: Seed 004's tables, for the report: Table 4-2 (order, VAF %), Tables 6-1 to 6-4 (ERMS um).
THESIS_TABLE_4_2 = {"Base": (4, 99.47), "Shoulder": (4, 99.24), "Elbow": (4, 99.36), "Wrist1": (4, 98.62),
                    "Wrist2": (8, 96.63), "Wrist3": (5, 97.92)}
THESIS_ERMS_UM = {("mpc-iio", "line:x", 2.5): 27.9, ("mpc-iio", "line:x", 5.0): 48.4,
                  ("mpc-iio", "line:x", 10.0): 69.3, ("mpc-iio", "line:x", 40.0): 130.5,
                  ("mpc-iio", "line:y", 10.0): 76.8, ("mpc-iio", "line:z", 10.0): 49.1,
                  ("mpc-io", "line:x", 10.0): 144.2, ("pid", "line:x", 10.0): 459.0, ("none", "line:x", 10.0): 1100.0}
#: The print head's height above the surface [m] (where the drop's landing is measured; Section 6-4).
STANDOFF = 1e-3
#: The results CSV's columns.
RESULT_COLUMNS = ("controller", "speed_mm_s", "path", "erms_um", "sigma_um", "runs", "reference")


#: The robots ``servo`` runs: built-in UR robots, commanded by ``speedj`` (their inertials drive the simulated servo).
SERVO_ROBOTS = ("ur5",)


def _builtin(robot: str):
    """The chain and link inertials of a robot of :data:`SERVO_ROBOTS` (``--robot``), checked before any file."""
    from thermocomp.inertia.builtin import builtin_link_contents
    from thermocomp.io.robots import load_robot, robot_file

    if robot_file(robot, "--robot") is not None:  # an unknown name: robot_file says so
        raise InputError(f"--robot: servo runs a built-in UR robot ({', '.join(SERVO_ROBOTS)}), got the robot file "
                         f"{robot!r}")
    if robot not in SERVO_ROBOTS:
        raise InputError(f"--robot: servo runs a UR robot commanded by speedj at the servo rate "
                         f"({', '.join(SERVO_ROBOTS)}), got the built-in robot {robot!r}")
    chain = load_robot(robot)
    return chain, builtin_link_contents(robot, meshes=False)


def start_configuration(chain) -> FloatArray:
    """The documented start pose [rad]: the inverse kinematics of the lines' start (:data:`~thermocomp.printing.
    paths.LINE_START_MM`, the home orientation) from the home configuration."""
    from thermocomp.kinematics.fk import fk
    from thermocomp.kinematics.ik import solve_ik
    from thermocomp.kinematics.model import nominal_model
    from thermocomp.printing.paths import LINE_START_MM

    model = nominal_model(chain)
    R, _ = fk(model, chain.home)
    result = solve_ik(model, R[None], np.asarray(LINE_START_MM)[None] * 1e-3, chain.home[None])
    if not result.converged[0]:
        raise InputError(f"robot {chain.name!r} cannot reach the lines' start {LINE_START_MM} mm")
    return result.q[0]


# --- servo excite -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExciteResult:
    q_start: FloatArray
    samples: int
    rate_hz: float
    written: tuple[Path, ...]

    def text(self) -> str:
        q = ", ".join(f"{math.degrees(v):.3f}" for v in self.q_start)
        lines = [f"identification program: {self.samples} samples at {self.rate_hz:g} Hz "
                 f"({self.samples / self.rate_hz:.1f} s) from the start pose [{q}] deg"]
        lines += [f"wrote {p}" for p in self.written]
        return "\n".join(lines)


def run_excite(robot: str, out: PathLike, *, rate_hz: float = 125.0, options: IdentificationOptions | None = None,
               q_start_deg: FloatArray | None = None) -> ExciteResult:
    """Write :func:`~thermocomp.printing.urscript_excite.excite_urscript` for ``robot`` to ``out``."""
    from thermocomp.printing.identification import layout
    from thermocomp.printing.urscript_excite import excite_urscript

    options = IdentificationOptions() if options is None else options
    chain, _ = _builtin(robot)
    with Job() as job:
        out = job.output(out, "--out")
        job.check()
        q0 = start_configuration(chain) if q_start_deg is None else np.radians(np.asarray(q_start_deg, dtype=float))
        if q0.shape != (chain.n_joints,) or not np.all(np.isfinite(q0)):
            raise ConfigurationError(f"--start-deg: expected {chain.n_joints} finite angles, got "
                                     f"{np.degrees(q0).tolist()}")
        text = excite_urscript(options, rate_hz, q0, chain.lower, chain.upper,
                               (f"thermocomp servo excite: the identification experiment of seed 004 (Section 4-3) "
                                f"for {robot} at {rate_hz:g} Hz; record it with UR's RTDE logger (docs/printing.md)",))
        job.write_text(out, text)
        written = job.commit()
    return ExciteResult(q0, chain.n_joints * layout(options, rate_hz).length, rate_hz, tuple(written))


# --- servo identify ---------------------------------------------------------------------------------------


def vaf_table_text(models: ServoModels) -> str:
    """Table 4-1 (VAF per joint and order) and Table 4-2 (the chosen order) as text, the thesis's beside."""
    head = "VAF [%]".ljust(22) + "".join(f"n={n}".rjust(9) for n in models.orders)
    lines = ["Table 4-1: VAF of each joint's model on the validation multi-sine", head]
    for name, row in zip(models.joint_names, models.vaf_table):
        lines.append(name.ljust(22) + "".join(("unstable" if not np.isfinite(v) else f"{v:.2f}").rjust(9) for v in row))
    lines += ["", "Table 4-2: chosen order (thesis: order, VAF)", "joint".ljust(22) + "n".rjust(4) + "VAF [%]".rjust(10)
              + "   thesis"]
    for (name, model), (label, (n, v)) in zip(zip(models.joint_names, models.joints), THESIS_TABLE_4_2.items()):
        lines.append(name.ljust(22) + str(model.order).rjust(4) + f"{model.vaf_pct:.2f}".rjust(10)
                     + f"   {label} n={n}, {v:.2f}")
    lines.append(f"delay: {models.delay_samples} samples ({models.delay_samples / models.rate_hz * 1e3:.0f} ms; thesis: "
                 "4-5 samples, 0.03-0.04 s)")
    return "\n".join(lines)


@dataclass(frozen=True)
class IdentifyResult:
    models: ServoModels
    written: tuple[Path, ...]
    source: str

    @property
    def failed(self) -> bool:
        return any(not (j.vaf_pct >= MIN_VAF_PCT) for j in self.models.joints)

    def text(self) -> str:
        lines = [f"identified from {self.source}", vaf_table_text(self.models)]
        if self.failed:
            bad = [n for n, j in zip(self.models.joint_names, self.models.joints) if not j.vaf_pct >= MIN_VAF_PCT]
            lines.append(f"FAILED: chosen models below {MIN_VAF_PCT:g} % VAF: {', '.join(bad)}")
        lines += [f"wrote {p}" for p in self.written]
        return "\n".join(lines)


def run_identify(robot: str, out: PathLike, *, report: PathLike | None = None, recording: PathLike | None = None,
                 rate_hz: float = 125.0, servo: ServoOptions | None = None,
                 options: IdentificationOptions | None = None, seed: int = 0) -> IdentifyResult:
    """Identify every joint's servo of ``robot`` (simulated, or from an RTDE ``recording``); write the models TOML.

    Models are written even when a chosen model's VAF is below :data:`MIN_VAF_PCT` (``result.failed``: the
    command exits 2), so that the table can be inspected.
    """
    from thermocomp.io.files import read_input_bytes
    from thermocomp.printing.identification import experiment, identify_servo, layout
    from thermocomp.printing.models_toml import models_toml_text

    options = IdentificationOptions() if options is None else options
    servo = ServoOptions(rate_hz=rate_hz) if servo is None else servo
    if recording is None and servo.rate_hz != rate_hz:
        raise ConfigurationError(f"--rate-hz {rate_hz:g} differs from the servo's rate {servo.rate_hz:g} Hz")
    chain, links = _builtin(robot)
    with Job() as job:
        if recording is not None:
            job.input(recording, "--recording")
        out = job.output(out, "--out")
        report = job.output(report, "--report")
        job.check()
        u = experiment(options, rate_hz, chain.n_joints)
        if recording is None:
            from thermocomp.printing.servo_sim import ServoSimulator

            # the experiment runs on the robot's controller (servo excite's URScript): no PC loop misses a sample
            on_robot = replace(servo, missed_command_probability=0.0)
            with ServoSimulator(chain, links, start_configuration(chain), on_robot, np.random.default_rng(seed)) as sim:
                record = sim.run(u)
                q, qd = record.q[:-1], record.qd[:-1]
            source = f"the simulated {robot} (seed {seed})"
        else:
            from thermocomp.printing.rtde_csv import read_rtde_text

            try:
                text = read_input_bytes(recording, "recording").decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"expected UTF-8 text: {exc}", path=str(recording)) from None
            u_rec, q, qd = read_rtde_text(text, str(recording), chain.n_joints, rate_hz, u.shape[0],
                                          layout(options, rate_hz).step)
            # the robot's target speeds follow speedj's acceleration, not the steps exactly: the same experiment
            # when they stay within a tenth of its peak on average
            differ = float(np.mean(np.abs(u_rec - u)))
            if differ > 0.1 * options.multisine.peak_speed_rad_s:
                raise InputError(f"expected the commands of servo excite with these options, got target_qd that "
                                 f"differ from them by {differ:.3g} rad/s on average", path=str(recording))
            u, source = u_rec, str(recording)
        models = identify_servo(u, q, qd, rate_hz, chain.joint_names, options)
        result = IdentifyResult(models, (), source)
        job.write_text(out, models_toml_text(models, robot, (f"thermocomp servo identify: {source}",)))
        if report is not None:
            job.write_text(report, result.text() + "\n")
        written = job.commit()
    return IdentifyResult(models, tuple(written), source)


# --- servo track ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrackRow:
    controller: str
    speed_mm_s: float
    path: str
    reference: str
    erms: float
    sigma: float
    runs: int
    errors: FloatArray = field(repr=False)


@dataclass(frozen=True)
class TrackResult:
    rows: tuple[TrackRow, ...]
    written: tuple[Path, ...]
    warm: str | None = None

    def text(self) -> str:
        lines = ["controller  speed_mm_s  path                reference     ERMS [um]  sigma [um]  runs  thesis ERMS [um]"]
        for r in self.rows:
            thesis = THESIS_ERMS_UM.get((r.controller, r.path, r.speed_mm_s))
            lines.append(f"{r.controller:<10}  {r.speed_mm_s:>10g}  {r.path[-18:]:<18}  {r.reference:<12}  "
                         f"{r.erms * 1e6:>9.1f}  {r.sigma * 1e6:>10.1f}  {r.runs:>4}  "
                         + ("" if thesis is None or self.warm else f"{thesis:g}"))
        if self.warm:
            lines.append(self.warm)
        lines += [f"wrote {p}" for p in self.written]
        return "\n".join(lines)


def _results_csv(rows: tuple[TrackRow, ...]) -> str:
    out = [",".join(RESULT_COLUMNS)]
    for r in rows:
        path = r.path if "," not in r.path and '"' not in r.path else '"' + r.path.replace('"', '""') + '"'
        out.append(f"{r.controller},{r.speed_mm_s:g},{path},{r.erms * 1e6:.3f},{r.sigma * 1e6:.3f},{r.runs},{r.reference}")
    return "\n".join(out) + "\n"


def _plot(rows: tuple[TrackRow, ...], rate_hz: float, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for r in rows:
        e = np.linalg.norm(r.errors[0], axis=1) * 1e6
        label = f"{r.controller}, {r.speed_mm_s:g} mm/s, {Path(r.path).name}, {r.reference}"
        ax.plot(np.arange(e.size) / rate_hz, e, label=label)
    ax.set_xlabel("time along the path [s]")
    ax.set_ylabel("print error [um] (run 1)")
    ax.set_yscale("log")
    ax.set_ylim(bottom=0.1)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run_track(robot: str, models_file: PathLike, paths: tuple[str, ...], speeds_mm_s: tuple[float, ...],
              controllers: tuple[str, ...], runs: int, out: PathLike, *, plot: PathLike | None = None,
              servo: ServoOptions | None = None, mpc: MPCOptions | None = None, pid: PIDOptions | None = None,
              deformation: PathLike | None = None, law=None, law_file: PathLike | None = None,
              minute: float | None = None, seed: int = 0) -> TrackResult:
    """Track each path at each speed with each controller, ``runs`` times, on the simulated servo.

    ``paths`` are ``line:x``, ``line:y``, ``line:z`` or targets CSVs. With a ``deformation`` table (and its time
    ``law`` or ``law_file``, at ``minute``; default the full table), the robot is warm: every row is run twice,
    with joint references from the nominal IK (``reference`` "nominal") and from the IK of the warm robot
    (``reference`` "compensated"), and the print error is the warm robot's.
    """
    from thermocomp.deformation.apply import deformed_model
    from thermocomp.io.files import read_input_bytes
    from thermocomp.kinematics.fk import fk
    from thermocomp.kinematics.model import nominal_model
    from thermocomp.printing.models_toml import models_from_toml_text
    from thermocomp.printing.paths import LINES, joint_reference, line_path, targets_path
    from thermocomp.printing.servo_sim import ServoSimulator
    from thermocomp.printing.tracking import CONTROLLERS, print_error, track

    for c in controllers:
        if c not in CONTROLLERS:
            raise ConfigurationError(f"--controller: expected one of {', '.join(CONTROLLERS)}, got {c!r}")
    if not (isinstance(runs, int) and 1 <= runs <= 1000):
        raise ConfigurationError(f"--runs: expected an integer in [1, 1000], got {runs!r}")
    for v in speeds_mm_s:
        if not (math.isfinite(v) and 0 < v <= 1000):
            raise ConfigurationError(f"--speed-mm-s: expected a speed in (0, 1000] mm/s, got {v!r}")
    if minute is not None and not math.isfinite(minute):
        raise ConfigurationError(f"--minute: expected a finite minute, got {minute!r}")
    if deformation is None and (law_file is not None or minute is not None):
        raise ConfigurationError("--time-law and --minute need --deformation (the warm robot)")
    chain, links = _builtin(robot)
    with Job() as job:
        job.input(models_file, "--models")
        for p in paths:
            if p not in LINES:
                job.input(p, "--path")
        if deformation is not None:
            job.input(deformation, "--deformation")
        if law_file is not None:
            from thermocomp.io.timelaw_file import time_law_path

            job.input(time_law_path(law_file), "--time-law")
        out = job.output(out, "--out")
        plot = job.output(plot, "--plot")
        job.check()
        try:
            text = read_input_bytes(models_file, "models").decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"expected UTF-8 text: {exc}", path=str(models_file)) from None
        models, model_robot = models_from_toml_text(text, str(models_file), chain.joint_names)
        if model_robot != robot:
            raise InputError(f"key robot: expected models of {robot!r} (--robot), got {model_robot!r}", path=str(models_file))
        servo = ServoOptions(rate_hz=models.rate_hz) if servo is None else servo
        if servo.rate_hz != models.rate_hz:
            raise ConfigurationError(f"the servo's rate {servo.rate_hz:g} Hz differs from the models' {models.rate_hz:g} Hz")
        nominal = nominal_model(chain)
        truth, references, warm = nominal, [("nominal", nominal)], None
        if deformation is not None:
            from thermocomp.io.deformation_csv import read_deformation_csv

            table = read_deformation_csv(deformation, chain.n_joints)
            if law_file is not None:
                from thermocomp.io.timelaw_file import read_time_law

                law = read_time_law(law_file)
            fraction = 1.0 if minute is None or law is None else float(law.fraction(minute))
            truth = deformed_model(chain, table, fraction)
            references = [("nominal", nominal), ("compensated", truth)]
            warm = (f"warm robot: {deformation} at {fraction:.3g} of the table"
                    + ("" if minute is None else f" (minute {minute:g})")
                    + "; 'nominal': joint references from the nominal IK, 'compensated': from the warm robot's IK")
        R_home, _ = fk(nominal, chain.home)
        q_start = start_configuration(chain)
        rows = []
        for name in paths:
            for v in speeds_mm_s:
                if name in LINES:
                    cart = line_path(name, v, models.rate_hz, R_home)
                else:
                    from thermocomp.io.targets_csv import read_targets_csv

                    program = read_targets_csv(name, n_joints=chain.n_joints)
                    cart = targets_path(program.R_world_tcp, program.p_world_tcp, v, models.rate_hz)
                seed_q = q_start if name in LINES else chain.home
                for label, reference_model in references:
                    q_ref, qd_ref = joint_reference(reference_model, cart, seed_q, models.rate_hz)

                    def error_of(q_true, cart=cart):
                        return print_error(truth, q_true, cart.R_world_tcp, cart.p_world_tcp, STANDOFF)

                    for controller in controllers:
                        def open_sim(run, q0=q_ref[0]):
                            return ServoSimulator(chain, links, q0, servo, np.random.default_rng([seed, run]))

                        result = track(open_sim, controller, models, q_ref, qd_ref, runs, error_of, mpc, pid)
                        rows.append(TrackRow(controller, float(v), name, label, result.erms, result.sigma, runs,
                                             result.errors))
        rows = tuple(rows)
        job.write_text(out, _results_csv(rows))
        if plot is not None:
            job.write_with(plot, lambda p: _plot(rows, models.rate_hz, Path(p)))
        written = job.commit()
    return TrackResult(rows, tuple(written), warm)
