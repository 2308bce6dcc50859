"""Programs whose every motion target is known before they run, once refused (and the refusals that stay).

Written from the manuals' syntax, not from any fetched program. ABB's "RAPID Instructions, Functions and Data
types" and "RAPID kernel": ``PROC`` with ``num`` parameters calling itself, compact ``IF ... RETURN;`` and
``IF ... GOTO``, labels, ``IF``/``ELSE``, ``TEST``/``CASE``/``DEFAULT``, ``FOR``, arrays of ``robtarget`` and ``num``
with ``{i}`` indices, ``Offs``, ``CalcRobT(jointtarget, tool \\WObj:=wobj)``. UR's "The URScript Programming
Language": ``def`` with parameters, ``pose_trans``, ``pose_inv``, ``interpolate_pose``, ``point_dist``, ``norm``,
``pose_dist``, ``if``/``else``.

- A condition on data the task itself gives values from constants (a counter a FOR of fixed count steps, the
  parameters of a recursive PROC: a Towers-of-Hanoi solver moving discs between three fixed shafts) is decided
  and the branch taken is followed, as the controller does; the size bound counts the branch the file decides.
  A condition on data a cycle reads before giving them a value (a state machine) or on an input stays followed
  along every branch.
- A ``GOTO`` loop whose count the file fixes (``IF i < 5 GOTO lbl;`` after ``i := i + 1;``) is followed pass by pass,
  each pass's target a table entry; one whose count is known only while running stays refused.
- ``CalcRobT`` of a known jointtarget is the robot's forward kinematics: the reader has no robot model, so a
  motion reading it is refused saying so, naming the datum and the line.
- URScript's pure functions of known poses decide a condition and give a target; ``pose_dist``, whose value the
  manual does not define, is refused saying so.
- A URScript function's parameter passed on to a second function that reads it through ``pose_trans`` and as
  itself gets per-call tables, as one level does (tests/test_programs_ucall.py).

Each compensated class: a zero table gives the program back byte for byte, and the written targets, read back and
run through the warm robot (FK of the deformed model), reach the programmed poses within the core's tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest
from program_builders import ur_pose_text
from test_programs_loops import _offs, _zero_then_warm
from test_programs_rapid_cell import _module, _reached
from test_programs_ucall import DOWN, _poses
from test_programs_ucall import _check as _check_ur

from thermocomp import load_robot
from thermocomp.errors import InputError
from thermocomp.programs import RapidOptions, read_program
from thermocomp.tolerances import IK_POSITION_TOL

TOLERANCE = 1e-6 + 10 * IK_POSITION_TOL
DISC_MM = 20.0
SHAFTS = "  CONST robtarget shaft{3} := [a, b, c];\n  VAR num height{3} := [0, 0, 0];\n"
RESET = "    height{1} := 3;\n    height{2} := 0;\n    height{3} := 0;\n"
MOVE_DISC = ("  PROC move_disc(num src, num dst)\n"
             "    MoveL Offs(shaft{src}, 0, 0, height{src} * 20), v200, fine, tGrip;\n"
             "    height{src} := height{src} - 1;\n"
             "    MoveL Offs(shaft{dst}, 0, 0, (height{dst} + 1) * 20), v200, fine, tGrip;\n"
             "    height{dst} := height{dst} + 1;\n"
             "  ENDPROC\n")
SOLVERS = {  # the recursion's end as a block IF, and as RAPID's compact IF with RETURN
    "if_block": ("  PROC solve(num n, num src, num dst, num via)\n    IF n > 0 THEN\n"
                 "      solve n - 1, src, via, dst;\n      move_disc src, dst;\n      solve n - 1, via, dst, src;\n"
                 "    ENDIF\n  ENDPROC\n"),
    "compact_return": ("  PROC solve(num n, num src, num dst, num via)\n    IF n = 0 RETURN;\n"
                       "    solve n - 1, src, via, dst;\n    move_disc src, dst;\n    solve n - 1, via, dst, src;\n"
                       "  ENDPROC\n"),
}


def _hanoi_poses(T: dict, discs: int) -> list[np.ndarray]:
    """The TCP poses a Towers-of-Hanoi solver of ``discs`` discs visits, shafts ``a``, ``b``, ``c`` (each move: the
    top disc of the source, then the place above the destination's top disc), as the controller runs it."""
    shafts, height, poses = [T["a"], T["b"], T["c"]], [discs, 0, 0], []

    def solve(n: int, src: int, dst: int, via: int) -> None:
        if n:
            solve(n - 1, src, via, dst)
            poses.append(_offs(shafts[src], 0, 0, height[src] * DISC_MM))
            height[src] -= 1
            poses.append(_offs(shafts[dst], 0, 0, (height[dst] + 1) * DISC_MM))
            height[dst] += 1
            solve(n - 1, via, dst, src)

    solve(discs, 0, 2, 1)
    return poses


def _compensated(tmp_path, rng, src: str, want: list[np.ndarray]) -> str:
    """Read without refusal; zero table byte for byte; the warm robot reaches ``want`` on the written program."""
    path, out = tmp_path / "cell.mod", tmp_path / "cell_out.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    table, report = _zero_then_warm("irb140", path, out, rng)
    assert report.n_changed_texts > 0
    reached = _reached(load_robot("irb140"), table, out)
    assert len(reached) == len(want)
    assert np.max(np.linalg.norm(reached[:, :3, 3] - np.stack(want)[:, :3, 3], axis=1)) < TOLERANCE
    return out.read_text()


@pytest.mark.parametrize("solver", sorted(SOLVERS))
def test_a_recursive_hanoi_solver_between_fixed_shafts_is_compensated(tmp_path, rng, solver):
    """The recursion's ``IF`` reads the parameter ``n`` (decided at each call), and ``IF n = 0 RETURN;`` ends the
    routine there (it ran on into calls 2^33 deep, refused by the statement bound); each move's targets differ from
    call to call: tables walked call by call."""
    src, T = _module(load_robot("irb140"), rng, RESET + "    solve 3, 1, 3, 2;\n", SOLVERS[solver] + MOVE_DISC,
                     decl=SHAFTS)
    written = _compensated(tmp_path, rng, src, _hanoi_poses(T, 3))
    assert "tcPassT1{tcPassN1}" in written and "tcPassT2{tcPassN2}" in written
    assert read_program(tmp_path / "cell.mod").extra["conditional"] == ()  # (every condition decided)


def test_conditions_on_a_counter_a_fixed_for_steps_choose_the_branch(tmp_path, rng):
    """``nCount`` (a module VAR the cycle resets) stepped in a FOR of 4 passes: the IF and the TEST on it take one
    branch a pass, as the controller does (every branch of every pass was compensated: 12 motions for 8)."""
    loop = ("    nCount := 0;\n    FOR i FROM 1 TO 4 DO\n      nCount := nCount + 1;\n"
            "      IF nCount MOD 2 = 1 THEN\n        MoveL a, v200, fine, tGrip;\n      ELSE\n"
            "        MoveL b, v200, fine, tGrip;\n      ENDIF\n      TEST nCount\n      CASE 1, 2:\n"
            "        MoveL Offs(c, 0, 0, 10), v200, fine, tGrip;\n      DEFAULT:\n"
            "        MoveL Offs(c, 0, 0, nCount * 10), v200, fine, tGrip;\n      ENDTEST\n    ENDFOR\n")
    src, T = _module(load_robot("irb140"), rng, loop)
    want = []
    for n in range(1, 5):
        want += [T["a"] if n % 2 else T["b"], _offs(T["c"], 0, 0, 10 if n <= 2 else 10 * n)]
    _compensated(tmp_path, rng, src, want)


def test_a_state_read_before_the_cycle_sets_it_or_an_input_stays_undecided(tmp_path, rng):
    """A state machine's ``TEST state`` reads what the cycle before left: every case is followed (a decision on its
    declared 0 would leave case 1's motion as written); so is an ``IF`` on an input. The refusal of a motion whose
    data such a path changes still names the datum and the line."""
    machine = ("    TEST state\n    CASE 0:\n      MoveL a, v200, fine, tGrip;\n      state := 1;\n    CASE 1:\n"
               "      MoveL b, v200, fine, tGrip;\n      state := 0;\n    ENDTEST\n"
               "    IF DInput(diPart) = 1 THEN\n      MoveL c, v200, fine, tGrip;\n    ENDIF\n")
    src, T = _module(load_robot("irb140"), rng, machine, decl="  VAR num state := 0;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == () and len(prog.motions) == 3 and len(prog.extra["conditional"]) == 3
    _compensated(tmp_path, rng, src, [T["a"], T["b"], T["c"]])
    moved = machine.replace("MoveL c,", "MoveL Offs(c, 0, 0, state),")
    src, _ = _module(load_robot("irb140"), rng, moved, decl="  VAR num state := 0;\n")
    path.write_text(src)
    line = src.splitlines().index("      state := 1;") + 1
    assert [u.message for u in read_program(path).unsupported] == [
        f"state is changed at run time: line {line} gives it a value inside the TEST at line {line - 3}, whose outcome "
        "is known only while running, and another path leaves it another value: its value at this motion is not known"]


def test_a_value_read_from_a_pers_the_cycle_did_not_set_decides_nothing(tmp_path, rng):
    """``angle := angle_txt;`` of a ``PERS`` a vision PC writes (the cycle never sets it): the IFs on ``angle`` stay
    undecided, through a branch that gives it a constant on one path only; both motions are compensated."""
    body = ("    angle := angle_txt;\n    IF angle < 0 THEN\n      angle := 0;\n    ENDIF\n    IF angle > 45 THEN\n"
            "      MoveL a, v200, fine, tGrip;\n    ELSE\n      MoveL b, v200, fine, tGrip;\n    ENDIF\n")
    src, T = _module(load_robot("irb140"), rng, body, decl="  PERS num angle_txt := 0;\n  VAR num angle;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    assert len(read_program(path).extra["conditional"]) == 2
    _compensated(tmp_path, rng, src, [T["a"], T["b"]])


def test_a_datum_a_trap_gives_a_value_decides_nothing(tmp_path, rng):
    """A TRAP connected to an interrupt sets ``collision := 1`` at any time once connected: ``collision := 0;`` does
    not decide ``IF collision = 0`` after it (the interrupt may come between); both motions are compensated."""
    body = ("    CONNECT iColl WITH tColl;\n    collision := 0;\n    IF collision = 0 THEN\n      MoveL a, v200, fine, "
            "tGrip;\n    ELSE\n      MoveL b, v200, fine, tGrip;\n    ENDIF\n")
    src, T = _module(load_robot("irb140"), rng, body, "  TRAP tColl\n    collision := 1;\n  ENDTRAP\n",
                     decl="  VAR intnum iColl;\n  VAR num collision := 0;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    assert len(read_program(path).extra["conditional"]) == 2
    _compensated(tmp_path, rng, src, [T["a"], T["b"]])


def test_the_size_bound_counts_one_branch_where_the_file_decides(tmp_path, rng):
    """Ten tiers, ``IF nod = k THEN`` a FOR of ``100 k`` motions each (5,500 counted over every branch); the cycle
    sets ``nod := 3``: within a bound of 1,000 (the largest branch), 300 motions read; past the largest branch's
    count even so, refused with the count of every branch."""
    tiers = "".join(f"    {'IF' if k == 1 else 'ELSEIF'} nod = {k} THEN\n      FOR i FROM 1 TO {100 * k} DO\n"
                    f"        MoveL Offs(a, 0, 0, {k}), v200, z10, tGrip;\n      ENDFOR\n" for k in range(1, 11))
    src, _ = _module(load_robot("irb140"), rng, "    nod := 3;\n" + tiers + "    ENDIF\n",
                     decl="  PERS num nod := 1;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path, rapid=RapidOptions(max_motions=1000))
    assert len(prog.motions) == 300 and {m.line for m in prog.motions} == {src.splitlines().index(
        "        MoveL Offs(a, 0, 0, 3), v200, z10, tGrip;") + 1}
    with pytest.raises(InputError, match=r"main unrolls to 5,500 steps .*every branch of an IF or TEST counted.*"
                                         r"more than --max-motions 999"):
        read_program(path, rapid=RapidOptions(max_motions=999))


@pytest.mark.parametrize("counter", ["module", "routine"])
def test_a_goto_loop_whose_count_the_file_fixes_is_followed_pass_by_pass(tmp_path, rng, counter):
    """``i := 0; lbl: MoveL Offs(p, i * 10, 0, 0), ...; i := i + 1; IF i < 5 GOTO lbl;`` (RAPID Instructions, GOTO and
    compact IF): five passes, each its own target, written as a table walked pass by pass (it was refused: at the
    label every datum the routine assigns was taken as known only while running)."""
    decl = "  VAR num i;\n" if counter == "module" else ""
    own = "" if counter == "module" else "    VAR num i;\n"
    loop = (own + "    MoveL b, v200, fine, tGrip;\n    i := 0;\n    lbl:\n"
            "    MoveL Offs(a, i * 10, 0, 0), v200, z10, tGrip;\n    i := i + 1;\n    IF i < 5 GOTO lbl;\n"
            "    MoveL c, v200, fine, tGrip;\n")
    src, T = _module(load_robot("irb140"), rng, loop, decl=decl)
    written = _compensated(tmp_path, rng, src, [T["b"], *(_offs(T["a"], 10 * k, 0, 0) for k in range(5)), T["c"]])
    assert "    lbl:\n    tcPassN1 := tcPassN1 MOD 5 + 1;\n    MoveL tcPassT1{tcPassN1}, v200, z10, tGrip;\n" in written
    assert "    IF i < 5 GOTO lbl;\n" in written


@pytest.mark.parametrize(("step", "words"), [
    ("i := i + DInput(diStep);", "IF ... GOTO lbl: its condition is known only while running"),  # (the pass's count)
    ("i := i + 1;\n    IF DInput(diMore) = 1 GOTO lbl;", "i is changed at run time"),  # (a second GOTO: classic)
])
def test_a_goto_loop_known_only_while_running_stays_refused(tmp_path, rng, step, words):
    """A counter stepped by an input, or a second GOTO on an input: the passes are known only while running; the
    motion reading the counter (or the GOTO) is refused naming the datum and the line."""
    loop = ("    i := 0;\n    lbl:\n    MoveL Offs(a, i * 10, 0, 0), v200, z10, tGrip;\n    " + step
            + "\n    IF i < 5 GOTO lbl;\n")
    src, _ = _module(load_robot("irb140"), rng, loop, decl="  VAR num i;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    found = read_program(path).unsupported
    assert found and words in found[0].message and found[0].line in (
        src.splitlines().index("    MoveL Offs(a, i * 10, 0, 0), v200, z10, tGrip;") + 1,
        src.splitlines().index("    IF i < 5 GOTO lbl;") + 1)


@pytest.mark.parametrize("form", ["assigned", "inline"])
def test_calcrobt_of_a_known_jointtarget_is_refused_saying_why(tmp_path, rng, form):
    """``CalcRobT(jt, tool \\WObj:=wobj)`` is the controller's forward kinematics of ``jt``: the reader has no robot
    model, so the motion reading it is refused naming the datum, the line and the reason (not "changed at run time"
    alone)."""
    decl = "  CONST jointtarget jt := [[10,20,30,0,40,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n  VAR robtarget p;\n"
    body = ("    p := CalcRobT(jt, tGrip \\WObj:=wobj0);\n    MoveL Offs(p, 0, 0, 50), v200, fine, tGrip;\n"
            if form == "assigned" else "    MoveL CalcRobT(jt, tGrip \\WObj:=wobj0), v200, fine, tGrip;\n")
    src, _ = _module(load_robot("irb140"), rng, "    MoveL a, v200, fine, tGrip;\n" + body, decl=decl)
    path = tmp_path / "cell.mod"
    path.write_text(src)
    (found,) = read_program(path).unsupported
    given = next(i for i, text in enumerate(src.splitlines()) if "CalcRobT" in text) + 1
    assert found.line == given + (form == "assigned")  # (the motion that reads it)
    assert "CalcRobT gives the robot's forward kinematics of a jointtarget, which thermocomp does not compute while " \
           "reading: the program is read without the robot model" in found.message
    if form == "assigned":
        assert found.message.startswith(f"p is changed at run time (line {given}, column 5: CalcRobT gives")


def test_urscript_pure_functions_of_known_poses_decide_and_give_targets(tmp_path, rng):
    """``point_dist`` in a condition (the ``else`` branch never runs: its motion stays as written), and
    ``interpolate_pose``, ``pose_inv``, ``norm`` in the assignments a motion reads, evaluated as the manual defines
    them."""
    A, B = _poses(rng, 2)
    src = ("def prog():\n  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n"
           f"  a = {ur_pose_text(A @ DOWN @ DOWN)}\n  b = {ur_pose_text(B)}\n"
           "  if point_dist(a, b) > 0.0:\n    movel(b, a=1.2, v=0.25)\n  else:\n    movel(a, a=1.2, v=0.25)\n  end\n"
           "  c = pose_trans(pose_inv(pose_inv(a)), p[0, 0, norm(-0.1), 0, 0, 0])\n  movel(c, a=1.2, v=0.25)\n"
           "  m = interpolate_pose(b, c, 1.0)\n  movel(m, a=1.2, v=0.25)\nend\n")
    _check_ur(tmp_path, rng, src, [B, A, A])  # (c: a moved back up 0.1 along the tool; m: c itself)


def test_urscript_pose_dist_is_refused_saying_the_manual_does_not_define_it(tmp_path, rng):
    """``pose_dist`` weighs distance and rotation the controller's own way (the manual gives no formula): a motion
    that reads it is refused naming the variable, the line and why."""
    A, B = _poses(rng, 2)
    src = (f"def prog():\n  a = {ur_pose_text(A)}\n  b = {ur_pose_text(B)}\n  d = pose_dist(a, b)\n"
           "  movel(pose_trans(a, p[0, 0, d * 0.01, 0, 0, 0]), a=1.2, v=0.25)\nend\n")
    path = tmp_path / "cell.script"
    path.write_text(src)
    (found,) = read_program(path).unsupported
    assert found.line == 5 and found.message == (
        "the value of d is not known before running (line 4 gives it the value of pose_dist(...) (the controller's own "
        "measure, which the manual does not define), known only while running)")


def test_urscript_a_parameter_passed_on_to_a_second_function_gets_per_call_tables(tmp_path, rng):
    """``a(p)`` calls ``b(p)``, which moves to ``pose_trans(p, off)`` and to ``p``: two calls of ``a`` with two
    poses give the approach a table walked call by call, and each call's pose stays written at its call site."""
    T = _poses(rng, 2)
    src = ("def prog():\n  set_tcp(p[0, 0, 0.1, 0, 0, 0])\n  off = p[0, 0, -0.05, 0, 0, 0]\n"
           "  def b(q):\n    movel(pose_trans(q, off), a=1.2, v=0.25)\n    movel(q, a=1.2, v=0.25)\n  end\n"
           "  def a(q):\n    b(q)\n  end\n"
           f"  a({ur_pose_text(T[0])})\n  a({ur_pose_text(T[1])})\nend\n")
    written, _ = _check_ur(tmp_path, rng, src, [T[0] @ DOWN, T[0], T[1] @ DOWN, T[1]])
    assert "movel(tc_pass_t1[tc_pass_n1], a=1.2, v=0.25)" in written


@pytest.mark.parametrize("head, tail", [
    ("IF DInput(diPart) = 1 THEN", "ENDIF"), ("WHILE DInput(diPart) = 1 DO", "ENDWHILE"),
    ("TEST DInput(diPart)\n    CASE 1:", "ENDTEST"), ("FOR i FROM 1 TO DInput(diPart) DO", "ENDFOR")])
def test_a_routines_own_datum_a_construct_of_unknown_course_assigns_is_unknown_after_it(tmp_path, head, tail):
    """``VAR num x := 0;`` of the routine, given 10 inside an IF, WHILE, TEST or FOR whose course an input decides:
    after it ``x`` is 0 or 10, so the motion reading it is refused naming the construct (a FOR's pass ran over a
    copy of the routine's data: ``x`` stayed 0 after it, the motion compensated 10 mm off on the paths through it).
    A ``Present`` inside such a FOR is the routine's call's, as in a FOR of fixed count."""
    word = head.split()[0]
    src = ("MODULE M\n  CONST robtarget p := [[500,0,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
           "  PROC go(\\num off)\n    VAR num x := 0;\n"
           f"    {head}\n      IF Present(off) x := 10;\n    {tail}\n"
           "    MoveL Offs(p, x, 0, 0), v100, fine, tool0;\n  ENDPROC\n"
           "  PROC main()\n    go \\off:=1;\n  ENDPROC\nENDMODULE\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    line = src.splitlines().index("      IF Present(off) x := 10;") + 1
    at = line - 1 if word != "TEST" else line - 2
    assert prog.motions == () and [u.message for u in prog.unsupported] == [
        f"x is changed at run time: line {line} gives it a value inside the {word} at line {at}, whose outcome is "
        "known only while running, and another path leaves it another value: its value at this motion is not known"]
    assert [n.line for n in prog.notes if n.message.startswith("IF:")] == [at] * (word == "IF")  # (Present decided)
