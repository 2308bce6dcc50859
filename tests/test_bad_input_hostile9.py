"""Hostile input found by the ninth adversarial run, each a sample of a class: valid text refused as if it were
something else (a flat chain of terms as "nested too deeply"), a robot file reading files outside its folders, line
numbers that are not the editor's, motion parameters checked against another quantity's bound. Programs written from
the manuals' syntax (ABB "Technical reference manual - RAPID kernel": expressions, ``AND``, ``OR``, ``XOR``, ``DIV``;
UR "The URScript Programming Language": ``movel(pose, a, v, t, r)``); robot files from ROS's xacro
(``xacro:include``).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_bad_input import case, refused  # noqa: F401  (fixture)

from thermocomp.programs import read

POINT = "[[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"
#: Terms of the chains: some ten times what the readers follow nested (245 to 430 levels, docs/programs.md).
TERMS = 4000


def _offset(tmp_path, statements: str, declarations: str = "VAR num x;\nVAR bool b;\nVAR string s;\n") -> float:
    """The x of the one motion of a RAPID main routine running ``statements`` then ``MoveL Offs(p, x, 0, 0)`` [mm]."""
    path = tmp_path / "p.mod"
    path.write_text(f"MODULE M\nCONST robtarget p:={POINT};\n{declarations}PROC main()\n  x := 0;\n{statements}"
                    "  MoveL Offs(p,x,0,0),v100,z1,tool0;\nENDPROC\nENDMODULE\n")
    (motion,) = read.read_program(path).motions
    return motion.points[-1].T_world_tcp[0, 3] * 1000.0 - 500.0


# ----- a chain of terms of one operator is one level, not nesting: read however long, as the controller reads it


@pytest.mark.parametrize(("chain", "value"), [
    (" + ".join(["1"] * TERMS), TERMS),
    ("0" + " - 1" * TERMS, -TERMS),
    ("3" + " * 1" * TERMS, 3),
    ("6" + " / 1" * TERMS, 6),
    ("7" + " DIV 1" * TERMS, 7),
    ("9" + " MOD 10" * TERMS, 9),
    ("1" + " + 2 * 3" * TERMS, 1 + 6 * TERMS),  # (each product a term of the sum)
])
def test_a_numeric_chain_of_any_length_is_read(tmp_path, chain, value):
    """``x := 1 + 1 + ... + 1`` of 2,000 terms was refused as "nested too deeply to follow": RAPID's grammar nests a
    chain on its left, and its value was computed a call a term. The chain is followed in a loop."""
    assert _offset(tmp_path, f"  x := {chain};\n") == pytest.approx(value)


@pytest.mark.parametrize(("condition", "holds"), [
    (" AND ".join(["TRUE"] * TERMS), True),
    (" AND ".join(["TRUE"] * TERMS) + " AND FALSE", False),
    (" OR ".join(["FALSE"] * TERMS), False),
    (" OR ".join(["FALSE"] * TERMS) + " OR TRUE", True),
    (" XOR ".join(["TRUE"] * TERMS), TERMS % 2 == 1),
    ("TRUE" + " = TRUE" * TERMS, True),
    (" + ".join(['""'] * TERMS) + ' + "a" = "a"', True),  # (strings joined, then compared)
])
def test_a_condition_chain_of_any_length_is_read(tmp_path, condition, holds):
    """Long ``AND``/``OR`` chains (a generated interlock) and string joins: the same class, the same loop."""
    statements = f"  b := {condition};\n  IF b x := 5;\n  IF {condition} x := x + 1;\n"
    assert _offset(tmp_path, statements) == (6 if holds else 0)


def test_real_nesting_is_still_refused_naming_where_the_reader_gave_up(tmp_path):
    """Calls nested past what the reader follows are still refused, at their line (what a chain is not)."""
    path = tmp_path / "p.mod"
    path.write_text(f"MODULE M\nCONST robtarget p:={POINT};\nVAR num x;\nPROC main()\n"
                    f"  x := {'Abs(' * 1000}1{')' * 1000};\n  MoveL Offs(p,x,0,0),v100,z1,tool0;\nENDPROC\nENDMODULE\n")
    with pytest.raises(read.InputError, match="nested too deeply to follow") as info:
        read.read_program(path)
    assert info.value.row == 5


# ----- a robot file's <xacro:include> reads inside the robot file's folder and the ROS packages only, as its
# ----- xacro.load_yaml does: a stranger's file does not read the machine's other files (or search the disk by glob)


OTHER = ('<?xml version="1.0"?>\n<robot xmlns:xacro="http://www.ros.org/wiki/xacro"><link name="l2"/>'
         '<joint name="j2" type="fixed"><parent link="l1"/><child link="l2"/><origin xyz="0 0 0.123"/></joint></robot>\n')


@pytest.mark.parametrize(("spec", "got"), [
    ("../o.xacro", "o.xacro"),  # (a file beside the robot's folder: read whole into the robot)
    ("{outside}/o.xacro", "o.xacro"),
    ("/etc/passwd", "/etc/passwd"),
    ("/dev/zero", "/dev/zero"),
    ("/*/*/*/*.xml", "/*/*/*/*.xml"),  # (a glob over the disk: 12 s, then the first system file it matched)
    ("../*.xacro", "*.xacro"),
    ("link.xacro", "(a link to"),
    ("$(find pkg)/../../../o.xacro", "o.xacro"),
    ("${'/etc/' + 'hostname'}", "/etc/hostname"),
])
def test_an_include_outside_the_robots_folders_is_refused_at_its_line(case, capsys, spec, got):
    pytest.importorskip("xacro", reason="xacro is a dependency of thermocomp (pip install -e .)")
    from test_hostile_input import JOINT, xacro

    (case / "o.xacro").write_text(OTHER)
    (case / "r" / "ws" / "pkg").mkdir(parents=True)
    (case / "r" / "ws" / "pkg" / "package.xml").write_text("<package><name>pkg</name></package>")
    (case / "r" / "link.xacro").symlink_to(case / "o.xacro")
    xacro(case / "r", JOINT.format(name="j1", axis="0 0 1") +
          f'  <xacro:include filename="{spec.replace("{outside}", str(case))}"/>\n')
    refused(case, capsys, ["robot", "show", "r/r.xacro", "--package-path", "r/ws"], 1, "r.xacro, line 9",
            f'xacro:include filename="{spec.replace("{outside}", str(case))}": expected a file inside the robot file\'s folder',
            got)


@pytest.mark.parametrize("spec", ["o.xacro", "inc/o.xacro", "inc/*.xacro", "$(find pkg)/o.xacro"])
def test_an_include_inside_the_robots_folders_is_read(case, capsys, spec):
    pytest.importorskip("xacro", reason="xacro is a dependency of thermocomp (pip install -e .)")
    from test_bad_input import run_cli
    from test_hostile_input import JOINT, xacro

    for folder in (case, case / "inc", case / "ws" / "pkg"):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "o.xacro").write_text(OTHER)
    (case / "ws" / "pkg" / "package.xml").write_text("<package><name>pkg</name></package>")
    xacro(case, JOINT.format(name="j1", axis="0 0 1") + f'  <xacro:include filename="{spec}"/>\n')
    code, out, err = run_cli(capsys, ["robot", "show", "r.xacro", "--package-path", "ws"])
    assert code == 0, err
    assert "\ntool,tool,0.0,0.0,123.0," in out  # (the included link is the tip: its joint's offset the tool's)


# ----- a CSV line number is the line an editor shows: a line ends at a newline, a carriage return or both, and at
# ----- no other character str.splitlines ends one at (form feed, vertical tab, \x1c-\x1e, NEL, U+2028, U+2029)


@pytest.mark.parametrize("ends", [["\n"], ["\r\n"], ["\r"], ["\n", "\r\n", "\r"], ["\r", "\r", "\n", "\r\n"]])
@pytest.mark.parametrize("inside", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_a_csv_error_names_the_line_an_editor_shows(case, capsys, ends, inside):
    """A form feed in a comment of a deformation table ended a line there: the comment's second half was read as the
    header ("unknown column 'with it'") and every line number after it was one too many. Lines of a table with mixed
    line ends (``\\n``, ``\\r\\n``, ``\\r``) are counted as an editor counts them."""
    lines = [f"# a comment {inside} with it", "Dx,Dy,Dz,Dox,Doy,Doz", *["1,1,1,1,1,1"] * 6]
    lines[5] = "1,1,x,1,1,1"
    (case / "d.csv").write_bytes("".join(line + ends[k % len(ends)] for k, line in enumerate(lines)).encode())
    refused(case, capsys, ["compensate", "--deformation", "d.csv", "--targets", "t.csv", "--static", "--out", "o.csv"],
            1, "d.csv, line 6, column 'Dz': expected a number, got 'x'")


# ----- a URScript motion's speed, acceleration and blend radius are checked against their own bounds, in their own
# ----- units: not a pose value's, and the blend radius at all


@pytest.mark.parametrize(("motion", "key", "value", "words"), [
    ("movel", "v", "1e30", "expected v of at most 1e+06 m/s, got 1e+30"),
    ("movel", "a", "1e308*10", "expected a of at most 1e+06 m/s^2, got inf"),
    ("movej", "v", "1e7", "expected v of at most 1e+06 rad/s, got 1e+07"),
    ("movej", "a", "-1", "expected a > 0, got -1"),
    ("movel", "r", "-0.01", "expected a blend radius r from 0 to 1e+06 m, got -0.01"),
    ("movej", "r", "1e308*10", "expected a blend radius r from 0 to 1e+06 m, got inf"),
    ("movel", "r", "(1e308*10)-(1e308*10)", "expected a blend radius r from 0 to 1e+06 m, got nan"),
    ("movep", "r", "1e30", "expected a blend radius r from 0 to 1e+06 m, got 1e+30"),
    ("optimovel", "v", "2", "expected v of at most 1 (a fraction of the robot's limit), got 2"),
    ("optimovej", "a", "1.5", "expected a of at most 1 (a fraction of the robot's limit), got 1.5"),
])
@pytest.mark.parametrize("form", ["keyword", "variable"])
def test_a_motion_parameter_out_of_its_range_is_refused_in_its_unit(case, capsys, motion, key, value, words, form):
    """``r=-1``, ``r=inf`` and ``r=nan`` were read and written back (exit 0): no blend radius was checked; a speed
    of 1e30 was refused against the bound of a pose coordinate, without its unit; an ``optimove`` speed is a fraction
    of the robot's limit (URScript manual: 0 to 1). In a run of plain motions and through a variable alike."""
    target = "[0.1,-1.2,1.2,-1.6,-1.6,0]" if motion.endswith("j") else "p[0.4,0.1,0.4,0,3.14,0]"
    line = f"{motion}({target}, {key}={value})" if form == "keyword" else f"x = {value}\n  {motion}({target}, {key}=x)"
    (case / "b.script").write_text(f"def f():\n  movel(p[0.45,0.1,0.4,0,3.14,0])\n  {line}\nend\n")
    refused(case, capsys, ["compensate", "--robot", "ur5", "--deformation", "d.csv", "--program", "b.script",
                           "--out", "o.script", "--at-minute", "60"], 1,
            f"b.script, line {3 if form == 'keyword' else 4}", f"{motion}: {words}")


