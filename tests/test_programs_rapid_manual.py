"""RAPID forms found in real programs of a second corpus, each tested from the RAPID manuals' syntax (ABB,
"Technical reference manual - RAPID kernel" and "RAPID Instructions, Functions and Data types"): a parameter list
whose optional parameter follows without a comma, placeholders (``<SMT>``, ``<DDN>``), the arithmetic functions of
known values, and a module that is not text (an encrypted module)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from scipy.spatial.transform import Rotation
from test_programs_rapid_cell import _check_compensated
from test_programs_rapid_language import _language_module, _read_clean

from thermocomp.errors import InputError
from thermocomp.programs import read_program
from thermocomp.programs.rapid_functions import FunctionError, evaluate_function


def test_an_optional_parameter_may_follow_without_a_comma(tmp_path, rng):
    """RAPID kernel, "Parameter declarations": ``<next parameter declaration> ::= ',' <parameter declaration> |
    <optional parameter declaration> | ...``: ``PROC place(robtarget p \\switch Slow)`` is valid."""
    routine = ("  PROC place(robtarget p \\switch Slow \\num Pause)\n    MoveL p, v100, fine, tGrip;\n"
               "  ENDPROC\n")
    src, want = _language_module(rng, motions="    place a \\Slow;\n    place b;\n")
    _read_clean(tmp_path, src.replace("ENDMODULE\n", routine + "ENDMODULE\n"), want)


def test_placeholders_load_and_a_statement_placeholder_ends_its_routine(tmp_path, rng):
    """RAPID kernel, "Placeholders": a program holding them is syntactically correct; running into ``<SMT>`` is an
    execution error, so nothing after it in the routine runs."""
    src, want = _language_module(rng, motions="    MoveJ a, v500, z10, tGrip;\n    MoveL b, v100, fine, tGrip;\n"
                                              "    <SMT>\n    MoveL a, v100, fine, tGrip;\n")
    src = src.replace("  PROC main()", "  <DDN>\n  <RDN>\n  PROC main()")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), want, atol=1e-12)
    assert any("<SMT>" in note.message for note in prog.notes)


#: (call, its value by an independent computation): scipy's rotations for the orientation functions.
_ZYX = Rotation.from_euler("ZYX", [30.0, 20.0, 10.0], degrees=True)
_Q = np.roll(_ZYX.as_quat(), 1)  # (scipy: scalar last; RAPID: scalar first)
NUM_CALLS = [
    ("abs", [-3.5], {}, 3.5), ("sqrt", [16.0], {}, 4.0), ("pow", [2.0, 10.0], {}, 1024.0),
    ("exp", [1.0], {}, math.e), ("sin", [30.0], {}, 0.5), ("cos", [60.0], {}, 0.5), ("tan", [45.0], {}, 1.0),
    ("asin", [0.5], {}, 30.0), ("acos", [0.5], {}, 60.0), ("atan", [1.0], {}, 45.0),
    ("atan2", [1.0, -1.0], {}, 135.0), ("round", [2.46], {"dec": 1.0}, 2.5), ("round", [-2.5], {}, -3.0),
    ("trunc", [2.46], {"dec": 1.0}, 2.4), ("trunc", [-2.9], {}, -2.0),
    ("eulerzyx", [list(_Q)], {"z": None}, 30.0), ("eulerzyx", [list(_Q)], {"y": None}, 20.0),
    ("eulerzyx", [list(_Q)], {"x": None}, 10.0), ("distance", [[1.0, 2.0, 3.0], [4.0, 6.0, 3.0]], {}, 5.0),
    ("vectmagn", [[3.0, 0.0, 4.0]], {}, 5.0), ("dotprod", [[1.0, 2.0, 3.0], [4.0, -5.0, 6.0]], {}, 12.0),
]


@pytest.mark.parametrize(("key", "args", "switches", "want"), NUM_CALLS)
def test_arithmetic_functions_give_the_manuals_values(key, args, switches, want):
    value, rtype = evaluate_function(key, args, switches)
    assert rtype == "num"
    assert value == pytest.approx(want, abs=1e-9)


def test_orientation_and_pose_functions_agree_with_an_independent_rotation_library():
    q, rtype = evaluate_function("orientzyx", [30.0, 20.0, 10.0], {})
    assert rtype == "orient"
    assert abs(float(np.dot(q, _Q))) == pytest.approx(1.0, abs=1e-12)  # (q and -q are one rotation)
    pose = [[10.0, -20.0, 30.0], list(_Q)]
    inverse, _ = evaluate_function("poseinv", [pose], {})
    identity, rtype = evaluate_function("posemult", [pose, inverse], {})
    assert rtype == "pose"
    np.testing.assert_allclose(identity[0], 0.0, atol=1e-9)
    assert abs(identity[1][0]) == pytest.approx(1.0, abs=1e-12)
    moved, rtype = evaluate_function("posevect", [pose, [1.0, 2.0, 3.0]], {})
    np.testing.assert_allclose(moved, _ZYX.apply([1.0, 2.0, 3.0]) + [10.0, -20.0, 30.0], atol=1e-9)
    unit, _ = evaluate_function("norient", [[2.0, 0.0, 0.0, 0.0]], {})
    assert rtype == "pos"
    assert unit == [1.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize(("key", "args", "switches"), [
    ("sqrt", [-1.0], {}), ("asin", [2.0], {}), ("eulerzyx", [[1.0, 0.0, 0.0, 0.0]], {}),
    ("abs", [1.0, 2.0], {}), ("round", [1.0], {"dec": 0.5}), ("sin", [1.0], {"dec": 1.0}),
])
def test_arguments_outside_a_functions_domain_are_refused(key, args, switches):
    with pytest.raises(FunctionError):
        evaluate_function(key, args, switches)


@pytest.mark.parametrize(("key", "args", "message"), [
    ("sin", [True], "argument 1: expected a num"), ("strlen", [1.0], "argument 1: expected a string"),
    ("strpart", ["abc", 1.5, 1.0], "argument 2: expected a whole number, got 1.5"),
    ("norient", [[0.0, 0.0, 0.0, 0.0]], "argument 1: expected an orientation, got a zero quaternion"),
])
def test_an_argument_of_another_kind_is_named_with_the_kind_expected(key, args, message):
    with pytest.raises(FunctionError) as info:
        evaluate_function(key, args, {})
    assert str(info.value) == message


#: (a declaration calling a function with an argument of a record kind not of that record's shape, the argument, the
#: message) after the manual's signatures: ``Offs(Point robtarget, ...)``, ``VectMagn(Vector pos)``,
#: ``PoseInv(Pose pose)``, ``NOrient(Rotation orient)``.
RECORD_ARGUMENTS = [
    ("CONST num d := VectMagn([1, 2]);", "[1, 2]",
     "VectMagn: argument 1: expected a pos of 3 components (x, y, z), got an aggregate of 2 components"),
    ("CONST pose p := PoseInv([[0, 0, 0], [1, 0, 0, 0], [0, 0, 0]]);", "[[0, 0, 0], [1, 0, 0, 0], [0, 0, 0]]",
     "PoseInv: argument 1: expected a pose of 2 components (trans, rot), got an aggregate of 3 components"),
    ("CONST pose p := PoseInv([[0, 0], [1, 0, 0, 0]]);", "[[0, 0], [1, 0, 0, 0]]",
     "PoseInv: argument 1: expected a pos of 3 components (x, y, z), got an aggregate of 2 components"),
    ("CONST orient q := NOrient([1, 0, 0]);", "[1, 0, 0]",
     "NOrient: argument 1: expected an orient of 4 components (q1, q2, q3, q4), got an aggregate of 3 components"),
    ("CONST orient q := NOrient([1, 0, 0, TRUE]);", "[1, 0, 0, TRUE]",
     "NOrient: argument 1: orient.q4: expected a number, got a bool"),
    ("CONST robtarget r := Offs([[0, 0, 0], [1, 0, 0, 0]], 1, 2, 3);", "[[0, 0, 0], [1, 0, 0, 0]]",
     "Offs: argument 1: expected a robtarget of 4 components (trans, rot, robconf, extax), got an aggregate of 2 "
     "components"),
]


@pytest.mark.parametrize(("decl", "argument", "message"), RECORD_ARGUMENTS)
def test_an_argument_not_of_its_records_shape_is_refused_at_the_argument(tmp_path, rng, decl, argument, message):
    """The one check of a record's shape (the declarations' own) names the call, the argument's place, the shape
    expected and what came; the program is refused with its line and the argument's column."""
    src, _ = _language_module(rng, decl=f"  {decl}\n")
    path = tmp_path / "cell.mod"
    path.write_text(src)
    line = src.splitlines().index(f"  {decl}")
    with pytest.raises(InputError) as info:
        read_program(path)
    assert (info.value.path, info.value.row) == (str(path), line + 1)
    assert info.value.message == f"{message} (column {src.splitlines()[line].index(argument) + 1})"


