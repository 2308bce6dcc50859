"""RAPID modules in, compensated RAPID modules out (issue 11): reading, byte-identical zero table, round trip by FK.

The modules are built from joint configurations whose poses are known
(tests/program_builders.py), written as RobotStudio and the FlexPendant write
them. The round trip reads the WRITTEN text back and runs the deformed
model's FK on what the controller would do with it.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from helpers import REPO, run_program
from program_builders import random_configurations, rapid_case, robtarget_text

from thermocomp import DeformationTable, deformed_model, fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions, nominal_solutions
from thermocomp.compensation.targets import Targets
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import quat_wxyz_from_matrix, rotation_angle, transform
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.programs import ProgramOptions, read_program
from thermocomp.tolerances import IK_ORIENTATION_TOL, IK_POSITION_TOL

ROBOTS = ("irb140", "gofa")


def small_table(rng, n=6):
    """A plausible thermal table: up to 0.3 mm and 0.03 deg per joint."""
    rows = np.hstack([rng.uniform(-0.3, 0.3, (n, 3)), rng.uniform(-0.03, 0.03, (n, 3))])
    return DeformationTable.from_mm_deg(rows)


@pytest.fixture(params=ROBOTS)
def case(request, tmp_path, rng):
    c = rapid_case(request.param, rng)
    path = tmp_path / "weld.prg"
    path.write_bytes(c.text.encode("latin-1"))
    return request.param, c, path


def test_reader_gives_the_known_poses_in_execution_order(case):
    robot, c, path = case
    prog = read_program(path)
    assert prog.unsupported == () and prog.notes == ()
    assert [m.instruction for m in prog.motions] == ["MoveAbsJ", "MoveJ", "MoveL", "MoveC", "MoveL", "moveL", "MOVEJ"]
    assert prog.entry == ("main",)
    points = prog.points
    assert len(points) == len(c.T_world_tcp)
    chain = load_robot(robot)
    for point, T_want, q_want, tool in zip(points, c.T_world_tcp, c.q, c.T_flange_tcp_of_point):
        np.testing.assert_allclose(point.T_flange_tcp, tool, atol=1e-15)
        if q_want is not None:
            np.testing.assert_allclose(point.q, q_want, atol=1e-12)
            R, p = fk(nominal_model(chain), point.q)
            T_got = transform(R, p) @ point.T_flange_tcp
        else:
            T_got = point.T_world_tcp
        np.testing.assert_allclose(T_got, T_want, atol=1e-12)
    # spans: the declaration's value for a named target, the argument for an inline one
    text = c.text
    assert text[points[2].text.start:points[2].text.end].startswith("[[")
    assert text[points[2].argument.start:points[2].argument.end] == "Target_20"
    # Target_10 is also read by Offs(Target_10, ...): its declaration must keep the old value
    assert text[points[1].text.start:points[1].text.end] == "Target_10"
    assert text[points[5].argument.start:points[5].argument.end].startswith("RelTool(")
    # the line of the motion (CRLF counted once per line)
    assert prog.motions[1].line == text[:prog.motions[1].statement.start].count("\n") + 1


def test_zero_table_gives_back_the_program_byte_identical(case, tmp_path):
    robot, c, path = case
    out = tmp_path / "out.prg"
    zero = DeformationTable.from_mm_deg(np.zeros((6, 6)))
    report = run_program(robot, zero, path, out)
    assert out.read_bytes() == path.read_bytes()
    assert report.n_changed_texts == 0


def controller_joints(chain, prog):
    """What the nominal controller does with the written program: IK of each robtarget in its confdata."""
    points = prog.points
    cart = [i for i, p in enumerate(points) if not p.is_joint]
    T_flange = np.stack([points[i].T_world_tcp @ np.linalg.inv(points[i].T_flange_tcp) for i in cart])
    found = nominal_solutions(chain, Targets(names=tuple(map(str, cart)), R_world_tcp=T_flange[:, :3, :3],
                                             p_world_tcp=T_flange[:, :3, 3],
                                             confdata=np.array([points[i].confdata for i in cart]),
                                             q_reference=np.tile(chain.home, (len(cart), 1))),
                              CompensationOptions())
    q = np.empty((len(points), chain.n_joints))
    q[cart] = found.q
    for i, p in enumerate(points):
        if p.is_joint:
            q[i] = p.q
    return q, found.status


@pytest.mark.parametrize("output", ["filtered", "joints"])
def test_round_trip_the_warm_robot_reaches_the_targets(case, tmp_path, rng, output):
    robot, c, path = case
    chain = load_robot(robot)
    table = small_table(rng)
    out = tmp_path / "out.prg"
    report = run_program(robot, table, path, out, options=CompensationOptions(time_law=Static()),
                                program_options=ProgramOptions(output=output, joint_targets="compensate"))
    written = read_program(out)
    assert written.unsupported == ()
    assert len(written.points) == len(c.T_world_tcp)
    if output == "joints":
        assert all(m.instruction == "MoveAbsJ" for m in written.motions)
        # MoveC became two joint moves through its two points: one motion more
        assert len(written.motions) == len(read_program(path).motions) + 1
        q = np.stack([p.q for p in written.points])
    else:
        assert [m.instruction for m in written.motions] == [m.instruction for m in read_program(path).motions]
        q, status = controller_joints(chain, written)
        assert np.all(status == 0)
    R, p = fk(deformed_model(chain, table, 1.0), q)
    tools = np.stack(c.T_flange_tcp_of_point)
    T_reached = transform(R, p) @ tools
    T_want = np.stack(c.T_world_tcp)
    pos_err = np.linalg.norm(T_reached[:, :3, 3] - T_want[:, :3, 3], axis=1)
    ang_err = rotation_angle(T_reached[:, :3, :3] @ np.swapaxes(T_want[:, :3, :3], -1, -2))
    # the core's tolerance plus the rounding of the written 32-bit numbers (stated by the report)
    assert report.rounding_position > 0
    assert pos_err.max() <= 10 * IK_POSITION_TOL + 2 * report.rounding_position + 2 * report.rounding_angle * 0.3
    assert ang_err.max() <= 10 * IK_ORIENTATION_TOL + 2 * report.rounding_angle
    assert report.rounding_position <= report.rounding_bound
    # and the uncompensated program would have missed by far more
    assert report.summary.uncompensated_max_position > 100 * pos_err.max()
    # every byte outside the targets is kept: the text between motions is unchanged
    original, new = path.read_bytes().decode("latin-1"), out.read_bytes().decode("latin-1")
    assert new.startswith(original[:original.index("CONST robtarget Target_10")])
    assert new.endswith("  endproc\r\nENDMODULE\r\n")


def test_filtered_confdata_is_recomputed_from_the_corrected_joints(tmp_path):
    from helpers import REPO

    from thermocomp.compensation.compensate import compensate
    from thermocomp.io.deformation_csv import read_deformation_csv

    chain = load_robot("irb140")
    table = read_deformation_csv(REPO / "deformations" / "exaggerated.csv")

    def correction(q):
        R, p = fk(nominal_model(chain), q)
        one = Targets(names=("a",), R_world_tcp=R[None], p_world_tcp=p[None], time_min=np.zeros(1), q_reference=q[None])
        return next(compensate(chain, table, one, CompensationOptions(time_law=Static()))).q[0] - q

    # a target with axis 6 just below a quadrant border that the correction crosses
    q = np.radians([10.0, 5.0, -5.0, 20.0, 40.0, 0.0])
    dq6 = correction(q)[5]
    q[5] = -0.5 * dq6 if dq6 > 0 else np.pi / 2 - 0.5 * dq6
    R, p = fk(nominal_model(chain), q)
    cf = confdata_from_q(nominal_model(chain), q)[0]
    src = ("MODULE m\n  CONST robtarget a:=" + robtarget_text(transform(R, p), cf) + ";\n"
           "  PROC main()\n    MoveL a, v100, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    path = tmp_path / "a.mod"
    path.write_text(src)
    out = tmp_path / "b.mod"
    run_program("irb140", table, path, out,
                       options=CompensationOptions(time_law=Static()))
    point = read_program(out).points[0]
    q_ctrl, status = controller_joints(chain, read_program(out))
    assert status[0] == 0
    assert point.confdata == tuple(confdata_from_q(nominal_model(chain), q_ctrl)[0])
    assert point.confdata != tuple(cf)  # the correction moved axis 6 to the next quadrant


UNSUPPORTED = [
    ("    MoveL Offs(a, 0, 0, AInput(ai1)), v100, fine, tool0;\n", "AInput"),  # a value read while running
    ("    IndAMove Station_A, 1 \\ToAbsNum:=90, 20;\n", "IndAMove"),  # an independent axis
    ("    PDispOn \\ExeP:=a, a, tool0;\n", "PDispOn"),  # a displacement known only while running
    ("    CONNECT intno1 WITH trap1;\n", "CONNECT"),
]


@pytest.mark.parametrize("body,word", UNSUPPORTED)
def test_unsupported_construct_is_named_with_its_line_and_nothing_is_written(tmp_path, body, word):
    chain = load_robot("irb140")
    R, p = fk(nominal_model(chain), chain.home)
    head = ("MODULE m\n  VAR num reg1 := 0;\n  VAR num reg2;\n  CONST robtarget a:="
            + robtarget_text(transform(R, p), [0, 0, 0, 0]) + ";\n  PROC main()\n    MoveJ a, v100, fine, tool0;\n")
    src = head + body + "  ENDPROC\nENDMODULE\n"
    path = tmp_path / "u.mod"
    path.write_text(src)
    out = tmp_path / "u_out.mod"
    zero = DeformationTable.from_mm_deg(np.zeros((6, 6)))
    with pytest.raises(InputError) as info:
        run_program("irb140", zero, path, out)
    line = head.count("\n") + 1
    assert info.value.row == line
    column = 5 if word != "AInput" else 25
    assert f"{path}:{line}:{column}:" in str(info.value) and word in str(info.value)
    assert str(info.value).startswith(f"{path}, line {line}, column {column}: ")  # a character column, not a CSV header's
    assert not out.exists()
    # --unsupported keep: written, the construct left as it was, the report names it
    report = run_program("irb140", zero, path, out, program_options=ProgramOptions(unsupported="keep"))
    assert out.read_text() == src
    assert any(f":{line}:{column}:" in u for u in report.unsupported)


def test_syntax_error_names_line_and_column(tmp_path):
    path = tmp_path / "bad.mod"
    path.write_text("MODULE m\n  PROC main()\n    MoveL a v100, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    with pytest.raises(InputError) as info:
        read_program(path)
    assert info.value.row == 3 and "column 13" in str(info.value)


def test_a_routine_never_called_is_reported_not_dropped(tmp_path):
    chain = load_robot("irb140")
    R, p = fk(nominal_model(chain), chain.home)
    src = ("MODULE m\n  CONST robtarget a:=" + robtarget_text(transform(R, p), [0, 0, 0, 0]) + ";\n"
           "  PROC main()\n    MoveJ a, v100, fine, tool0;\n  ENDPROC\n"
           "  PROC spare()\n    MoveL a, v100, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    path = tmp_path / "n.mod"
    path.write_text(src)
    prog = read_program(path)
    assert len(prog.motions) == 1
    assert len(prog.notes) == 1 and prog.notes[0].line == 6 and "spare" in prog.notes[0].message


def test_random_configurations_are_inside_the_limits(rng):
    chain = load_robot("gofa")
    q = random_configurations(chain, rng, 50)
    assert np.all(chain.within_limits(q))


def test_readme_command_runs_as_shown(tmp_path, capsys):
    """The README's program command, through the real entry point (output redirected to tmp_path)."""
    import re
    import shlex

    from helpers import REPO

    from thermocomp.cli.main import main

    readme = (REPO / "README.md").read_text()
    block = re.search(r"```sh\n(\.venv/bin/thermocomp compensate [^`]*--program [^`]*)```", readme).group(1)
    argv = shlex.split(block.replace("\\\n", " "))[1:]
    out = tmp_path / "comp.mod"
    argv[argv.index("--out") + 1] = str(out)
    argv = [str(REPO / a) if a.startswith(("deformations/", "examples/")) else a for a in argv]
    assert main(argv + ["--program-report", str(tmp_path / "report.txt")]) == 0
    text = out.read_text()
    assert text.count("CONST robtarget") == 6 and "MoveC pArcVia, pArcEnd" in text
    rows = (tmp_path / "report.csv").read_text().splitlines()
    assert rows[0].startswith("motion,instruction,line,minute") and len(rows) == 1 + 8
    assert "wrote" in capsys.readouterr().out