@pytest.mark.parametrize("blend", ["0", "0.05", "1e6"])
def test_a_blend_radius_in_range_is_read(case, capsys, blend):
    from test_bad_input import run_cli

    (case / "b.script").write_text(f"def f():\n  movel(p[0.45,0.1,0.4,0,3.14,0], r={blend})\n"
                                   "  movel(p[0.4,0.1,0.4,0,3.14,0], a=1.2, v=0.25, r=0)\nend\n")
    code, out, err = run_cli(capsys, ["compensate", "--robot", "ur5", "--deformation", "d.csv", "--program",
                                      "b.script", "--out", "o.script", "--at-minute", "60"])
    assert code == 0, err
    assert f"r={blend})" in (case / "o.script").read_text()


# ----- a mesh reads no file it names; a mesh of no geometry, a TOML file nested past what its parser follows and a
# ----- time law of many intervals end with a message, not a traceback or minutes of work


CUBE_OBJ = ("v 0 0 0\nv 0.1 0 0\nv 0 0.1 0\nv 0 0 0.1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")


@pytest.mark.parametrize("named", ["m.mtl", "/etc/passwd"])
def test_a_mesh_reads_no_file_it_names(tmp_path, named):
    """An OBJ's ``mtllib`` was opened by trimesh: a FIFO (or ``/dev/stdin``) there waited for ever, and any file of
    the machine was read. Materials are not geometry: no file a mesh names is opened (Python's audit events)."""
    import sys

    from thermocomp.io.meshes import read_mesh

    (tmp_path / "m.mtl").write_text("newmtl m\nKd 1 0 0\n")
    (tmp_path / "c.obj").write_text(f"mtllib {named}\nusemtl m\n{CUBE_OBJ}")
    opened: list[str] = []
    listening = [True]
    sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" and listening else None)
    try:
        assert read_mesh(tmp_path / "c.obj", 1.0).faces.shape == (4, 3)
    finally:
        listening.clear()
    assert str(tmp_path / "c.obj") in opened
    assert not [name for name in opened if name.endswith(("m.mtl", "passwd"))], opened


