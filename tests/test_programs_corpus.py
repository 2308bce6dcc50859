"""The corpus of real robot programs (issue 35, item 5): nothing hangs or crashes, run-time programs are refused.

The corpus (tests/data/programs_corpus/README.md) is found in ``$THERMOCOMP_CORPUS``
(folders separated by ``os.pathsep``), in tests/data/programs_corpus when the programs are
stored there, or in ../shared/reference/programs_corpus; the slow test skips when none holds
programs. Each program runs through ``bench/corpus.py`` (a fresh ``thermocomp compensate``
process with a timeout). Asserted: no program hangs, none ends in a traceback, and every
program classed ``runtime`` is refused with a message naming its file and a line. The
``takes`` programs that are not compensated are reported (a warning listing them), not
asserted, while the readers are rewritten.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import os
import subprocess
import sys
import tarfile
import warnings
import zipfile
from pathlib import Path

import pytest
from helpers import REFERENCE, REPO

_SPEC = importlib.util.spec_from_file_location("bench_corpus", REPO / "bench" / "corpus.py")
assert _SPEC is not None and _SPEC.loader is not None
corpus = importlib.util.module_from_spec(_SPEC)
sys.modules["bench_corpus"] = corpus  # dataclasses look their module up there
_SPEC.loader.exec_module(corpus)

IN_REPO = REPO / "tests" / "data" / "programs_corpus"


def _folders() -> list[Path]:
    """Corpus folders that hold programs: $THERMOCOMP_CORPUS, the repository's, ../shared's."""
    env = [Path(p) for p in os.environ.get("THERMOCOMP_CORPUS", "").split(os.pathsep) if p]
    candidates = env + [IN_REPO, REFERENCE / "programs_corpus"]
    return [f for f in candidates if (f / "SOURCES.csv").is_file() and corpus.read_corpus(f)]


def test_sources_rows_are_complete() -> None:
    """Every row of the kept SOURCES.csv names its repository, commit, licence, class and robot."""
    with (IN_REPO / "SOURCES.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) >= 80, f"expected at least 80 programs, got {len(rows)}"
    assert len({r["repository"] for r in rows}) >= 40
    for row in rows:
        assert row["class"] in corpus.CLASSES, row["file"]
        assert row["language"] in ("rapid", "urscript"), row["file"]
        # the robot written for, then the nearest built-in one ("irb120|irb140"): the last name is built in
        assert row["robot"].split("|")[-1] in (("irb140", "gofa") if row["language"] == "rapid" else ("ur5",)), row["file"]
        assert len(row["commit"]) == 40 and row["licence"] and row["note"], row["file"]
        assert row["file"].startswith(row["repository"].replace("/", "__") + "__"), row["file"]
        assert row["gathering"] in ("fitted", *(g[0] for g in _GATHERINGS)), row["file"]


#: Each held-out gathering: at least how many programs, repositories and programs of one language it holds; the
#: gatherings whose repositories it shares none with (None: every other one) and those it may share with.
_GATHERINGS = [
    ("held-out", 40, 0, None, ("fitted",), ()),
    ("held-out-3", 40, 0, None, ("fitted", "held-out"), ()),
    ("held-out-4", 0, 15, None, None, ("held-out-5",)),
    ("held-out-5", 40, 20, None, None, ()),
    ("held-out-6", 40, 20, ("urscript", 20), None, ()),
    ("held-out-7", 25, 12, None, None, ()),
    ("held-out-8", 25, 15, ("rapid", 25), None, ()),
    ("held-out-9", 25, 15, None, None, ()),
    ("held-out-10", 25, 15, ("rapid", 25), None, ()),
    ("held-out-11", 25, 15, ("urscript", 20), None, ()),
    ("held-out-12", 25, 15, ("rapid", 25), None, ()),
    ("held-out-13", 18, 10, ("urscript", 18), None, ()),
    ("held-out-14", 18, 12, None, None, ()),
    ("held-out-15", 25, 15, None, None, ()),
    ("held-out-16", 12, 6, None, None, ()),
    ("held-out-17", 25, 11, ("rapid", 25), None, ()),
    ("held-out-18", 25, 6, ("urscript", 25), None, ()),
    ("held-out-19", 25, 15, ("rapid", 20), None, ()),
    ("held-out-20", 18, 12, ("urscript", 8), None, ()),
    ("held-out-21", 23, 16, ("rapid", 18), None, ()),
    ("held-out-22", 24, 12, ("rapid", 17), None, ()),
    ("held-out-23", 21, 10, ("rapid", 21), None, ()),
    ("held-out-24", 26, 14, ("urscript", 26), None, ()),
    ("held-out-25", 12, 10, ("urscript", 11), None, ()),
    ("held-out-26", 20, 11, ("rapid", 20), None, ()),
    ("held-out-27", 21, 10, ("urscript", 21), None, ()),
    ("held-out-28", 22, 10, None, None, ()),
    ("held-out-29", 20, 11, ("rapid", 20), None, ()),
    ("held-out-30", 33, 7, ("urscript", 33), None, ()),
    ("held-out-31", 11, 5, None, None, ()),
    ("held-out-32", 20, 8, ("rapid", 20), None, ()),
    ("held-out-33", 17, 8, ("urscript", 17), None, ()),
    ("held-out-35", 16, 11, ("urscript", 16), None, ()),
    ("held-out-34", 25, 13, ("rapid", 25), None, ()),
    ("held-out-36", 12, 5, None, None, ()),
    ("held-out-37", 4, 3, None, None, ()),
]


@pytest.mark.parametrize(("gathering", "programs", "repositories", "language", "apart_from", "may_share"),
                         _GATHERINGS)
def test_a_held_out_gathering_is_large_enough_and_shares_no_repository(gathering, programs, repositories, language,
                                                                     apart_from, may_share) -> None:
    """A held-out gathering is a trial of programs the readers were not fitted to: its own repositories, enough of
    them."""
    with (IN_REPO / "SOURCES.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    mine = [r for r in rows if r["gathering"] == gathering]
    others = {r["repository"] for r in rows if r["gathering"] not in (gathering, *may_share)
              and (apart_from is None or r["gathering"] in apart_from)}
    assert len(mine) >= programs and len({r["repository"] for r in mine}) >= repositories
    if language is not None:
        assert sum(r["language"] == language[0] for r in mine) >= language[1]
    assert not others & {r["repository"] for r in mine}


@pytest.mark.parametrize(
    ("klass", "status", "stderr", "outcome"),
    [
        ("takes", 0, "", "compensated"),
        ("takes", 1, "thermocomp: error: a.mod, line 3: RAPID syntax", "refused wrongly"),
        ("takes", 2, "thermocomp: error: 2 point(s) could not be compensated", "points failed"),
        ("runtime", 1, "thermocomp: error: a.mod, line 3, column 9: counter n", "refused clearly"),
        ("runtime", 1, "thermocomp: error: p.script:12: socket_read", "refused clearly"),
        ("runtime", 1, "thermocomp: error: the program moves at run time", "refused wrongly"),
        ("runtime", 0, "", "compensated"),
        ("other-robot", 2, "thermocomp: error: 5 point(s) out of reach", "compensated"),
        ("other-robot", 1, "Traceback (most recent call last):\n  a.mod, line 3\nKeyError: 'x'", "refused wrongly"),
        ("runtime", None, "", "hung"),
    ],
)
def test_outcome_rules(klass: str, status: int | None, stderr: str, outcome: str) -> None:
    """The outcome rules of bench/corpus.py, one case each."""
    assert corpus.classify(klass, status, stderr) == outcome


_PROGRAM = "PROC main()\n  nCount := nCount + 1;\n  MoveL Offs(p10, nCount, 0, 0), v100, fine, tool0;\nENDPROC\n"


@pytest.mark.parametrize(
    ("stderr", "note", "outcome"),
    [
        # the note's datum named: clear
        ("error: a.mod, line 3, column 9: nCount is changed at run time (line 2)", "counter nCount (line 2)",
         "refused clearly"),
        # the note's line named, its datum not: clear
        ("error: a.mod, line 3, column 9: p10 is changed at run time (line 2)", "a counter steps (line 2)",
         "refused clearly"),
        # a line inside a range the note names ("lines 2-3"), or named as FILE:LINE:COLUMN: clear
        ("error: a.mod, line 3, column 9: p10 is changed at run time (line 3)", "a counter steps (lines 2-3)",
         "refused clearly"),
        ("error: a.mod, line 5: 2 construct(s): | a.mod:2:3: p10 is changed", "a counter steps at line 2",
         "refused clearly"),
        # a line and a datum of the program, but not the note's: another reason, to be judged
        ("error: a.mod, line 3, column 9: p10 is not declared in this module", "a counter nCount steps (line 2)",
         "refused, other reason"),
        # plain words of the message (``line``, ``value``) and names not written in the program do not count
        ("error: a.mod, line 3: RAPID syntax: unexpected value xyz", "the value of xyz comes from a socket",
         "refused, other reason"),
    ],
)
def test_a_refusal_is_clear_only_where_it_gives_the_note_s_reason(stderr: str, note: str, outcome: str) -> None:
    """A run-time program's refusal names the data or line its note names; any other line-naming refusal is listed
    to be judged, not counted as clear."""
    assert corpus.classify("runtime", 1, stderr, note, _PROGRAM) == outcome
    assert corpus.classify("takes", 1, stderr, note, _PROGRAM) == "refused wrongly"


@pytest.mark.slow
def test_corpus_programs() -> None:
    """No hang, no traceback, every run-time program refused naming a line; the takes that fail reported.

    Each program runs on the robot its row names (``irb120|irb140``: the first described in
    ``$THERMOCOMP_CORPUS_ROBOTS``, else the built-in last)."""
    folders = _folders()
    if not folders:
        pytest.skip(f"no corpus programs found (set THERMOCOMP_CORPUS, or see {IN_REPO / 'README.md'})")
    robots = Path(os.environ["THERMOCOMP_CORPUS_ROBOTS"]) if os.environ.get("THERMOCOMP_CORPUS_ROBOTS") else None
    entries = [corpus.choose_robot(e, robots) for folder in folders for e in corpus.read_corpus(folder)]
    results = corpus.run_all(entries, timeout_s=60.0, jobs=2)
    hung = [r.file for r in results if r.outcome == "hung"]
    crashed = [f"{r.file}: {r.message}" for r in results if r.traceback]
    runtime_wrong = [f"{r.file}: {r.outcome}: {r.message}" for r in results
                     if r.klass == "runtime" and r.outcome not in ("refused clearly", "refused, other reason")]
    other_reason = [f"{r.file}: {r.message}" for r in results if r.outcome == "refused, other reason"]
    if other_reason:
        warnings.warn(f"{len(other_reason)} refusal(s) naming a line but not their note's data, to judge:\n"
                      + "\n".join(other_reason), stacklevel=1)
    takes_failed = [f"{r.file}: {r.outcome}: {r.message}" for r in results
                    if r.klass == "takes" and r.outcome != "compensated"]
    if takes_failed:
        warnings.warn(f"{len(takes_failed)} 'takes' program(s) not compensated:\n" + "\n".join(takes_failed),
                      stacklevel=1)
    problems = ([f"hung past 60 s: {f}" for f in hung] + [f"traceback: {c}" for c in crashed]
                + [f"run-time program not refused naming a line: {r}" for r in runtime_wrong])
    assert not problems, f"{len(problems)} problem(s) in {len(results)} programs:\n" + "\n".join(problems)


def test_robot_column_runs_a_described_robot_or_falls_back(tmp_path) -> None:
    """``irb120|irb140`` runs on ``--robots DIR``'s irb120 (its robot.toml's options, paths from its folder), and on
    the built-in irb140 where DIR does not describe it."""
    entry = corpus.Entry(tmp_path / "p.mod", "takes", "irb120|irb140", (), "main", "o/r", "note")
    (tmp_path / "irb120").mkdir()
    (tmp_path / "irb120" / "robot.toml").write_text(
        'robot = "support/urdf/irb120.xacro"\npackage_path = ["."]\nxacro_args = ["prefix:=a_"]\ntip_link = "tool0"\n')
    chosen = corpus.choose_robot(entry, tmp_path)
    assert chosen.robot == "irb120"
    options = corpus.command(chosen, tmp_path)
    at = options.index("--robot")
    assert options[at:at + 8] == ["--robot", str(tmp_path / "irb120" / "support/urdf/irb120.xacro"),
                                  "--package-path", str(tmp_path / "irb120" / "."), "--xacro-arg", "prefix:=a_",
                                  "--tip-link", "tool0"]
    for robots in (None, tmp_path / "elsewhere"):
        fallback = corpus.choose_robot(entry, robots)
        assert fallback.robot == "irb140" and fallback.robot_options == ()
        assert corpus.command(fallback, tmp_path)[at:at + 3] == ["--robot", "irb140", "--deformation"]



def test_rows_of_one_file_are_kept_apart(tmp_path) -> None:
    """Two rows that run one file from two entry routines keep their outputs in two folders, ``FILE@ENTRY``: each
    its own routine's target written (one folder for both would mix the runs' files)."""
    program = tmp_path / "cell.mod"
    program.write_text("MODULE cell\n"
                       "  CONST robtarget pA := [[500,0,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
                       "  CONST robtarget pB := [[450,100,450],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
                       "  PROC toA()\n    MoveL pA, v100, fine, tool0;\n  ENDPROC\n"
                       "  PROC toB()\n    MoveL pB, v100, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    entries = [corpus.Entry(program, "takes", "irb140", (), name, "o/r", "note") for name in ("toA", "toB")]
    keep = tmp_path / "keep"
    results = corpus.run_all(entries, timeout_s=60.0, jobs=2, keep=keep)
    assert [r.outcome for r in results] == ["compensated", "compensated"]
    assert sorted(p.name for p in keep.iterdir()) == ["cell.mod@toA", "cell.mod@toB"]
    for name, changed, kept in (("toA", "pA", "pB"), ("toB", "pB", "pA")):
        written = (keep / f"cell.mod@{name}" / "cell.mod").read_text()
        line = {ln.split(":=")[0].split()[-1]: ln for ln in written.splitlines() if "robtarget" in ln}
        assert line[kept] in program.read_text() and line[changed] not in program.read_text()


def _gather(tmp_path: Path, fields: list[str], rows: list[dict]) -> list[str]:
    """bench/corpus_gather.py's ``gather`` of ``rows`` from ``tmp_path/clones`` into ``tmp_path/out``: what it left out."""
    spec = importlib.util.spec_from_file_location("bench_corpus_gather", REPO / "bench" / "corpus_gather.py")
    assert spec is not None and spec.loader is not None
    gather = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gather)
    sources = tmp_path / "SOURCES.csv"
    with sources.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    return gather.gather(sources, tmp_path / "clones", tmp_path / "out")


