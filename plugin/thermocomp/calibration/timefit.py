"""Fit the table together with its growth in time, from measurements at several minutes.

The model of a measurement at minute ``t`` is the table scaled by the time
law's fraction ``s(t; theta)`` (docs/conventions.md, "Time"). The law's
parameters ``theta`` enter :func:`~thermocomp.calibration.identify.identify`
as parameters that must be identified (their columns are projected out
before the table's identifiability is judged). Because the fraction and the
table multiply, the fit starts from a grid over ``theta`` (table and
tracker solved at each point, the law held) and refines everything from
the best point.

Laws (:data:`LAW_KINDS`):

- ``static``: the full table in every measurement (a warm, stable robot);
- ``ramp``: seed 002's linear growth to stabilisation at ``T`` minutes
  (:class:`~thermocomp.deformation.timelaw.LinearRamp`), ``theta = log T``;
- ``first-order``: ``1 - exp(-t / tau)`` with cooling in the pauses of a
  heat-on schedule (:class:`~thermocomp.deformation.thermal_laws.FirstOrder`),
  ``theta = log tau`` (and ``log tau_cool`` when cooling has its own);
- ``temperature``: a linear map from the measured temperatures
  (:class:`~thermocomp.deformation.thermal_laws.TemperatureMap`), normalised
  so that the warmest measurement sees the full table; with ``k`` channels,
  ``k - 1`` free relative weights.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from thermocomp._typing import FloatArray
from thermocomp.calibration._blas import single_threaded_blas
from thermocomp.calibration.identify import (
    MAX_OUTLIER_SHARE,
    STATIC_FRACTIONS,
    CalibrationOptions,
    Fit,
    FractionModel,
    identify,
)
from thermocomp.deformation.thermal_laws import ALWAYS_ON, FirstOrder, TemperatureMap, check_heat_on
from thermocomp.deformation.timelaw import LinearRamp, Static
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.measurements import Measurements
from thermocomp.robot.chain import Chain

#: Time laws a calibration can fit.
LAW_KINDS = ("static", "ramp", "first-order", "temperature")
#: What ``TimeFitOptions.kind`` may say: a law, or ``"auto"``: the law the measurements choose (:func:`calibrate`).
LAW_CHOICES = ("auto", *LAW_KINDS)
#: A fit whose residuals are more than this many times the stated noise (``sqrt(chi2 / dof)``) is
#: reported with a warning: the model (or the law, or the stated noise) does not explain the data.
RESIDUAL_WARNING_RATIO = 2.0
#: Points of the starting grid per time constant.
GRID_POINTS = 21


@dataclass(frozen=True)
class TimeFitOptions:
    """Which time law to fit.

    Parameters
    ----------
    kind
        One of :data:`LAW_CHOICES`: a law of :data:`LAW_KINDS`, or ``"auto"``
        (default): each law the measurements can determine is fitted and the
        one with the lowest Bayesian information criterion is kept (:func:`calibrate`).
    heat_on
        First-order law: intervals ``[start, stop)`` [min] in which the robot
        worked while it was measured (it cooled outside them); default always on.
    separate_cooling
        First-order law: fit a cooling time constant of its own.
    """

    kind: str = "auto"
    heat_on: tuple[tuple[float, float], ...] = ALWAYS_ON
    separate_cooling: bool = False

    def __post_init__(self) -> None:
        if self.kind not in LAW_CHOICES:
            raise ConfigurationError(f"time law: expected one of {LAW_CHOICES}, got {self.kind!r}")
        object.__setattr__(self, "heat_on", check_heat_on(self.heat_on))


@dataclass(frozen=True, eq=False)
class Calibration:
    """A table, its time law and everything the fit knows about them.

    Attributes
    ----------
    fit
        The identification (:class:`~thermocomp.calibration.identify.Fit`).
    law
        The fitted time law (``Static``, ``LinearRamp``, ``FirstOrder`` or ``TemperatureMap``).
    law_parameters
        ``{name: (value, std)}`` in the law's units (minutes, or 1/deg C).
    kind
        The law's name in :data:`LAW_KINDS`.
    failure
        Why the fit cannot be used (did not converge, a table that is no
        deformation of the robot), or ``None``: a failed calibration writes no table.
    warnings
        What the report must say about a usable fit (residuals far above the stated noise, outliers).
    candidates
        With ``kind="auto"``: every law tried, in :data:`LAW_KINDS` order, the chosen one among them.
    """

    fit: Fit
    law: object
    law_parameters: dict[str, tuple[float, float]]
    kind: str = "static"
    failure: str | None = None
    warnings: tuple[str, ...] = ()
    candidates: tuple[LawCandidate, ...] = ()

    def law_text(self) -> str:
        parts = [self.law.describe()]  # type: ignore[attr-defined]
        for name, (value, std) in self.law_parameters.items():
            parts.append(f"{name} = {value:.5g} +- {std:.2g}")
        return "; ".join(parts)


@dataclass(frozen=True, eq=False)
class LawCandidate:
    """One law an automatic choice tried.

    Attributes
    ----------
    kind
        The law (:data:`LAW_KINDS`).
    calibration
        Its fit, or ``None`` when the measurements cannot determine the law.
    reason
        Why it has no fit, or why its fit failed; empty otherwise.
    criterion
        Its Bayesian information criterion (:func:`information_criterion`), NaN without a usable fit.
    """

    kind: str
    calibration: Calibration | None
    reason: str
    criterion: float


class LawNotIdentifiable(InputError):
    """The measurements cannot determine a law's parameters (raised with what to measure)."""