#: (call, its value) from the examples of the RAPID reference's string functions.
STRING_CALLS = [
    ("strlen", ["Robotics"], {}, 8.0), ("strpart", ["Robotics", 1.0, 5.0], {}, "Robot"),
    ("strpart", ["Robotics", 9.0, 0.0], {}, ""), ("strfind", ["Robotics", 1.0, "aeiou"], {}, 2.0),
    ("strfind", ["Robotics", 1.0, "Rob"], {"notinset": None}, 5.0), ("strfind", ["Robotics", 3.0, "xyz"], {}, 9.0),
    ("strmatch", ["Robotics", 1.0, "bo"], {}, 3.0), ("strmatch", ["Robotics", 4.0, "bo"], {}, 9.0),
    ("strmemb", ["Robotics", 2.0, "aeiou"], {}, True), ("strmemb", ["Robotics", 3.0, "aeiou"], {}, False),
    ("strmap", ["Robotics", "obs", "OBS"], {}, "ROBOticS"), ("strorder", ["FIRST", "SECOND", "FSIR"], {}, True),
    ("strorder", ["SECOND", "FIRST", "FSIR"], {}, False), ("strorder", ["ab", "abc", ""], {}, True),
    ("numtostr", [0.38521, 3.0], {}, "0.385"), ("numtostr", [-2.5, 0.0], {}, "-3"),
    ("numtostr", [0.38521, 2.0], {"exp": None}, "3.85E-01"), ("valtostr", [[1.1234567, 2.0, 9e9]], {}, "[1.12346,2,9E+09]"),
    ("valtostr", [True], {}, "TRUE"), ("valtostr", ["it"], {}, "it"),
]