def test_gather_rebuilds_a_folder_from_clones_at_each_row_s_commit(tmp_path) -> None:
    """bench/corpus_gather.py writes each row's program and modules as they were at the row's commit (not as the
    clone's last commit has them), finds a module whose row named it with spaces as ``_`` and one in a folder of
    non-ASCII name (held-out-17's ``机器人程序备份/``, which git quotes unless asked not to), and leaves out (naming
    it) a row whose repository has no clone and one cut out of a Python file; bench/corpus.py then reads the folder."""
    repo = tmp_path / "clones" / "owner+cell"
    (repo / "TASK 1").mkdir(parents=True)

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                              check=True, capture_output=True, text=True).stdout.strip()

    git("init", "-q")
    (repo / "TASK 1" / "Main.mod").write_bytes(b"MODULE Main\r\nENDMODULE\r\n")
    (repo / "TASK 1" / "Calib Data.mod").write_bytes(b"MODULE CalibData\nENDMODULE\n")
    (repo / "备份").mkdir()
    (repo / "备份" / "user.sys").write_bytes(b"MODULE user(SYSMODULE)\nENDMODULE\n")
    git("add", "-A")
    git("commit", "-q", "-m", "first")
    commit = git("rev-parse", "HEAD")
    (repo / "TASK 1" / "Main.mod").write_bytes(b"MODULE Later\nENDMODULE\n")
    git("commit", "-q", "-am", "later")
    fields = ["file", "language", "repository", "path", "commit", "licence", "class", "robot", "modules", "entry",
              "note", "gathering"]
    rows = [dict.fromkeys(fields, "") | {"file": "owner__cell__TASK 1__Main.mod", "language": "rapid",
                                          "repository": "owner/cell", "path": "TASK 1/Main.mod", "commit": commit,
                                          "class": "takes", "robot": "irb140",
                                          "modules": "owner__cell__TASK_1__Calib_Data.mod;owner__cell__备份__user.sys"},
            dict.fromkeys(fields, "") | {"file": "other__x__a.mod", "language": "rapid", "repository": "other/x",
                                          "path": "a.mod", "commit": commit, "class": "takes", "robot": "irb140"},
            dict.fromkeys(fields, "") | {"file": "owner__cell__egm.py.mod", "language": "rapid",
                                          "repository": "owner/cell", "path": "egm.py", "commit": commit,
                                          "class": "takes", "robot": "irb140"}]
    missing = _gather(tmp_path, fields, rows)
    assert missing == [f"other__x__a.mod: no clone (other/x, a.mod, {commit})",
                       "owner__cell__egm.py.mod: cut out of a .py file by hand (owner/cell, egm.py)"]
    assert (tmp_path / "out" / "rapid" / "owner__cell__TASK 1__Main.mod").read_bytes() == b"MODULE Main\r\nENDMODULE\r\n"
    assert (tmp_path / "out" / "rapid" / "owner__cell__TASK_1__Calib_Data.mod").read_bytes().startswith(b"MODULE Calib")
    assert (tmp_path / "out" / "rapid" / "owner__cell__备份__user.sys").read_bytes().startswith(b"MODULE user")
    [entry] = corpus.read_corpus(tmp_path / "out")
    assert entry.program.name == "owner__cell__TASK 1__Main.mod" and entry.modules[0].is_file()


