"""Pause Python's cyclic garbage collector around work that builds many long-lived objects.

Reading a 100,000-motion robot program creates about a million small objects
that all stay alive until the job ends. The collector's generational passes
then rescan them again and again (seconds, at random places in the work)
while finding nothing to free. :func:`paused` switches it off for the block
and back on after (only if it was on): reference counting still frees
everything that is not in a cycle, and the next collection runs as usual.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """Run the block with the cyclic garbage collector off (restored after, also on an exception)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
