"""RAPID programs as robot cells run them (issue 25, RAPID; issue 28, the unrolled size).

Written from ABB's documented RAPID syntax ("Technical reference manual - RAPID Instructions, Functions and Data
types"; "RAPID kernel"), not copied from any program: branches and loops that move nothing (IF/ELSEIF/ELSE, TEST,
WHILE, FOR), process and search moves (MoveLDO, TriggL, ArcL, MoveLSync, SearchL, ...), a task of several modules
(``--module``), the entry routine (``--entry``), ``ConfL \\Off`` / ``ConfJ \\Off``, error handlers
with error numbers, targets and work objects computed at run time from constants, and the bound on the motions a
module may unroll to. Each class: the program compensates with default options, a zero table gives it back byte
for byte, only motion targets change, and the written targets take the warm robot (FK of the deformed model) to
the programmed poses.
"""

from __future__ import annotations

import re
import time

import numpy as np
import pytest
from helpers import run_program
from program_builders import random_configurations, robtarget_text
from test_programs_rapid import controller_joints, small_table

from thermocomp import DeformationTable, deformed_model, fk, load_robot, nominal_model
from thermocomp.app.jobs import CompensationFailed
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.geometry.rotations import transform
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.programs import ProgramOptions, RapidOptions, read_program
from thermocomp.programs.model import MAX_MOTIONS
from thermocomp.tolerances import IK_POSITION_TOL

ZERO = DeformationTable.from_mm_deg(np.zeros((6, 6)))
TOOL = "  PERS tooldata tGrip := [TRUE,[[0,0,120],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]];\n"
T_GRIP = transform(np.eye(3), [0.0, 0.0, 0.120])


def _targets(chain, rng, names="abc", T_tool=T_GRIP, confdata=None):
    """Declarations of robtargets ``names`` at random configurations (their TCP poses with ``T_tool``)."""
    q = random_configurations(chain, rng, len(names))
    R, p = fk(nominal_model(chain), q)
    T = transform(R, p) @ T_tool
    cf = confdata_from_q(nominal_model(chain), q) if confdata is None else np.tile(confdata, (len(names), 1))
    decl = "".join(f"  CONST robtarget {n}:=" + robtarget_text(T[i], cf[i]) + ";\n" for i, n in enumerate(names))
    return decl, dict(zip(names, T)), q


def _module(chain, rng, main: str, routines: str = "", decl: str = "", names="abc"):
    targets, T, _ = _targets(chain, rng, names)
    src = ("MODULE cell\n" + targets + TOOL + "  VAR num nCount := 0;\n" + decl + "  PROC main()\n" + main
           + "  ENDPROC\n" + routines + "ENDMODULE\n")
    return src, T


def _outside_targets(path, **options) -> str:
    """The program's text with every motion target's text taken out: what must never change."""
    prog = read_program(path, rapid=RapidOptions(**options))
    text, spans = prog.text, sorted({(p.text.start, p.text.end) for p in prog.points})
    pieces, at = [], 0
    for a, b in spans:
        pieces.append(text[at:a])
        at = b
    return "\x00".join(pieces + [text[at:]])


def _reached(chain, table, path, **options):
    """TCP poses [m] the warm robot reaches running the written program: its points' controller joints (IK in each
    robtarget's written confdata), then the deformed model's FK."""
    written = read_program(path, rapid=RapidOptions(**options))
    q, status = controller_joints(chain, written)
    assert np.all(status == 0)
    R, p = fk(deformed_model(chain, table, 1.0), q)
    return transform(R, p) @ np.stack([pt.T_flange_tcp for pt in written.points])