def test_a_collada_file_of_no_scene_names_the_file(tmp_path):
    from thermocomp.io.meshes import read_mesh

    pytest.importorskip("collada")
    (tmp_path / "m.dae").write_text('<?xml version="1.0"?>\n<COLLADA xmlns="http://www.collada.org/2005/11/'
                                    'COLLADASchema" version="1.4.1"><asset><unit meter="1"/><up_axis>Z_UP</up_axis>'
                                    "</asset></COLLADA>\n")
    with pytest.raises(read.InputError, match="expected a COLLADA <scene> of geometry, got none") as info:
        read_mesh(tmp_path / "m.dae", 1.0)
    assert info.value.path == str(tmp_path / "m.dae")


@pytest.mark.parametrize("value", ["[" * 5000 + "]" * 5000, "{a=" * 5000 + "1" + "}" * 5000])
@pytest.mark.parametrize("reader", ["time law", "scene", "models"])
def test_a_toml_file_nested_past_its_parser_is_refused_naming_it(tmp_path, value, reader):
    """tomllib reads nested arrays and inline tables recursively: 5,000 levels were a RecursionError traceback."""
    from thermocomp.io.scene_file import read_scene
    from thermocomp.io.timelaw_file import read_time_law
    from thermocomp.printing.models_toml import models_from_toml_text

    path = tmp_path / "f.law.toml"
    path.write_text(f"x = {value}\n")
    call = {"time law": lambda: read_time_law(path), "scene": lambda: read_scene(path),
            "models": lambda: models_from_toml_text(path.read_text(), str(path), ("j1",))}[reader]
    with pytest.raises(read.InputError, match="nested too deeply to read") as info:
        call()
    assert info.value.path == str(path)