def test_numbers_expressions_and_aggregates_as_the_flexpendant_writes_them():
    """``.5``, ``+5``, ``9E9``, a comment inside an aggregate, RAPID's operator precedence."""
    from thermocomp.programs.rapid import rapid_program_from_text

    text = ("MODULE m\n"
            "  CONST robtarget a:=[[500,+0,600.],[.0,0,1,0],  ! a comment inside the aggregate\n"
            "     [0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
            "  VAR num d := 10 + 2 * 3 - 8 / 4 MOD 3;\n"
            "  PROC main()\n    MoveL Offs(a, d, -d, 2 * d - 1), v100, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    point = rapid_program_from_text(text).points[0]
    # d = 10 + 6 - ((8 / 4) MOD 3) = 14
    np.testing.assert_allclose(point.T_world_tcp[:3, 3], [0.514, -0.014, 0.627], atol=1e-15)
    np.testing.assert_allclose(point.T_world_tcp[:3, :3], np.diag([-1.0, 1.0, -1.0]), atol=1e-15)


def test_an_output_over_the_input_or_another_output_is_refused_before_any_work(tmp_path):
    from helpers import REPO

    program = tmp_path / "p.mod"
    program.write_bytes((REPO / "examples" / "rapid_program.mod").read_bytes())
    zero = DeformationTable.from_mm_deg(np.zeros((6, 6)))
    with pytest.raises(InputError, match="--out"):
        run_program("irb140", zero, program, program)
    assert program.read_bytes() == (REPO / "examples" / "rapid_program.mod").read_bytes()
    with pytest.raises(InputError, match="--results"):
        run_program("irb140", zero, program, tmp_path / "o.mod", results=tmp_path / "o.mod")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.mod"]


def _for_module(chain, rng, loop: str, count_a: int = 2):
    """A module with targets a and b at random configurations; ``loop`` is main's body after MoveJ a."""
    q = random_configurations(chain, rng, count_a)
    R, p = fk(nominal_model(chain), q)
    cf = confdata_from_q(nominal_model(chain), q)
    decl = "".join(f"  CONST robtarget {n}:=" + robtarget_text(transform(R[i], p[i]), cf[i]) + ";\n"
                   for i, n in enumerate("ab"))
    return "MODULE m\n" + decl + "  PROC main()\n    MoveJ a, v100, fine, tool0;\n" + loop + "  ENDPROC\nENDMODULE\n", p


@pytest.mark.parametrize(("head", "passes"), [
    ("FOR i FROM 1 TO 3 DO", 3), ("for k from 1 to 6 step 2 do", 3), ("FOR i FROM 3 TO 1 DO", 3),
    ("FOR i FROM 1 TO 0 STEP 1 DO", 0), ("FOR i FROM 0.5 TO 2.5 DO", 3),
])
def test_a_for_loop_with_constant_bounds_is_unrolled(tmp_path, rng, head, passes):
    chain = load_robot("irb140")
    end = "ENDFOR" if head.isupper() else "endfor"
    src, p = _for_module(chain, rng, f"    {head}\n      MoveL b, v100, fine, tool0;\n      WaitTime 2;\n"
                                     f"      MoveL a, v100, fine, tool0;\n    {end}\n")
    path = tmp_path / "f.mod"
    path.write_text(src)
    prog = read_program(path)
    assert not prog.unsupported
    got = np.array([m.points[0].T_world_tcp[:3, 3] for m in prog.motions])
    np.testing.assert_allclose(got, np.array([p[0]] + [p[1], p[0]] * passes), atol=1e-9)
    # the written program: one text per motion, every pass reaches its targets (a zero table: byte-identical)
    out = tmp_path / "f_out.mod"
    run_program("irb140", DeformationTable.from_mm_deg(np.zeros((6, 6))), path, out)
    assert out.read_text() == src


@pytest.mark.parametrize(("loop", "word"), [
    ("    FOR i FROM 1 TO reg1 DO\n      MoveL Offs(b, 0, 0, i), v100, fine, tool0;\n    ENDFOR\n", "i is changed"),
    ("    FOR i FROM 1 TO 3 STEP 0 DO\n      MoveL b, v100, fine, tool0;\n    ENDFOR\n", "STEP 0"),
])
def test_a_for_loop_it_cannot_unroll_is_named_with_its_line(tmp_path, rng, loop, word):
    chain = load_robot("irb140")
    src, _ = _for_module(chain, rng, loop)
    src = src.replace("MODULE m\n", "MODULE m\n  VAR num reg1 := 3;\n").replace(loop, "    reg1 := GInput(giCount);\n" + loop)
    path = tmp_path / "f.mod"
    path.write_text(src)
    prog = read_program(path)
    line = src.splitlines().index(loop.splitlines()[word == "i is changed"]) + 1
    assert [u.line for u in prog.unsupported] == [line]  # at the FOR, or at the value it cannot know
    assert word in prog.unsupported[0].message
    assert len(prog.motions) == 1  # nothing of the loop is kept


def test_the_production_loop_is_one_cycle(tmp_path, rng):
    """``WHILE TRUE DO ... ENDWHILE`` ending main (RobotStudio's main loop): one cycle is one pass of its body, as
    URScript's ``while (True):``; the motions before it run first, the written program reaches its targets (a
    zero table gives it back byte for byte)."""
    chain = load_robot("irb140")
    loop = "    WHILE TRUE DO\n      MoveL b, v100, fine, tool0;\n      WaitTime 1;\n      MoveL a, v100, fine, tool0;\n" \
           "    ENDWHILE\n"
    src, p = _for_module(chain, rng, loop)
    src = src.replace("WHILE TRUE DO", "while true do")  # keywords in any case
    path = tmp_path / "w.mod"
    path.write_text(src)
    prog = read_program(path)
    assert not prog.unsupported
    line = src.splitlines().index("    while true do") + 1
    assert [(n.line, n.column) for n in prog.notes if "loop forever" in n.message] == [(line, 5)]
    got = np.array([m.points[0].T_world_tcp[:3, 3] for m in prog.motions])
    np.testing.assert_allclose(got, np.array([p[0], p[1], p[0]]), atol=1e-9)
    out = tmp_path / "w_out.mod"
    run_program("irb140", DeformationTable.from_mm_deg(np.zeros((6, 6))), path, out)
    assert out.read_text() == src


@pytest.mark.parametrize("where", ["called", "not last"])
def test_a_forever_loop_that_does_not_end_main_is_followed_once(tmp_path, rng, where):
    """A WHILE TRUE that is not the end of the entry routine (what follows it never runs): its body is followed
    once, in written order, like any loop whose count is known only while running; noted at its line."""
    chain = load_robot("irb140")
    loop = "    WHILE TRUE DO\n      MoveL b, v100, fine, tool0;\n    ENDWHILE\n"
    if where == "called":
        src, p = _for_module(chain, rng, "    cycle;\n")
        src = src.replace("ENDMODULE\n", "  PROC cycle()\n" + loop + "  ENDPROC\nENDMODULE\n")
    else:
        src, p = _for_module(chain, rng, loop + "    MoveL a, v100, fine, tool0;\n")
    path = tmp_path / "w.mod"
    path.write_text(src)
    prog = read_program(path)
    line = src.splitlines().index("    WHILE TRUE DO") + 1
    assert prog.unsupported == ()
    assert [n.line for n in prog.notes if "not resolved before running" in n.message] == [line]
    got = np.array([m.points[0].T_world_tcp[:3, 3] for m in prog.motions])
    np.testing.assert_allclose(got, [p[0], p[1]] + ([p[0]] if where == "not last" else []), atol=1e-9)


def test_the_report_times_every_phase(tmp_path):
    """The program's phases, in order, sum to no more than the whole call (issue 10: timings cover every phase)."""
    import time

    from helpers import REPO

    from thermocomp.app.program import PHASES

    t0 = time.perf_counter()
    report = run_program("irb140", REPO / "deformations" / "exaggerated.csv", REPO / "examples" / "rapid_program.mod",
                                tmp_path / "o.mod")
    wall = time.perf_counter() - t0
    assert tuple(report.phase_seconds) == PHASES
    assert all(v >= 0 for v in report.phase_seconds.values())
    assert sum(report.phase_seconds.values()) <= wall
    assert "phases: reading" in report.text()


def test_progress_hears_every_phase_in_order(tmp_path):
    """A bar that knows phases (the CLI's --progress) is told of each phase and sees it finish with its rows."""
    from helpers import REPO

    from thermocomp.app.program import PHASES

    class Bar:
        def __init__(self):
            self.events = []

        def phase(self, name, total):
            self.events.append(("phase", name))

        def __call__(self, done, total):
            self.events.append(("rows", done, total))

    bar = Bar()
    run_program("irb140", REPO / "deformations" / "exaggerated.csv", REPO / "examples" / "rapid_program.mod",
                       tmp_path / "o.mod", progress=bar)
    announced = [e[1] for e in bar.events if e[0] == "phase"]
    assert announced == [p for p in PHASES if p != "timing"]  # (the timing estimate takes no time worth a line)
    finished = [e for e in bar.events if e[0] == "rows" and e[1] == e[2]]
    assert len(finished) >= 5 and all(e[1] > 0 for e in finished)


#: What RobotStudio writes around motions: a %%% header, module attributes, TASK PERS data, a work object,
#: switches and optional arguments (\\NoEOffs, \\Inpos, \\TLoad, WaitTime \\InPos, PulseDO \\PLength), RelTool.
ROBOTSTUDIO = """%%%
  VERSION:1
  LANGUAGE:ENGLISH
%%%

MODULE MainModule(NOSTEPIN)
    !***********************************************************
    ! Module:  MainModule
    ! Description: generated by RobotStudio
    !***********************************************************
    PERS tooldata MyTool:=[TRUE,[[0,0,120],[1,0,0,0]],[1.5,[0,0,60],[1,0,0,0],0,0,0]];
    TASK PERS wobjdata Workobject_1:=[FALSE,TRUE,"",[[400,-100,200],[1,0,0,0]],[[0,0,0],[1,0,0,0]]];
    PERS loaddata load1:=[2,[0,0,50],[1,0,0,0],0,0,0];
    CONST robtarget Target_10:=[[100,100,150],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];
    CONST robtarget Target_20:=[[150,120,150],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];
    CONST robtarget Target_30:=[[120,150,150],[0,0,1,0],[0,0,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];
    CONST jointtarget jHome:=[[0,0,0,0,30,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];
    CONST zonedata z_fine:=[TRUE,0.3,0.3,0.3,0.03,0.3,0.03];
    PROC main()
        MoveAbsJ jHome\\NoEOffs, v1000, z50, MyTool;
        ConfJ \\Off;
        ConfL \\On;
        AccSet 100, 100;
        SpeedRefresh 80;
        PathAccLim TRUE \\AccMax:=4, TRUE \\DecelMax:=4;
        GripLoad load1;
        Path_10;
        WaitTime \\InPos, 0.5;
        Reset do1;
        PulseDO \\PLength:=0.2, do2;
        MoveL Target_10, v100, fine \\Inpos:=inpos50, MyTool \\TLoad:=load1\\WObj:=Workobject_1;
        MoveL RelTool(Target_20, 0, 0, -50 \\Rz:=45), v200, z_fine, MyTool\\WObj:=Workobject_1;
        MoveAbsJ jHome, v1000, fine, MyTool;
    ENDPROC
    PROC Path_10()
        MoveJ Target_10,v1000,z100,MyTool\\WObj:=Workobject_1;
        MoveL Target_20,v1000,z100,MyTool\\WObj:=Workobject_1;
        MoveC Target_30,Target_10,v1000,z10,MyTool\\WObj:=Workobject_1;
    ENDPROC
ENDMODULE
"""


def test_robotstudio_options_and_switches_are_followed(tmp_path):
    """Every motion followed; targets in Workobject_1 (uframe at 400, -100, 200 mm) land where RAPID puts them."""
    path = tmp_path / "rs.mod"
    path.write_text(ROBOTSTUDIO)
    prog = read_program(path)
    assert prog.unsupported == ()
    assert [m.instruction for m in prog.motions] == ["MoveAbsJ", "MoveJ", "MoveL", "MoveC", "MoveL", "MoveL", "MoveAbsJ"]
    cart = [p.T_world_tcp[:3, 3] * 1e3 for p in prog.points if not p.is_joint]
    # Target_10/20/30 plus the work object; RelTool(Target_20, 0, 0, -50): the tool z of [0,0,1,0] (180 deg about
    # y) is world -z, so 50 mm up
    want = [[500, 0, 350], [550, 20, 350], [520, 50, 350], [500, 0, 350], [500, 0, 350], [550, 20, 400]]
    np.testing.assert_allclose(cart, want, atol=1e-9)
    tool = prog.points[1].T_flange_tcp
    np.testing.assert_allclose(tool[:3, 3], [0, 0, 0.120], atol=1e-15)
    # a zero table gives the module back byte for byte
    out = tmp_path / "rs_out.mod"
    run_program("irb140", DeformationTable.from_mm_deg(np.zeros((6, 6))), path, out)
    assert out.read_text() == ROBOTSTUDIO


def test_a_sensor_path_correction_is_not_followed(tmp_path):
    path = tmp_path / "rs.mod"
    path.write_text(ROBOTSTUDIO.replace("MyTool \\TLoad:=load1", "MyTool \\Corr"))
    prog = read_program(path)
    assert [f.message for f in prog.unsupported] == ["MoveL \\Corr is not followed"]


_CASES_HEAD = (REPO / "examples" / "rapid_program.mod").read_text().split("  PROC main()")[0]
_CASES_HEAD = _CASES_HEAD.replace("  CONST speeddata", "  CONST robtarget place{2}:=[[[0,0,50],[0,0,1,0],[-1,0,-1,0],"
                                  "[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]],[[0,50,50],[0,0,1,0],[-1,0,-1,0],"
                                  "[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]];\n  VAR robtarget pv;\n  CONST speeddata")
_W = "tWeldGun\\WObj:=wobjTable"
_CASES_BODY = (
    f"  PROC main()\n    MoveAbsJ jHome\\NoEOffs, v1000, z50, tool0;\n    mOvEl pEnd, v100, z10, {_W};\n"
    f"    pick pStart, tWeldGun;\n    pick pMid, tWeldGun;\n    MoveL Offs(PARCVIA,0,0,50), v100, fine, {_W};\n"
    f"    MoveC pArcVia, PARCEND, v100, z1, {_W};\n    FOR I FROM 1 TO 2 DO\n      MoveL place{{i}}, v100, fine, {_W};\n"
    f"    ENDFOR\n    pv := pApproach;\n    MoveL pV, v100, fine, {_W};\n  ENDPROC\n"
    "  PROC pick(robtarget P, PERS tooldata T)\n    MoveL p, v100, fine, t\\WObj:=wobjTable;\n  ENDPROC\nENDMODULE\n")


@pytest.mark.parametrize("form", [{}, {"output": "joints"}, {"indexed_minutes": (0.0, 100.0, 200.0)}])
def test_letter_case_never_changes_the_written_form(tmp_path, form):
    """RAPID is case-insensitive: the same module in other letter cases is written the same way (a target
    declared ``pend`` and moved to as ``mOvEl pEnd`` keeps its declaration rewritten, not an inline value);
    only the case of the program's own text differs."""
    rng = random.Random(7)

    def recased(text: str) -> str:
        out = []
        for line in text.splitlines(keepends=True):
            code, bang, comment = line.partition("!")
            code = re.sub(r'"[^"]*"|[A-Za-z_]\w*', lambda m: m.group() if m.group().startswith('"') else "".join(
                c.upper() if rng.random() < 0.5 else c.lower() for c in m.group()), code)
            out.append(code + bang + comment)
        return "".join(out)

    src = _CASES_HEAD + _CASES_BODY
    if form:  # one text cannot serve a routine's or a loop's passes as joint targets, or at several minutes
        src = re.sub(r"    pick .*\n|    FOR .*\n.*\n.*ENDFOR\n", "", src)
    written = []
    for k, text in enumerate((src, recased(src), src.upper(), src.lower())):
        path = tmp_path / f"p{k}.mod"
        path.write_text(text)
        run_program("irb140", REPO / "deformations" / "exaggerated.csv", path, tmp_path / f"o{k}.mod",
                           program_options=ProgramOptions(**form))
        written.append((tmp_path / f"o{k}.mod").read_text())
    assert written[0] != src.replace("\r", "")
    if not form:  # the motion still names its target: the declaration is what is rewritten
        assert "mOvEl pEnd," in written[0] and "CONST robtarget pEnd:=[[80,0,0]" not in written[0]
    assert written[1].lower() == written[0].lower()
    assert written[2].lower() == written[0].lower()
    assert written[3].lower() == written[0].lower()


@pytest.mark.parametrize("form", [ProgramOptions(), ProgramOptions(indexed_minutes=(0.0, 60.0, 120.0))],
                         ids=["snapshot", "time-indexed"])
def test_a_small_correction_keeps_the_sign_of_each_written_quaternion(form, tmp_path, rng):
    """q and -q are one rotation: a target written with q1 (w) < 0, or any sign a generator chose, is written
    back with the same signs (near the written quaternion, not its negation), declared or inline, in a run of
    motions or not."""
    chain = load_robot("irb140")
    model = nominal_model(chain)
    q = random_configurations(chain, rng, 8)
    R, p = fk(model, q)
    T = np.linalg.inv(chain.T_world_base) @ transform(R, p)  # tool0 in the program's world, the robot base
    quat = -quat_wxyz_from_matrix(T[:, :3, :3])  # w <= 0: the sign the writer's own convention flips
    quat[::3] *= -1  # and some with w >= 0
    cf = confdata_from_q(model, q)
    texts = ["[[" + ",".join(f"{v:.9g}" for v in T[i, :3, 3] * 1e3) + "],[" + ",".join(f"{v:.9g}" for v in quat[i])
             + "],[" + ",".join(str(c) for c in cf[i]) + "],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]]" for i in range(8)]
    text = "\n".join(["MODULE Signs", f"  CONST robtarget pDeclared:={texts[0]};", "  PROC main()",
                      "    MoveJ pDeclared, v100, z10, tool0;", "    WaitTime 0.5;",
                      *(f"    MoveL {t}, v100, z10, tool0;" for t in texts[1:]), "  ENDPROC", "ENDMODULE", ""])
    path = tmp_path / "signs.mod"
    path.write_text(text, encoding="latin-1")
    out = tmp_path / "out.mod"
    report = run_program("irb140", small_table(rng), path, out, program_options=form)
    assert report.n_changed_texts == 8  # (every target corrected)
    written = [[float(x) for x in m.group(1).split(",")]
               for m in re.finditer(r"\[\[[^\]]*\],\[([^\]]*)\],\[", out.read_text(encoding="latin-1"))]
    assert len(written) >= 8
    for got in np.array(written):  # each near its own written quaternion: a 0.03 deg table turns it by < 1e-3
        assert np.min(np.linalg.norm(quat - got, axis=1)) < 1e-2
