"""Hostile and odd input, one test per class of issue 38's second part, through the real command line.

Each case runs ``thermocomp.cli.main.main([...])`` (or the console script in a subprocess where processes are the
subject) in a folder of its own and checks, with ``test_bad_input.refused``: the exit status, the message naming
the option, file and line, no traceback, every file there before byte for byte the same, no temporary left.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import REPO
from test_bad_input import case, refused, run_cli  # noqa: F401  (fixture)

from thermocomp.cli.common import EXIT_INPUT, EXIT_OK, EXIT_USAGE
from thermocomp.io.job import TEMPORARY_PREFIX

EXAGGERATED = REPO / "deformations" / "exaggerated.csv"
RAPID = REPO / "examples" / "rapid_program.mod"
ROBOT_HEAD = '<?xml version="1.0"?>\n<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="r">\n'
JOINT = ('  <link name="base"/>\n  <link name="l1"/>\n  <joint name="{name}" type="revolute">\n'
         '    <parent link="base"/><child link="l1"/><axis xyz="{axis}"/>\n'
         '    <limit lower="-1" upper="1" effort="1" velocity="1"/>\n  </joint>\n')


def xacro(folder: Path, body: str, name: str = "r.xacro") -> Path:
    (folder / name).write_text(ROBOT_HEAD + body + "</robot>\n")
    return folder / name


# --- xacro: what comes back is bounded, and every message names the file and line ---------------------------


def test_a_format_wider_than_any_name_is_refused_at_its_line(case, capsys, expression="$(eval f'{1:>300000000}')"):
    """A 300 MB joint name came back from the child within its bounds; robot show then ran for minutes."""
    xacro(case, JOINT.format(name=expression, axis="0 0 1"))
    started = time.perf_counter()
    refused(case, capsys, ["robot", "show", "r.xacro"], EXIT_INPUT, "r.xacro, line 5", "xacro")
    assert time.perf_counter() - started < 20


@pytest.mark.parametrize("expression", ["f'{1:>300000000}'", "'%300000000d' % 1", "'%*d' % (9, 1)",
                                        "'%(a)-2000.3f' % {'a': 1}", "f'{1:.{10**9}f}'", "f'{1:0>{2000}}'",
                                        "'{0}'.format(1)", "'x' * 2**21", "'x' * 2**20 + 'x'"])
def test_every_way_to_a_long_text_is_refused_before_it_is_built(expression):
    """The evaluator's bounds, without a process: widths, precisions and * in formats, repetition, concatenation."""
    from thermocomp.io.xacro_expressions import UnsafeExpression, base_functions, evaluate

    with pytest.raises(UnsafeExpression):
        evaluate(expression, lambda name: {}[name], base_functions())
    assert evaluate("f'{1:>8.3f}' + '%-6d|' % 7", lambda name: {}[name], base_functions()) == "   1.000" + "7     |"


def test_a_value_built_past_its_bound_by_concatenation_is_refused(case, capsys):
    """Each expression under the bound, the attribute over it: refused in the child, naming the element."""
    body = '  <xacro:property name="a" value="${\'x\' * 1000000}"/>\n' + JOINT.format(name="${a}${a}", axis="0 0 1")
    xacro(case, body)
    refused(case, capsys, ["robot", "show", "r.xacro"], EXIT_INPUT, "r.xacro", "'name' of <joint>", "at most 4,096")


def test_an_argument_the_xacro_never_reads_is_refused(case, capsys):
    xacro(case, '  <xacro:arg name="length" default="1"/>\n' + JOINT.format(name="j1", axis="0 0 $(arg length)"))
    # (arguments it declares: tests/test_robot_xacro.py)
    refused(case, capsys, ["robot", "show", "r.xacro", "--xacro-arg", "nope:=1"], EXIT_INPUT,
            "--xacro-arg nope", "r.xacro", "its arguments: length")


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_a_package_path_that_is_no_folder_is_refused(case, capsys, kind):
    xacro(case, JOINT.format(name="j1", axis="0 0 1"))
    given = "nowhere" if kind == "missing" else "t.csv"
    refused(case, capsys, ["robot", "show", "r.xacro", "--package-path", given], EXIT_INPUT, "--package-path", given)
    refused(case, capsys, ["robot", "show", "irb140", "--package-path", "."], EXIT_INPUT, "--package-path",
            "only for a .urdf or .xacro")


