"""Time-law files: how the table beside them grows with working time (TOML, self-describing).

``thermocomp calibrate --out table.csv`` writes the fitted law as
``table.law.toml`` beside the table; ``thermocomp compensate --time-law
from:table.csv`` (or ``from:table.law.toml``) reads it back. The form::

    # thermocomp time law (docs/calibration.md)
    format = "thermocomp-time-law"
    version = 1
    table = "table.csv"            # the table it scales (informative)
    law = "first-order"            # "static" | "linear-ramp" | "first-order" | "temperature"
    tau_min = 44.8                 # first-order: heating time constant [min]
    tau_cool_min = 60.0            # first-order, optional: cooling time constant [min]
    heat_on_min = [[0.0, 120.0], [160.0, inf]]   # first-order, optional: working intervals [min]

``linear-ramp`` takes ``stabilisation_min``; ``temperature`` takes
``weights_per_C``, ``reference_C`` (k channels) and the temperature log
``log_minute`` (L minutes) and ``log_C`` (L rows of k). Every value's unit is
in its key. Unknown keys are errors; errors name the file and the key (or
the line and column of a TOML syntax error).
"""

from __future__ import annotations

from pathlib import Path

from thermocomp._typing import PathLike
from thermocomp.deformation.thermal_laws import ALWAYS_ON, FirstOrder, TemperatureMap
from thermocomp.deformation.timelaw import LinearRamp, Static
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.atomic import atomic_write_text
from thermocomp.io.files import MAX_DESCRIPTION_BYTES, read_input_bytes
from thermocomp.io.toml_text import TomlPlaces, load_toml

FORMAT = "thermocomp-time-law"
VERSION = 1
#: Suffix of the law file written beside a table: ``table.csv`` -> ``table.law.toml``.
SUFFIX = ".law.toml"
#: How every law file :func:`time_law_text` writes begins (``calibrate`` replaces a law file beside its table only
#: when it begins so: the user did not name it).
LAW_FILE_BEGINS = b"# thermocomp time law"
_KEYS = {
    "static": (),
    "linear-ramp": ("stabilisation_min",),
    "first-order": ("tau_min", "tau_cool_min", "heat_on_min"),
    "temperature": ("weights_per_C", "reference_C", "log_minute", "log_C"),
}
_OPTIONAL = {"tau_cool_min", "heat_on_min"}
_NUMBER_KEYS = {"stabilisation_min", "tau_min", "tau_cool_min"}
_COMMON = ("format", "version", "law", "table")


def time_law_path(table: PathLike) -> Path:
    """Where the law of ``table`` lives: ``table.csv`` -> ``table.law.toml`` (a law file is itself)."""
    path = Path(table)
    return path if path.name.endswith(SUFFIX) else path.with_suffix(SUFFIX)


def _toml_value(value: object) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, float):
        return "inf" if value == float("inf") else repr(value)
    return str(value)


def time_law_text(law: object, table_name: str | None = None, comments: tuple[str, ...] = ()) -> str:
    """The TOML text of ``law`` (``Static``, ``LinearRamp``, ``FirstOrder`` or ``TemperatureMap``)."""
    items: list[tuple[str, object]] = [("format", FORMAT), ("version", VERSION)]
    if table_name is not None:
        items.append(("table", table_name))
    if isinstance(law, Static):
        items.append(("law", "static"))
    elif isinstance(law, LinearRamp):
        items += [("law", "linear-ramp"), ("stabilisation_min", float(law.stabilisation_min))]
    elif isinstance(law, FirstOrder):
        items += [("law", "first-order"), ("tau_min", float(law.tau_min))]
        if law.tau_cool_min is not None:
            items.append(("tau_cool_min", float(law.tau_cool_min)))
        if law.heat_on != ALWAYS_ON:
            items.append(("heat_on_min", [list(ab) for ab in law.heat_on]))
    elif isinstance(law, TemperatureMap):
        items += [("law", "temperature"), ("weights_per_C", list(law.weights_per_C)),
                  ("reference_C", list(law.reference_C)), ("log_minute", list(law.log_minute)),
                  ("log_C", [list(row) for row in law.log_C])]
    else:
        raise ConfigurationError(f"time law: expected Static, LinearRamp, FirstOrder or TemperatureMap, got {law!r}")
    lines = [LAW_FILE_BEGINS.decode() + ": the share of the table beside it applied at each minute (docs/calibration.md)"]
    lines += [f"# {c}" for c in comments]
    lines += [f"{key} = {_toml_value(value)}" for key, value in items]
    return "\n".join(lines) + "\n"