def _check_compensated(tmp_path, src, want, rng, **options):
    """Zero table: byte for byte; a warm table: only target texts change, every point reached."""
    chain = load_robot("irb140")
    path, out = tmp_path / "cell.mod", tmp_path / "cell_out.mod"
    path.write_text(src)
    popts = ProgramOptions(rapid=RapidOptions(**options))
    run_program("irb140", ZERO, path, out, program_options=popts)
    assert out.read_bytes() == path.read_bytes()
    table = small_table(rng)
    report = run_program("irb140", table, path, out, options=CompensationOptions(time_law=Static()),
                                program_options=popts)
    assert report.n_changed_texts > 0
    assert _outside_targets(out, **options) == _outside_targets(path, **options)
    reached = _reached(chain, table, out, **options)
    assert len(reached) == len(want)
    assert np.max(np.linalg.norm(reached[:, :3, 3] - np.stack(want)[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL
    return report


# ----- control flow that moves nothing

QUIET = [
    "    IF TestDI(diPart) THEN WaitDI diPart, 0; ENDIF\n",
    "    IF DInput(diX) = 1 THEN SetDO doY, 1; ENDIF\n",
    "    IF nCount > 3 THEN\n      SetDO doY, 1;\n    ELSEIF nCount = 2 THEN\n      TPWrite \"two\";\n    ELSE\n"
    "      Incr nCount;\n    ENDIF\n",
    "    TEST GInput(giMode)\n    CASE 1, 2:\n      SetDO doY, 0;\n    CASE 3:\n      WaitTime 0.5;\n    DEFAULT:\n"
    "      PulseDO doY;\n    ENDTEST\n",
    "    WHILE DInput(diReady) = 0 DO\n      WaitTime 0.1;\n    ENDWHILE\n",
    "    FOR i FROM 1 TO GInput(giParts) DO\n      PulseDO doY;\n    ENDFOR\n",
    "    IF DInput(diStop) = 1 Stop;\n",
    "    IF DInput(diAbort) = 1 THEN\n      RETURN;\n    ENDIF\n",
    "    IF DInput(diAsk) = 1 THEN\n      TPReadNum nCount, \"Parts?\";\n      TPWrite \"Parts\" \\Num:=nCount;\n    ENDIF\n",
]


@pytest.mark.parametrize("where", ["main", "routine"])
@pytest.mark.parametrize("branch", QUIET)
def test_a_branch_or_loop_that_moves_nothing_is_kept(tmp_path, rng, branch, where):
    """Between two motions, in the entry routine or in a routine it calls: read without a finding, every motion
    followed in order, the construct noted at its line as not resolved before running."""
    chain = load_robot("irb140")
    if where == "main":
        src, T = _module(chain, rng, "    MoveJ a, v500, z10, tGrip;\n" + branch + "    MoveL b, v100, fine, tGrip;\n")
    else:
        src, T = _module(chain, rng, "    MoveJ a, v500, z10, tGrip;\n    check;\n    MoveL b, v100, fine, tGrip;\n",
                         "  PROC check()\n" + branch + "  ENDPROC\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), np.stack([T["a"], T["b"]]), atol=1e-12)
    line = src.splitlines().index(branch.splitlines()[0]) + 1
    assert line in {n.line for n in prog.notes if "not resolved before running" in n.message}


def test_a_program_full_of_quiet_branches_compensates_only_its_targets(tmp_path, rng):
    src, T = _module(load_robot("irb140"), rng, "    MoveJ a, v500, z10, tGrip;\n" + "".join(QUIET[:6])
                     + "    MoveL b, v100, fine, tGrip;\n" + "".join(QUIET[6:]) + "    MoveL c, v100, fine, tGrip;\n")
    _check_compensated(tmp_path, src, [T["a"], T["b"], T["c"]], rng)


BRANCHES = [
    "    IF DInput(diX) = 1 THEN\n      MoveL c, v100, fine, tGrip;\n    ENDIF\n",
    "    IF DInput(diX) = 1 THEN\n      MoveL c, v100, fine, tGrip;\n    ELSE\n      MoveL Offs(c, 0, 0, 5), v100, fine, tGrip;\n"
    "    ENDIF\n",
    "    WHILE DInput(diX) = 0 DO\n      MoveL c, v100, fine, tGrip;\n    ENDWHILE\n",
    "    TEST GInput(giMode)\n    CASE 1:\n      place;\n    DEFAULT:\n      MoveJ c, v500, z10, tGrip;\n    ENDTEST\n",
    "    IF DInput(diX) = 1 THEN\n      VelSet 50, 500;\n      MoveL c, v100, fine, tGrip;\n    ENDIF\n",
    "    FOR i FROM 1 TO GInput(giParts) DO\n      MoveL c, v100, fine, tGrip;\n    ENDFOR\n",
    "    IF DInput(diX) = 1 MoveL c, v100, fine, tGrip;\n",
    "    WHILE TRUE DO\n      MoveL c, v100, fine, tGrip;\n    ENDWHILE\n",  # (not ending main: followed once)
]


@pytest.mark.parametrize("branch", BRANCHES)
def test_constant_targets_under_a_condition_known_only_while_running_are_compensated(tmp_path, rng, branch):
    """A motion's data decide, not the control flow around it: an IF on an input, a WHILE waiting for one, a TEST
    on a group input, a FOR of a count read from a group input hold motions to constant targets; each is compensated,
    counted once in the written order of the cycle, and the construct is listed (a note at its line naming the
    motions' lines)."""
    chain = load_robot("irb140")
    src, T = _module(chain, rng, "    MoveJ a, v500, z10, tGrip;\n" + branch + "    MoveL b, v100, fine, tGrip;\n",
                     "  PROC place()\n    MoveL c, v100, fine, tGrip;\n  ENDPROC\n")
    lines = src.splitlines()
    line = lines.index(branch.splitlines()[0]) + 1
    inside = [k + 1 if "Move" in x else lines.index("  PROC place()") + 2 for k, x in enumerate(lines)
              if ("Move" in x or "place;" in x) and line <= k + 1 < line + len(branch.splitlines())]  # (written order)
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    assert [m.line for m in prog.motions] == [lines.index("    MoveJ a, v500, z10, tGrip;") + 1,
                                              *inside,
                                              lines.index("    MoveL b, v100, fine, tGrip;") + 1]
    note = next(n for n in prog.notes if n.line == line)
    assert "not resolved before running" in note.message and all(str(k) in note.message for k in inside)
    assert sorted(prog.extra["conditional"]) == sorted(inside)
    want = [T["a"]] + [p.T_world_tcp for p in prog.points[1:-1]] + [T["b"]]
    _check_compensated(tmp_path, src, want, rng)


def test_goto_and_labels_are_followed_in_written_order_what_they_repeat_is_known_only_while_running(tmp_path, rng):
    """``again: ... IF DInput(diX) = 1 GOTO again;``: the routine is followed in written order; a motion to a
    constant target is compensated, one reading data the routine assigns after a label (a GOTO may arrive there
    with another value) is refused naming it. (A GOTO whose condition the file decides is a counted loop,
    test_programs_incr.)"""
    loop = ("    nCount := 0;\n  again:\n    MoveL c, v100, fine, tGrip;\n    MoveL Offs(b, 0, 0, nCount), v100, fine, tGrip;\n"
            "    Incr nCount;\n    IF DInput(diX) = 1 GOTO again;\n")
    src, T = _module(load_robot("irb140"), rng, "    MoveJ a, v500, z10, tGrip;\n" + loop)
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    lines = src.splitlines()
    assert [(u.line, "nCount is changed at run time" in u.message) for u in prog.unsupported] == \
        [(lines.index("    MoveL Offs(b, 0, 0, nCount), v100, fine, tGrip;") + 1, True)]
    assert [n.line for n in prog.notes if n.message.startswith("label again")] == [lines.index("  again:") + 1]
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), [T["a"], T["c"]], atol=1e-12)
    _check_compensated(tmp_path, src.replace("    MoveL Offs(b, 0, 0, nCount), v100, fine, tGrip;\n", ""),
                       [T["a"], T["c"]], rng)


@pytest.mark.parametrize(("trap", "refused"), [
    ("  TRAP tStop\n    nCount := 1;\n    SetDO doY, 0;\n  ENDTRAP\n", ""),
    ("  TRAP tStop\n    MoveL b, v100, fine, tGrip;\n  ENDTRAP\n", "TRAP tStop, which holds MoveL at line"),
])
def test_an_interrupt_whose_trap_moves_nothing_leaves_constant_targets_compensated(tmp_path, rng, trap, refused):
    """``CONNECT intno WITH tStop``: a TRAP that moves nothing runs at times known only while running; what it assigns
    is unknown from the CONNECT on, constant targets stay compensated. One that moves is refused at the CONNECT."""
    main = ("    CONNECT iStop WITH tStop;\n    ISignalDI diStop, 1, iStop;\n    MoveJ a, v500, z10, tGrip;\n"
            "    MoveL Offs(c, 0, 0, nCount), v100, fine, tGrip;\n")
    src, T = _module(load_robot("irb140"), rng, main, trap, decl="  VAR intnum iStop;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    lines = src.splitlines()
    if refused:
        assert [u.line for u in prog.unsupported if refused in u.message] == [lines.index(main.splitlines()[0]) + 1]
        return
    assert [(u.line, "nCount is changed" in u.message) for u in prog.unsupported] == \
        [(lines.index("    MoveL Offs(c, 0, 0, nCount), v100, fine, tGrip;") + 1, True)]
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), [T["a"]], atol=1e-12)


@pytest.mark.parametrize(("call", "followed"), [
    ('    %"place"%;\n', True), ('    %"pla" + "ce"%;\n', True), ("    %sRoutine%;\n", True),
    ('    sRoutine := "pla" + NumToStr(GInput(giPart), 0);\n    %sRoutine%;\n', False),
])
def test_a_late_bound_call_whose_routine_is_known_is_that_routine_s_call(tmp_path, rng, call, followed):
    """``%"place"%;`` (RAPID's late binding): a name known before running calls that routine, its motions
    compensated; a name known only while running is refused at the call."""
    src, T = _module(load_robot("irb140"), rng, "    MoveJ a, v500, z10, tGrip;\n" + call,
                     "  PROC place()\n    MoveL c, v100, fine, tGrip;\n  ENDPROC\n",
                     decl='  VAR string sRoutine := "place";\n')
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    if followed:
        assert prog.unsupported == ()
        np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), [T["a"], T["c"]], atol=1e-12)
    else:
        assert [u.line for u in prog.unsupported] == [src.splitlines().index("    %sRoutine%;") + 1]


