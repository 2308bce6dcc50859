"""Run ``thermocomp compensate`` on a corpus of real robot programs and tabulate what happened (issue 35, item 5).

A corpus is a folder holding ``SOURCES.csv`` and the programs it lists under ``rapid/`` and
``urscript/`` (with the other modules of each RAPID task beside them). Each row of
``SOURCES.csv`` says how the program was classed by reading it before running anything:

- ``takes``: every motion's target, tool and work object has one value known before the
  program runs; a careful tool compensates it.
- ``runtime``: some motion's data differ from pass to pass or come from inputs, sockets,
  files or counters; a careful tool refuses it, naming that data and its line.
- ``other-robot``: not a problem of the built-in robots' kinematics (targets far out of reach
  of every built-in robot, external axes, several robots in one station).

and which robot (``robot``), other modules (``modules``, ``;``-separated file names in the
same folder) and entry routine (``entry``) to use. Each program is compensated in a fresh
process with ``--deformation deformations/exaggerated.csv`` into a temporary folder, with a
timeout, and its outcome is one of:

- ``compensated``: exit 0; for an ``other-robot`` program also exit 2 (read and followed to
  the end, its points honestly reported as not compensated: the reader did its job);
- ``points failed``: exit 2 for a ``takes`` or ``runtime`` program (read, but some points
  could not be compensated);
- ``refused clearly``: exit 1 with a message that names the program file and a line
  (``FILE, line N`` or ``FILE:N``) and no traceback, for a ``runtime`` or ``other-robot``
  program, whose reason is the one its row's note gives: the message names a datum of the
  program (a name written in the program) or a line that the note names too;
- ``refused, other reason``: the same, but the message names neither a datum nor a line of
  the note (a true refusal for a reason the reader of the program did not write down, or a
  wrong one: listed for a person to judge, never counted as clear);
- ``refused wrongly``: a ``takes`` program refused (exit 1), any refusal that names no line,
  any traceback, or any other exit status;
- ``hung``: the timeout passed.

The script prints one table (class x outcome) and the ``takes`` programs that were not
compensated, the ``runtime`` programs that were not refused clearly and the refusals for
another reason, each with the first lines of the message. ``--json FILE`` also writes one
record per program. A row's ``gathering`` (``fitted``: the programs the readers were fitted
to; ``held-out``: gathered later and run before any fix) selects rows with ``--gathering``.

Run: ``.venv/bin/python bench/corpus.py [--extra /work/corpus_extra] [--timeout 20] [--jobs 2]``.
With no corpus given it reads ``tests/data/programs_corpus`` when that folder holds programs.

The ``robot`` column names the robot a program was written for, and the nearest built-in one:
one name, or names separated by ``|``, the preferred first (``irb120|irb140``, ``ur10e|ur5``).
With ``--robots DIR`` a name is looked up as ``DIR/<name>/robot.toml``, a robot description
kept outside the repository (ROS-Industrial xacro files, say); the first name found there is
used, and without ``--robots`` (or where none is found) the last name, a built-in robot. A
``robot.toml`` holds the options of ``thermocomp compensate`` that select the robot, paths
relative to its folder::

    robot = "abb_irb120_support/urdf/irb120_3_58.xacro"   # --robot (a .urdf, .xacro or .csv)
    package_path = ["."]                                   # --package-path, each
    xacro_args = []                                        # --xacro-arg NAME:=VALUE, each
    base_link = "base_link"                                # --base-link (optional)
    tip_link = "tool0"                                     # --tip-link (optional)
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFORMATION = REPO / "deformations" / "exaggerated.csv"
#: The corpus kept beside the tests: its SOURCES.csv always, the programs where their licence allows.
DEFAULT_CORPUS = REPO / "tests" / "data" / "programs_corpus"
CLASSES = ("takes", "runtime", "other-robot")
OUTCOMES = ("compensated", "points failed", "refused clearly", "refused, other reason", "refused wrongly", "hung")
#: A message names the program's line: "prog.mod, line 14: ..." or "prog.mod:14: ...".
_NAMES_LINE = re.compile(r"\.(?:mod|modx|prg|sysx?|script|urscript)(?:, line \d+|:\d+)", re.IGNORECASE)
_TRACEBACK = "Traceback (most recent call last)"
#: A program's file named in a message (left out when the message's names are compared with a note).
_FILE = re.compile(r"\S+\.(?:mod|modx|prg|sysx?|script|urscript)\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z_\u00c0-\u00ff][A-Za-z0-9_\u00c0-\u00ff]*")
#: A line a note or message names: "line 12", "lines 87-89" (each of them), "prog.mod:51:7" (a message's).
_LINE = re.compile(r"\blines? (\d+)(?:\s*[-\u2013]\s*(\d+))?|\.(?:mod|modx|prg|sysx?|script|urscript):(\d+)",
                   re.IGNORECASE)
#: Words of thermocomp's messages and of both languages that say nothing about a program's data.
_PLAIN = frozenset("""
a an and another any as at be before by call calls cannot changed column compensate compensated construct constructs
could datum declare declared does end error exactly expected external file for found from frame function gives
give got holds if in instruction interrupt is it its known knows line module motion motions move moves no none
not of on only or point points program robot routine run running runs syntax task that the this time times to
unexpected value way which while with def proc func trap movel movej movec moveabsj movep true false
""".split())


@dataclass(frozen=True)
class Entry:
    """One program of a corpus, as its SOURCES.csv row describes it."""

    program: Path
    klass: str
    robot: str
    modules: tuple[Path, ...]
    entry: str
    repository: str
    note: str
    gathering: str = ""
    #: The options selecting a robot described in a ``--robots`` folder (:func:`choose_robot`); empty: ``--robot robot``.
    robot_options: tuple[str, ...] = ()


@dataclass(frozen=True)
class Result:
    """What one run of ``thermocomp compensate`` did with one program."""

    file: str
    klass: str
    robot: str
    outcome: str
    exit_status: int | None
    seconds: float
    traceback: bool
    names_line: bool
    message: str
    gathering: str = ""
    #: What the refusal names that the note names too (:func:`note_matches`).
    matched: str = ""


def read_corpus(folder: Path) -> list[Entry]:
    """The programs a corpus folder's SOURCES.csv lists whose files are present.

    Parameters
    ----------
    folder : Path
        A folder holding ``SOURCES.csv`` and ``rapid/``, ``urscript/`` with the programs.

    Returns
    -------
    list of Entry
        In the order of SOURCES.csv; rows whose program file is absent are left out.
    """
    sources = folder / "SOURCES.csv"
    if not sources.is_file():
        raise SystemExit(f"corpus.py: expected {sources}, got no such file")
    entries = []
    with sources.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["class"] not in CLASSES:
                raise SystemExit(f"corpus.py: {sources}: expected a class in {CLASSES}, got {row['class']!r}")
            lang_dir = folder / row["language"]
            program = lang_dir / row["file"]
            if not program.is_file():
                continue
            modules = tuple(lang_dir / m for m in row["modules"].split(";") if m)
            entries.append(Entry(program, row["class"], row["robot"], modules, row["entry"],
                                 row["repository"], row["note"], row.get("gathering") or ""))
    return entries


def choose_robot(entry: Entry, robots: Path | None) -> Entry:
    """The entry with its robot chosen from its ``robot`` column (names separated by ``|``, the preferred first):
    the first name described by ``robots/<name>/robot.toml``, else the last name (a built-in robot)."""
    names = [n.strip() for n in entry.robot.split("|") if n.strip()]
    for name in names:
        spec = robots / name / "robot.toml" if robots is not None else None
        if spec is not None and spec.is_file():
            return replace(entry, robot=name, robot_options=robot_options(spec))
    return replace(entry, robot=names[-1] if names else entry.robot)


def robot_options(spec: Path) -> tuple[str, ...]:
    """The ``thermocomp compensate`` options a ``robot.toml`` gives (see the module's docstring)."""
    try:
        data = tomllib.loads(spec.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SystemExit(f"corpus.py: {spec}: {exc}") from None
    if not isinstance(data.get("robot"), str):
        raise SystemExit(f"corpus.py: {spec}: expected robot = \"FILE\", got {data.get('robot')!r}")
    options = ["--robot", str(spec.parent / data["robot"])]
    options += [arg for path in data.get("package_path", []) for arg in ("--package-path", str(spec.parent / path))]
    options += [arg for value in data.get("xacro_args", []) for arg in ("--xacro-arg", str(value))]
    options += [arg for key in ("base_link", "tip_link") if data.get(key)
                for arg in (f"--{key.replace('_', '-')}", str(data[key]))]
    return tuple(options)


def command(entry: Entry, out_dir: Path) -> list[str]:
    """The ``thermocomp compensate`` command line for one program."""
    exe = Path(sys.executable).with_name("thermocomp")
    robot = list(entry.robot_options) or ["--robot", entry.robot]
    out = entry.program.name
    if any(len(f"{Path(out).stem}.{module.name}".encode()) > 255 for module in entry.modules):
        out = "program" + entry.program.suffix  # (a module written beside it: the corpus's long names pass NAME_MAX)
    cmd = [str(exe), "compensate", *robot, "--deformation", str(DEFORMATION),
           "--program", str(entry.program), "--out", str(out_dir / out), "--no-progress"]
    for module in entry.modules:
        cmd += ["--module", str(module)]
    if entry.entry and entry.entry.lower() != "main":
        cmd += ["--entry", entry.entry]
    return cmd


def note_matches(stderr: str, note: str, program_text: str) -> list[str]:
    """What a refusal names that a row's note names too: words of the program and line numbers.

    A word counts when the message (the program files it names left out)
    holds it, the program holds it (a datum, routine or instruction written
    there; the plain words of messages and keywords aside) and the note
    holds it, whole or by a part of six letters or more between underscores
    (``freedrive`` of ``freedrive_mode``); a line counts when the message
    and the note both name it ("line N").
    """
    message = _FILE.sub(" ", stderr)
    note_words = {w.lower() for w in _WORD.findall(note)}
    program_words = {w.lower() for w in _WORD.findall(program_text)}
    found = sorted(word for word in {w.lower() for w in _WORD.findall(message)} - _PLAIN
                   if word in program_words
                   and (word in note_words or any(len(part) >= 6 and part in note_words for part in word.split("_"))))
    lines = sorted(_lines(stderr) & _lines(note))
    return found + [f"line {n}" for n in lines]


def _lines(text: str) -> set[int]:
    """The lines ``text`` names (:data:`_LINE`); a range of at most 100 lines, each of its lines."""
    found: set[int] = set()
    for first, last, in_file in _LINE.findall(text):
        start = int(first or in_file)
        end = int(last) if last and 0 <= int(last) - start <= 100 else start
        found.update(range(start, end + 1))
    return found


def names_the_note(stderr: str, note: str, program_text: str) -> bool:
    """Whether a refusal gives the reason a row's note gives (:func:`note_matches`); a note that says nothing
    cannot be compared: True."""
    return not note.strip() or bool(note_matches(stderr, note, program_text))


def classify(klass: str, exit_status: int | None, stderr: str, note: str = "", program_text: str = "") -> str:
    """The outcome of one run (see the module's docstring for the rules)."""
    if exit_status is None:
        return "hung"
    if _TRACEBACK in stderr:
        return "refused wrongly"
    if exit_status == 0:
        return "compensated"
    if exit_status == 2:
        return "compensated" if klass == "other-robot" else "points failed"
    if exit_status == 1 and klass != "takes" and _NAMES_LINE.search(stderr):
        return "refused clearly" if names_the_note(stderr, note, program_text) else "refused, other reason"
    return "refused wrongly"


def first_lines(stderr: str, count: int = 2) -> str:
    """The first ``count`` lines of the error a run printed (the last line of a traceback, if any)."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    if _TRACEBACK in stderr and lines:
        return lines[-1][:300]
    start = next((i for i, ln in enumerate(lines) if "error" in ln.lower()), 0)
    return " | ".join(ln[:300] for ln in lines[start:start + count])


def run_one(entry: Entry, timeout_s: float, keep: Path | None = None, kept_as: str = "") -> Result:
    """Compensate one program in a fresh process and class what happened.

    With ``keep``, the run's outputs and its messages (``stdout.txt``, ``stderr.txt``, the output
    folder's path written ``<out>``, the repository's ``<repo>``) stay in ``keep/<kept_as>/`` (default: the program's
    file name), so that two versions of the reader can be compared file by file (``diff -r``).
    """
    with tempfile.TemporaryDirectory(prefix="corpus_") as tmp:
        out_dir = Path(tmp)
        if keep is not None:
            out_dir = keep / (kept_as or entry.program.name)
            out_dir.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        stdout = ""
        try:
            proc = subprocess.run(command(entry, out_dir), capture_output=True, text=True,
                                  timeout=timeout_s, cwd=REPO, errors="replace")
            status, stderr, stdout = proc.returncode, proc.stderr, proc.stdout
        except subprocess.TimeoutExpired as exc:
            status = None
            stderr = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else (exc.stderr or "")
        seconds = time.perf_counter() - start
        if keep is not None:
            for name, text in (("stdout.txt", stdout), ("stderr.txt", stderr)):
                (out_dir / name).write_text(text.replace(str(out_dir), "<out>").replace(str(REPO), "<repo>"))
    texts = " ".join(p.read_text(encoding="latin-1") for p in (entry.program, *entry.modules) if p.is_file())
    return Result(entry.program.name, entry.klass, entry.robot,
                  classify(entry.klass, status, stderr, entry.note, texts), status, round(seconds, 2),
                  _TRACEBACK in stderr, bool(_NAMES_LINE.search(stderr)), first_lines(stderr) if status != 0 else "",
                  entry.gathering, ", ".join(note_matches(stderr, entry.note, texts)) if status == 1 else "")


def run_all(entries: list[Entry], timeout_s: float, jobs: int = 1, keep: Path | None = None) -> list[Result]:
    """Compensate every program, ``jobs`` at once (each in its own process), in the entries' order. A file that
    several rows run (each from its own entry routine) is kept as ``<file name>@<entry>``, each row apart."""
    names = Counter(e.program.name for e in entries)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda e: run_one(e, timeout_s, keep, f"{e.program.name}@{e.entry}"
                                               if names[e.program.name] > 1 else ""), entries))


def table(results: list[Result]) -> str:
    """The class x outcome table, as text."""
    width = max(len(o) for o in OUTCOMES)
    head = f"{'class':<12}" + "".join(f"{o:>{width + 2}}" for o in OUTCOMES) + f"{'total':>8}"
    rows = [head]
    for klass in (*CLASSES, "all"):
        mine = [r for r in results if klass in ("all", r.klass)]
        counts = [sum(r.outcome == o for r in mine) for o in OUTCOMES]
        rows.append(f"{klass:<12}" + "".join(f"{c:>{width + 2}}" for c in counts) + f"{len(mine):>8}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    """Run the corpus and print its table; the exit status is 0 (the table is the result)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, action="append", default=[],
                        help="a corpus folder (SOURCES.csv, rapid/, urscript/); repeatable")
    parser.add_argument("--extra", type=Path, action="append", default=[],
                        help="another corpus folder, e.g. /work/corpus_extra; repeatable")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds one program may take (default 20)")
    parser.add_argument("--jobs", type=int, default=1, help="programs run at once (default 1)")
    parser.add_argument("--only", default="", help="run only the programs whose file name contains this text")
    parser.add_argument("--gathering", default="",
                        help="run only the rows of this gathering (the SOURCES.csv column, e.g. held-out)")
    parser.add_argument("--json", type=Path, help="also write one record per program here")
    parser.add_argument("--robots", type=Path,
                        help="a folder of robot descriptions, DIR/<name>/robot.toml, for the robot column's names")
    parser.add_argument("--keep", type=Path,
                        help="keep each program's outputs and messages in KEEP/<program file name>/ (to diff two versions;"
                             " a file several rows run: KEEP/<file name>@<entry>/)")
    args = parser.parse_args(argv)
    if args.timeout <= 0 or args.jobs < 1:
        parser.error(f"expected --timeout > 0 and --jobs >= 1, got {args.timeout} and {args.jobs}")
    folders = args.corpus + args.extra
    if not folders:
        folders = [DEFAULT_CORPUS]
    entries = [e for folder in folders for e in read_corpus(folder)
               if args.only in e.program.name and (not args.gathering or e.gathering == args.gathering)]
    if args.robots is not None and not args.robots.is_dir():
        parser.error(f"expected --robots to name a folder, got {args.robots}")
    entries = [choose_robot(e, args.robots) for e in entries]
    if not entries:
        print(f"corpus.py: no programs found in {', '.join(map(str, folders))}", file=sys.stderr)
        return 1
    if args.keep is not None and args.keep.exists() and any(args.keep.iterdir()):
        parser.error(f"expected --keep to name a new or empty folder, got {args.keep}, which holds files")
    results = run_all(entries, args.timeout, args.jobs, args.keep)
    print(f"{len(results)} programs, timeout {args.timeout:g} s, deformation {DEFORMATION.name}\n")
    print(table(results))
    wrong_takes = [r for r in results if r.klass == "takes" and r.outcome != "compensated"]
    if wrong_takes:
        print(f"\n'takes' programs not compensated ({len(wrong_takes)}):")
        for r in wrong_takes:
            print(f"  {r.outcome:<16} {r.file}\n      {r.message}")
    taken_runtime = [r for r in results if r.klass == "runtime" and r.outcome not in ("refused clearly",
                                                                                     "refused, other reason")]
    if taken_runtime:
        print(f"\n'runtime' programs not refused ({len(taken_runtime)}):")
        for r in taken_runtime:
            print(f"  {r.outcome:<16} {r.file}\n      {r.message}")
    other = [r for r in results if r.outcome == "refused, other reason"]
    if other:
        print(f"\nrefused naming a line, but not the data or line the note names ({len(other)}; to judge):")
        for r in other:
            print(f"  {r.klass:<12} {r.file}\n      {r.message}")
    others = [r for r in results if r.klass == "other-robot"
              and r.outcome not in ("compensated", "refused clearly", "refused, other reason")]
    if others:
        print(f"\n'other-robot' programs neither followed nor refused clearly ({len(others)}):")
        for r in others:
            print(f"  {r.outcome:<16} {r.file}\n      {r.message}")
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
