"""Where the package's data folders are: the installed ``thermocomp/_robots`` and ``_scenes``, or a checkout's.

A wheel installs the repository's ``robots/`` and ``scenes/`` inside the
package as ``thermocomp/_robots`` and ``thermocomp/_scenes`` (pyproject.toml).
They have no ``__init__.py``, so ``importlib.resources`` sees namespace
packages whose ``files()`` is a ``MultiplexedPath``, not a folder (an
installed wheel failed on ``MultiplexedPath(...)/irb140/chain.csv``); the
folder beside this module is the installed one. A source checkout (or an
editable install, which runs from ``plugin/thermocomp``) has them at the
repository's top level.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_folder(name: str) -> Path:
    """The folder of the package data ``name`` (``"robots"`` or ``"scenes"``), installed or in the checkout."""
    installed = _PACKAGE / f"_{name}"
    return installed if installed.is_dir() else _PACKAGE.parents[1] / name