@pytest.mark.parametrize(("branch", "data", "at"), [
    ("    WHILE DInput(diX) = 0 DO\n      MoveL Offs(c, 0, 0, nCount), v100, fine, tGrip;\n      Incr nCount;\n"
     "    ENDWHILE\n", "nCount", "      MoveL Offs(c, 0, 0, nCount), v100, fine, tGrip;"),
    ("    FOR i FROM 1 TO GInput(giParts) DO\n      MoveL Offs(c, 0, 0, 10 * i), v100, fine, tGrip;\n    ENDFOR\n",
     "i", "      MoveL Offs(c, 0, 0, 10 * i), v100, fine, tGrip;"),
    ("    IF DInput(diX) = 1 THEN\n      wTable := wOther;\n    ENDIF\n    MoveL c, v100, fine, tGrip \\WObj:=wTable;\n",
     "wTable", "    MoveL c, v100, fine, tGrip \\WObj:=wTable;"),
    ("    nCount := GInput(giParts);\n    MoveL Offs(c, 0, 0, nCount), v100, fine, tGrip;\n", "nCount",
     "    MoveL Offs(c, 0, 0, nCount), v100, fine, tGrip;"),
    ("    IF DInput(diX) = 1 THEN\n      g_Frame wTable;\n    ENDIF\n    MoveL c, v100, fine, tGrip \\WObj:=wTable;\n",
     "wTable is changed at run time", "    MoveL c, v100, fine, tGrip \\WObj:=wTable;"),
])
def test_a_motion_whose_data_differ_from_pass_to_pass_is_refused_naming_the_data(tmp_path, rng, branch, data, at):
    """A counter, an input, a work object reassigned in a branch: refused at the motion's line, naming the data
    (a work object passed to a routine found nowhere in a branch: at the motion, naming it)."""
    src, _ = _module(load_robot("irb140"), rng, "    MoveJ a, v500, z10, tGrip;\n" + branch
                     + "    MoveL b, v100, fine, tGrip;\n", decl="  VAR wobjdata wTable := [FALSE,TRUE,\"\",[[0,0,0],"
                     "[1,0,0,0]],[[0,0,0],[1,0,0,0]]];\n  CONST wobjdata wOther := [FALSE,TRUE,\"\",[[0,0,50],"
                     "[1,0,0,0]],[[0,0,0],[1,0,0,0]]];\n")
    path, out = tmp_path / "cell.mod", tmp_path / "cell_out.mod"
    path.write_text(src)
    with pytest.raises(InputError) as info:
        run_program("irb140", small_table(rng), path, out)
    assert info.value.row == src.splitlines().index(at) + 1 and data in str(info.value)
    assert not out.exists()
    run_program("irb140", small_table(rng), path, out, options=CompensationOptions(time_law=Static()),
                       program_options=ProgramOptions(unsupported="keep"))
    assert at in out.read_text().splitlines()  # kept as written


# ----- process and search moves

PROCESS = [
    ("MoveLDO {p}, v100, fine, tGrip, doGlue, 1;", 1),
    ("MoveJDO {p}, v500, z10, tGrip, doGlue, 0;", 1),
    ("MoveLAO {p}, v100, z5, tGrip, aoFlow, 2.5;", 1),
    ("MoveLSync {p}, v100, z5, tGrip, \"glue_on\";", 1),
    ("TriggL {p}, v100, trGlue, z5, tGrip;", 1),
    ("TriggL \\Conc, {p}, v100, trGlue \\T2:=trOff, z5, tGrip \\WObj:=wobj0;", 1),
    ("TriggJ {p}, v500, trGlue, z10, tGrip;", 1),
    ("ArcL {p}, v100, seam1, weld1, weave1, z1, tGrip;", 1),
    ("ArcLStart {p}, v100, seam1, weld1, fine, tGrip;", 1),
    ("ArcC {q}, {p}, v100, seam1, weld1, weave1, z1, tGrip;", 2),
    ("MoveCDO {q}, {p}, v100, z5, tGrip, doGlue, 1;", 2),
    ("SearchL \\Stop, diEdge, pFound, {p}, v50, tGrip;", 1),
    ("SpotL {p}, vmax, gun1, tGrip;", 1),
]