@pytest.mark.parametrize(("key", "args", "switches", "want"), STRING_CALLS)
def test_string_functions_give_the_manuals_values(key, args, switches, want):
    value, rtype = evaluate_function(key, args, switches)
    assert (value, rtype) == (want, {str: "string", bool: "bool", float: "num"}[type(want)])


@pytest.mark.parametrize(("key", "args"), [
    ("strpart", ["abc", 3.0, 2.0]), ("strpart", ["abc", 0.0, 1.0]), ("strpart", ["abc", 1.5, 1.0]),
    ("strmemb", ["abc", 4.0, "a"]), ("strmap", ["abc", "ab", "A"]), ("strlen", [1.0]),
    ("numtostr", [1.0, 16.0]), ("valtostr", [[1.5] * 30]),
])
def test_string_functions_refuse_what_rapid_refuses(key, args):
    """A position outside the string, a part past its end, maps of two lengths, a result of more than 80
    characters: RAPID's run-time errors, refused before running."""
    with pytest.raises(FunctionError):
        evaluate_function(key, args, {})


def test_targets_computed_by_functions_of_known_values_are_followed(tmp_path, rng):
    """A target built with ``OrientZYX`` and arithmetic functions reads as the same target written out."""
    computed = ("    c := Offs(a, Abs(-10), Round(2.46\\Dec:=1) * 10, Sqrt(16) + EulerZYX(\\Z, OrientZYX(30, 0, 0)));\n"
                "    c.rot := OrientZYX(30, 20, 10);\n")
    quat = ",".join(f"{v:.17g}" for v in _Q)
    written = f"    c := Offs(a, 10, 25, 34);\n    c.rot := [{quat}];\n"
    motions = "    MoveJ a, v500, z10, tGrip;\n{statements}    MoveL c, v100, fine, tGrip;\n"
    points = []
    for statements in (computed, written):
        src, _ = _language_module(rng=np.random.default_rng(7), statements=statements, motions=motions)
        path = tmp_path / "cell.mod"
        path.write_text(src.replace("  PROC main()", "  VAR robtarget c;\n  PROC main()"))
        prog = read_program(path)
        assert prog.unsupported == (), prog.unsupported
        points.append(np.stack([p.T_world_tcp for p in prog.points]))
    np.testing.assert_allclose(points[0], points[1], atol=1e-9)


