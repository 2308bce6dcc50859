"""URScripts in, compensated URScripts out (issue 11): what PolyScope writes reads, zero table, FK round trip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import run_program
from program_builders import ur_case

from thermocomp import DeformationTable, deformed_model, fk, load_robot, nominal_model
from thermocomp.cli.main import EXIT_INPUT, EXIT_OK, main
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import rotation_angle, transform
from thermocomp.kinematics.ik import solve_ik
from thermocomp.programs import ProgramOptions, read_program
from thermocomp.tolerances import IK_ORIENTATION_TOL, IK_POSITION_TOL


@pytest.fixture
def case(tmp_path, rng):
    c = ur_case(rng)
    path = tmp_path / "print.script"
    path.write_bytes(c.text.encode("latin-1"))
    return c, path


def small_table(rng):
    return DeformationTable.from_mm_deg(np.hstack([rng.uniform(-0.3, 0.3, (6, 3)), rng.uniform(-0.03, 0.03, (6, 3))]))


def test_polyscope_script_reads_with_the_known_poses(case):
    c, path = case
    prog = read_program(path)
    assert prog.unsupported == ()
    assert [n.message for n in prog.notes] == ["loop forever: one cycle is one pass of its body"]
    assert [m.instruction for m in prog.motions] == ["movej", "movel", "movel", "movec", "movej", "movep"]
    chain = load_robot("ur5")
    points = prog.points
    assert len(points) == len(c.T_world_tcp)
    for point, T_want, q_want in zip(points, c.T_world_tcp, c.q):
        np.testing.assert_allclose(point.T_flange_tcp, c.tool, atol=1e-15)
        if q_want is not None:
            np.testing.assert_allclose(point.q, q_want, atol=1e-11)
            R, p = fk(nominal_model(chain), point.q)
            T_got = transform(R, p) @ point.T_flange_tcp
        else:
            T_got = point.T_world_tcp
        np.testing.assert_allclose(T_got, T_want, atol=1e-11)
    # speeds as written: movel v=0.25 m/s, movej v=1.05 rad/s; sleep 0.5 s
    assert prog.motions[1].tcp_speed == 0.25 and prog.motions[4].joint_speed == 1.05
    assert sum(getattr(s, "seconds", 0.0) for s in prog.steps) == 0.5


def test_zero_table_gives_back_the_script_byte_identical(case, tmp_path):
    c, path = case
    out = tmp_path / "out.script"
    report = run_program("ur5", DeformationTable.from_mm_deg(np.zeros((6, 6))), path, out)
    assert out.read_bytes() == path.read_bytes()
    assert report.n_changed_texts == 0


@pytest.mark.parametrize("output", ["filtered", "joints"])
def test_round_trip_the_warm_ur5_reaches_the_targets(case, tmp_path, rng, output):
    c, path = case
    chain = load_robot("ur5")
    table = small_table(rng)
    out = tmp_path / "out.script"
    if output == "joints":  # movec has no joint form: refused with its line, nothing written
        with pytest.raises(InputError, match="movec") as info:
            run_program("ur5", table, path, out, program_options=ProgramOptions(output=output,
                                                                                  joint_targets="compensate"))
        assert info.value.row == 28 and not out.exists()
        text = path.read_text().replace(c.text.splitlines()[27], "    sleep(0.1)")
        path.write_text(text)
        keep = [0, 1, 2, 5, 6]
    else:
        keep = list(range(7))
    report = run_program("ur5", table, path, out, options=CompensationOptions(time_law=Static()),
                                program_options=ProgramOptions(output=output, joint_targets="compensate"))
    written = read_program(out)
    assert written.unsupported == ()
    if output == "joints":
        assert all(m.instruction == "movej" for m in written.motions)
        q = np.stack([p.q for p in written.points])
    else:
        # the UR controller solves each pose nearest its current joints: seeded with the program's own
        T = np.stack([p.T_world_tcp @ np.linalg.inv(p.T_flange_tcp) if not p.is_joint else np.eye(4)
                      for p in written.points])
        result = solve_ik(nominal_model(chain), T[:, :3, :3], T[:, :3, 3], c.q_nominal)
        q = np.stack([p.q if p.is_joint else result.q[i] for i, p in enumerate(written.points)])
    R, p = fk(deformed_model(chain, table, 1.0), q)
    T_reached = transform(R, p) @ c.tool
    T_want = np.stack(c.T_world_tcp)[keep]
    pos = np.linalg.norm(T_reached[:, :3, 3] - T_want[:, :3, 3], axis=1)
    ang = rotation_angle(T_reached[:, :3, :3] @ np.swapaxes(T_want[:, :3, :3], -1, -2))
    assert pos.max() <= 10 * IK_POSITION_TOL + 2 * report.rounding_position + 0.2 * 2 * report.rounding_angle
    assert ang.max() <= 10 * IK_ORIENTATION_TOL + 2 * report.rounding_angle
    assert report.summary.uncompensated_max_position > 100 * pos.max()
    # PolyScope's lines are kept as they were
    for line in ("  $ 3 \"Waypoint_1\" \"breakAfter\"", "  set_tool_voltage(24)", "  run Step_Counter_Thread()"):
        assert line in out.read_text().splitlines()


def test_a_motion_to_run_time_data_is_named_with_its_data_and_nothing_is_written(tmp_path, capsys):
    """A motion's data decide: the ``if`` on an input is followed, and the motion inside it whose target is the
    robot's pose when it runs is refused at the variable it reads; with --unsupported keep it stays as written."""
    src = ("def p():\n  movej([0, -1.57, 1.57, -1.57, -1.57, 0])\n  if get_digital_in(0):\n"
           "    here = get_actual_tcp_pose()\n    movel(pose_trans(here, p[0, 0, .05, 0, 0, 0]))\n  end\nend\n")
    path = tmp_path / "u.script"
    path.write_text(src)
    out = tmp_path / "u_out.script"
    code = main(["compensate", "--robot", "ur5", "--deformation", "deformations/exaggerated.csv",
                 "--program", str(path), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == EXIT_INPUT and f"{path}:5:22: the value of here is not known before running" in err
    assert not out.exists() and "Traceback" not in err
    code = main(["compensate", "--robot", "ur5", "--deformation", "deformations/exaggerated.csv",
                 "--program", str(path), "--out", str(out), "--unsupported", "keep"])
    captured = capsys.readouterr()
    assert code == EXIT_OK and "left as written" in captured.err
    assert "movel inside an unsupported construct stays as written" in captured.out
    assert out.read_text().splitlines()[4] == "    movel(pose_trans(here, p[0, 0, .05, 0, 0, 0]))"


def test_syntax_error_names_line_and_column(tmp_path):
    path = tmp_path / "bad.script"
    path.write_text("def p():\n  movel(p[.4, .1, .3, 0, 3.14, 0]\nend\n")
    with pytest.raises(InputError) as info:
        read_program(path)
    assert info.value.row == 3


def test_the_example_script_compensates_with_the_command_in_its_header(tmp_path, capsys):
    """examples/urscript_program.script, with the command its header gives (output in tmp_path), read back by FK."""
    import shlex

    from helpers import REPO

    from thermocomp.io.deformation_csv import read_deformation_csv

    example = REPO / "examples" / "urscript_program.script"
    header = [line.strip().lstrip("#").strip() for line in example.read_text().splitlines()[:6]]
    first = next(i for i, line in enumerate(header) if line.startswith("Compensate it:"))
    command = (header[first].removeprefix("Compensate it:") + " " + header[first + 1]).replace("\\", " ")
    argv = shlex.split(command)
    assert argv[:2] == ["thermocomp", "compensate"]
    argv = [str(REPO / a) if a.startswith(("deformations/", "examples/")) else a for a in argv[1:]]
    out = tmp_path / "comp.script"
    argv[argv.index("--out") + 1] = str(out)
    assert main(argv + ["--static", "--program-report", str(tmp_path / "report.txt")]) == EXIT_OK
    assert "wrote" in capsys.readouterr().out
    original, written = read_program(example), read_program(out)
    assert [m.instruction for m in written.motions] == [m.instruction for m in original.motions]
    # every Cartesian point: the UR5 solves the written pose nearest the original's joints (nominal model);
    # the warm robot (the whole table) then puts the TCP on the original target
    chain = load_robot("ur5")
    table = read_deformation_csv(argv[argv.index("--deformation") + 1])
    cart = [i for i, p in enumerate(original.points) if not p.is_joint]
    assert len(cart) >= 5
    model = nominal_model(chain)

    def flange(points):
        T = np.stack([points[i].T_world_tcp @ np.linalg.inv(points[i].T_flange_tcp) for i in cart])
        return T[:, :3, :3], T[:, :3, 3]

    q_original = solve_ik(model, *flange(original.points), np.tile(chain.home, (len(cart), 1)))
    assert np.all(q_original.status == 0)
    q_written = solve_ik(model, *flange(written.points), q_original.q)
    R, p = fk(deformed_model(chain, table, 1.0), q_written.q)
    T_reached = transform(R, p) @ np.stack([written.points[i].T_flange_tcp for i in cart])
    T_want = np.stack([original.points[i].T_world_tcp for i in cart])
    pos = np.linalg.norm(T_reached[:, :3, 3] - T_want[:, :3, 3], axis=1)
    assert pos.max() < 1e-6  # the 32-bit rounding of metres at under a metre of reach: well below a micrometre
    # the program as it was would miss by the thermal error itself (the exaggerated table: millimetres)
    R0, p0 = fk(deformed_model(chain, table, 1.0), q_original.q)
    T_missed = transform(R0, p0) @ np.stack([original.points[i].T_flange_tcp for i in cart])
    assert np.linalg.norm(T_missed[:, :3, 3] - T_want[:, :3, 3], axis=1).max() > 1e-4


@pytest.mark.parametrize(("name", "text", "line", "words"), [
    ("eof.script", "def p():\n  movel(p[.4, .1, .3, 0, 3.14, 0]\n", 2, "unexpected end of file"),
    ("eof.mod", "MODULE m\n  PROC main()\n    MoveL p, v100, fine, tool0;\n", 3, "unexpected end of file"),
    ("seven.script", "def p():\n  movel(p[.4, 0, .3, 0, 3.14, 0], 1.2, 0.25, 0, 0, 5)\nend\n", 2,
     "movel: expected at most 5 arguments"),
])
def test_a_program_cut_short_or_given_too_much_is_named_as_such(tmp_path, name, text, line, words):
    """A file that ends inside a statement says so (it said "unexpected 'None'"); a motion with more positional
    arguments than URScript defines is refused (the extra one was dropped silently)."""
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError) as info:
        read_program(path)
    assert info.value.row == line and words in str(info.value) and "None" not in str(info.value)


def test_an_output_in_another_language_names_the_option(tmp_path, capsys):
    path = tmp_path / "p.script"
    path.write_text("def p():\n  movel(p[.4, .1, .3, 0, 3.14, 0], a=1.2, v=0.25)\nend\n")
    code = main(["compensate", "--robot", "ur5", "--deformation", "deformations/exaggerated.csv",
                 "--program", str(path), "--out", str(tmp_path / "x.csv")])
    err = capsys.readouterr().err
    assert code == EXIT_INPUT and "--out" in err and "language" in err and not (tmp_path / "x.csv").exists()


_UR_TEXT = "def p():\n  movel(p[.4, .1, .3, 0, 3.14, 0], a=1.2, v=0.25)\n  sleep(0.5)\n  movel(p[.4, .2, .3, 0, 3.14, 0])\nend\n"
_RAPID_TEXT = ("MODULE m\n  PROC main()\n    MoveL [[500,0,600],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, "
               "fine, tool0;\n    WaitTime 0.5;\n    MoveL [[500,100,600],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], "
               "v100, fine, tool0;\n  ENDPROC\nENDMODULE\n")


@pytest.mark.parametrize(("name", "data", "line", "words"), [
    ("utf16.script", _UR_TEXT.encode("utf-16"), 1, "UTF-16"),
    ("utf16.mod", _RAPID_TEXT.encode("utf-16"), 1, "UTF-16"),
    ("cr.script", _UR_TEXT.replace("\n", "\r").encode(), 1, "CR alone"),
    ("cr.mod", _RAPID_TEXT.replace("\n", "\r").encode(), 1, "CR alone"),
    ("negative.script", _UR_TEXT.replace("sleep(0.5)", "sleep(-0.5)").encode(), 3, "sleep: expected a time >= 0"),
])
def test_a_program_in_a_form_no_controller_writes_is_named_as_such(tmp_path, name, data, line, words):
    """UTF-16 text was refused as "unexpected 'ÿ'", CR-only line ends as an unexpected end of file on line 1, and
    a negative URScript sleep went through (RAPID's negative WaitTime is refused): a third adversarial run."""
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InputError) as info:
        read_program(path)
    assert info.value.row == line and words in str(info.value)


