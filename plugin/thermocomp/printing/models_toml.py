"""The servo models file (``servo identify --out``, ``servo track --models``): text in, text out.

A TOML file (docs/printing.md)::

    format = "thermocomp-servo-models"
    version = 2
    robot = "ur5"
    rate_hz = 125.0
    delay_samples = 4
    orders = [2, 3, ...]            # the orders tried (Table 4-1's columns)

    [[joint]]
    name = "shoulder_pan_joint"
    vaf_pct = 99.99                 # the chosen model's VAF on the validation data
    vaf_by_order_pct = [...]        # Table 4-1's row (nan: an unstable model)
    A = [[...], ...]                # x(k+1) = A x(k) + B u(k - d), [q(k) - q_0; qd(k)] = C x(k)
    B = [...]                       # u in rad/s
    C = [[...], [...]]              # rows: the joint angle from its start [rad], the joint speed [rad/s]

Version 1 (before the models had the joint angle as an output: the speed only) is refused with a message.

Floats are written with ``repr`` (the doubles come back exactly). The app layer reads and writes the file;
these functions take and give its text.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.toml_text import load_toml
from thermocomp.printing.identification import MAX_ORDER, OUTPUTS, JointModel, ServoModels, with_integrator
from thermocomp.printing.mpc import JointMPC

FORMAT = "thermocomp-servo-models"
VERSION = 2
_TOP = {"format", "version", "robot", "rate_hz", "delay_samples", "orders", "joint"}
_JOINT = {"name", "vaf_pct", "vaf_by_order_pct", "A", "B", "C"}


def _num(x: float) -> str:
    x = float(x)
    return "nan" if math.isnan(x) else repr(x)


def _row(values) -> str:
    return "[" + ", ".join(_num(v) for v in values) + "]"


def models_toml_text(models: ServoModels, robot: str, comments: tuple[str, ...] = ()) -> str:
    """The file's text for ``models`` of ``robot``."""
    lines = [f"# {c}" for c in comments]
    lines += [f'format = "{FORMAT}"', f"version = {VERSION}", f"robot = {robot!r}".replace("'", '"'),
              f"rate_hz = {_num(models.rate_hz)}", f"delay_samples = {models.delay_samples}",
              "orders = [" + ", ".join(str(n) for n in models.orders) + "]"]
    for j, (name, model) in enumerate(zip(models.joint_names, models.joints)):
        lines += ["", "[[joint]]", f'name = "{name}"', f"vaf_pct = {_num(model.vaf_pct)}"]
        if models.vaf_table.size:
            lines.append(f"vaf_by_order_pct = {_row(models.vaf_table[j])}")
        lines.append("A = [" + ", ".join(_row(r) for r in model.A) + "]")
        lines.append(f"B = {_row(model.B[:, 0])}")
        lines.append("C = [" + ", ".join(_row(r) for r in model.C) + "]")
    return "\n".join(lines) + "\n"


