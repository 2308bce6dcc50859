"""Compiled code (numba): the one decorator of the package, and where its compiled code is kept.

numba keeps the machine code it compiles on disk (``cache=True``): beside
the source in the package's ``__pycache__`` or, where that is read-only, in
the user's cache folder (``~/.cache/numba``). A system-wide or container
install may have neither writable, and numba then refuses every compiled
function with ``RuntimeError: cannot cache function``. :func:`njit` caches
every function and, when numba finds no place, keeps the cache in a folder
of this user's in the temporary directory (``thermocomp-numba-<uid>``, made
private; one it does not own is not used) or, failing that, compiles in
every process without a cache. Either fallback is said once, in one line on
stderr.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile

#: Whether functions are cached (None: not decided yet; decided at the first function numba cannot cache).
_CACHING: list[bool] = []

#: While the warm-up shares a module's compiling between processes (:func:`defer`): the functions given a
#: signature, as (name, dispatcher, signature), registered at import instead of compiled.
_DEFERRED: list[tuple] | None = None


def defer() -> None:
    """From now on, register the functions given a signature instead of compiling them at import;
    :func:`compile_deferred` compiles (into the cache) those this process is to compile."""
    global _DEFERRED
    _DEFERRED = []


def compile_deferred(names: set[str], share: bool) -> None:
    """Compile, in the order they were defined, the deferred functions named in ``names`` (``share`` True) or
    all the others (False). A name that no deferred function has is an error: the caller's list is stale."""
    assert _DEFERRED is not None, "compiled.defer() was not called before the import"
    unknown = names - {name for name, _, _ in _DEFERRED}
    if unknown:
        raise ValueError(f"no compiled function named {sorted(unknown)}")
    for name, dispatcher, signature in _DEFERRED:
        if (name in names) == share:
            dispatcher.compile(signature)
            dispatcher.disable_compile()  # as numba.njit(signature) does: its callers use this one specialisation


def njit(*args, lazy: bool = False, **options):
    """``numba.njit`` with ``cache=True`` (as ``@njit``, ``@njit(signature, ...)`` or ``@njit(**options)``; a
    ``cache`` option is ignored), falling back as the module docstring says when numba has no writable place for
    its cache.

    ``lazy=True`` with a signature: an entry point that Python calls (never compiled code): compiled, or loaded
    from the cache, on its first call instead of at import (:class:`Entry`), so that a command loads only the
    entry points it runs (loading all of the kinematics engine's cost some 0.2 s of a 1 s command).
    """
    options.pop("cache", None)
    if len(args) == 1 and callable(args[0]) and not options:
        return _compile(args[0], (), {})
    return lambda function: _compile(function, args, options, lazy)


class Entry:
    """A compiled function of one signature, loaded on its first call (thread-safe), then called as
    ``numba.njit(signature)`` would be: other argument types are refused, never compiled."""

    def __init__(self, dispatcher, signature) -> None:
        import threading

        self.dispatcher = dispatcher
        self.signature = signature
        self.__name__ = dispatcher.py_func.__name__
        self.__doc__ = dispatcher.py_func.__doc__
        self._lock = threading.Lock()
        self._loaded = False

    def load(self) -> None:
        """Compile, or load from the cache, the one signature (once)."""
        with self._lock:
            if not self._loaded:
                self.dispatcher.compile(self.signature)
                self.dispatcher.disable_compile()
                self._loaded = True

    def __call__(self, *args):
        if not self._loaded:
            self.load()
        return self.dispatcher(*args)


def _compile(function, args: tuple, options: dict, lazy: bool = False):
    import numba

    if _DEFERRED is not None and args:
        dispatcher = numba.njit(cache=True, **options)(function)
        _DEFERRED.append((function.__name__, dispatcher, args[0]))
        return dispatcher
    if lazy and args:
        return Entry(_compile(function, (), options), args[0])
    if _CACHING and not _CACHING[0]:
        return numba.njit(*args, **options)(function)
    try:
        return numba.njit(*args, cache=True, **options)(function)
    except RuntimeError as error:
        if "cannot cache function" not in str(error) or _CACHING:
            raise
    _CACHING.append(_private_cache_folder() is not None)
    return _compile(function, args, options)


def _private_cache_folder() -> str | None:
    """Point numba's cache at ``<tmp>/thermocomp-numba-<uid>`` when that folder is, or can be made, this user's
    alone; its path, or None (no cache). Says which on stderr."""
    import numba

    uid = os.getuid() if hasattr(os, "getuid") else None
    folder = os.path.join(tempfile.gettempdir(), f"thermocomp-numba-{uid if uid is not None else 'user'}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.lstat(folder)
        private = stat.S_ISDIR(info.st_mode) and not info.st_mode & 0o077 and (uid is None or info.st_uid == uid)
    except OSError:
        private = False
    if private:
        numba.config.CACHE_DIR = folder
        print(f"thermocomp: no writable cache folder for compiled code beside the package or in the home folder: "
              f"caching it in {folder}", file=sys.stderr)
        return folder
    print(f"thermocomp: no writable cache folder for compiled code (beside the package, in the home folder, or a "
          f"private {folder}): compiling in every run", file=sys.stderr)
    return None

