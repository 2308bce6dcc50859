"""Connecting to PyBullet: the lazy import, DIRECT (headless) and GUI clients.

PyBullet is imported when a client is opened, never when thermocomp is
imported (STYLE.md, practice 7). Every PyBullet call of the adapter passes
``physicsClientId`` explicitly, so several clients (the GUI and a DIRECT
client measuring in the background) never mix.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType

from thermocomp.errors import ThermocompError

#: Connection modes.
MODES = ("direct", "gui")


class SimulatorUnavailable(ThermocompError):
    """PyBullet cannot be imported, or its GUI cannot open a window here."""


def _flush_c_stdio() -> None:
    """Flush Python's and the C library's stdio buffers (so nothing buffered crosses a redirection)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            stream.flush()
    if os.name == "posix":
        import ctypes

        with contextlib.suppress(OSError, AttributeError, TypeError):
            ctypes.CDLL(None).fflush(None)  # fflush(NULL): every C output stream


@contextlib.contextmanager
def quiet_fds(*fds: int) -> Iterator[None]:
    """Send the OS-level file descriptors ``fds`` to the null device for a block.

    PyBullet's C code prints banners straight to the process's stdout and
    stderr (``pybullet build time: ...`` at import, ``argv[0]=`` at connect),
    below Python's ``sys.stdout``; only a redirection of the descriptors
    themselves silences them. Buffers are flushed before and after, so
    nothing written before the block is lost and nothing written inside it
    leaks out later. A descriptor that cannot be duplicated (closed, or no
    null device) is left alone: the banner is noise, never worth a failure.
    Other threads' output to these descriptors is lost during the block,
    which is why it spans only an import and a connect.
    """
    _flush_c_stdio()
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        yield
        return
    saved: list[tuple[int, int]] = []
    try:
        for fd in fds:
            try:
                copy = os.dup(fd)
            except OSError:
                continue
            saved.append((fd, copy))
            os.dup2(devnull, fd)
        yield
    finally:
        _flush_c_stdio()
        for fd, copy in saved:
            os.dup2(copy, fd)
            os.close(copy)
        os.close(devnull)


def import_pybullet() -> ModuleType:
    """The ``pybullet`` module, or :class:`SimulatorUnavailable` saying how to install it.

    The first import is made with stdout and stderr silenced (:func:`quiet_fds`):
    PyBullet prints its build time there.
    """
    try:
        if "pybullet" in sys.modules:
            import pybullet
        else:
            with quiet_fds(1, 2):
                import pybullet
    except ImportError as exc:
        raise SimulatorUnavailable(
            f"PyBullet is not importable ({exc}); install it with: pip install pybullet"
        ) from exc
    return pybullet


def display_available() -> bool:
    """Whether a GUI window can open: on Linux and BSD a ``DISPLAY`` must be set.

    PyBullet's GUI terminates the whole process when it cannot reach an X
    server, so the adapter checks first. macOS and Windows always have a
    display for a desktop session.
    """
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return bool(os.environ.get("DISPLAY"))
    return True


@dataclass(frozen=True)
class Client:
    """An open PyBullet connection.

    Attributes
    ----------
    pb
        The ``pybullet`` module.
    id
        Its ``physicsClientId``.
    gui
        True for a GUI connection (OpenGL window), False for DIRECT.
    """

    pb: ModuleType
    id: int
    gui: bool

    def close(self) -> None:
        """Disconnect (idempotent: a closed connection is left alone)."""
        if self.pb.isConnected(physicsClientId=self.id):
            self.pb.disconnect(physicsClientId=self.id)


def open_client(mode: str = "direct", options: str = "") -> Client:
    """Open a PyBullet client; the caller closes it (:meth:`Client.close`) or uses :func:`connect`.

    Parameters
    ----------
    mode
        ``"direct"``: no window, TinyRenderer for pictures (CI and batch);
        ``"gui"``: PyBullet's OpenGL window with its parameter panel.
    options
        PyBullet's connection options, e.g. ``"--width=1280 --height=860"`` for the GUI window.

    Raises
    ------
    SimulatorUnavailable
        PyBullet missing, no display for the GUI, or the connection refused.
    ValueError
        ``mode`` not in :data:`MODES`.
    """
    if mode not in MODES:
        raise ValueError(f"mode: expected one of {MODES}, got {mode!r}")
    pb = import_pybullet()
    if mode == "gui" and not display_available():
        raise SimulatorUnavailable(
            "PyBullet's GUI needs a display and DISPLAY is not set: run on a desktop, under a virtual "
            "display (xvfb-run -a thermocomp sim ...), or headless with --headless / --screenshot"
        )
    # PyBullet prints "argv[0]=" on stdout when it connects; stderr stays open for real errors.
    with quiet_fds(1):
        cid = pb.connect(pb.GUI if mode == "gui" else pb.DIRECT, options=options)
    if cid < 0:
        raise SimulatorUnavailable(f"PyBullet refused a {mode.upper()} connection (another GUI may be open)")
    return Client(pb=pb, id=cid, gui=mode == "gui")


@contextlib.contextmanager
def paused_rendering(client: Client) -> Iterator[None]:
    """Pause the GUI's drawing for a block of changes (a no-op in DIRECT mode).

    Each body PyBullet's GUI loads is otherwise drawn step by step: pausing
    turns a reload from about a second into milliseconds.
    """
    if not client.gui:
        yield
        return
    pb = client.pb
    pb.configureDebugVisualizer(pb.COV_ENABLE_RENDERING, 0, physicsClientId=client.id)
    try:
        yield
    finally:
        if pb.isConnected(physicsClientId=client.id):
            pb.configureDebugVisualizer(pb.COV_ENABLE_RENDERING, 1, physicsClientId=client.id)


@contextlib.contextmanager
def connect(mode: str = "direct") -> Iterator[Client]:
    """:func:`open_client` as a context manager that always disconnects."""
    client = open_client(mode)
    try:
        yield client
    finally:
        client.close()


__all__ = ["MODES", "Client", "SimulatorUnavailable", "connect", "display_available", "import_pybullet", "open_client",
           "paused_rendering", "quiet_fds"]