def test_a_first_order_law_of_many_intervals_is_computed_in_linear_time():
    """Each segment of a first-order law looked in every ``heat_on`` interval, at every minute asked: a time-law file
    of 100,000 intervals ran for minutes. The Python calls of 201 minutes of 8 times the intervals are within 12 times
    (they were 64 times), and the fractions are those of the law's equation."""
    from test_bad_input_programs_hostile5 import _calls

    from thermocomp.deformation.thermal_laws import FirstOrder

    calls = {}
    for n in (250, 2000):
        law = FirstOrder(44.8, 30.0, tuple((2.0 * k, 2.0 * k + 1.0) for k in range(n)))
        calls[n] = _calls(lambda law=law: [law.fraction(m) for m in range(201)])
    assert calls[2000] < 12 * calls[250], calls
    law = FirstOrder(10.0, 20.0, ((0.0, 30.0), (60.0, 90.0)))
    at_30 = 1 - np.exp(-3.0)
    at_60 = at_30 * np.exp(-1.5)
    expected = [0.0, at_30, at_60, 1 + (at_60 - 1) * np.exp(-1.0), 1 + (at_60 - 1) * np.exp(-3.0)]
    np.testing.assert_allclose(law.fraction([0.0, 30.0, 60.0, 70.0, 90.0]), expected, rtol=1e-12)


@pytest.mark.parametrize(("face", "refused"), [("f 0 3 2", True), ("  f 1 3 0", True), ("f 1 0/1/1 2", True),
                                               ("f 1/0 3 2", False), ("f 1 3 2", False), ("f -1 3 2", False)])
def test_an_obj_face_of_vertex_index_0_is_refused_at_its_line(tmp_path, face, refused):
    """OBJ counts vertices from 1 (negative: from the end); trimesh read index 0 as the last vertex: a mesh other
    than the file's, its volume and inertia computed without a word."""
    from thermocomp.io.meshes import read_mesh

    path = tmp_path / "c.obj"
    path.write_text(CUBE_OBJ.replace("f 1 3 2", face))
    if refused:
        with pytest.raises(read.InputError, match="expected face vertex indices from 1") as info:
            read_mesh(path, 1.0)
        assert info.value.row == 5
    else:
        assert read_mesh(path, 1.0).faces.shape == (4, 3)