def test_gather_reads_a_program_and_its_modules_inside_a_pack_and_go_archive(tmp_path) -> None:
    """A row whose path is ``ARCHIVE!MEMBER`` (a RobotStudio Pack&Go ``.rspag``, a zip whose names use ``\\``) is read
    from the archive at the row's commit, its modules from the same archive, and ``OUTER!INNER/MEMBER`` from a zip
    inside a zip; a member the archive does not hold is "not at that commit"."""
    repo = tmp_path / "clones" / "owner+station"
    repo.mkdir(parents=True)

    def zipped(files: dict[str, bytes]) -> bytes:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as z:
            for name, data in files.items():
                z.writestr(name, data)
        return out.getvalue()

    task = "Controller Data\\IRB140\\RAPID\\TASK1\\PROGMOD\\"
    (repo / "cell.rspag").write_bytes(zipped({task + "Module1.mod": b"MODULE Module1\nENDMODULE\n",
                                              task + "CalibData.mod": b"MODULE CalibData\nENDMODULE\n"}))
    (repo / "lab.zip").write_bytes(zipped({"lab.rspag": zipped({"RAPID/Main.mod": b"MODULE Main\nENDMODULE\n"})}))
    subprocess.run(["git", "-C", str(repo), "init", "-q"], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a"],
                   check=True)
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True,
                            text=True).stdout.strip()
    fields = ["file", "language", "repository", "path", "commit", "licence", "class", "robot", "modules", "entry",
              "note", "gathering"]
    prefix = "owner__station__cell.rspag__Controller Data__IRB140__RAPID__TASK1__PROGMOD__"
    rows = [dict.fromkeys(fields, "") | {"file": prefix + "Module1.mod", "language": "rapid", "commit": commit,
                                          "repository": "owner/station", "modules": prefix + "CalibData.mod",
                                          "path": "cell.rspag!Controller Data/IRB140/RAPID/TASK1/PROGMOD/Module1.mod"},
            dict.fromkeys(fields, "") | {"file": "owner__station__lab.zip__lab.rspag__RAPID__Main.mod", "commit": commit,
                                          "language": "rapid", "repository": "owner/station",
                                          "path": "lab.zip!lab.rspag/RAPID/Main.mod"},
            dict.fromkeys(fields, "") | {"file": "owner__station__cell.rspag__Other.mod", "language": "rapid",
                                          "repository": "owner/station", "path": "cell.rspag!Other.mod",
                                          "commit": commit}]
    missing = _gather(tmp_path, fields, rows)
    assert missing == [f"owner__station__cell.rspag__Other.mod: not at that commit (owner/station, cell.rspag!Other.mod, "
                       f"{commit})"]
    out = tmp_path / "out" / "rapid"
    assert (out / (prefix + "Module1.mod")).read_bytes() == b"MODULE Module1\nENDMODULE\n"
    assert (out / (prefix + "CalibData.mod")).read_bytes() == b"MODULE CalibData\nENDMODULE\n"
    assert (out / "owner__station__lab.zip__lab.rspag__RAPID__Main.mod").read_bytes() == b"MODULE Main\nENDMODULE\n"


