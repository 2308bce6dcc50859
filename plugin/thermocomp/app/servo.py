"""The ``servo`` jobs (seed 004): write the identification program, identify the servo, track a print path.

Each command is one frozen job object (:class:`ServoExciteJob`, :class:`ServoIdentifyJob`,
:class:`ServoTrackJob`) that checks its options when it is made, naming them as the command line spells them
(docs/architecture.md, "One job object per entry point"), and one function that takes it, declares its files
in one :class:`~thermocomp.io.job.Job` (checked before any work, written all or none), runs
:mod:`thermocomp.printing` and returns a result whose ``text()`` the command line prints (docs/printing.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from thermocomp._typing import FloatArray, PathLike
from thermocomp.compensation.compensate import ProgressCallback, _phase_progress, announce_phase
from thermocomp.deformation.timelaw import TimeLaw
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


#: The rates of the identification experiment ``servo excite`` writes and ``servo identify`` runs [Hz]: UR's controllers
#: run at 125 Hz (CB-series) or 500 Hz (e-Series). The experiment is 46 s of each joint, simulated sample by sample
#: (some 1 ms of CPU each): 34,500 samples of a UR5 at 125 Hz, 138,000 at 500 Hz; 1000 Hz (the simulated servo's
#: limit, :class:`~thermocomp.printing.servo_sim.ServoOptions`) ran over 5 minutes without a word.
RATE_HZ_RANGE = (1.0, 500.0)
#: The fastest print speed ``servo track`` takes [mm/s], and the most runs of each row.
MAX_SPEED_MM_S = 1000.0
MAX_RUNS = 1000
#: Most servo samples ``servo track`` simulates over every row and run (paths x speeds x references x controllers
#: x runs): each an MPC and a servo step, some 2-10 ms, so that a campaign ends within hours; the longest path
#: (:data:`~thermocomp.printing.paths.MAX_PATH_SAMPLES`) run once. Each option in its range, their product was
#: unbounded (1,000 runs of a path at 0.05 mm/s by four controllers: years).
MAX_TRACK_SAMPLES = 1_000_000
#: A start pose's angles [deg]: ten turns either way (the parser's range of ``--start-deg``).
MAX_START_DEG = 3600.0


def _check_number(option: str, value: object, low: float, high: float, unit: str = "", *, whole: bool = False,
                  open_low: bool = False) -> None:
    """A :class:`ConfigurationError` naming ``option`` (as typed) unless ``value`` is a finite number (an integer
    with ``whole``) from ``low`` (above it with ``open_low``) to ``high`` [``unit``]."""
    number = isinstance(value, (int, np.integer)) if whole else isinstance(value, (int, float, np.number))
    if (not number or isinstance(value, bool) or not math.isfinite(value)
            or not (value > low if open_low else value >= low) or not value <= high):
        kind = "an integer" if whole else "a finite number"
        bounds = f"> {low:g} and at most {high:g}" if open_low else f"from {low:g} to {high:g}"
        raise ConfigurationError(f"{option}: expected {kind} {bounds}{f' {unit}' if unit else ''}, got {value!r}")


def _check_seed(seed: object) -> None:
    """A :class:`ConfigurationError` naming ``--seed`` unless ``seed`` can seed :func:`numpy.random.default_rng`."""
    if not (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and 0 <= seed < 2**63):
        raise ConfigurationError(f"--seed: expected a whole number from 0 to 2**63 - 1, got {seed!r}")


def _phase(progress: ProgressCallback | None, name: str, total: int, unit: str, counted: bool = True):
    """Announce phase ``name`` of ``total`` ``unit`` to ``progress`` and return ``step(n=1)``, which counts ``n`` more
    into ``progress(done, total)``. A phase not ``counted`` reaches only a callback that knows phases (a
    :class:`~thermocomp.cli.progress.ProgressBar`): a plain ``(done, total)`` function sees the counted phase only."""
    announce_phase(progress, name, total, unit)
    target = progress if counted else _phase_progress(progress)
    done = 0

    def step(n: int = 1) -> None:
        nonlocal done
        done += n
        if target is not None:
            target(done, total)

    return step


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


@dataclass(frozen=True)
class ServoExciteJob:
    """One run of ``thermocomp servo excite``, its options checked when it is made (before any file is opened).

    Parameters
    ----------
    robot
        A built-in robot of :data:`SERVO_ROBOTS` (``--robot``).
    out
        The URScript program to write (``--out``).
    rate_hz
        Servo rate [Hz] the program sends ``speedj`` at, within :data:`RATE_HZ_RANGE` (``--rate-hz``).
    start_deg
        Start pose [deg], one angle per joint, each within +-:data:`MAX_START_DEG` (``--start-deg``; default the
        lines' start, :func:`start_configuration`). Their count is checked against the robot when it runs.
    options
        The experiment (default :class:`~thermocomp.printing.identification.IdentificationOptions`).
    """

    robot: str
    out: PathLike
    rate_hz: float = 125.0
    start_deg: tuple[float, ...] | None = None
    options: IdentificationOptions = field(default_factory=IdentificationOptions)

    def __post_init__(self) -> None:
        _check_number("--rate-hz", self.rate_hz, *RATE_HZ_RANGE, "Hz")
        if self.start_deg is not None:
            start = tuple(np.asarray(self.start_deg, dtype=float).ravel().tolist())
            for angle in start:
                _check_number("--start-deg", angle, -MAX_START_DEG, MAX_START_DEG, "deg")
            object.__setattr__(self, "start_deg", start)


def run_excite(spec: ServoExciteJob) -> ExciteResult:
    """Write :func:`~thermocomp.printing.urscript_excite.excite_urscript` for ``spec.robot`` to ``spec.out``."""
    from thermocomp.printing.identification import layout
    from thermocomp.printing.urscript_excite import excite_urscript

    options, rate_hz = spec.options, spec.rate_hz
    chain, _ = _builtin(spec.robot)
    if spec.start_deg is not None and len(spec.start_deg) != chain.n_joints:
        raise ConfigurationError(f"--start-deg: expected {chain.n_joints} angles, one per joint, got "
                                 f"{len(spec.start_deg)}")
    with Job() as job:
        out = job.output(spec.out, "--out")
        job.check()
        q0 = start_configuration(chain) if spec.start_deg is None else np.radians(np.asarray(spec.start_deg))
        text = excite_urscript(options, rate_hz, q0, chain.lower, chain.upper,
                               (f"thermocomp servo excite: the identification experiment of seed 004 (Section 4-3) "
                                f"for {spec.robot} at {rate_hz:g} Hz; record it with UR's RTDE logger "
                                "(docs/printing.md)",))
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


@dataclass(frozen=True)
class ServoIdentifyJob:
    """One run of ``thermocomp servo identify``, its options checked when it is made (before any file is opened).

    Parameters
    ----------
    robot
        A built-in robot of :data:`SERVO_ROBOTS` (``--robot``).
    out
        The models file to write (TOML, ``--out``).
    report
        The tables as text (``--report``), or None.
    recording
        UR's RTDE recording of ``servo excite``'s program (``--recording``), or None: the simulated servo.
    rate_hz
        Servo rate [Hz], within :data:`RATE_HZ_RANGE` (``--rate-hz``).
    servo
        The simulated servo (default :class:`~thermocomp.printing.servo_sim.ServoOptions` at ``rate_hz``); without
        a recording its rate must be ``rate_hz``.
    options
        The experiment (default :class:`~thermocomp.printing.identification.IdentificationOptions`).
    seed
        Seed of the simulated servo's noise, 0 to 2**63 - 1 (``--seed``).
    """

    robot: str
    out: PathLike
    report: PathLike | None = None
    recording: PathLike | None = None
    rate_hz: float = 125.0
    servo: ServoOptions | None = None
    options: IdentificationOptions = field(default_factory=IdentificationOptions)
    seed: int = 0

    def __post_init__(self) -> None:
        _check_number("--rate-hz", self.rate_hz, *RATE_HZ_RANGE, "Hz")
        _check_seed(self.seed)
        if self.servo is None:
            object.__setattr__(self, "servo", ServoOptions(rate_hz=self.rate_hz))
        elif self.recording is None and self.servo.rate_hz != self.rate_hz:
            raise ConfigurationError(f"--rate-hz {self.rate_hz:g} differs from the servo's rate {self.servo.rate_hz:g} Hz")


def run_identify(spec: ServoIdentifyJob, progress: ProgressCallback | None = None) -> IdentifyResult:
    """Identify every joint's servo of ``spec.robot`` (simulated, or from an RTDE ``spec.recording``); write the
    models TOML.

    Models are written even when a chosen model's VAF is below :data:`MIN_VAF_PCT` (``result.failed``: the
    command exits 2), so that the table can be inspected. ``progress(done, total)`` counts the samples of the
    experiment simulated (phase "simulating the experiment"), then each joint's models identified, one per order
    (phase "identifying").
    """
    from thermocomp.io.files import MAX_PROGRAM_BYTES, read_input_bytes
    from thermocomp.printing.identification import experiment, identify_servo, layout
    from thermocomp.printing.models_toml import models_toml_text

    robot, recording, rate_hz, servo, options, seed = (spec.robot, spec.recording, spec.rate_hz, spec.servo,
                                                       spec.options, spec.seed)
    chain, links = _builtin(robot)
    with Job() as job:
        if recording is not None:
            job.input(recording, "--recording")
        out = job.output(spec.out, "--out")
        report = job.output(spec.report, "--report")
        job.check()
        u = experiment(options, rate_hz, chain.n_joints)
        if recording is None:
            from thermocomp.printing.servo_sim import ServoSimulator

            # the experiment runs on the robot's controller (servo excite's URScript): no PC loop misses a sample
            on_robot = replace(servo, missed_command_probability=0.0)
            with ServoSimulator(chain, links, start_configuration(chain), on_robot, np.random.default_rng(seed)) as sim:
                record = sim.run(u, _phase(progress, "simulating the experiment", u.shape[0], "samples"))
                q, qd = record.q[:-1], record.qd[:-1]
            source = f"the simulated {robot} (seed {seed})"
        else:
            from thermocomp.printing.rtde_csv import read_rtde_text

            try:
                text = read_input_bytes(recording, "recording", MAX_PROGRAM_BYTES,
                                        "an hour of RTDE at 125 Hz is some 100 MiB").decode("utf-8")
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
        models = identify_servo(u, q, qd, rate_hz, chain.joint_names, options,
                                _phase(progress, "identifying", chain.n_joints * len(options.orders), "models"))
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


@dataclass(frozen=True)
class ServoTrackJob:
    """One run of ``thermocomp servo track``, its options checked when it is made (before any file is opened).

    Parameters
    ----------
    robot
        A built-in robot of :data:`SERVO_ROBOTS` (``--robot``).
    models
        The models file (``servo identify --out``; ``--models``).
    paths
        ``line:x``, ``line:y``, ``line:z`` or targets CSVs (``--path``), at least one.
    speeds_mm_s
        TCP speeds along each path [mm/s], each in (0, :data:`MAX_SPEED_MM_S`] (``--speed-mm-s``), at least one.
    out
        The results CSV to write (``--out``; columns :data:`RESULT_COLUMNS`).
    controllers
        Each of :data:`~thermocomp.printing.tracking.CONTROLLERS` (``--controller``), at least one.
    runs
        Runs of each row, 1 to :data:`MAX_RUNS` (``--runs``).
    plot
        The print error along the path, PNG (``--plot``), or None.
    servo, mpc, pid
        The simulated servo (default :class:`~thermocomp.printing.servo_sim.ServoOptions` at the models' rate,
        which it must have), the MPC (``--horizon``) and the PID (defaults: their own).
    deformation
        The warm robot: the deformation table CSV (``--deformation``), or None: the nominal robot.
    law, law_file
        With ``deformation``: its time law (``--stabilisation-min`` builds a
        :class:`~thermocomp.deformation.timelaw.LinearRamp`) or the file that names it (``--time-law``), at most
        one; neither: the full table.
    minute
        With ``deformation`` and a law: the minute of the print [min], 0 to 1e6 (``--minute``); default the full
        table.
    seed
        Seed of the simulated servo's noise, 0 to 2**63 - 1 (``--seed``).
    """

    robot: str
    models: PathLike
    paths: tuple[str, ...]
    speeds_mm_s: tuple[float, ...]
    out: PathLike
    controllers: tuple[str, ...] = ("mpc-iio",)
    runs: int = 1
    plot: PathLike | None = None
    servo: ServoOptions | None = None
    mpc: MPCOptions | None = None
    pid: PIDOptions | None = None
    deformation: PathLike | None = None
    law: TimeLaw | None = None
    law_file: PathLike | None = None
    minute: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        from thermocomp.printing.tracking import CONTROLLERS

        for name, value in (("paths", self.paths), ("speeds_mm_s", self.speeds_mm_s),
                            ("controllers", self.controllers)):
            object.__setattr__(self, name, (value,) if isinstance(value, (str, int, float)) else tuple(value))
        for option, values in (("--path", self.paths), ("--speed-mm-s", self.speeds_mm_s),
                               ("--controller", self.controllers)):
            if not values:
                raise ConfigurationError(f"{option}: expected at least one, got none")
        for c in self.controllers:
            if c not in CONTROLLERS:
                raise ConfigurationError(f"--controller: expected one of {', '.join(CONTROLLERS)}, got {c!r}")
        _check_number("--runs", self.runs, 1, MAX_RUNS, whole=True)
        for v in self.speeds_mm_s:
            _check_number("--speed-mm-s", v, 0.0, MAX_SPEED_MM_S, "mm/s", open_low=True)
        if self.minute is not None:
            _check_number("--minute", self.minute, 0.0, 1e6, "min")
        _check_seed(self.seed)
        if self.law is not None and self.law_file is not None:
            raise ConfigurationError("--stabilisation-min and --time-law: expected one time law, got both")
        if self.deformation is None and (self.law is not None or self.law_file is not None or self.minute is not None):
            raise ConfigurationError("--stabilisation-min, --time-law and --minute need --deformation (the warm robot)")


def run_track(spec: ServoTrackJob, progress: ProgressCallback | None = None) -> TrackResult:
    """Track each path at each speed with each controller, ``runs`` times, on the simulated servo.

    ``paths`` are ``line:x``, ``line:y``, ``line:z`` or targets CSVs. With a ``deformation`` table (and its time
    ``law`` or ``law_file``, at ``minute``; default the full table), the robot is warm: every row is run twice,
    with joint references from the nominal IK (``reference`` "nominal") and from the IK of the warm robot
    (``reference`` "compensated"), and the print error is the warm robot's. ``progress(done, total)`` counts the
    servo samples simulated, over every row and run (phase "tracking"); a callback that knows phases also hears of
    the paths built ("paths") and their inverse kinematics ("joint references", samples solved) before.
    """
    from thermocomp.deformation.apply import deformed_model
    from thermocomp.io.files import MAX_DESCRIPTION_BYTES, read_input_bytes
    from thermocomp.kinematics.fk import fk
    from thermocomp.kinematics.model import nominal_model
    from thermocomp.printing.models_toml import models_from_toml_text
    from thermocomp.printing.paths import LINES, joint_reference, line_path, targets_path
    from thermocomp.printing.servo_sim import ServoSimulator
    from thermocomp.printing.tracking import print_error, track

    robot, models_file, paths, speeds_mm_s, controllers, runs = (spec.robot, spec.models, spec.paths,
                                                                 spec.speeds_mm_s, spec.controllers, spec.runs)
    servo, mpc, pid, deformation, law, law_file, minute, seed = (spec.servo, spec.mpc, spec.pid, spec.deformation,
                                                                spec.law, spec.law_file, spec.minute, spec.seed)
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
        out = job.output(spec.out, "--out")
        plot = job.output(spec.plot, "--plot")
        job.check()
        announce_phase(progress, "reading", None)
        try:
            text = read_input_bytes(models_file, "models", MAX_DESCRIPTION_BYTES).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"expected UTF-8 text: {exc}", path=str(models_file)) from None
        models, model_robot = models_from_toml_text(text, str(models_file), chain.joint_names)
        if model_robot != robot:
            raise InputError(f"key robot: expected models of {robot!r} (--robot), got {model_robot!r}", path=str(models_file))
        servo = ServoOptions(rate_hz=models.rate_hz) if servo is None else servo
        if servo.rate_hz != models.rate_hz:
            raise ConfigurationError(f"the servo's rate {servo.rate_hz!r} Hz differs from the models' {models.rate_hz!r} Hz")
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
        from thermocomp.io.targets_csv import read_targets_csv

        programs = {name: read_targets_csv(name, n_joints=chain.n_joints) for name in paths if name not in LINES}

        def cart_of(name: str, v: float):
            """The path ``name`` at ``v`` mm/s, sampled at the servo rate."""
            if name in LINES:
                return line_path(name, v, models.rate_hz, R_home)
            program = programs[name]
            return targets_path(program.R_world_tcp, program.p_world_tcp, v, models.rate_hz, str(name), program.lines)

        # the samples of every row and run, counted before any is simulated and bounded by MAX_TRACK_SAMPLES (so the
        # paths built to count them, kept for the rows, hold at most that many samples)
        each = len(references) * len(controllers) * runs
        total = 0
        carts = []
        built = _phase(progress, "paths", len(paths) * len(speeds_mm_s), "rows", counted=False)
        for name, v in ((name, v) for name in paths for v in speeds_mm_s):
            carts.append((name, v, cart_of(name, v)))
            built()
            total += len(carts[-1][2].t) * each
            if total > MAX_TRACK_SAMPLES:
                raise ConfigurationError(
                    f"--path, --speed-mm-s, --controller and --runs{' (twice with --deformation)' if warm else ''}: "
                    f"expected at most {MAX_TRACK_SAMPLES:,} servo samples over every row and run (each an MPC and a "
                    f"servo step, some 2-10 ms), got more than {total:,}; fewer or faster paths, fewer controllers "
                    f"or runs")
        # every row's joint references before any is tracked: the inverse kinematics of each sample (a path of
        # 10,000 targets at 100 mm/s, 250,000 samples, took half a minute), a phase of its own
        solved = _phase(progress, "joint references", sum(cart.t.size for _, _, cart in carts) * len(references),
                        "samples", counted=False)
        references_of = [[(label, *joint_reference(reference_model, cart, q_start if name in LINES else chain.home,
                                                    models.rate_hz, solved))
                          for label, reference_model in references] for name, _, cart in carts]
        step = _phase(progress, "tracking", total, "samples")
        rows = []
        for (name, v, cart), row_references in zip(carts, references_of):
            def error_of(q_true, cart=cart):
                return print_error(truth, q_true, cart.R_world_tcp, cart.p_world_tcp, STANDOFF)

            for label, q_ref, qd_ref in row_references:
                for controller in controllers:
                    def open_sim(run, q0=q_ref[0]):
                        return ServoSimulator(chain, links, q0, servo, np.random.default_rng([seed, run]))

                    result = track(open_sim, controller, models, q_ref, qd_ref, runs, error_of, mpc, pid, step)
                    rows.append(TrackRow(controller, float(v), name, label, result.erms, result.sigma, runs,
                                         result.errors))
        rows = tuple(rows)
        job.write_text(out, _results_csv(rows))
        if plot is not None:
            job.write_with(plot, lambda p: _plot(rows, models.rate_hz, Path(p)))
        written = job.commit()
    return TrackResult(rows, tuple(written), warm)