@pytest.mark.parametrize(("statement", "n_points"), PROCESS)
def test_a_process_move_is_read_as_a_motion_to_its_target(tmp_path, rng, statement, n_points):
    chain = load_robot("irb140")
    move = "    " + statement.format(p="b", q="c") + "\n"
    src, T = _module(chain, rng, "    MoveJ a, v500, z10, tGrip;\n" + move + "    MoveL a, v100, fine, tGrip;\n",
                     decl="  VAR robtarget pFound;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    assert [m.instruction for m in prog.motions] == ["MoveJ", re.match(r"\w+", statement).group(), "MoveL"]
    assert [len(m.points) for m in prog.motions] == [1, n_points, 1]
    want = [T["a"]] + ([T["c"]] if n_points == 2 else []) + [T["b"], T["a"]]
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), want, atol=1e-12)
    assert all(np.allclose(p.T_flange_tcp, T_GRIP) for p in prog.points)


def test_process_moves_have_their_targets_compensated_and_the_rest_kept(tmp_path, rng):
    names = "abcdefghijklmnop"
    targets, T, _ = _targets(load_robot("irb140"), rng, names)
    body, want, k = "", [], 0
    for statement, n_points in PROCESS:
        p, q = names[k], names[k + 1]
        body += "    " + statement.format(p=p, q=q) + "\n"
        want += ([T[q]] if n_points == 2 else []) + [T[p]]
        k = (k + 2) % (len(names) - 1)
    src = ("MODULE cell\n" + targets + TOOL + "  VAR robtarget pFound;\n  PROC main()\n" + body
           + "  ENDPROC\nENDMODULE\n")
    _check_compensated(tmp_path, src, want, rng)


def test_a_search_s_found_point_is_known_only_while_running(tmp_path, rng):
    src, _ = _module(load_robot("irb140"), rng, "    SearchL \\Stop, diEdge, pFound, b, v50, tGrip;\n"
                     "    MoveL pFound, v100, fine, tGrip;\n", decl="  VAR robtarget pFound;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    assert [(f.line, "pFound is changed at run time" in f.message) for f in prog.unsupported] == \
        [(src.splitlines().index("    MoveL pFound, v100, fine, tGrip;") + 1, True)]


def test_a_process_move_has_no_joint_form(tmp_path, rng):
    src, _ = _module(load_robot("irb140"), rng, "    MoveJ a, v500, z10, tGrip;\n"
                     "    TriggL b, v100, trGlue, z5, tGrip;\n")
    path, out = tmp_path / "cell.mod", tmp_path / "cell_out.mod"
    path.write_text(src)
    with pytest.raises(InputError, match="TriggL has no joint form") as info:
        run_program("irb140", ZERO, path, out, program_options=ProgramOptions(output="joints"))
    assert info.value.row == src.splitlines().index("    TriggL b, v100, trGlue, z5, tGrip;") + 1
    assert not out.exists()


# ----- a task of several modules

CALIB = ("MODULE CalibData\n  TASK PERS tooldata tSucker := [TRUE,[[0,0,150],[1,0,0,0]],[2,[0,0,60],[1,0,0,0],0,0,0]];\n"
         "  PERS wobjdata wTable := [FALSE,TRUE,\"\",[[400,-100,50],[1,0,0,0]],[[0,0,0],[1,0,0,0]]];\n"
         "  LOCAL PERS num nOwn := 1;\nENDMODULE\n")
GRIP = ("MODULE GripLib\n  PROC g_GripIn()\n    SetDO doVacuum, 1;\n    IF NOT TestDI(diVacuum) THEN\n"
        "      WaitDI diVacuum, 1 \\MaxTime:=2;\n    ENDIF\n  ENDPROC\n  PROC g_GripOut()\n    SetDO doVacuum, 0;\n"
        "    WaitTime 0.2;\n  ENDPROC\n  PROC g_Home()\n    MoveAbsJ [[0,0,0,0,30,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v500,"
        " fine, tool0;\n  ENDPROC\nENDMODULE\n")


def _task(tmp_path, rng, main):
    """A program using CalibData.mod's tool and work object and GripLib.mod's routines; the targets' poses."""
    chain = load_robot("irb140")
    T_tool = transform(np.eye(3), [0.0, 0.0, 0.150])
    T_wobj = transform(np.eye(3), [0.4, -0.1, 0.05])
    q = random_configurations(chain, rng, 2)
    R, p = fk(nominal_model(chain), q)
    T = transform(R, p) @ T_tool
    cf = confdata_from_q(nominal_model(chain), q)
    decl = "".join(f"  CONST robtarget {n}:=" + robtarget_text(np.linalg.inv(T_wobj) @ T[i], cf[i]) + ";\n"
                   for i, n in enumerate("ab"))
    src = "MODULE PickPlace\n" + decl + "  PROC main()\n" + main + "  ENDPROC\nENDMODULE\n"
    (tmp_path / "CalibData.mod").write_text(CALIB)
    (tmp_path / "GripLib.mod").write_text(GRIP)
    return src, T, (str(tmp_path / "CalibData.mod"), str(tmp_path / "GripLib.mod"))


PICK = ("    MoveJ a, v500, z10, tSucker \\WObj:=wTable;\n    g_GripIn;\n    MoveL b, v100, fine, tSucker \\WObj:=wTable;\n"
        "    g_GripOut;\n")


def test_the_task_s_other_modules_give_their_data_and_routines(tmp_path, rng):
    src, T, modules = _task(tmp_path, rng, PICK)
    path = tmp_path / "PickPlace.mod"
    path.write_text(src)
    alone = read_program(path)  # (the motions read a tool and a work object declared in no module given)
    assert {f.line for f in alone.unsupported} == {src.splitlines().index(x) + 1 for x in PICK.splitlines()[::2]}
    assert all("--module" in f.message for f in alone.unsupported)
    assert sorted(n.message.split()[0] for n in alone.notes if "found in no module" in n.message) == [
        "g_GripIn", "g_GripOut"]
    prog = read_program(path, rapid=RapidOptions(modules=modules))
    assert prog.unsupported == ()
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), T, atol=1e-12)
    before = {m: open(m, "rb").read() for m in modules}
    _check_compensated(tmp_path, src, list(T), rng, modules=modules)
    assert {m: open(m, "rb").read() for m in modules} == before  # the other modules are never written