def test_a_module_that_is_not_text_is_refused_as_such(tmp_path):
    """An encrypted module (binary bytes) is not a syntax error of a text: the message says what it is."""
    path = tmp_path / "lib.mod"
    path.write_bytes(b"\xfc0\x1d\xe1\n\x01\x80\x02MODULE x\nENDMODULE\n")
    with pytest.raises(InputError, match="not RAPID text") as info:
        read_program(path)
    assert "line 1" in str(info.value)


def test_a_spot_weld_of_several_guns_is_a_motion_and_trigger_set_ups_are_passed_over(tmp_path, rng):
    """``SpotMJ ToPoint, Speed, Spot, Tool`` (Spot Servo Multiple Guns) moves to its point like ``MoveJ``;
    ``TriggCheckIO`` and ``TestSignDefine`` set something up and move nothing."""
    decl = "  PERS spotdata sp1 := [1, 2, 3];\n  VAR triggdata tr;\n"
    statements = ("    TriggCheckIO tr, 10, diGate, EQ, 1, intno1\\Start;\n    TestSignDefine 1, resolver_angle, "
                  "Orbit, 2, 0;\n")
    motions = "    SpotMJ a, v500, sp1, tGrip;\n{statements}    MoveL b, v100, fine, tGrip;\n"
    src, want = _language_module(rng, decl=decl + "  VAR intnum intno1;\n", statements=statements, motions=motions)
    _read_clean(tmp_path, src, want)


def test_a_multi_pass_weld_replayed_from_a_recorded_path_is_refused_with_its_line(tmp_path, rng):
    """``ArcRepL \\Start \\End, Offset, Speed, Seam, Weld, Weave, Zone, Tool`` replays a path recorded at run time:
    no point of it is in the program, so it is named as not followed, with its line."""
    decl = "  PERS multidata layer2 := [1, 15, 15, 0, 0, 5, 5, 0, 0];\n  PERS seamdata sm := [0];\n" \
           "  PERS welddata wd := [0];\n  PERS weavedata wv := [0];\n"
    statements = "    ArcRepL \\Start \\End, layer2, v100, sm, wd, wv, z10, tGrip;\n"
    src, _ = _language_module(rng, decl=decl, statements=statements)
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    found = [f for f in prog.unsupported if "ArcRepL" in f.message]
    assert found and found[0].line == src[:src.index("ArcRepL")].count("\n") + 1


