"""A word when numba compiles the kernels, so a first run does not look like a hang.

The compiled kernels (:mod:`thermocomp.kinematics.newton_kernel` and the
others) are cached on disk by numba (``cache=True``, in the package's
``__pycache__``): every run loads them in a fraction of a second, but the first
run after installing or updating compiles them, which takes a minute or two
with nothing else to show. numba announces a compilation (a cache miss, never
a load) as its ``numba:compile`` event; :func:`compile_notice` listens for it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

#: What the listener says, once per process.
MESSAGE = ("thermocomp: compiling the numerical kernels for this machine (the first run after installing or "
           "updating; cached for the runs after it): this takes a minute or two")


@contextlib.contextmanager
def compile_notice(write: Callable[[str], None], message: str = MESSAGE) -> Iterator[None]:
    """While the block runs, call ``write(message)`` once when numba first compiles a function (not when it loads
    one from its cache)."""
    from numba.core import event

    said = []

    class _Listener(event.Listener):
        def on_start(self, ev) -> None:
            if not said:
                said.append(True)
                write(message)

        def on_end(self, ev) -> None:
            pass

    listener = _Listener()
    event.register("numba:compile", listener)
    try:
        yield
    finally:
        event.unregister("numba:compile", listener)
