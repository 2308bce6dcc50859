"""A word when numba compiles, so a first run does not look like a hang.

The compiled code (:mod:`thermocomp.kinematics.engine` and the results
writer, :mod:`thermocomp.io.results_text`) is cached on disk by numba
(:mod:`thermocomp.compiled`): ``make install`` compiles it once, and every
run loads it in a fraction of a second.
A run after a source update (or with the cache emptied) compiles again, which
takes tens of seconds with nothing else to show. numba announces a
compilation (a cache miss, never a load) as its ``numba:compile`` event;
:func:`compile_notice` listens for it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

#: What the listener says, once per process.
MESSAGE = ("thermocomp: compiling the numerical kernels for this machine (not yet cached: `make install` or "
           "`python -m thermocomp.warm_up` does it once): this takes up to a minute")


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