def test_an_element_of_an_array_given_known_values_is_followed_and_compensated(tmp_path, rng):
    """RAPID kernel, "Assignment": the target of ``:=`` may be an element (``pts{2} := a;``) or a component of
    one (``pts{2}.trans := b.trans;``). With known values the motions reach the points they name, and compensating
    changes only the targets' texts (the motions of elements whose values were assigned are written there)."""
    statements = ("    pts{1} := a;\n    pts{2} := a;\n    pts{2}.trans := b.trans;\n    pts{2}.rot := b.rot;\n"
                  "    pts{2}.robconf := b.robconf;\n    nRow{2} := 1;\n")
    motions = "{statements}    MoveJ pts{{1}}, v500, z10, tGrip;\n    MoveL pts{{nRow{{2}} + 1}}, v100, fine, tGrip;\n"
    src, want = _language_module(rng, statements=statements, motions=motions)
    src = src.replace("  PROC main()", "  VAR robtarget pts{2};\n  VAR num nRow{2} := [0, 0];\n  PROC main()")
    _read_clean(tmp_path, src, want)
    _check_compensated(tmp_path, src, want, rng)


def test_an_element_never_given_a_value_is_refused_naming_it(tmp_path, rng):
    motions = "    pts{{2}} := b;\n    MoveJ pts{{1}}, v500, z10, tGrip;\n    MoveL pts{{2}}, v100, fine, tGrip;\n"
    src, _ = _language_module(rng, motions=motions)
    path = tmp_path / "cell.mod"
    path.write_text(src.replace("  PROC main()", "  VAR robtarget pts{2};\n  PROC main()"))
    prog = read_program(path)
    assert [f.message.split(" has ")[0] for f in prog.unsupported] == ["pts{1}"]
    assert len(prog.points) == 1


FUNCS = ("  FUNC robtarget above(robtarget p, num dz)\n    VAR num k;\n    k := dz * 2;\n"
         "    RETURN Offs(p, 0, 0, k - 2 * dz);\n  ENDFUNC\n"
         "  LOCAL FUNC num twice_of(num x)\n    RETURN x + x;\n  ENDFUNC\n"
         "  FUNC robtarget chosen(robtarget p)\n    IF DInput(diSide) = 1 THEN\n      RETURN Offs(p, 0, 10, 0);\n"
         "    ENDIF\n    RETURN p;\n  ENDFUNC\n")


def test_a_call_of_the_tasks_own_function_of_known_values_is_followed(tmp_path, rng):
    """RAPID kernel, "Functions": a FUNC of declarations, assignments and RETURN, called with known arguments, gives
    the target it computes (here the point itself, through local data and another FUNC)."""
    motions = "    MoveJ above(a, 25), v500, z10, tGrip;\n    MoveL above(b, twice_of(3)), v100, fine, tGrip;\n"
    src, want = _language_module(rng, motions=motions)
    src = src.replace("ENDMODULE\n", FUNCS + "ENDMODULE\n")
    _read_clean(tmp_path, src, want)
    _check_compensated(tmp_path, src, want, rng)