def test_a_routine_of_another_module_that_moves_is_followed_and_one_found_nowhere_is_named(tmp_path, rng):
    """A routine of another module that moves is followed in its module's file (its motion's spans are there:
    tests/test_programs_modules.py); one found in no module is passed over, a note naming it and the option that
    has it followed."""
    src, _, modules = _task(tmp_path, rng, PICK + "    g_Home;\n    g_Flash 3;\n")
    path = tmp_path / "PickPlace.mod"
    path.write_text(src)
    prog = read_program(path, rapid=RapidOptions(modules=modules))
    assert prog.unsupported == ()
    flash = src.splitlines().index("    g_Flash 3;") + 1
    found = [n for n in prog.notes if n.message.startswith("g_Flash ")]
    assert [(n.file, n.line) for n in found] == [(0, flash)] and "--module FILE" in found[0].message
    home = [m for m in prog.motions if m.instruction == "MoveAbsJ"]
    assert [(m.file, m.statement.line) for m in home] == [(2, 13)]  # (GripLib.mod, the second --module)
    assert prog.files[2][0] == modules[1]


def test_a_module_s_declarations_may_use_the_data_of_the_modules_given_before_it(tmp_path, rng):
    (tmp_path / "base.mod").write_text("MODULE base(SYSMODULE)\n  CONST num nBase := 10;\nENDMODULE\n")
    (tmp_path / "lift.mod").write_text("MODULE lift\n  CONST num nLift := nBase * 2;\nENDMODULE\n")
    src, T = _module(load_robot("irb140"), rng, "    MoveL Offs(a, 0, 0, nLift), v100, fine, tGrip;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path, rapid=RapidOptions(modules=(str(tmp_path / "base.mod"), str(tmp_path / "lift.mod"))))
    assert prog.unsupported == ()
    np.testing.assert_allclose(prog.points[0].T_world_tcp[:3, 3], T["a"][:3, 3] + [0, 0, 0.020], atol=1e-12)


def test_a_module_s_declarations_may_use_the_data_of_a_module_given_after_it(tmp_path, rng):
    """RAPID knows every module's data at once: a datum whose value reads the data of a module given after its own
    (or of the program) gets it once all are declared; one of a LOCAL datum of another module never does."""
    (tmp_path / "lift.mod").write_text("MODULE lift\n  CONST num nLift := nBase * 2 + nCell;\n"
                                       "  CONST num nHidden := nOwn;\nENDMODULE\n")
    (tmp_path / "base.mod").write_text("MODULE base\n  CONST num nBase := 10;\n  LOCAL CONST num nOwn := 1;\nENDMODULE\n")
    src, T = _module(load_robot("irb140"), rng, "    MoveL Offs(a, 0, 0, nLift), v100, fine, tGrip;\n"
                                                 "    MoveL Offs(a, 0, 0, nHidden), v100, fine, tGrip;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src.replace("  PROC main()", "  CONST num nCell := 5;\n  PROC main()"))
    prog = read_program(path, rapid=RapidOptions(modules=(str(tmp_path / "lift.mod"), str(tmp_path / "base.mod"))))
    np.testing.assert_allclose(prog.points[0].T_world_tcp[:3, 3], T["a"][:3, 3] + [0, 0, 0.025], atol=1e-12)
    (refused,) = prog.unsupported
    assert refused.line == src.splitlines().index("    MoveL Offs(a, 0, 0, nHidden), v100, fine, tGrip;") + 2
    assert "nHidden has no value known before the program runs" in refused.message


def test_a_target_declared_in_another_module_is_written_there(tmp_path, rng):
    src, _, modules = _task(tmp_path, rng, PICK)
    calib = CALIB.replace("ENDMODULE", "  CONST robtarget pDrop := [[400,0,400],[0,0,1,0],[0,0,0,0],"
                                       "[9E9,9E9,9E9,9E9,9E9,9E9]];\nENDMODULE")
    (tmp_path / "CalibData.mod").write_text(calib)
    src = src.replace("    g_GripOut;\n", "    g_GripOut;\n    MoveL pDrop, v100, fine, tSucker;\n")
    path = tmp_path / "PickPlace.mod"
    path.write_text(src)
    prog = read_program(path, rapid=RapidOptions(modules=modules))
    assert prog.unsupported == ()
    (drop,) = [p for p in prog.points if p.name == "pDrop"]
    assert prog.files[drop.file] == (modules[0], calib)
    assert calib[drop.text.start:drop.text.end] == "[[400,0,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"
    assert calib.splitlines()[drop.text.line - 1].startswith("  CONST robtarget pDrop")


def test_a_name_declared_in_two_modules_is_an_error_naming_both(tmp_path, rng):
    src, _, modules = _task(tmp_path, rng, PICK)
    path = tmp_path / "PickPlace.mod"
    path.write_text(src.replace("  PROC main()", TOOL.replace("tGrip", "tSucker") + "  PROC main()"))
    with pytest.raises(InputError, match="tSucker is declared in two modules") as info:
        read_program(path, rapid=RapidOptions(modules=modules))
    assert "CalibData.mod" in str(info.value)


# ----- the entry routine

def test_an_empty_main_runs_the_routines_nothing_calls_and_a_main_that_moves_nothing_names_them(tmp_path, rng):
    """RobotStudio's new-module template: a ``main`` holding only "Add your code here" and a Path_10 nothing calls:
    Path_10 is the cycle (a note at ``main`` says so), as in a module without ``main``. A ``main`` that holds
    statements but calls no routine that moves is refused naming the routine and ``--entry``."""
    chain = load_robot("irb140")
    targets, T, _ = _targets(chain, rng, "ab")
    path_10 = ("  PROC Path_10()\n    MoveJ a, v1000, z100, tGrip\\WObj:=wobj0;\n"
               "    MoveL b, v1000, z100, tGrip\\WObj:=wobj0;\n  ENDPROC\n")
    src = "MODULE Module1\n" + targets + TOOL + "  PROC main()\n    !Add your code here\n  ENDPROC\n" + path_10 + "ENDMODULE\n"
    _check_compensated(tmp_path, src.replace("MODULE Module1", "MODULE cell"), [T["a"], T["b"]], rng)
    path, out = tmp_path / "Module1.mod", tmp_path / "out.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.entry == ("Path_10",) and [n.line for n in prog.notes if "holds no statement" in n.message] == [
        src.splitlines().index("  PROC main()") + 1]
    path.write_text(src.replace("!Add your code here", 'TPWrite "ready";'))
    line = src.splitlines().index("  PROC Path_10()") + 1
    with pytest.raises(InputError, match=rf"Path_10 \(line {line}\): 2 motions, not called from main; rerun with "
                       "--entry Path_10") as refused:
        run_program("irb140", ZERO, path, out)
    assert (refused.value.row, refused.value.column) == (line, 3)
    assert not out.exists()
    _check_compensated(tmp_path, src.replace("MODULE Module1", "MODULE cell"), [T["a"], T["b"]], rng, entry="Path_10")
    with pytest.raises(InputError, match="--entry Path_20: expected a PROC of this module.*main, Path_10"):
        read_program(path, rapid=RapidOptions(entry="Path_20"))


@pytest.mark.parametrize(("options", "word"), [
    ({"entry": "1st"}, "--entry"),
    ({"max_motions": 0}, "--max-motions"), ({"max_motions": 2.5}, "--max-motions"),
])
def test_rapid_options_are_checked(options, word):
    with pytest.raises(ConfigurationError, match=word):
        RapidOptions(**options)


# ----- ConfL \Off, ConfJ \Off

def _generated(chain, rng, conf_lines: str):
    """A program as generators write it: approximate confdata [0,0,0,0] on targets whose configuration is another
    (axis 1 turned past 90 degrees: cf1 = 1; axis 6 past 90: cf6 = 1; axis 5 negative: cfx odd)."""
    q = random_configurations(chain, rng, 3)
    q[:, 0] = np.radians([100.0, 105.0, 110.0])
    q[:, 4] = -np.abs(q[:, 4])
    q[:, 5] = np.radians([120.0, 125.0, 130.0])
    R, p = fk(nominal_model(chain), q)
    T = transform(R, p) @ T_GRIP
    assert np.all(confdata_from_q(nominal_model(chain), q)[:, [0, 2, 3]] % 2 == 1)
    decl = "".join(f"  CONST robtarget {n}:=" + robtarget_text(T[i], [0, 0, 0, 0]) + ";\n" for i, n in enumerate("abc"))
    src = ("MODULE gen\n" + decl + TOOL + "  PROC main()\n" + conf_lines + "    MoveJ a, v500, z10, tGrip;\n"
           "    MoveL b, v100, z1, tGrip;\n    MoveL c, v100, fine, tGrip;\n  ENDPROC\nENDMODULE\n")
    return src, T, q


def test_confdata_the_controller_ignores_does_not_fail_the_program(tmp_path, rng):
    """Under ConfJ \\Off and ConfL \\Off the controller takes the solution nearest the robot's joints: the program
    compensates, each written confdata is the corrected joints' own, and the report says where it changed and
    why. Under \\On the same targets cannot be reached in the confdata written."""
    chain = load_robot("irb140")
    src, T, q = _generated(chain, rng, "    ConfJ \\Off;\n    ConfL \\Off;\n")
    path = tmp_path / "gen.mod"
    path.write_text(src)
    report = _check_compensated(tmp_path, src, list(T), rng)
    lines = [src.splitlines().index(f"    {x} {n}, v{v}, {z}, tGrip;") + 1
             for x, n, v, z in (("MoveJ", "a", 500, "z10"), ("MoveL", "b", 100, "z1"), ("MoveL", "c", 100, "fine"))]
    changed = [n for n in report.notes if "confdata written" in n]
    assert [int(n.split(":")[1]) for n in changed] == lines  # each motion, in the order they run
    assert all("read [0,0,0,0]" in n and "ConfL \\Off or ConfJ \\Off" in n for n in changed)
    # \On (the default): the controller keeps to the confdata written, in which no solution reaches these targets
    path.write_text(src.replace("    ConfJ \\Off;\n    ConfL \\Off;\n", ""))
    with pytest.raises(CompensationFailed, match="configuration"):
        run_program("irb140", ZERO, path, tmp_path / "on.mod")


def test_conf_off_covers_only_the_motions_after_it(tmp_path, rng):
    chain = load_robot("irb140")
    src, _, _ = _generated(chain, rng, "")
    src = src.replace("    MoveL b,", "    ConfL \\Off;\n    MoveL b,").replace("    MoveL c,", "    ConfL \\On;\n    MoveL c,")
    path = tmp_path / "gen.mod"
    path.write_text(src)
    prog = read_program(path)
    from thermocomp.programs.compensate import confdata_free

    np.testing.assert_array_equal(confdata_free(prog), [False, True, False])


# ----- syntax real files use

def test_error_handlers_with_error_numbers_are_read(tmp_path, rng):
    handler = ("  ERROR (LONG_JMP_ALL_ERR)\n    IF ERRNO = ERR_PATH_STOP THEN\n      StartMove;\n      RETRY;\n    ENDIF\n")
    routine = ("  PROC place()\n    MoveL c, v100, fine, tGrip;\n  ERROR (ERR_WAIT_MAXTIME, 1234)\n"
               "    TRYNEXT;\n  ENDPROC\n")
    src, T = _module(load_robot("irb140"), rng, "    MoveJ a, v500, z10, tGrip;\n    place;\n"
                     "    MoveL b, v100, fine, tGrip;\n" + handler, routine)
    _check_compensated(tmp_path, src, [T["a"], T["c"], T["b"]], rng)


def test_targets_and_work_objects_computed_from_constants_are_followed(tmp_path, rng):
    """``box := Offs(a, 0, 0, 50);`` and a work object moved by components, at run time from constants: evaluated
    as straight-line code (the motion at box has its target written at the motion)."""
    chain = load_robot("irb140")
    T_w = transform(np.eye(3), [0.1, 0.0, 0.0])
    src, T = _module(chain, rng, "    box := Offs(a, 0, 0, 50);\n    MoveJ box, v500, z10, tGrip;\n"
                     "    MoveL a, v100, fine, tGrip;\n    wShift.uframe.trans.x := 100;\n"
                     "    MoveL RelTool(b, 0, 0, -20), v100, fine, tGrip \\WObj:=wShift;\n",
                     decl="  VAR robtarget box;\n  VAR wobjdata wShift := [FALSE,TRUE,\"\",[[0,0,0],[1,0,0,0]],"
                          "[[0,0,0],[1,0,0,0]]];\n")
    up = transform(np.eye(3), [0.0, 0.0, 0.050]) @ T["a"]
    back = T_w @ T["b"] @ transform(np.eye(3), [0.0, 0.0, -0.020])
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), [up, T["a"], back], atol=1e-12)
    _check_compensated(tmp_path, src, [up, T["a"], back], rng)