def write_time_law(law: object, path: PathLike, table_name: str | None = None, comments: tuple[str, ...] = ()) -> None:
    """Write ``law`` to ``path`` atomically (see :func:`time_law_text`)."""
    for c in comments:
        if c.splitlines() not in ([], [c]):
            raise InputError(f"expected one-line comments, got {c!r}", path=str(path))
    atomic_write_text(path, time_law_text(law, table_name, comments))


def read_time_law(path: PathLike):
    """Read a law file (or the law beside a table CSV: :func:`time_law_path`).

    Returns
    -------
    Static, LinearRamp, FirstOrder or TemperatureMap

    Raises
    ------
    InputError
        Missing file, TOML syntax (with line and column), wrong format or
        version, unknown or missing keys, values out of range (naming the key,
        at its line and column).
    """
    path = time_law_path(path)
    src = str(path)
    try:
        text = read_input_bytes(path, "time-law", MAX_DESCRIPTION_BYTES).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"expected UTF-8 text: {exc}", path=src) from None
    data, places = load_toml(text, src)
    if data.get("format") != FORMAT:
        raise places.error(f'key format: expected "{FORMAT}", got {data.get("format")!r}', src, "format")
    if data.get("version") != VERSION:
        raise places.error(f"key version: expected {VERSION}, got {data.get('version')!r}", src, "version")
    kind = data.get("law")
    if not isinstance(kind, str) or kind not in _KEYS:
        raise places.error(f"key law: expected one of {', '.join(_KEYS)}, got {kind!r}", src, "law")
    for key in data:
        if key not in _COMMON and key not in _KEYS[kind]:
            raise places.error(f"unknown key {key!r} for law {kind!r}; expected {', '.join(_KEYS[kind]) or 'none'}",
                               src, key)
    for key in _KEYS[kind]:
        if key not in data and key not in _OPTIONAL:
            raise places.error(f"missing key {key!r} for law {kind!r}", src, "law")
    try:
        if kind == "static":
            return Static()
        if kind == "linear-ramp":
            return LinearRamp(_number(data, "stabilisation_min", src, places))
        if kind == "first-order":
            cool = data.get("tau_cool_min")
            return FirstOrder(_number(data, "tau_min", src, places),
                              None if cool is None else _number(data, "tau_cool_min", src, places),
                              data.get("heat_on_min", ALWAYS_ON))  # (checked there: "heat_on: expected pairs ...")
        return TemperatureMap(tuple(data["weights_per_C"]), tuple(data["reference_C"]), tuple(data["log_minute"]),
                              tuple(tuple(row) for row in data["log_C"]))
    except (ConfigurationError, TypeError, ValueError, OverflowError) as exc:
        raise places.error(f"law {kind!r}: {exc}", src, _key_of(str(exc), kind, data)) from None


#: The key a law's own message is about, by how the message begins (its field's name); else the key ``law``.
_MESSAGE_KEYS = {"tau_min:": "tau_min", "tau_cool_min:": "tau_cool_min", "heat_on:": "heat_on_min",
                 "stabilisation time:": "stabilisation_min", "temperature map: expected k weights": "log_C",
                 "temperature map: expected finite numbers": "log_minute"}


def _key_of(message: str, kind: str, data: dict) -> str:
    """The key of ``message`` (:data:`_MESSAGE_KEYS`); a message of none (a value of the wrong type): the first of
    the law's list keys whose value is not a list, or its one list key, else ``law``."""
    for head, key in _MESSAGE_KEYS.items():
        if message.startswith(head):
            return key
    lists = [k for k in _KEYS[kind] if k in data and k not in _NUMBER_KEYS]
    return next((k for k in lists if not isinstance(data[k], list)), lists[0] if len(lists) == 1 else "law")


#: Largest value of a number key [min] (a billion minutes is 1,900 years: beyond it, a typing slip).
MAX_MINUTES = 1e9


def _number(data: dict, key: str, src: str, places: TomlPlaces) -> float:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise places.error(f"key {key}: expected a number, got {value!r}", src, key)
    if not abs(value) <= MAX_MINUTES:  # (NaN and inf too; an int of any size compares exactly)
        raise places.error(f"key {key}: expected a finite number of at most {MAX_MINUTES:g}, got {value!r:.40}", src,
                           key)
    return float(value)


__all__ = ["FORMAT", "LAW_FILE_BEGINS", "SUFFIX", "VERSION", "read_time_law", "time_law_path", "time_law_text", "write_time_law"]