def test_gather_reads_a_program_and_its_modules_inside_a_controller_backup_tar(tmp_path) -> None:
    """A row whose path is ``BACKUP.tar!MEMBER`` (a controller backup kept as a tar, held-out-32's ptiago/ABB) is read
    from the tar at the row's commit, its modules from the same tar (member names with a leading ``./`` too)."""
    repo = tmp_path / "clones" / "owner+cell"
    repo.mkdir(parents=True)
    members = {"./RAPID/TASK1/PROGMOD/Main.mod": b"MODULE Main\r\nENDMODULE\r\n",
               "./RAPID/TASK1/PROGMOD/Aux.mod": b"MODULE Aux\nENDMODULE\n"}
    with tarfile.open(repo / "backup.tar", "w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True)
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True,
                            text=True).stdout.strip()
    fields = ["file", "language", "repository", "path", "commit", "licence", "class", "robot", "modules", "entry",
              "note", "gathering"]
    prefix = "owner__cell__backup.tar__RAPID__TASK1__PROGMOD__"
    row = dict.fromkeys(fields, "") | {"file": prefix + "Main.mod", "language": "rapid", "repository": "owner/cell",
                                       "path": "backup.tar!RAPID/TASK1/PROGMOD/Main.mod", "commit": commit,
                                       "modules": prefix + "Aux.mod"}
    assert _gather(tmp_path, fields, [row]) == []
    out = tmp_path / "out" / "rapid"
    assert (out / (prefix + "Main.mod")).read_bytes() == b"MODULE Main\r\nENDMODULE\r\n"
    assert (out / (prefix + "Aux.mod")).read_bytes() == b"MODULE Aux\nENDMODULE\n"