def test_a_chain_of_expression_clauses_keeps_its_cause_and_line(case, capsys):
    """30 properties, each reading the one before: the cause and its line were lost in 30 clauses."""
    body = '  <xacro:property name="p0" value="${undefined_name}"/>\n'
    body += "".join(f'  <xacro:property name="p{k}" value="${{p{k - 1}}}"/>\n' for k in range(1, 31))
    xacro(case, body + '  <link name="${p30}"/>\n')
    err = refused(case, capsys, ["robot", "show", "r.xacro"], EXIT_INPUT, "r.xacro, line 3",
                  "name 'undefined_name' is not defined", "31 more expression(s)", "'p30'")
    assert err.count("when evaluating expression") == 1 and len(err) < 600


def test_what_xacro_cannot_read_is_named_not_a_time_out(case, capsys):
    """load_yaml of a FIFO waited for a writer until the 60 s bound, then blamed ${9**9**9}; a 50 MB file the same."""
    os.mkfifo(case / "cfg.yaml")
    xacro(case, '  <xacro:property name="cfg" value="${xacro.load_yaml(\'cfg.yaml\')}"/>\n  <link name="${cfg.a}"/>\n')
    refused(case, capsys, ["robot", "show", "r.xacro"], EXIT_INPUT, "r.xacro, line 3", "load_yaml", "a FIFO")
    with open(case / "big.xacro", "w") as handle:
        handle.write(ROBOT_HEAD + "<!-- ")
        handle.truncate(17 * 2**20)
    refused(case, capsys, ["robot", "show", "big.xacro"], EXIT_INPUT, "big.xacro", "at most 16 MiB")


def test_a_time_out_says_what_the_expansion_was_doing(case, capsys, monkeypatch):
    from thermocomp.io import robot_files

    (case / "slow.xacro").write_text(ROBOT_HEAD + "<!-- " + "x" * (8 * 2**20) + " -->\n" + JOINT.format(
        name="j1", axis="0 0 1") + "</robot>\n")
    monkeypatch.setattr(robot_files, "XACRO_TIME_S", 0.8)
    err = refused(case, capsys, ["robot", "show", "slow.xacro"], EXIT_INPUT, "slow.xacro",
                  "did not end within 0.8 s")
    assert "9**9**9" not in err and ("reading and parsing" in err or "starting" in err)


def test_a_urdf_error_of_a_xacro_names_a_line_of_its_expansion(case, capsys):
    """The line was one of the expanded text, which a 12-line file does not have."""
    xacro(case, JOINT.format(name="j1", axis="0 0 0"))
    err = refused(case, capsys, ["robot", "show", "r.xacro"], EXIT_INPUT, "r.xacro", "non-zero axis",
                  "of the file's expansion")
    assert "r.xacro, line" not in err


# --- a batch killed hard, and a batch's cost ------------------------------------------------------------------