@pytest.mark.parametrize(("name", "text", "extra", "words"), [
    ("wait.mod", _RAPID_TEXT.replace("WaitTime 0.5", "WaitTime 1E30"), ["--timed"], "p.mod, line 4"),
    ("sleep.script", _UR_TEXT.replace("sleep(0.5)", "sleep(1e300)"), ["--timed"], "p.script, line 3"),
    ("slow.script", _UR_TEXT.replace("v=0.25", "v=1e-300"), [], "p.script, line 2"),
])
def test_a_time_beyond_any_time_law_is_refused_where_it_is_written(tmp_path, capsys, name, text, extra, words):
    """A WaitTime of 1E30 s, a sleep of 1e300 s, a speed of 1e-300 m/s or --at-minute 1e300 ran to exit 0 with
    numpy's "invalid value encountered in cast" and its source line printed (a third adversarial run): the
    minutes are bounded as a targets file's time_min is (1e12), and the statement that passes the bound named."""
    path = tmp_path / ("p" + Path(name).suffix)
    path.write_text(text)
    robot = "ur5" if name.endswith(".script") else "irb140"
    code = main(["compensate", "--robot", robot, "--deformation", "deformations/exaggerated.csv", "--program",
                 str(path), "--out", str(tmp_path / ("o" + path.suffix)), *extra])
    err = capsys.readouterr().err
    assert code == EXIT_INPUT, err
    assert words in err and "1e+12" in err and "cast" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_a_rapid_module_given_with_a_urscript_program_is_refused_naming_the_option(tmp_path, capsys):
    """Issue 38: ``--module`` (a RAPID task's other modules) was ignored in silence with a URScript program."""
    path = tmp_path / "m.script"
    path.write_text("def m():\n  movel(p[.4, .1, .3, 0, 3.14, 0], a=1.2, v=0.25)\nend\n")
    calib = tmp_path / "CalibData.mod"
    calib.write_text("MODULE CalibData\n  PERS tooldata tGrip := [TRUE,[[0,0,100],[1,0,0,0]],[1,[0,0,1],[1,0,0,0],0,0,0]];\n"
                     "ENDMODULE\n")
    out = tmp_path / "m_out.script"
    code = main(["compensate", "--robot", "ur5", "--deformation", "deformations/exaggerated.csv",
                 "--program", str(path), "--module", str(calib), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == EXIT_INPUT and f"--module {calib}" in err and "URScript program" in err
    assert not out.exists() and "Traceback" not in err


@pytest.mark.parametrize("speed, wait", [("v100", "WaitTime 1E30;"), ("[1E-30,500,5000,1000]", "WaitTime 1;")])
def test_a_time_beyond_any_time_law_in_another_module_is_named_in_that_module(tmp_path, capsys, speed, wait):
    """The statement whose time passes the bound (a wait, a motion) is named in the file it is written in: one in a
    routine of a ``--module`` file was named with the main program's path and the module's line."""
    main_mod = tmp_path / "p.mod"
    move = "MoveL [[500,0,600],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, fine, tool0;"
    main_mod.write_text(f"MODULE P\n  PROC main()\n    {move}\n    Slow;\n    {move}\n  ENDPROC\nENDMODULE\n")
    other = tmp_path / "Other.mod"
    slow = move.replace("500,0,600", "400,0,600").replace("v100", speed)
    other.write_text(f"MODULE Other\n  PROC Slow()\n    {wait}\n    {slow}\n  ENDPROC\nENDMODULE\n")
    code = main(["compensate", "--robot", "irb140", "--deformation", "deformations/exaggerated.csv", "--program",
                 str(main_mod), "--module", str(other), "--out", str(tmp_path / "o.mod"), "--timed"])
    err = capsys.readouterr().err
    assert code == EXIT_INPUT, err
    assert f"Other.mod, line {3 if speed == 'v100' else 4}" in err and "1e+12" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Other.mod", "p.mod"]
