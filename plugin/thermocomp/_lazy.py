"""A package's public names imported on first use (PEP 562), so that importing one module of a package does not
import all of it: ``from thermocomp.dynamics.excitation import ExcitationOptions`` loads NumPy, not SciPy's signal
processing through the package's other modules."""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_exports(namespace: dict, exports: dict[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a package whose public names are ``exports`` (name: module).

    A name is imported from its module on first use and kept in the package's ``namespace`` (its ``globals()``).
    """

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
