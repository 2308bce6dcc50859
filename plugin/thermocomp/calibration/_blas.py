"""One BLAS thread for the calibration's small dense problems.

The fit's matrices have tens of columns and a few hundred rows. Multithreaded
BLAS gains nothing on them and, on a loaded machine, loses a great deal:
measured on the shared 2-core machine under load, one calibration with a time
law took 105 s with OpenBLAS's two threads and 1.9 s with one. The limit is
scoped (restored on exit), not a global setting.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Limit BLAS to one thread inside the ``with`` block (:func:`threadpoolctl.threadpool_limits`)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


__all__ = ["single_threaded_blas"]