def information_criterion(fit: Fit) -> float:
    """Schwarz's Bayesian information criterion of a fit with the stated noise: ``cost + k ln N``.

    ``cost`` is Huber's cost of every measurement (:attr:`Fit.cost`: ``chi2``
    when no measurement is far off, so one outlier cannot decide the law), ``k``
    the parameters the fit identifies (the table's combinations, the law's and
    the tracker frame's parameters) and ``N`` the coordinates measured. Lower is
    better; a law's extra parameter must lower the cost by ``ln N`` (about 6
    for 100 positions) to be preferred.
    """
    n_coordinates = fit.residual_position.shape[0] * (6 if fit.residual_angle is not None else 3)
    k = fit.identifiability.rank + fit.theta.size + (6 if fit.options.estimate_base else 0)
    return float(fit.cost + k * np.log(n_coordinates))


def fit_failure(chain: Chain, fit: Fit) -> str | None:
    """Why a fit cannot be used, or ``None``: it did not converge, or its table is no deformation of the robot."""
    if not fit.converged:
        return (f"Gauss-Newton did not converge in {fit.iterations} iterations (steps still above "
                f"{fit.options.step_tol:g} scaled units)")
    if not (np.all(np.isfinite(fit.x)) and np.all(np.isfinite(fit.T_tracker_world)) and np.isfinite(fit.chi2)):
        return "the fit reached values that are not finite numbers"
    why = fit.table.implausible(chain.size)
    return None if why is None else f"the identified table is no deformation of {chain.name}: {why}"


def _warnings(fit: Fit, meas: Measurements) -> tuple[str, ...]:
    out = []
    if fit.dof > 0 and fit.sigma_ratio > RESIDUAL_WARNING_RATIO:
        out.append(f"the residuals are {fit.sigma_ratio:.3g} x the stated tracker noise (more than "
                   f"{RESIDUAL_WARNING_RATIO:g} x): the model, the time law or the stated noise does not explain "
                   "these measurements")
    if fit.beyond_limit.size > fit.outliers.size:
        out.append(f"{fit.beyond_limit.size} of {meas.n} measurements are beyond the outlier test's limit, more than "
                   f"{MAX_OUTLIER_SHARE:.0%}: not outliers but a model or time law that does not explain them "
                   "(left out: only readings far apart from the rest)")
    if fit.outliers.size:
        named = ", ".join(meas.label(int(i)) for i in fit.outliers[:10]) + (" ..." if fit.outliers.size > 10 else "")
        out.append(f"{fit.outliers.size} outlier measurement(s) left out of the fit: {named}")
    return tuple(out)


def _temperature_parts(meas: Measurements) -> tuple[FloatArray, FloatArray]:
    """Reference (cold) temperatures and the rise of the warmest measurement, ``(k,)`` each."""
    if meas.temperature_C is None:
        raise LawNotIdentifiable("the temperature law needs temperature columns temp1_C.. in the measurements",
                         path=meas.source)
    T = meas.temperature_C
    cold = meas.minute == meas.minute.min()
    reference = T[cold].mean(axis=0)
    rise = T - reference
    warmest = rise[np.argmax(rise.mean(axis=1))]
    if np.max(np.abs(warmest)) <= 0:
        raise LawNotIdentifiable("the temperatures never rise above those of the earliest minute: nothing to map",
                         path=meas.source)
    return reference, warmest