def _children(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (Linux /proc)."""
    found, todo = set(), [pid]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*"):
            try:
                kids = {int(k) for k in (task / "children").read_text().split()}
            except OSError:
                continue
            todo += list(kids - found)
            found |= kids
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_batch_killed_hard_leaves_no_process_and_the_next_run_cleans_up(tmp_path):
    """SIGKILL to a --jobs 2 batch (the out-of-memory killer) left its workers and a helper running for minutes and
    .tc-* temporaries in the output folder."""
    src, out = tmp_path / "programs", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    for k in range(12):
        (src / f"p{k:02d}.mod").write_bytes(RAPID.read_bytes())
    argv = [str(Path(sys.executable).with_name("thermocomp")), "compensate", "--robot", "irb140", "--deformation",
            str(EXAGGERATED), "--program", str(src), "--out-dir", str(out), "--jobs", "2", "--no-progress"]
    batch = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not any(p.name.startswith(TEMPORARY_PREFIX) for p in out.iterdir()):
        time.sleep(0.05)
    children = _children(batch.pid)
    assert len(children) >= 2 and batch.poll() is None  # the workers (and the resource tracker), mid-batch
    batch.send_signal(signal.SIGKILL)
    batch.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(p) for p in children):
        time.sleep(0.05)
    assert not [p for p in children if _alive(p)]
    assert any(p.name.startswith(TEMPORARY_PREFIX) for p in out.iterdir())  # what the killed run left
    done = subprocess.run(argv, capture_output=True, text=True)
    assert done.returncode == EXIT_OK, done.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in src.iterdir())


def _long_program(motions: int) -> bytes:
    """The example with its main routine replaced by ``motions`` offset welds: a program seconds long to read."""
    head = RAPID.read_text().split("  PROC main()")[0]
    moves = "".join(f"    MoveL Offs(pStart,{k % 50 * 1.5:.1f},{k // 50 % 50 * 1.5:.1f},{k % 7 * 2.0:.1f}), "
                    "v200, z1, tWeldGun\\WObj:=wobjTable;\n" for k in range(motions))
    return (head + "  PROC main()\n" + moves + "  ENDPROC\nENDMODULE\n").encode()


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigterm_to_a_batch_alone_interrupts_its_running_programs(tmp_path):
    """SIGTERM to a --jobs 2 batch's own process (``kill PID``, not the process group as Ctrl-C) waited for the
    programs its workers were compensating: 179 s on this example's batch under load. The workers are now
    interrupted too: the batch ends in a fraction of one program's time, exit 130, nothing written."""
    src, out = tmp_path / "programs", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    for k in range(4):
        (src / f"p{k}.mod").write_bytes(_long_program(4000))
    thermocomp = str(Path(sys.executable).with_name("thermocomp"))
    common = ["--robot", "irb140", "--deformation", str(EXAGGERATED), "--no-progress"]
    started = time.monotonic()
    alone = subprocess.run([thermocomp, "compensate", *common, "--program", str(src / "p0.mod"), "--out",
                            str(tmp_path / "alone.mod")], capture_output=True, text=True)
    one_program_s = time.monotonic() - started  # the time of one program, on this machine, now
    assert alone.returncode == EXIT_OK, alone.stderr
    batch = subprocess.Popen([thermocomp, "compensate", *common, "--program", str(src), "--out-dir", str(out),
                              "--jobs", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(_children(batch.pid)) < 2:
        time.sleep(0.05)
    time.sleep(one_program_s / 2)  # both workers halfway through their first program
    assert batch.poll() is None
    batch.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    _, err = batch.communicate(timeout=300)
    ended_after_s = time.monotonic() - signalled
    assert batch.returncode == 130, err
    assert "no output was written" in err and "Traceback" not in err
    assert sorted(p.name for p in out.iterdir()) == []
    assert ended_after_s < one_program_s / 4, (ended_after_s, one_program_s)


def test_a_temporary_whose_owner_is_gone_is_removed_and_a_live_ones_kept(tmp_path):
    """The next run in a folder removes what a run killed hard left (its process gone), never a running one's.
    (The batch killed hard through the command line: the slow test above.)"""
    from thermocomp.io.job import Job

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    stale = tmp_path / f"{TEMPORARY_PREFIX}{gone.pid}-abcdefgh.csv"
    keep_stale = tmp_path / f"{TEMPORARY_PREFIX}keep-{gone.pid}-abcdefgh.csv"
    live = tmp_path / f"{TEMPORARY_PREFIX}{os.getppid()}-abcdefgh.csv"
    foreign = tmp_path / f"{TEMPORARY_PREFIX}notours.csv"
    for path in (stale, keep_stale, live, foreign):
        path.write_text("partial\n")
    with Job() as job:
        out = job.output(tmp_path / "o.csv", "--out")
        job.check()
        job.write_text(out, "done\n")
        job.commit()
    assert not stale.exists() and not keep_stale.exists() and live.exists() and foreign.exists()
    assert (tmp_path / "o.csv").read_text() == "done\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(f"{TEMPORARY_PREFIX}{os.getpid()}-")] == []


def test_a_batch_folder_with_a_fifo_or_a_device_link_names_them(case, capsys):
    """They were skipped without a word."""
    (case / "programs").mkdir()
    (case / "out").mkdir()
    (case / "programs" / "a.mod").write_bytes(RAPID.read_bytes())
    os.mkfifo(case / "programs" / "f.mod")
    (case / "programs" / "z.mod").symlink_to("/dev/zero")
    (case / "programs" / "gone.mod").symlink_to(case / "nothing.mod")
    refused(case, capsys, ["compensate", "--deformation", "d.csv", "--program", "programs", "--out-dir", "out",
                           "--static"], EXIT_INPUT, "--program", "f.mod (a FIFO)", "z.mod (a link to /dev/zero)",
            "gone.mod (a link to", "does not exist")


def test_the_batch_checks_are_linear_in_its_size(tmp_path, monkeypatch):
    """The job compared every output with every input and earlier output (same_file): quadratic, 15 s for 200
    programs and 177 s for 1,000. Counted, not timed: the identities taken per file declared."""
    from thermocomp.io import job as job_module

    calls = []
    identity = job_module.file_identity
    monkeypatch.setattr(job_module, "file_identity", lambda path: calls.append(1) or identity(path))
    counts = {}
    for n in (100, 400):
        folder = tmp_path / str(n)
        (folder / "out").mkdir(parents=True)
        calls.clear()
        with job_module.Job() as job:
            for k in range(n):
                (folder / f"p{k}.mod").write_text("x")
                job.input(folder / f"p{k}.mod", "--program")
                job.output(folder / "out" / f"p{k}.mod", "--out-dir")
            job.check()
        counts[n] = len(calls)
    assert counts[400] <= 4 * counts[100] + 10  # linear: 4 times the files, at most 4 times the work


# --- numbers: every numeric option's range at the parser, named as typed --------------------------------------


def test_every_numeric_option_has_a_range_and_refuses_1e300_naming_itself(capsys):
    """Every numeric option of every command: a range (cli/option_ranges.py), and an absurd magnitude refused by the
    parser under the option's own name, never reaching the library under a field's name."""
    from thermocomp.cli.main import build_parser
    from thermocomp.cli.option_ranges import range_of

    parser = build_parser()

    def walk(parser):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield from walk(sub)
            elif action.option_strings and action.type is not None:
                yield parser.prog.split(" ", 1)[1], action

    numeric = {"float", "int", "seed_arg", "per_joint_values", "minutes_arg", "_frequencies"}
    options = [(command, action) for command, action in walk(parser)
               if getattr(action.type, "__name__", "") in numeric or action.type in (float, int)]
    assert len(options) > 80
    missing = [f"{command} {action.option_strings[-1]}" for command, action in options
               if range_of(command, action.option_strings) is None]
    assert missing == []
    for command, action in options:
        option = action.option_strings[-1]
        nargs = action.nargs if isinstance(action.nargs, int) else 1
        with pytest.raises(SystemExit) as exit_:
            parser.parse_args([*command.split(), option, *["1e300"] * nargs])
        err = capsys.readouterr().err
        assert exit_.value.code == EXIT_USAGE and f"argument {option}" in err, (command, option, err)


@pytest.mark.parametrize(("argv", "option", "words"), [
    (["calibrate", "--measurements", "m.csv", "--out", "c.csv", "--report", "r.txt", "--sigma-mm", "1e-300"],
     "--sigma-mm", ["from 1e-06 to 1000 mm", "got 1e-300"]),
    (["excite", "--robot", "irb140", "--duration-s", "-1", "--out", "o.csv"], "--duration-s", ["> 0", " s, got -1"]),
    (["collisions", "--robot", "irb140", "--recording", "r.csv", "--filter", "0"], "--filter", ["> 0 and at most 1"]),
    (["compensate", "--deformation", "d.csv", "--targets", "t.csv", "--out", "o.csv", "--starts", "9" * 309],
     "--starts", ["(309 digits)"]),
    (["compensate", "--deformation", "d.csv", "--targets", "t.csv", "--out", "o.csv", "--seed", "-" + "9" * 309],
     "--seed", ["(309 digits)"]),
    (["track", "--deformation", "d.csv", "--out", "m.csv", "--minutes", "0,2e9"], "--minutes", ["to 1e+06, got 0,2e9"]),
    # (these were the library's refusals, exit 1, before the parser knew the ranges)
    (["inertia", "--robot", "gofa", "--meshes", "m", "--units", "m", "--total-mass", "0"], "--total-mass", ["> 0"]),
    (["excite", "--robot", "gofa", "--rate-hz", "0", "--out", "o.csv"], "--rate-hz", ["> 0", "Hz"]),
    (["sim", "--robot", "gofa", "--deformation", "d.csv", "--targets", "t.csv", "--size", "0", "10"], "--size",
     ["from 16 to 8192"]),
    (["sim", "--robot", "gofa", "--deformation", "d.csv", "--targets", "t.csv", "--clearance-mm", "-1"],
     "--clearance-mm", ["from 0 to 10000 mm"]),
    (["compensate", "--deformation", "d.csv", "--program", "p.mod", "--out", "o.mod", "--at-minute", "1e300"],
     "--at-minute", ["from 0 to 1e+06"]),
    (["calibrate", "--measurements", "m.csv", "--out", "c.csv", "--report", "r.txt", "--sigma-mm", "0"],
     "--sigma-mm", ["from 1e-06"]),
])
def test_an_option_out_of_range_is_refused_by_the_parser_naming_it(case, capsys, argv, option, words):
    err = refused(case, capsys, argv, EXIT_USAGE, f"argument {option}", *words)
    assert "9" * 41 not in err  # no value echoed whole past 40 digits


@pytest.mark.parametrize(("argv", "words"), [
    (["excite", "--robot", "irb140", "--frequencies-hz", "0.1,0.2", "--out", "o.csv"],
     ["--frequencies-hz: expected 6 values"]),
    (["calibrate", "--measurements", "t.csv", "--out", "c.csv", "--report", "r.txt", "--rows", "base,nope"],
     ["--rows: expected a non-empty subset"]),
    (["calibrate", "--measurements", "t.csv", "--out", "c.csv", "--report", "r.txt", "--heat-on", "5:1"],
     ["--heat-on: expected sorted"]),
])
def test_a_library_refusal_names_the_option_as_typed(case, capsys, argv, words):
    """Past the parser's ranges, the library's checks named their fields: 'frequencies:', 'rows:', 'heat_on:'."""
    refused(case, capsys, argv, EXIT_INPUT, *words)


@pytest.mark.filterwarnings("ignore:overflow encountered")
def test_a_singular_calibration_is_bad_input(case):
    """Past the parser (the library's own call), a weight of 1e303 made the normal matrix singular: a traceback."""
    from thermocomp.app.calibrate import CalibrationJob, run_calibration
    from thermocomp.calibration.identify import CalibrationOptions
    from thermocomp.errors import InputError

    _measurements(case / "m.csv")
    with pytest.raises(InputError, match="numerically singular"):
        run_calibration(CalibrationJob("irb140", case / "m.csv", case / "c.csv", case / "r.txt",
                        options=CalibrationOptions(position_sigma=1e-303)))
    assert not (case / "c.csv").exists() and not (case / "r.txt").exists()


def _measurements(path: Path, q1_deg: float | None = None) -> None:
    """Tracker measurements of the exaggerated IRB140 at 12 poses within the limits (or the 3rd at ``q1_deg``)."""
    import thermocomp as tc
    from thermocomp.io.deformation_csv import read_deformation_csv

    chain = tc.load_robot("irb140")
    rng = np.random.default_rng(3)
    q = rng.uniform(0.8 * chain.lower, 0.8 * chain.upper, size=(12, chain.n_joints))
    _, p = tc.fk(tc.deformed_model(chain, read_deformation_csv(EXAGGERATED)), q)
    q_deg = np.degrees(q)
    if q1_deg is not None:
        q_deg[2, 0] = q1_deg
    head = "time_min," + ",".join(f"q{j + 1}_deg" for j in range(chain.n_joints)) + ",x_mm,y_mm,z_mm\n"
    path.write_text(head + "".join("200," + ",".join(repr(float(v)) for v in (*qk, *1e3 * pk)) + "\n"
                                   for qk, pk in zip(q_deg, p)))


def test_a_measurement_outside_the_joint_limits_is_refused_at_its_line_and_column(case, capsys):
    _measurements(case / "m.csv", q1_deg=720.0)
    refused(case, capsys, ["calibrate", "--measurements", "m.csv", "--out", "c.csv", "--report", "r.txt"],
            EXIT_INPUT, "m.csv, line 4, column 'q1_deg'", "-180 .. 180 deg", "got 720 deg")


# --- lenient inputs refused, messages that name what they should ---------------------------------------------


JOINT_TARGETS = """MODULE M
  CONST jointtarget jHome := [[0,0,0,0,30,0],[9E9,9E9,9E9,9E9,9E9,9E9]];
  CONST jointtarget jFar := [[400,0,0,0,30,0],[9E9,9E9,9E9,9E9,9E9,9E9]];
  PROC main()
    MoveAbsJ jHome, v100, z10, tool0;
    MoveAbsJ jFar, v100, z10, tool0;
  ENDPROC
ENDMODULE
"""


def test_a_joint_target_outside_the_limits_is_not_compensated(case, capsys):
    """--joint-targets compensate wrote a compensated 400 deg with exit 0."""
    (case / "j.mod").write_text(JOINT_TARGETS)
    refused(case, capsys, ["compensate", "--deformation", "d.csv", "--program", "j.mod", "--static", "--out", "o.mod",
                           "--joint-targets", "compensate"], EXIT_INPUT, "j.mod, line 6, column 14", "joint 1",
            "-180 .. 180 deg", "400 deg")
    code, out, err = run_cli(capsys, ["compensate", "--deformation", "d.csv", "--program", "j.mod", "--static",
                                      "--out", "o.mod"])  # kept as written (the default): a finding, not a refusal
    assert code == EXIT_OK, err
    assert "joint 1 at 400 deg, outside its limits [-180, 180]" in out and "within 1 deg" not in out


@pytest.mark.parametrize("reader", ["table", "dh", "urdf"])
def test_a_home_angle_outside_the_limits_names_its_line(case, capsys, reader):
    if reader == "table":
        code, text, err = run_cli(capsys, ["robot", "show", "irb140"])
        lines = text.splitlines()
        head = lines[0].split(",")
        cells = lines[3].split(",")
        cells[head.index("home_deg")] = "500"
        lines[3] = ",".join(cells)
        (case / "r.csv").write_text("\n".join(lines) + "\n")
        refused(case, capsys, ["robot", "show", "r.csv"], EXIT_INPUT, "r.csv, line 4, column 'home_deg'", "500")
    elif reader == "dh":
        (case / "r.csv").write_text("joint,a_mm,alpha_deg,d_mm,theta_offset_deg,lower_deg,upper_deg,home_deg\n"
                                    "j1,0,-90,300,0,-170,170,0\nj2,400,0,0,0,-90,90,120\n")
        refused(case, capsys, ["robot", "show", "r.csv"], EXIT_INPUT, "r.csv, line 3, column 'home_deg'", "120")
    else:
        urdf = ROBOT_HEAD.replace(' xmlns:xacro="http://www.ros.org/wiki/xacro"', "") + JOINT.format(
            name="j1", axis="0 0 1")
        from thermocomp.io.urdf import HOME_ELEMENT

        (case / "r.urdf").write_text(urdf + f'  <{HOME_ELEMENT}>\n    <home joint="j1" position="3"/>\n'
                                     f"  </{HOME_ELEMENT}>\n</robot>\n")
        refused(case, capsys, ["robot", "show", "r.urdf"], EXIT_INPUT, "r.urdf, line 10", "got 3")


def test_a_missing_file_is_named_before_the_simulator_is_reached(case, capsys):
    """coppeliasim play --results nope.csv without a server reported the connection."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends: nothing listens there
    for argv in (["play", "--results", "nope.csv"], ["show", "--deformation", "nope.csv"],
                 ["load-scene", "nope.toml"]):
        err = refused(case, capsys, ["coppeliasim", *argv[:1], "--port", str(port), "--timeout-s", "1", *argv[1:]],
                      EXIT_INPUT, argv[-1])
        assert "connect" not in err.lower() and "reach" not in err.lower(), err