def test_a_function_whose_result_depends_on_an_input_is_refused_naming_it(tmp_path, rng):
    src, _ = _language_module(rng, motions="    MoveJ a, v500, z10, tGrip;\n    MoveL chosen(b), v100, fine, tGrip;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src.replace("ENDMODULE\n", FUNCS + "ENDMODULE\n"))
    prog = read_program(path)
    assert len(prog.unsupported) == 1 and "function chosen" in prog.unsupported[0].message


def test_a_loop_over_an_array_bounded_by_dim_is_followed(tmp_path, rng):
    """``Dim(ArrPar, DimNo)`` (RAPID functions): the number of elements along one dimension, so ``FOR i FROM 1 TO
    Dim(pts, 1)`` runs a count the file fixes (each element's correction written in its declaration); a dimension
    the array does not have is an error naming the call."""
    motions = ("    FOR i FROM Dim(grid, 2) - 2 TO Dim(pts, 1) DO\n      MoveL pts{{i}}, v100, fine, tGrip;\n"
               "    ENDFOR\n")
    src, want = _language_module(rng, motions=motions)
    points = dict(re.findall(r"CONST robtarget (\w+):=(\[.*\]);", src))
    decl = f"  CONST robtarget pts{{2}} := [{points['a']}, {points['b']}];\n  CONST num grid{{2, 3}} := [[1, 2, 3], [4, 5, 6]];\n"
    src = src.replace("  PROC main()", decl + "  PROC main()")
    _read_clean(tmp_path, src, want)
    _check_compensated(tmp_path, src, want, rng)
    path = tmp_path / "bad.mod"
    path.write_text(src.replace("Dim(pts, 1)", "Dim(pts, 2)"))
    with pytest.raises(InputError, match="Dim: the array has 1 dimension"):
        read_program(path)


DECIDED = ("  CONST bool bUseB := TRUE;\n  CONST num nMode := 2;\n  PERS bool bOperator := TRUE;\n"
           "  VAR num nToggle := 0;\n")


@pytest.mark.parametrize(("motions", "want", "unresolved"), [
    # a FOR counter decides: each pass runs its own branch (two motions, not four)
    ("    FOR i FROM 1 TO 2 DO\n      IF i = 1 THEN\n        MoveJ a, v500, z10, tGrip;\n      ELSEIF i = 2 THEN\n"
     "        MoveL b, v100, fine, tGrip;\n      ENDIF\n    ENDFOR\n", "ab", False),
    # constants, RAPID's precedence (* before +, comparisons before AND before OR), NOT of a bracketed condition
    ("    MoveJ a, v500, z10, tGrip;\n    IF 1 + 2 * 3 = 7 OR FALSE AND FALSE THEN\n"
     "      IF bUseB AND NOT (nMode <> 2) MoveL b, v100, fine, tGrip;\n    ELSE\n      MoveL a, v100, fine, tGrip;\n"
     "    ENDIF\n", "ab", False),
    # a PERS (the operator or another task may set it) and a VAR some statement changes: running decides
    ("    MoveJ a, v500, z10, tGrip;\n    IF bOperator THEN\n      MoveL b, v100, fine, tGrip;\n    ENDIF\n"
     "    IF nToggle = 0 THEN\n      nToggle := 1;\n    ENDIF\n", "ab", True),
])
def test_an_if_the_file_decides_runs_one_branch(tmp_path, rng, motions, want, unresolved):
    """RAPID kernel, "IF" and "Priority between operators": a condition on the routine's own data (a FOR counter, a
    parameter) or on data nothing in the task changes runs the branch it selects; one on a PERS or on data a
    statement changes is followed branch by branch, noted as not resolved."""
    src, targets = _language_module(rng, decl=DECIDED, motions=motions)
    path = tmp_path / "cell.mod"
    path.write_text(src)
    prog = read_program(path)
    assert prog.unsupported == ()
    index = {"a": 0, "b": 1}
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]),
                               np.stack([targets[index[c]] for c in want]), atol=1e-12)
    assert any("not resolved" in n.message for n in prog.notes) == unresolved


def test_present_of_an_optional_parameter_decides_an_if(tmp_path, rng):
    """``Present(OptPar)`` (RAPID functions) is known at each call: the branch it selects runs."""
    routine = ("  PROC go(robtarget p \\switch Lift \\num Depth)\n    VAR num d := 5;\n    IF Present(Depth) d := Depth;\n"
               "    IF Present(Lift) AND d = 0 THEN\n      MoveJ Offs(p, 0, 0, d), v500, z10, tGrip;\n    ELSE\n"
               "      MoveL p, v100, fine, tGrip;\n    ENDIF\n  ENDPROC\n")
    src, want = _language_module(rng, motions="    go a \\Lift \\Depth:=0;\n    go b;\n")
    path = tmp_path / "cell.mod"
    path.write_text(src.replace("ENDMODULE\n", routine + "ENDMODULE\n"))
    prog = read_program(path)
    assert prog.unsupported == ()
    assert not any("not resolved" in n.message for n in prog.notes)
    assert [m.kind for m in prog.motions] == ["joint", "linear"]
    np.testing.assert_allclose(np.stack([p.T_world_tcp for p in prog.points]), want, atol=1e-12)