def _model(kind: str, meas: Measurements, opts: TimeFitOptions) -> tuple[FractionModel, FloatArray]:
    """The fraction model of a law and its starting grid ``(g, L)``."""
    positive = meas.minute[meas.minute > 0]
    if kind == "static":
        return STATIC_FRACTIONS, np.zeros((1, 0))
    if kind == "temperature":
        reference, warmest = _temperature_parts(meas)
        k = reference.size

        def weights(theta: FloatArray) -> FloatArray:
            w = np.r_[1.0, theta]
            return w / (w @ warmest)

        def temp_fractions(theta: FloatArray, m: Measurements) -> FloatArray:
            return (m.temperature_C - reference) @ weights(theta)

        names = tuple(f"w{j + 1}_over_w1" for j in range(1, k))
        return FractionModel(names, np.ones(k - 1), temp_fractions), np.zeros((1, k - 1))
    if positive.size == 0 or np.unique(positive).size < 2:
        raise LawNotIdentifiable(f"the {kind} law needs measurements at two or more minutes after 0, got "
                         f"{np.unique(positive).size}", path=meas.source)
    grid = np.geomspace(positive.min() / 2, positive.max() * 3, GRID_POINTS)
    if kind == "ramp":
        def ramp(theta: FloatArray, m: Measurements) -> FloatArray:
            return np.clip(m.minute / np.exp(theta[0]), 0.0, 1.0)

        return FractionModel(("log_stabilisation_min",), np.array([0.1]), ramp), np.log(grid)[:, None]

    def first_order(theta: FloatArray, m: Measurements) -> FloatArray:
        tau = np.exp(theta)
        return FirstOrder(float(tau[0]), float(tau[-1]) if opts.separate_cooling else None,
                          opts.heat_on).fraction(m.minute)

    if opts.separate_cooling:
        g = np.log(grid[::3])
        mesh = np.stack(np.meshgrid(g, g, indexing="ij"), axis=-1).reshape(-1, 2)
        return FractionModel(("log_tau_min", "log_tau_cool_min"), np.array([0.1, 0.1]), first_order), mesh
    return FractionModel(("log_tau_min",), np.array([0.1]), first_order), np.log(grid)[:, None]


def _law(kind: str, theta: FloatArray, meas: Measurements, opts: TimeFitOptions):
    if kind == "static":
        return Static()
    if kind == "ramp":
        return LinearRamp(float(np.exp(theta[0])))
    if kind == "first-order":
        return FirstOrder(float(np.exp(theta[0])), float(np.exp(theta[-1])) if opts.separate_cooling else None,
                          opts.heat_on)
    reference, warmest = _temperature_parts(meas)
    w = np.r_[1.0, theta]
    w = w / (w @ warmest)
    minutes, index = np.unique(meas.minute, return_inverse=True)
    log = np.stack([meas.temperature_C[index == i].mean(axis=0) for i in range(minutes.size)])
    return TemperatureMap(tuple(w), tuple(reference), tuple(minutes), tuple(map(tuple, log)))


def _parameters(kind: str, fit: Fit) -> dict[str, tuple[float, float]]:
    """Law parameters in their own units; a log parameter's std becomes relative x value."""
    out = {}
    for j, name in enumerate(fit_names(kind, fit)):
        value, std = float(fit.theta[j]), float(fit.theta_std[j])
        if name.startswith("log_"):
            out[name[4:]] = (float(np.exp(value)), float(np.exp(value) * std))
        else:
            out[name] = (value, std)
    return out


def fit_names(kind: str, fit: Fit) -> tuple[str, ...]:
    """Names of the fitted law parameters (``log_`` for those fitted as logarithms)."""
    return {"ramp": ("log_stabilisation_min",), "static": ()}.get(
        kind, ("log_tau_min", "log_tau_cool_min")[: fit.theta.size] if kind == "first-order"
        else tuple(f"w{j + 2}_over_w1" for j in range(fit.theta.size)))


