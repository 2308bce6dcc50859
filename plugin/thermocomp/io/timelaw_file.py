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

import re
from pathlib import Path

from thermocomp._typing import PathLike
from thermocomp.deformation.thermal_laws import ALWAYS_ON, FirstOrder, TemperatureMap
from thermocomp.deformation.timelaw import LinearRamp, Static
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.atomic import atomic_write_text
from thermocomp.io.files import MAX_DESCRIPTION_BYTES, read_input_bytes

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


def _tomllib():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib


def read_time_law(path: PathLike):
    """Read a law file (or the law beside a table CSV: :func:`time_law_path`).

    Returns
    -------
    Static, LinearRamp, FirstOrder or TemperatureMap

    Raises
    ------
    InputError
        Missing file, TOML syntax (with line and column), wrong format or
        version, unknown or missing keys, values out of range (naming the key).
    """
    path = time_law_path(path)
    src = str(path)
    tomllib = _tomllib()
    try:
        data = tomllib.loads(read_input_bytes(path, "time-law", MAX_DESCRIPTION_BYTES).decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(f"expected UTF-8 text: {exc}", path=src) from None
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"line (\d+), column (\d+)", str(exc))
        raise InputError(f"not valid TOML: {exc}", path=src, row=int(where[1]) if where else None,
                         column=where[2] if where else None) from None
    except RecursionError:  # (tomllib reads nested arrays and tables recursively: a traceback)
        raise InputError("not valid TOML: arrays or tables nested too deeply to read (a file of values nests some "
                         "levels, not hundreds)", path=src) from None
    if data.get("format") != FORMAT:
        raise InputError(f'key format: expected "{FORMAT}", got {data.get("format")!r}', path=src)
    if data.get("version") != VERSION:
        raise InputError(f"key version: expected {VERSION}, got {data.get('version')!r}", path=src)
    kind = data.get("law")
    if not isinstance(kind, str) or kind not in _KEYS:
        raise InputError(f"key law: expected one of {', '.join(_KEYS)}, got {kind!r}", path=src)
    for key in data:
        if key not in _COMMON and key not in _KEYS[kind]:
            raise InputError(f"unknown key {key!r} for law {kind!r}; expected {', '.join(_KEYS[kind]) or 'none'}",
                             path=src)
    for key in _KEYS[kind]:
        if key not in data and key not in _OPTIONAL:
            raise InputError(f"missing key {key!r} for law {kind!r}", path=src)
    try:
        if kind == "static":
            return Static()
        if kind == "linear-ramp":
            return LinearRamp(_number(data, "stabilisation_min", src))
        if kind == "first-order":
            cool = data.get("tau_cool_min")
            return FirstOrder(_number(data, "tau_min", src), None if cool is None else _number(data, "tau_cool_min", src),
                              tuple(tuple(ab) for ab in data.get("heat_on_min", ALWAYS_ON)))
        return TemperatureMap(tuple(data["weights_per_C"]), tuple(data["reference_C"]), tuple(data["log_minute"]),
                              tuple(tuple(row) for row in data["log_C"]))
    except (ConfigurationError, TypeError, ValueError, OverflowError) as exc:
        raise InputError(f"law {kind!r}: {exc}", path=src) from None


#: Largest value of a number key [min] (a billion minutes is 1,900 years: beyond it, a typing slip).
MAX_MINUTES = 1e9


def _number(data: dict, key: str, src: str) -> float:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"key {key}: expected a number, got {value!r}", path=src)
    if not abs(value) <= MAX_MINUTES:  # (NaN and inf too; an int of any size compares exactly)
        raise InputError(f"key {key}: expected a finite number of at most {MAX_MINUTES:g}, got {value!r:.40}", path=src)
    return float(value)


__all__ = ["FORMAT", "LAW_FILE_BEGINS", "SUFFIX", "VERSION", "read_time_law", "time_law_path", "time_law_text", "write_time_law"]