def _numbers(value: object) -> bool:
    """Whether ``value`` is a number (not a bool) or a list of such, at any depth (``"1"`` and ``true`` are not)."""
    if isinstance(value, list):
        return all(_numbers(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _matrix(value: object, shape: tuple[int, ...], what: str, at: Callable[[str], InputError]) -> np.ndarray:
    try:
        if not _numbers(value):
            raise TypeError
        a = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise at(f"{what}: expected numbers, got {value!r:.200}") from None
    if a.shape != shape:
        raise at(f"{what}: expected finite numbers of shape {shape}, got shape {a.shape}")
    if not np.all(np.isfinite(a)):  # (of the right shape: "got shape (4, 4)" named nothing wrong)
        raise at(f"{what}: expected finite numbers, got {a[~np.isfinite(a)][0]:g}")
    return a


def models_from_toml_text(text: str, src: str, joint_names: tuple[str, ...]) -> tuple[ServoModels, str]:
    """The models in ``text`` (the file ``src``) for a robot with ``joint_names``; and the robot's name in the file.

    Raises
    ------
    InputError
        TOML syntax (line and column), format or version, unknown or missing keys, matrices of the wrong
        shape, joints that are not the robot's (naming the key, at its line and column).
    """
    data, places = load_toml(text, src)

    def at(key: str, joint: int | None = None) -> Callable[[str], InputError]:
        """An error at ``key`` (of the ``joint``-th ``[[joint]]`` table, or at the top level)."""
        return lambda message: places.error(message, src, key, None if joint is None else "joint", joint or 0)

    if data.get("format") != FORMAT:
        raise at("format")(f'key format: expected "{FORMAT}", got {data.get("format")!r}')
    if data.get("version") == 1:
        raise at("version")(f"key version: expected {VERSION}, got 1 (models of the joint speed only, from before "
                            f"the joint angle was an output of the identification: run servo identify again)")
    if data.get("version") != VERSION:
        raise at("version")(f"key version: expected {VERSION}, got {data.get('version')!r}")
    unknown = sorted(set(data) - _TOP)
    if unknown:
        raise at(unknown[0])(f"unknown keys {unknown}; expected {sorted(_TOP)}")
    missing = sorted({"robot", "rate_hz", "delay_samples", "joint"} - set(data))
    if missing:
        raise InputError(f"missing keys {missing}", path=src)
    rate, delay = data["rate_hz"], data["delay_samples"]
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not (math.isfinite(rate) and 0 < rate <= 1000):
        raise at("rate_hz")(f"key rate_hz: expected a rate in (0, 1000] Hz, got {rate!r}")
    if isinstance(delay, bool) or not isinstance(delay, int) or not 0 <= delay <= 50:
        raise at("delay_samples")(f"key delay_samples: expected an integer in [0, 50], got {delay!r}")
    orders = data.get("orders", [])
    if not isinstance(orders, list) or any(isinstance(n, bool) or not isinstance(n, int) for n in orders):
        raise at("orders")(f"key orders: expected a list of integers, got {orders!r}")
    tables = data["joint"]
    names = [t.get("name") if isinstance(t, dict) else t for t in tables] if isinstance(tables, list) else tables
    if names != list(joint_names):
        where = at("joint")  # (joint = [1, 2], an empty list: the key; else the first table whose name differs)
        if isinstance(tables, list) and tables and all(isinstance(t, dict) for t in tables):
            first = next((k for k, (a, b) in enumerate(zip(names, joint_names)) if a != b), len(tables) - 1)
            where = at("name", first)
        raise where(f"[[joint]] tables: expected the robot's joints {list(joint_names)} in order, got {names}")
    joints, vafs = [], []
    for k, t in enumerate(tables):
        name = t["name"]
        bad = sorted(set(t) - _JOINT)
        if bad:
            raise at(bad[0], k)(f"joint {name!r}: unknown keys {bad}; expected {sorted(_JOINT)}")
        for key in ("A", "B", "C"):
            if key not in t:
                raise at(key, k)(f"joint {name!r}: missing key {key!r}")
        n = len(t["A"]) if isinstance(t["A"], list) else 0
        if not 1 <= n <= MAX_ORDER:
            raise at("A", k)(f"joint {name!r} key A: expected a square matrix of order 1 to {MAX_ORDER} (servo "
                             f"identify's orders), got {f'order {n}' if n else repr(t['A'])}")
        A = _matrix(t["A"], (n, n), f"joint {name!r} key A", at("A", k))
        B = _matrix(t["B"], (n,), f"joint {name!r} key B", at("B", k))
        C = _matrix(t["C"], (OUTPUTS, n), f"joint {name!r} key C", at("C", k))
        if with_integrator(A) is None:
            raise at("A", k)(f"joint {name!r} key A: expected one eigenvalue at 1 (the joint angle's integrator) and "
                             f"the others inside the unit circle, got magnitudes "
                             f"{np.round(np.sort(np.abs(np.linalg.eigvals(A)))[::-1], 6).tolist()}")
        vaf = t.get("vaf_pct", float("nan"))
        model = JointModel(A, B, C, float(vaf) if isinstance(vaf, (int, float)) else float("nan"))
        try:  # the tracking's filter and MPC, designed once here as servo track designs them
            JointMPC(model, delay, 1.0, 0.0)
        except ConfigurationError as exc:
            raise at("A", k)(f"joint {name!r} keys A, B, C: {exc}") from None
        joints.append(model)
        if "vaf_by_order_pct" in t:
            row = t["vaf_by_order_pct"]  # (nan: a model of that order that was unstable)
            if not isinstance(row, list) or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in row):
                raise at("vaf_by_order_pct", k)(f"joint {name!r} key vaf_by_order_pct: expected a list of numbers, "
                                                f"got {row!r:.200}")
            vafs.append(np.array(row, dtype=float))
    table = np.array(vafs) if len(vafs) == len(joints) and all(v.size == len(orders) for v in vafs) else np.zeros((0, 0))
    models = ServoModels(rate_hz=float(rate), delay_samples=delay, joints=tuple(joints), joint_names=tuple(joint_names),
                         orders=tuple(orders) if table.size else (), vaf_table=table)
    return models, str(data["robot"])
