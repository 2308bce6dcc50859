"""One command run's files: every input and output declared, checked before any work, committed all or none.

A :class:`Job` is what a command knows about its files (docs/jobs.md):

* :meth:`Job.input` names a file the run reads, with the option that named
  it (``--targets``); :meth:`Job.output` a file it will write (``--out``).
* :meth:`Job.check` refuses, before any work, every output that is an
  input (same resolved path, or the same file: ``st_dev`` and ``st_ino``,
  symlinks and hard links followed), that is another output, that exists
  and is not a regular file (a directory, a FIFO, a device), or that is not
  a new name in an existing, writable folder. One
  :class:`~thermocomp.errors.InputError` names every conflict with its
  option.
* Outputs are written to short temporary names beside their destinations
  (:meth:`Job.open`, :meth:`Job.write_text`, :meth:`Job.write_bytes`,
  :meth:`Job.write_with`) while the work runs, and :meth:`Job.commit`
  renames them all at the end. If one rename fails, every destination
  already replaced gets its earlier content back (kept as a hard link, or a
  copy, until every rename has succeeded).
* Leaving the ``with Job()`` block without a commit (an error, Ctrl-C, or
  SIGTERM / SIGHUP turned into ``KeyboardInterrupt`` by
  :func:`interrupt_on_termination`) removes every temporary: nothing is
  written. A full disk (or any failed write) is an ``InputError`` naming the
  output and its option.
* One output may be the run's log (:meth:`Job.log`, e.g. ``--report``, which
  the CoppeliaSim add-on shows): it is checked like the others, and every
  :meth:`Job.echo` prints a line and rewrites the log whole under its name
  (temporary, then rename; never appended to), so a reader always sees
  complete lines, and an error of a failed run is logged too
  (:meth:`Job.log_error`).

Usage::

    with Job() as job:
        job.input(args.targets, "--targets")
        out = job.output(args.out, "--out")
        job.check()                      # before any work
        rows = compute()
        job.write_text(out, rows)        # a temporary beside the destination
        job.commit()                     # all outputs appear, or none
    for path in job.written:
        print(f"wrote {path}")
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from thermocomp._signals import held, interrupt_on_termination, raise_if_terminated
from thermocomp._typing import PathLike
from thermocomp._workers import owner_pid
from thermocomp.errors import InputError
from thermocomp.io.files import check_file_name

#: Prefix of every temporary a job (or :mod:`thermocomp.io.atomic`) makes beside an output: a short,
#: fixed-length name, so an output name of up to the file system's limit (255 bytes) works.
TEMPORARY_PREFIX = ".tc-"
#: Longest destination suffix copied onto a temporary name (writers check ``.png``, ``.urdf`` ...).
_MAX_SUFFIX = 12
#: Write errors that say the destination is full or too big, however they surface.
_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


@dataclass(frozen=True)
class _Role:
    """A file of the job and the option that named it."""

    path: Path
    option: str
    #: A derived output (a name no option gave, e.g. a report's CSV beside it): what a file there must begin
    #: with to be one this option wrote, and so replaced; None for a named output.
    begins: bytes | None = field(default=None, compare=False)
    #: What a derived output is, for the message (``a program report CSV``).
    kind: str = field(default="", compare=False)

    @property
    def label(self) -> str:
        return f"{self.option} {self.path}" if self.option else str(self.path)


#: A temporary's whole name: the prefix, an optional kind (``keep-``), the owner's process id
#: (:func:`thermocomp._workers.owner_pid`), mkstemp's 8 letters, then the destination's suffix (at most
#: ``_MAX_SUFFIX`` characters) if any. Whole: a user's ``.tc-424242-targets.csv`` (of a run whose process is gone)
#: was removed as stale, an input of the run included.
_OWNED_NAME = re.compile(re.escape(TEMPORARY_PREFIX) + r"(?:[a-z]+-)?(\d+)-[a-z0-9_]{8}"
                         + rf"(?:\.[^.]{{1,{_MAX_SUFFIX - 1}}})?")


def temporary_beside(dest: Path, kind: str = "", suffix: str | None = None) -> Path:
    """Create an empty temporary file in ``dest``'s folder (same file system: renaming it is atomic).

    Its name is short (``.tc-<pid>-XXXXXXXX`` plus ``suffix``, by default ``dest``'s,
    when that is at most 12 characters), whatever the length of ``dest``'s name; ``<pid>`` is the process
    that owns it (:func:`thermocomp._workers.owner_pid`), so that a run killed hard leaves a name the next run can recognise.

    Raises
    ------
    InputError
        Naming ``dest`` when the folder refuses a new file.
    """
    suffix = dest.suffix if suffix is None else suffix
    suffix = suffix if len(suffix) <= _MAX_SUFFIX else ""
    try:
        fd, name = tempfile.mkstemp(prefix=f"{TEMPORARY_PREFIX}{kind}{owner_pid()}-", suffix=suffix, dir=dest.parent)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", path=str(dest)) from exc
    os.close(fd)
    return Path(name)


#: The output folders this process has swept of stale temporaries (:meth:`Job.check`).
_SWEPT: set[Path] = set()


def _running(pid: int) -> bool:
    """Whether a process ``pid`` exists (one of another user counts: it may own its temporaries)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return pid < 2**31
    return True