@single_threaded_blas()
def calibrate(chain: Chain, meas: Measurements, options: CalibrationOptions | None = None,
              time: TimeFitOptions | None = None) -> Calibration:
    """Identify the table, the tracker frame (optionally) and the time law from tracker measurements.

    With ``time.kind == "auto"`` (the default) the measurements choose the
    law: ``static``, ``ramp``, ``first-order`` and, with temperatures,
    ``temperature`` are each fitted (a law the measurements cannot determine,
    e.g. any law of measurements at one minute, is left out with the reason),
    and the usable fit with the lowest :func:`information_criterion` is kept;
    every candidate is in :attr:`Calibration.candidates`.

    Parameters
    ----------
    chain
        Nominal robot.
    meas
        Measurements at one or several minutes (tracker frame, SI).
    options
        :class:`CalibrationOptions` (weights, tracker frame, fix of the unidentifiable).
    time
        :class:`TimeFitOptions`: which law, default ``"auto"``.

    Returns
    -------
    Calibration
        With :attr:`Calibration.failure` set when no usable fit was found
        (did not converge, or a table that is no deformation of the robot).

    Raises
    ------
    InputError
        The measurements cannot determine the law asked for (e.g. a ramp
        measured only before its stabilisation, where ``T`` and the table's
        size are the same thing): reported with what to measure, no law invented.
    """
    options = CalibrationOptions() if options is None else options
    time = TimeFitOptions() if time is None else time
    if time.kind != "auto":
        return _calibrate_law(chain, meas, options, time)
    kinds = [k for k in LAW_KINDS if k != "temperature" or meas.temperature_C is not None]
    candidates = []
    for kind in kinds:
        try:
            cal = _calibrate_law(chain, meas, options, replace(time, kind=kind))
        except LawNotIdentifiable as exc:
            candidates.append(LawCandidate(kind, None, exc.message, float("nan")))
            continue
        usable = cal.failure is None
        candidates.append(LawCandidate(kind, cal, cal.failure or "", information_criterion(cal.fit) if usable
                                       else float("nan")))
    usable = [c for c in candidates if c.calibration is not None and c.calibration.failure is None]
    chosen = (min(usable, key=lambda c: c.criterion) if usable
              else next(c for c in candidates if c.calibration is not None))  # static always has a fit
    return replace(chosen.calibration, candidates=tuple(candidates))  # type: ignore[arg-type]


def _calibrate_law(chain: Chain, meas: Measurements, options: CalibrationOptions, time: TimeFitOptions) -> Calibration:
    """:func:`calibrate` with one law (``time.kind`` in :data:`LAW_KINDS`)."""
    model, grid = _model(time.kind, meas, time)
    if grid.shape[1] == 0 or grid.shape[0] == 1:
        fit = identify(chain, meas, options, model, grid[0])
    else:
        coarse = replace(options, max_iterations=3)
        fits = [identify(chain, meas, coarse, model, theta, free_law=False, outlier_test=False) for theta in grid]
        best = int(np.argmin([f.cost for f in fits]))
        fit = identify(chain, meas, options, model, grid[best], start=fits[best])
    if not fit.identifiability.forced_rank_ok:
        weak = fit.identifiability.forced_weak
        P = fit.x.size
        what = (fit_names(time.kind, fit)[weak - P] if P <= weak < P + fit.theta.size else "the tracker frame")
        raise LawNotIdentifiable(
            f"the measurements cannot identify the {time.kind} law's {what} together with the table: "
            + ("measure on both sides of the stabilisation (the ramp's end)" if time.kind == "ramp" else
               "measure over several time constants, while heating and while cooling" if time.kind == "first-order"
               else "the temperatures must vary independently of each other" if time.kind == "temperature"
               else "measure more poses, spread in space")
            + " (no value is invented for it)", path=meas.source)
    return Calibration(fit=fit, law=_law(time.kind, fit.theta, meas, time), law_parameters=_parameters(time.kind, fit),
                       kind=time.kind, failure=fit_failure(chain, fit), warnings=_warnings(fit, meas))


__all__ = ["GRID_POINTS", "LAW_CHOICES", "LAW_KINDS", "RESIDUAL_WARNING_RATIO", "Calibration", "LawCandidate",
           "LawNotIdentifiable", "TimeFitOptions", "calibrate", "fit_failure", "fit_names", "information_criterion"]