@pytest.mark.parametrize(("change", "refused"), [
    ("    nLift := 20;\n    nLift := nLift * 2 + 5;\n", ""),  # a num given known values: followed
    ("    nLift := nLift + 10;\n", "nLift is changed at run time (line 9, column 5; it differs from cycle to cycle)"),
    # (the next cycle adds 10 more)
])
def test_an_assignment_of_a_known_number_is_followed(tmp_path, rng, change, refused):
    src, T = _module(load_robot("irb140"), rng, change + "    MoveL Offs(a, 0, 0, nLift), v100, fine, tGrip;\n",
                     decl="  VAR num nLift := 0;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    if refused:
        assert [refused in u.message for u in prog.unsupported] == [True]
        return
    assert prog.unsupported == ()
    want = T["a"].copy()
    want[2, 3] += 0.045  # (Offs: in the work object's frame, here the world's; 45 mm)
    np.testing.assert_allclose(prog.points[0].T_world_tcp, want, atol=1e-12)
    _check_compensated(tmp_path, src, [want], rng)


def test_a_routine_that_moves_nothing_takes_arguments_known_only_while_running(tmp_path, rng):
    """``show nCount;`` after ``Incr nCount``: a counter passed to a routine that moves nothing (a display, a log)
    changes no motion, neither this cycle nor the next: the motions around it are compensated."""
    src, T = _module(load_robot("irb140"), rng, "    MoveJ a, v500, z10, tGrip;\n    Incr nCount;\n    show nCount;\n"
                     "    MoveL b, v100, fine, tGrip;\n",
                     "  PROC show(num n)\n    TPWrite \"parts\" \\Num:=n;\n  ENDPROC\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), [T["a"], T["b"]], atol=1e-12)


@pytest.mark.parametrize(("change", "word"), [
    ("    nLift := AInput(aiHeight);\n    box := Offs(a, 0, 0, nLift);\n", "box is changed at run time"),
    ("    box := Offs(a, 0, 0, 10);\n    Incr nCount;\n    box.trans.z := box.trans.z + nCount;\n",
     "box is changed at run time"),
    ("    SocketReceive sock \\RawData:=raw;\n    UnpackRawBytes raw, 1, nLift \\Float4;\n    box := Offs(a, 0, 0, nLift);\n",
     "box is changed at run time"),  # (a value read from a socket)
    ("    TPReadNum nLift, \"Lift [mm]?\";\n    box := Offs(a, 0, 0, nLift);\n", "box is changed at run time"),
])
def test_data_known_only_at_run_time_is_refused_with_its_line(tmp_path, rng, change, word):
    src, _ = _module(load_robot("irb140"), rng, change + "    MoveJ box, v500, z10, tGrip;\n",
                     decl="  VAR robtarget box;\n  VAR num nLift := 0;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported and any(word in f.message for f in prog.unsupported), prog.unsupported


# ----- the size a program unrolls to (issue 28)

def test_a_tree_of_calls_unrolling_to_2_to_the_40_motions_is_refused_at_once(tmp_path, rng):
    tree = "".join(f"  PROC r{i}()\n    r{i + 1};\n    r{i + 1};\n  ENDPROC\n" for i in range(40))
    src, _ = _module(load_robot("irb140"), rng, "    r0;\n",
                     tree + "  PROC r40()\n    MoveL a, v100, fine, tGrip;\n  ENDPROC\n")
    path = tmp_path / "bomb.mod"
    path.write_text(src)
    started = time.process_time()
    with pytest.raises(InputError) as info:
        read_program(path)
    assert time.process_time() - started < 30  # (counted, not unrolled: a fraction of a second unloaded)
    assert f"{2 ** 40:,} steps" in str(info.value) and f"--max-motions {MAX_MOTIONS:,}" in str(info.value)


@pytest.mark.parametrize("where", ["program", "module", "condition"])
def test_a_tree_of_calls_that_moves_nothing_is_bounded_too(tmp_path, rng, where):
    """40 routines each calling the next twice, none moving: 2^40 calls. In the program (under a condition too) it
    is refused at once with its count; in a --module, whose routines are checked not run, each is checked once."""
    tree = "".join(f"  PROC r{i}()\n    r{i + 1};\n    r{i + 1};\n  ENDPROC\n" for i in range(40))
    tree += "  PROC r40()\n    SetDO doY, 1;\n  ENDPROC\n"
    call = "    IF DInput(diX) = 1 THEN\n      r0;\n    ENDIF\n" if where == "condition" else "    r0;\n"
    src, _ = _module(load_robot("irb140"), rng, "    MoveJ a, v500, z10, tGrip;\n" + call,
                     tree if where != "module" else "")
    path = tmp_path / "tree.mod"
    path.write_text(src)
    started = time.process_time()
    if where == "module":
        (tmp_path / "lib.mod").write_text("MODULE lib\n" + tree + "ENDMODULE\n")
        prog = read_program(path, rapid=RapidOptions(modules=(str(tmp_path / "lib.mod"),)))
        assert prog.unsupported == () and len(prog.motions) == 1
    else:
        with pytest.raises(InputError, match="unrolls to 1,099,511,627,777 steps"):
            read_program(path)
    assert time.process_time() - started < 30  # (a fraction of a second unloaded)


@pytest.mark.parametrize(("loops", "count"), [
    ("    FOR i FROM 1 TO 10000 DO\n      FOR j FROM 1 TO 10000 DO\n        MoveL a, v100, fine, tGrip;\n"
     "      ENDFOR\n    ENDFOR\n", 10 ** 8),
    ("    FOR i FROM 1 TO 3 DO\n      MoveL a, v100, fine, tGrip;\n      WaitTime 1;\n    ENDFOR\n", 6),
])
def test_the_bound_counts_loops_and_waits_and_is_an_option(tmp_path, rng, loops, count):
    src, _ = _module(load_robot("irb140"), rng, loops)
    path = tmp_path / "loops.mod"
    path.write_text(src)
    with pytest.raises(InputError, match=f"unrolls to {count:,} steps.*--max-motions {count - 1:,}"):
        read_program(path, rapid=RapidOptions(max_motions=count - 1))
    if count < 1000:
        assert len(read_program(path, rapid=RapidOptions(max_motions=count)).wait_seconds) == count


def test_a_bound_known_only_when_the_loop_runs_is_checked_there(tmp_path, rng):
    src, _ = _module(load_robot("irb140"), rng, "    rows 50;\n",
                     "  PROC rows(num n)\n    FOR i FROM 1 TO n DO\n      MoveL a, v100, fine, tGrip;\n"
                     "    ENDFOR\n  ENDPROC\n")
    path = tmp_path / "rows.mod"
    path.write_text(src)
    with pytest.raises(InputError, match="FOR with 50 passes unrolls to 50 steps") as info:
        read_program(path, rapid=RapidOptions(max_motions=49))
    assert info.value.row == src.splitlines().index("    FOR i FROM 1 TO n DO") + 1


@pytest.mark.slow
def test_a_100000_pass_loop_is_read_in_seconds(tmp_path, rng):
    """One pass is followed and repeated when the body neither reads the counter nor changes anything (245 s
    before, each pass followed statement by statement)."""
    src, T = _module(load_robot("irb140"), rng, "    FOR i FROM 1 TO 100000 DO\n      MoveL a, v100, z1, tGrip;\n"
                     "      MoveL Offs(b, 0, 0, 10), v100, z1, tGrip;\n    ENDFOR\n")
    path = tmp_path / "long.mod"
    path.write_text(src)
    started = time.process_time()
    prog = read_program(path)
    assert time.process_time() - started < 60
    assert len(prog.run.instruction) == 200_000 and prog.unsupported == ()
    np.testing.assert_allclose(prog.run.T_world_tcp[-2], T["a"], atol=1e-12)


def test_the_cli_takes_the_task_options(tmp_path, rng, capsys):
    from thermocomp.cli.main import main

    src, T, modules = _task(tmp_path, rng, PICK + "    g_Flash 3;\n    g_Other;\n")
    path = tmp_path / "PickPlace.mod"
    path.write_text(src.replace("  PROC main()", "  PROC Path_10()"))
    (tmp_path / "zero.csv").write_text("Dx,Dy,Dz,Dox,Doy,Doz\n" + "0,0,0,0,0,0\n" * 6)
    out = tmp_path / "out.mod"
    argv = ["compensate", "--robot", "irb140", "--deformation", str(tmp_path / "zero.csv"), "--program", str(path),
            "--out", str(out), "--entry", "Path_10"]
    assert main(argv + [a for m in modules for a in ("--module", m)]) == 0
    assert out.read_bytes() == path.read_bytes()
    out.unlink()
    assert main(argv + ["--module", modules[0], "--module", modules[1], "--max-motions", "1"]) == 1
    assert "--max-motions 1" in capsys.readouterr().err and not out.exists()
    (tmp_path / "t.csv").write_text("name,x_mm,y_mm,z_mm,quat_w,quat_x,quat_y,quat_z\nA,500,0,600,0,0,1,0\n")
    assert main(["compensate", "--deformation", str(tmp_path / "zero.csv"), "--targets", str(tmp_path / "t.csv"),
                 "--out", str(tmp_path / "r.csv"), "--entry", "Path_10"]) != 0
    assert "--entry: only with --program" in capsys.readouterr().err and not (tmp_path / "r.csv").exists()
    help_text = _help()
    assert "--module FILE" in help_text and "--entry NAME" in help_text and f"(default {MAX_MOTIONS:,}" in help_text


def _help() -> str:
    import contextlib
    import io

    from thermocomp.cli.main import main
    from thermocomp.programs.model import MAX_MOTIONS

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), pytest.raises(SystemExit):
        main(["compensate", "--help"])
    assert f"{MAX_MOTIONS:,}" in " ".join(buffer.getvalue().split())
    return " ".join(buffer.getvalue().split())


def test_a_branch_passed_over_that_changes_a_target_read_before_it_is_named_at_the_read(tmp_path, rng):
    """``MoveL pShift; IF ... THEN pShift := Offs(...); ENDIF``: this cycle reads the declared value, the next may
    read the other: named at the read, with the assignment inside the IF."""
    chain = load_robot("irb140")
    targets, _, _ = _targets(chain, rng, "s")
    src, _ = _module(chain, rng, "    MoveJ a, v500, z10, tGrip;\n    MoveL s, v100, fine, tGrip;\n"
                     "    IF DInput(diShift) = 1 THEN\n      s := Offs(b, 0, 0, 5);\n    ENDIF\n",
                     decl=targets.replace("CONST", "VAR"))
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    lines = src.splitlines()
    given = lines.index("      s := Offs(b, 0, 0, 5);") + 1
    assert [(f.line, f"(line {given}, column 7; it differs from cycle to cycle)" in f.message)
            for f in prog.unsupported] == [(lines.index("    MoveL s, v100, fine, tGrip;") + 1, True)]
