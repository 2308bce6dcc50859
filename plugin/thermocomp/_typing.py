"""Type aliases used across thermocomp (see docs/conventions.md)."""

from __future__ import annotations

import os
from typing import Union

import numpy as np
import numpy.typing as npt

#: Any float array; the docstring of each function gives its shape, frame and unit.
FloatArray = npt.NDArray[np.float64]
#: Something numpy can turn into a float array.
ArrayLike = npt.ArrayLike
#: A file-system path.
PathLike = Union[str, "os.PathLike[str]"]