def remove_stale_temporaries(folder: Path, keep: frozenset[tuple[int, int]] = frozenset()) -> list[Path]:
    """Remove the temporaries in ``folder`` whose owning process is gone (a run killed hard left them).

    Only names this module makes (``.tc-<pid>-XXXXXXXX`` and a suffix, regular files) whose ``<pid>`` no longer
    runs: a run in progress, of this or another process, keeps its own. A process id the system has given to
    another process since keeps its temporary until that one ends too. ``keep``: the files (device and inode) never
    removed, whatever their name (the run's inputs).

    Returns
    -------
    list of Path
        The files removed.
    """
    removed = []
    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(TEMPORARY_PREFIX)]
    except OSError:
        return removed
    for entry in entries:
        match = _OWNED_NAME.fullmatch(entry.name)
        if match is None or _running(int(match.group(1))):
            continue
        with contextlib.suppress(OSError):
            found = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(found.st_mode) and (found.st_dev, found.st_ino) not in keep:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


def new_file_mode() -> int:
    """The mode ``open()`` would give a new file: 0666 less the process umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _endless(src: _Role) -> list[str]:
    """A device as an input (``/dev/zero``, ``/dev/urandom``): read to its end, it filled memory until the
    kernel killed the run. A FIFO (``<(...)``, a pipe) stays allowed: it ends when its writer does."""
    with contextlib.suppress(OSError):
        mode = os.stat(src.path).st_mode
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            return [f"{src.label}: expected a file to read, got {file_kind(mode)}"]
    return []


def _stat(path: Path) -> os.stat_result | None:
    """``os.stat`` (symlinks followed), or ``None`` when nothing is there."""
    try:
        return path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None


def _begins_with(path: Path, begins: bytes) -> bool:
    """Whether the regular file ``path`` begins with ``begins`` (unreadable: no)."""
    try:
        with open(path, "rb") as f:
            return f.read(len(begins)) == begins
    except OSError:
        return False


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, for messages: 'a directory', 'a FIFO', 'a device', ..."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
                       (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def same_file(a: PathLike, b: PathLike) -> bool:
    """Whether ``a`` and ``b`` name one file: the same resolved path, or the same device and inode."""
    a, b = Path(a), Path(b)
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        sa, sb = _stat(a), _stat(b)
    except OSError:  # a loop of links, a name too long: no file there to be the same (its own check names it)
        return False
    return sa is not None and sb is not None and os.path.samestat(sa, sb)


def destination(path: PathLike) -> Path:
    """Where an output lands: the real path of its folder and its own name, never the target of a link at it."""
    path = Path(path)
    return Path(os.path.realpath(path.parent)) / path.name


def file_identity(path: PathLike) -> tuple[str, tuple[int, int] | None]:
    """What :func:`same_file` compares, for checking many files at once: ``path``'s resolved path, and its device and
    inode (``None`` where nothing is there to stat)."""
    try:
        st = _stat(Path(path))
    except OSError:  # a loop of links, a name too long: no file there to be the same (its own check names it)
        st = None
    return os.path.realpath(path), None if st is None else (st.st_dev, st.st_ino)


class _Identities:
    """Files by identity, for :func:`same_file` against many at once: by resolved path and by device and inode."""

    def __init__(self, roles: list[_Role]) -> None:
        self._by_path: dict[str, list[int]] = {}
        self._by_inode: dict[tuple[int, int], list[int]] = {}
        self._roles: list[_Role] = []
        for role in roles:
            self.add(role)

    def add(self, role: _Role) -> None:
        real, inode = file_identity(role.path)
        self._by_path.setdefault(real, []).append(len(self._roles))
        if inode is not None:
            self._by_inode.setdefault(inode, []).append(len(self._roles))
        self._roles.append(role)

    def same_as(self, path: Path) -> list[_Role]:
        """The files added that are ``path`` (:func:`same_file`), in the order added."""
        real, inode = file_identity(path)
        hits = set(self._by_path.get(real, ())) | set(self._by_inode.get(inode, ()) if inode is not None else ())
        return [self._roles[k] for k in sorted(hits)]


def _name_max(folder: Path) -> int:
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError, AttributeError):
        return 255


class Job:
    """The inputs and outputs of one run of a command (see the module docstring and docs/jobs.md).

    Attributes
    ----------
    written
        The outputs :meth:`commit` published, in the order they were
        declared (empty before the commit).
    """

    def __init__(self) -> None:
        self._inputs: list[_Role] = []
        self._outputs: list[_Role] = []
        self._declared: set[tuple[str, _Role]] = set()  # (a batch declares thousands: each a set look-up, not a list scan)
        self._by_destination: dict[Path, _Role] | None = None  # resolved destination -> output (made when needed)
        self._by_path: dict[Path, _Role] | None = None  # declared path -> output but the log (made when needed)
        self._staged: dict[Path, Path] = {}  # destination (resolved) -> temporary
        self._labels: dict[Path, str] = {}  # destination (resolved) -> its output's label, as it is staged
        self._log: _Role | None = None
        self._log_lines: list[str] = []
        self._checked = False
        self.written: list[Path] = []

    # --- declaring -------------------------------------------------------------------------------

    def input(self, path: PathLike | None, option: str = "") -> Path | None:
        """Declare a file the run reads (``None`` passes through); returns it as a :class:`Path`."""
        if path is None:
            return None
        role = _Role(Path(path), option)
        check_file_name(path, option)
        if str(path) == "-":  # the Unix spelling of standard input: never a file named '-' by surprise
            raise InputError("expected a file name: '-' (standard input) is not read; name the file (./- for a "
                             "file called '-')", path=role.label)
        if ("in", role) not in self._declared:
            self._declared.add(("in", role))
            self._inputs.append(role)
        return role.path

    def inputs(self, paths: Any, option: str = "") -> None:
        """Declare several input files (e.g. the meshes a scene names)."""
        for path in paths:
            self.input(path, option)

    def output(self, path: PathLike | None, option: str = "") -> Path | None:
        """Declare a file the run will write (``None`` passes through); returns it as a :class:`Path`.

        Declaring the same path with the same option again (a library call
        inside a larger run) is one output.
        """
        if path is None:
            return None
        role = _Role(Path(path), option)
        check_file_name(path, option)
        if str(path) == "-":  # the Unix spelling of standard output: it wrote a file named '-'
            raise InputError("expected a file name: '-' (standard output) is not written; name the file (./- for "
                             "a file called '-')", path=role.label)
        if isinstance(path, str) and path.endswith(("/", os.sep)) and not Path(path).is_dir():
            # Path() drops the slash: --out new.csv/ wrote a file new.csv where a folder was meant
            raise InputError("expected a file name, got a folder name (it ends in '/')", path=f"{role.label}/")
        if ("out", role) not in self._declared:
            self._declared.add(("out", role))
            self._outputs.append(role)
            self._by_destination = self._by_path = None
        return role.path

    def derived_output(self, path: PathLike | None, option: str, begins: bytes, kind: str) -> Path | None:
        """Declare a file the run writes under a name it derived (``None`` passes through): a report's CSV beside it.

        No option names it, so a file already there is replaced only when it begins with ``begins`` (one this
        option wrote before, a rerun); any other file there is a conflict of :meth:`check`, not silently replaced.
        """
        path = self.output(path, option)
        if path is not None:
            role = _Role(path, option)  # (the one just declared, unless declared before)
            k = len(self._outputs) - 1 if self._outputs[-1] == role else self._outputs.index(role)
            self._outputs[k] = _Role(path, option, begins, kind)
            self._by_destination = self._by_path = None
        return path

    def log(self, path: PathLike | None, option: str = "--report") -> Path | None:
        """Declare the run's log (``None`` passes through): an output rewritten whole at every :meth:`echo`."""
        path = self.output(path, option)
        if path is not None:
            self._log = self._outputs[-1]
            self._by_path = None
        return path

    def echo(self, text: str) -> None:
        """Print ``text`` (stdout) and, once :meth:`check` has passed, rewrite the log with every line so far."""
        print(text, flush=True)
        self._log_lines.append(text)
        self._write_log()

    def log_error(self, text: str) -> None:
        """Add ``thermocomp: error: text`` to the log only (the caller prints errors on stderr)."""
        self.note(f"thermocomp: error: {text}")

    def note(self, text: str) -> None:
        """Add ``text`` to the log only (the caller shows it elsewhere, e.g. on stderr)."""
        self._log_lines.append(text)
        self._write_log()

    def _write_log(self) -> None:
        if self._log is None:
            return
        if not self._checked and (self._conflicts_of(self._outputs.index(self._log))
                                  or any(same_file(o.path, self._log.path) for o in self._outputs if o is not self._log)):
            return  # before check(), only a log that is itself writable and no other output (an error is logged then)
        dest = destination(self._log.path)
        tmp = temporary_beside(dest)
        try:
            tmp.write_text("".join(f"{line}\n" for line in self._log_lines), encoding="utf-8")
            os.chmod(tmp, new_file_mode())
            os.replace(tmp, dest)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            if self.written:  # after the commit: the outputs stand, so a failed log is a warning, not exit 1
                print(f"thermocomp: warning: {self._log.label}: cannot write: {exc.strerror or exc} (the other "
                      "outputs were written)", file=sys.stderr, flush=True)
                return
            raise InputError(f"cannot write: {exc.strerror or exc}", path=self._log.label) from exc
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise

    # --- checking --------------------------------------------------------------------------------

    def conflicts(self) -> list[str]:
        """Every reason an output cannot be written, or an input cannot be read to its end, one line each naming
        the option (empty: none)."""
        found = [line for src in self._inputs for line in _endless(src)]
        inputs, earlier = _Identities(self._inputs), _Identities([])
        for k, out in enumerate(self._outputs):  # each file's identity taken once: linear in the files declared
            found += self._conflicts_of(k, inputs, earlier)
            earlier.add(out)
        return found

    def check_inputs_exist(self) -> None:
        """Refuse, naming each with its option, the declared inputs that are not there or are folders.

        For a run that must do something slow or visible before it reads them (connect to a simulator): a
        missing ``--results`` was reported as the connection that failed first.

        Raises
        ------
        InputError
            One line per input missing or a folder.
        """
        found = []
        for src in self._inputs:
            try:
                st = src.path.stat()
            except FileNotFoundError:
                found.append(f"{src.label}: file not found")
                continue
            except OSError as exc:
                found.append(f"{src.label}: cannot read: {exc.strerror or exc}")
                continue
            if stat.S_ISDIR(st.st_mode):
                found.append(f"{src.label}: expected a file, got a directory")
        if len(found) == 1:
            raise InputError(found[0])
        if found:
            raise InputError(f"{len(found)} inputs cannot be read:\n  " + "\n  ".join(found))

    def _conflicts_of(self, k: int, inputs: _Identities | None = None, earlier: _Identities | None = None) -> list[str]:
        """The conflicts of output ``k``; ``inputs`` and ``earlier`` (the outputs before it) as :class:`_Identities`
        when the caller has them."""
        out = self._outputs[k]
        inputs = _Identities(self._inputs) if inputs is None else inputs
        earlier = _Identities(self._outputs[:k]) if earlier is None else earlier
        label = out.label
        if not out.path.name or out.path.name in (".", ".."):
            return [f"{label}: expected a file name, got a folder"]
        try:
            if out.path.is_symlink():
                return [f"{label}: cannot write through a symbolic link (it points to {os.readlink(out.path)}); "
                        "outputs are never written through links: remove the link or choose another name"]
            st = _stat(out.path)
        except OSError as exc:
            return [f"{label}: cannot write: {exc.strerror}"]
        if st is not None and not stat.S_ISREG(st.st_mode):
            return [f"{label}: expected a regular file (a new name or a file to replace), got {file_kind(st.st_mode)}"]
        try:
            real = destination(out.path)
            folder = real.parent
            if not folder.is_dir():
                return [f"{label}: cannot write: the folder does not exist ({out.path.parent})"]
            if not os.access(folder, os.W_OK | os.X_OK):
                return [f"{label}: cannot write: the folder is not writable ({out.path.parent})"]
            if len(os.fsencode(real.name)) > _name_max(folder):
                return [f"{label}: cannot write: the file name is too long for the file system ({_name_max(folder)} "
                        "bytes)"]
        except OSError as exc:  # a folder name too long, a loop of links: the system's word, with the option
            return [f"{label}: cannot write: {exc.strerror or exc}"]
        found = []
        if out.begins is not None and st is not None and not _begins_with(out.path, out.begins):
            head = out.begins.decode(errors="replace")
            found.append(f"{label}: exists and is not {out.kind} (it does not begin {head[:30] + '...'!r}); it is "
                         f"the name {out.option.split(' (')[0]} derives, not one you gave, so it is not replaced: move "
                         "it, or choose another name")
        for src in inputs.same_as(out.path):
            found.append(f"{label}: would overwrite the input {src.path}"
                         f"{f' ({src.option})' if src.option else ''}; choose another output path")
        for other in earlier.same_as(out.path):
            found.append(f"{label}: the same file as {other.label}; give each output its own path")
        return found

    def check(self) -> None:
        """Refuse every conflict of the declared outputs at once (call before any work).

        Raises
        ------
        InputError
            Naming each output in conflict with its option, one per line.
        """
        found = self.conflicts()
        if len(found) == 1:
            raise InputError(found[0])
        if found:
            raise InputError(f"{len(found)} outputs cannot be written:\n  " + "\n  ".join(found))
        if not self._checked:
            self._checked = True
            inputs = frozenset(inode for src in self._inputs if (inode := file_identity(src.path)[1]) is not None)
            for folder in dict.fromkeys(destination(o.path).parent for o in self._outputs):
                if folder not in _SWEPT:  # once a process: a batch's thousand jobs in one folder list it once
                    _SWEPT.add(folder)
                    remove_stale_temporaries(folder, inputs)
            if self._log_lines:
                self._write_log()

    # --- writing ---------------------------------------------------------------------------------

    def _role(self, dest: PathLike) -> _Role:
        if self._by_path is None:  # (one look-up an output: a task of 800 modules wrote 801, each scanning all)
            self._by_path = {}
            for role in self._outputs:
                if role is not self._log:
                    self._by_path.setdefault(role.path, role)
        role = self._by_path.get(Path(dest))
        if role is None:
            raise ValueError(f"{dest} was not declared with Job.output")
        return role

    def temporary(self, dest: PathLike) -> Path:
        """The temporary file standing in for the declared output ``dest`` until :meth:`commit` (made once)."""
        role = self._role(dest)
        key = destination(role.path)
        if key not in self._staged:
            with held():  # (created and recorded for its removal as one step: an interrupt comes after both)
                # the suffix of the name given, not of a linked file's: writers check it (write_png: .png)
                try:
                    self._staged[key] = temporary_beside(key, suffix=Path(role.path).suffix)
                except InputError as exc:  # (its folder removed since check(): the output as given, not resolved)
                    raise InputError(exc.message, path=role.label) from None
            self._labels[key] = role.label
        return self._staged[key]

    @contextlib.contextmanager
    def open(self, dest: PathLike, mode: str = "w", newline: str | None = "") -> Iterator[IO[Any]]:
        """Open the temporary of ``dest`` for writing (text ``"w"``, UTF-8; or ``"wb"``)."""
        tmp = self.temporary(dest)
        with self._writing(dest):
            # The temporary is new and empty: opened without truncating it (O_TRUNC), which ext4 answers by
            # writing back every page written when the file is closed (its replace-by-truncate safeguard: 0.25 s
            # for a 550 MB results file, in the run's time). Opened a second time, it is truncated as "w" says.
            fd = os.open(tmp, os.O_WRONLY | getattr(os, "O_BINARY", 0) | (os.O_TRUNC if os.path.getsize(tmp) else 0))
            if "b" in mode:
                with open(fd, mode) as handle:
                    yield handle
            else:
                with open(fd, mode, encoding="utf-8", newline=newline) as handle:
                    yield handle

    def write_text(self, dest: PathLike, text: str) -> None:
        """Write ``text`` (UTF-8) as the content of ``dest``."""
        with self.open(dest) as handle:
            handle.write(text)

    def write_bytes(self, dest: PathLike, data: bytes) -> None:
        """Write ``data`` as the content of ``dest``."""
        with self.open(dest, "wb") as handle:
            handle.write(data)

    def write_with(self, dest: PathLike, write: Callable[[Path], object]) -> None:
        """Let ``write(path)`` write the content of ``dest`` to ``path`` (a temporary with ``dest``'s suffix)."""
        tmp = self.temporary(dest)
        with self._writing(dest):
            write(tmp)

    @contextlib.contextmanager
    def _writing(self, dest: PathLike) -> Iterator[None]:
        """An :class:`OSError` while writing ``dest`` (a full disk) becomes an ``InputError`` naming it."""
        try:
            yield
        except OSError as exc:
            raise InputError(f"cannot write: {exc.strerror or exc}", path=self._role(dest).label) from exc

    # --- committing ------------------------------------------------------------------------------

    def commit(self) -> list[Path]:
        """Give every written output its destination name, all or none.

        The outputs are checked again first (inputs declared during the work
        count too). Each destination that exists is kept (a hard link, else a
        copy) until every rename has succeeded; if one fails, the ones
        already renamed get their earlier content back, or are removed when
        they are new.

        Returns
        -------
        list of Path
            The outputs written, as declared.

        Raises
        ------
        InputError
            A conflict, or a rename the file system refused, naming the output.
        """
        raise_if_terminated()
        self.check()
        mode = new_file_mode()
        keep: dict[Path, Path | None] = {}  # destination -> its earlier content, or None when new
        done: list[Path] = []
        current: Path | None = None
        try:
            for dest, tmp in self._staged.items():
                current = dest
                os.chmod(tmp, mode)  # mkstemp makes 0600; an output is as readable as any new file
                keep[dest] = _keep(dest) if dest.exists() else None
            for dest, tmp in self._staged.items():
                current = dest
                os.replace(tmp, dest)
                done.append(dest)
        except BaseException as exc:
            for dest in reversed(done):  # cleanup only: the exception is re-raised below
                with contextlib.suppress(OSError):
                    earlier = keep.get(dest)
                    if earlier is None:
                        dest.unlink()
                    else:
                        os.replace(earlier, dest)
                        keep[dest] = None
            self._discard(keep)
            if isinstance(exc, OSError):
                label = self._labels.get(current, str(current))  # type: ignore[arg-type]
                raise InputError(f"cannot write: {exc.strerror or exc}; no output was written "
                                 "(the earlier files are as they were)", path=label) from exc
            raise
        self._staged.clear()
        self._discard(keep)
        published = set(done)
        self.written = [r.path for r in self._outputs if destination(r.path) in published]
        return self.written

    def _discard(self, keep: dict[Path, Path | None]) -> None:
        for path in [*self._staged.values(), *(k for k in keep.values() if k is not None)]:
            with contextlib.suppress(OSError):
                path.unlink()
        self._staged.clear()

    def hand_over(self) -> dict[Path, Path]:
        """The written temporaries, ``{destination: temporary}``, for a larger job to commit (:meth:`adopt`).

        This job forgets them: leaving its block no longer removes them. A
        batch of programs run in worker processes commits every program's
        output together this way (docs/jobs.md).
        """
        raise_if_terminated()
        self.check()
        staged, self._staged = dict(self._staged), {}
        return staged

    def adopt(self, staged: dict[Path, Path]) -> None:
        """Take the temporaries another job handed over (:meth:`hand_over`): committed or removed with this job's.

        Their destinations must be outputs declared in this job.
        """
        self._staged.update(staged)  # first: removed with this job's if a destination is not its own
        for dest in staged:
            self._labels[dest] = self._role_of_resolved(dest).label

    def _role_of_resolved(self, dest: Path) -> _Role:
        if self._by_destination is None:
            self._by_destination = {}
            for role in self._outputs:
                self._by_destination.setdefault(destination(role.path), role)  # (the key of :meth:`temporary`)
        role = self._by_destination.get(dest)
        if role is None:
            raise ValueError(f"{dest} was not declared with Job.output")
        return role

    def discard(self) -> None:
        """Remove every temporary (nothing is written); :meth:`__exit__` does it when the block ends."""
        self._discard({})

    def __enter__(self) -> Job:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        self.discard()  # after a commit there is nothing left; otherwise nothing is written
        if isinstance(exc, OSError) and exc.errno in _FULL:
            labels = ", ".join(r.label for r in self._outputs)
            raise InputError(f"cannot write: {exc.strerror}; nothing was written", path=labels or None) from exc


def _keep(dest: Path) -> Path:
    """A second name for ``dest``'s current content (a hard link; a copy where links are refused)."""
    backup = temporary_beside(dest, "keep-")
    backup.unlink()
    try:
        os.link(dest, backup)
    except OSError:
        shutil.copy2(dest, backup)
    return backup


__all__ = ["TEMPORARY_PREFIX", "Job", "file_identity", "interrupt_on_termination", "new_file_mode",
           "remove_stale_temporaries", "same_file", "temporary_beside"]
