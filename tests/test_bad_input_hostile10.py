"""Hostile input found by the tenth adversarial run, each a sample of a class: a control character or an invisible
space beside a number read as a blank, a binary byte located on a line the editor does not show, a motion's speed or
zone beyond any robot's read and written back, a mesh whose few bytes are a million triangles of work. Programs
written from the manuals (ABB "Technical reference manual - RAPID Instructions, Functions and Data types": speeddata
v_tcp, v_ori [mm/s, deg/s], v_leax, v_reax; zonedata finep, pzone_tcp, pzone_ori, pzone_eax, zone_ori, zone_leax,
zone_reax [mm, deg]).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import REPO
from test_bad_input import TARGETS, case  # noqa: F401  (fixture)

from thermocomp.errors import InputError
from thermocomp.programs import read

POINT = "[[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"

# ----- what stands beside a number in a cell is a space or a tab: a control character (read by float() and
# ----- str.strip() as white space), DEL or an invisible Unicode space is refused at its file, line and column, in
# ----- every CSV the tool reads


def _seeds() -> dict:
    """Reader id -> (file name, valid bytes, reader of a path): every CSV reader of the io floor."""
    from test_fuzz_readers import (
        CORRECTIONS,
        DH_UR5,
        SELF_DESCRIBING,
        _friction_seed,
        _measurements_seed,
        _recording_seed,
        _scene_joints_seed,
    )

    from thermocomp.io.chain_csv import read_chain_csv
    from thermocomp.io.deformation_csv import read_deformation_csv
    from thermocomp.io.dh_csv import read_dh_csv
    from thermocomp.io.friction_csv import read_friction_csv
    from thermocomp.io.inertia_csv import read_corrections_csv, read_inertia_csv
    from thermocomp.io.measurements_csv import read_measurements_csv
    from thermocomp.io.recording_csv import read_recording_csv
    from thermocomp.io.scene_joints_csv import read_scene_joints_csv
    from thermocomp.io.targets_csv import read_targets_csv

    links = ["base", *(f"link{k}" for k in range(1, 7))]
    return {
        "targets": ("t.csv", TARGETS.encode(), lambda p: read_targets_csv(p, n_joints=6)),
        "targets with joints": ("t.csv", SELF_DESCRIBING, lambda p: read_targets_csv(p, n_joints=6)),
        "deformation": ("d.csv", (REPO / "deformations" / "exaggerated.csv").read_bytes(), read_deformation_csv),
        "robot table": ("r.csv", (REPO / "robots" / "irb140" / "chain.csv").read_bytes(), read_chain_csv),
        "DH table": ("dh.csv", DH_UR5, read_dh_csv),
        "measurements": ("m.csv", _measurements_seed(), read_measurements_csv),
        "recording": ("rec.csv", _recording_seed(), read_recording_csv),
        "friction": ("f.csv", _friction_seed(), read_friction_csv),
        "inertia": ("i.csv", (REPO / "robots" / "irb140" / "inertia.csv").read_bytes(), read_inertia_csv),
        "corrections": ("c.csv", CORRECTIONS, lambda p: read_corrections_csv(p, links)),
        "scene joints": ("j.csv", _scene_joints_seed(), lambda p: read_scene_joints_csv(p, 6)),
    }


READERS = ["targets", "targets with joints", "deformation", "robot table", "DH table", "measurements", "recording",
           "friction", "inertia", "corrections", "scene joints"]
#: Characters float() or str.strip() take for white space (or that look like nothing), and others no number holds.
BESIDE = ["\x01", "\x08", "\x0b", "\x0c", "\x1b", "\x1c", "\x1f", "\x7f", "\x85", "\xa0", "\u2007", "\u200b", "\u3000"]


def _second_row_cell(data: bytes) -> tuple[int, int, str]:
    """Line (1-based), byte offset of the last number cell, and its column name, of the second row below the
    header."""
    lines = data.split(b"\n")
    rows = [k for k, line in enumerate(lines) if line.strip() and not line.lstrip().startswith(b"#")]
    header, row = lines[rows[0]].decode().split(","), rows[2]
    cells = lines[row].decode().split(",")
    k = max(k for k, cell in enumerate(cells) if re.fullmatch(r"-?[0-9.]+(e[-+]?[0-9]+)?", cell.strip()))
    offset = sum(len(line) + 1 for line in lines[:row]) + sum(len(cell) + 1 for cell in cells[:k])
    return row + 1, offset, header[k].strip()


@pytest.mark.parametrize("inside", BESIDE)
@pytest.mark.parametrize("reader", READERS)
def test_a_strange_character_beside_a_number_is_refused_at_its_cell(tmp_path, reader, inside):
    """``1,1,\\x0c1`` was read as ``1,1,1`` in a deformation table (float() reads the form feed, the vertical tab,
    ``\\x1c``-``\\x1f``, NEL, NBSP and the Unicode spaces as white space); ``\\x1f`` beside a target's number
    was an AssertionError traceback (str.strip took it for white space, float() did not)."""
    name, data, read_file = _seeds()[reader]
    line, offset, column = _second_row_cell(data)
    for where in (offset, offset + len(re.match(rb"[^,\n]*", data[offset:])[0])):  # (before, after the number)
        path = tmp_path / name
        path.write_bytes(data[:where] + inside.encode() + data[where:])
        with pytest.raises(InputError, match="expected a number") as info:
            read_file(path)
        assert (info.value.path, info.value.row, info.value.column) == (str(path), line, column)


@pytest.mark.parametrize("blank", [" ", "\t", "  \t "])
@pytest.mark.parametrize("reader", READERS)
def test_spaces_and_tabs_beside_a_number_are_read(tmp_path, reader, blank):
    name, data, read_file = _seeds()[reader]
    _, offset, _ = _second_row_cell(data)
    (tmp_path / "plain" / name).parent.mkdir()
    (tmp_path / "plain" / name).write_bytes(data)
    (tmp_path / name).write_bytes(data[:offset] + blank.encode() + data[offset:])
    _assert_same(read_file(tmp_path / name), read_file(tmp_path / "plain" / name))


def _assert_same(got, expected) -> None:
    """The same values (arrays, dataclasses, sequences, numbers), file names aside."""
    import dataclasses

    if dataclasses.is_dataclass(got):
        for field in dataclasses.fields(got):
            _assert_same(getattr(got, field.name), getattr(expected, field.name))
    elif isinstance(got, np.ndarray):
        np.testing.assert_array_equal(got, expected)
    elif isinstance(got, (list, tuple)):
        assert len(got) == len(expected)
        for a, b in zip(got, expected):
            _assert_same(a, b)
    elif isinstance(got, dict):
        assert got.keys() == expected.keys()
        for key in got:
            _assert_same(got[key], expected[key])
    elif not isinstance(got, str):
        assert got == expected


@pytest.mark.parametrize("inside", ["\x0b", "\x0c", "\x1f", "\x85", "\xa0", "\u3000"])
@pytest.mark.parametrize("reader", READERS)
def test_a_strange_character_beside_a_column_name_is_refused_at_the_header(tmp_path, reader, inside):
    """A deformation table's header ``Dx,\xa0Dy,...`` was read (str.strip() took NBSP, NEL, U+3000 for blanks)."""
    name, data, read_file = _seeds()[reader]
    lines = data.split(b"\n")
    at = next(k for k, line in enumerate(lines) if line.strip() and not line.lstrip().startswith(b"#"))
    cells = lines[at].split(b",")
    cells[-1] = inside.encode() + cells[-1]
    lines[at] = b",".join(cells)
    (tmp_path / name).write_bytes(b"\n".join(lines))
    with pytest.raises(InputError) as info:
        read_file(tmp_path / name)
    assert (info.value.path, info.value.row) == (str(tmp_path / name), at + 1)


@pytest.mark.parametrize("inside", ["\x0c", "\x0b", "\x1f", "\xa0"])
def test_a_strange_character_in_an_option_number_is_refused_naming_the_option(case, capsys, inside):
    """The command line reads numbers as the files do (``--at-minute '60\\x0c'`` was 60)."""
    from test_bad_input import refused

    refused(case, capsys, ["compensate", "--deformation", "d.csv", "--targets", "t.csv", "--minutes", f"60{inside}",
                           "--out", "o.csv"], 64, "--minutes")


def _rtde(sep: str = " ") -> list[str]:
    from thermocomp.printing.identification import IdentificationOptions, MultisineOptions, experiment

    u = experiment(IdentificationOptions(multisine=MultisineOptions(period_s=8.0, periods=2)), 125.0, 6)
    full = np.vstack([np.zeros((20, 6)), u, np.zeros((5, 6))])
    header = ["timestamp", *(f"{k}_{j}" for k in ("target_qd", "actual_q", "actual_qd") for j in range(6))]
    return [sep.join(header)] + [sep.join(repr(float(v)) for v in [1000.0 + k * 0.008, *full[k], *full[k], *full[k]])
                                 for k in range(full.shape[0])]


@pytest.mark.parametrize("sep", [" ", ","])
@pytest.mark.parametrize("inside", ["\x0c", "\x0b", "\x1c", "\x85", "\xa0", "\x01"])
def test_an_rtde_recording_is_read_as_the_csv_files_are(inside, sep):
    """The printing cell's RTDE recording (``servo identify --recording``) split its lines at a form feed (every line
    number after it one too many) and its cells at any white space, and read a number beside a control character."""
    from thermocomp.printing.identification import IdentificationOptions, MultisineOptions, experiment, layout
    from thermocomp.printing.rtde_csv import read_rtde_text

    options = IdentificationOptions(multisine=MultisineOptions(period_s=8.0, periods=2))
    samples, lead = experiment(options, 125.0, 6).shape[0], layout(options, 125.0).step
    lines = _rtde(sep)
    good = read_rtde_text("\n".join([f"# recorded {inside} by record.py", *lines]), "r.csv", 6, 125.0, samples, lead)
    np.testing.assert_array_equal(good[0], experiment(options, 125.0, 6))
    cells = lines[5].split(sep)
    cells[2] += inside  # (target_qd_1's)
    lines[5] = sep.join(cells)
    with pytest.raises(InputError, match="expected a number") as info:
        read_rtde_text("\n".join([f"# recorded {inside} by record.py", *lines]), "r.csv", 6, 125.0, samples, lead)
    assert (info.value.row, info.value.column) == (7, "target_qd_1")


# ----- a binary byte in a program is located at the line and column an editor shows, whatever its line ends


@pytest.mark.parametrize("ends", ["\r", "\n", "\r\n", "mixed"])
@pytest.mark.parametrize(("language", "byte", "where"), [
    ("rapid", "\x00", "MoveL"), ("rapid", "\x01", "comment"), ("rapid", "\x1b", "text"),
    ("urscript", "\x01", "movel"), ("urscript", "\x7f", "comment"), ("urscript", "\x02", "text"),
])
def test_a_binary_byte_is_located_where_the_editor_shows_it(tmp_path, language, byte, where, ends):
    """A RAPID or URScript file whose lines end in CR alone (classic Mac OS) with a binary byte was refused "at line
    1, column 1471": the reader counted LF only; in a comment or a string of a file of mixed line ends it was read,
    every line number after a CR wrong. The byte's line and column are an editor's, for every line end (a comment's
    or a string's bytes in a file of LF line ends are read: the reader keeps them as written)."""
    if where in ("comment", "text") and ends in ("\n", "\r\n"):
        pytest.skip("a comment's or a string's bytes are kept as written")
    if language == "rapid":
        lines = ["MODULE M", f"  CONST robtarget p:={POINT};", "  VAR string s;", "  PROC main()",
                 "    s := \"text\";", "    MoveL p,v100,z1,tool0; ! a comment", "  ENDPROC", "ENDMODULE"]
    else:
        lines = ["def prog():", "  s = \"text\"", "  movel(p[0.4,0.1,0.4,0,3.14,0])  # a comment", "end"]
    row = next(k for k, line in enumerate(lines) if where in line)
    column = lines[row].index(where) + 1
    lines[row] = lines[row][:column - 1] + byte + lines[row][column - 1:]
    marks = ["\r", "\r\n", "\n"] if ends == "mixed" else [ends]
    path = tmp_path / ("p.mod" if language == "rapid" else "p.script")
    path.write_bytes("".join(text + marks[k % len(marks)] for k, text in enumerate(lines)).encode("latin-1"))
    with pytest.raises(InputError, match=rf"byte 0x{ord(byte):02x} at column {column} is binary data") as info:
        read.read_program(path)
    assert info.value.row == row + 1


# ----- a motion's speed and zone are checked against their bounds in RAPID's units (mm/s, deg/s, mm, deg): those of
# ----- URScript's speeds and blend radii (model.MAX_MOTION_VALUE, 1e6 in SI), the controller's predefined data read


def _rapid(tmp_path, speed: str = "v100", zone: str = "z1", declarations: str = "", form: str = "run"):
    path = tmp_path / "p.mod"
    motion = f"MoveL Offs(p,10,0,0),{speed},{zone},tool0;"
    body = f"  MoveL p,v100,z1,tool0;\n  {motion}\n" if form == "run" else f"  IF TRUE THEN\n    {motion}\n  ENDIF\n"
    path.write_text(f"MODULE M\nCONST robtarget p:={POINT};\n{declarations}PROC main()\n{body}ENDPROC\nENDMODULE\n")
    return path


SPEED_FIELDS = [("v_tcp", "mm/s", "1e+09"), ("v_ori", "deg/s", "5.72958e+07"), ("v_leax", "mm/s", "1e+09"),
                ("v_reax", "deg/s", "5.72958e+07")]
ZONE_FIELDS = [("pzone_tcp", "mm", "1e+09"), ("pzone_ori", "mm", "1e+09"), ("pzone_eax", "mm", "1e+09"),
               ("zone_ori", "deg", "5.72958e+07"), ("zone_leax", "mm", "1e+09"), ("zone_reax", "deg", "5.72958e+07")]


@pytest.mark.parametrize("form", ["run", "branch"])
@pytest.mark.parametrize("written", ["literal", "declared"])
@pytest.mark.parametrize(("k", "field", "value"), [  # (v_tcp or v_ori not above 0: "the speeddata must move")
    (k, field, value) for k, field in enumerate(SPEED_FIELDS) for value in ("1E30", "2E9", "-1")[:2 + (k >= 2)]])
def test_a_speed_beyond_its_bound_is_refused_with_its_unit(tmp_path, k, field, value, written, form):
    """``[1E30,500,5000,1000]`` was read and timed as a motion of no time, ``v_leax`` -1 written back."""
    name, unit, bound = field
    speed = [100.0, 500.0, 5000.0, 1000.0]
    text = "[" + ",".join(value if j == k else f"{v:g}" for j, v in enumerate(speed)) + "]"
    path = _rapid(tmp_path, text if written == "literal" else "s",
                  declarations="" if written == "literal" else f"CONST speeddata s:={text};\n", form=form)
    with pytest.raises(InputError, match=re.escape(f"MoveL: speeddata {name}: expected a speed from 0 to {bound} "
                                                   f"{unit}, got {float(value):g}")) as info:
        read.read_program(path)
    assert info.value.row == (5 if written == "literal" else 6)


@pytest.mark.parametrize("form", ["run", "branch"])
@pytest.mark.parametrize("written", ["literal", "declared", "array", "array of 7"])
@pytest.mark.parametrize("value", ["1E30", "-1", "-0.5", "2E9"])
@pytest.mark.parametrize(("k", "field"), list(enumerate(ZONE_FIELDS)))
def test_a_zone_beyond_its_bound_is_refused_with_its_unit(tmp_path, k, field, value, written, form):
    """``[FALSE,1E30,...]`` and ``[FALSE,-1,...]`` were written back as they came: the zone was never read. An array
    of as many zones as a zonedata has components (7) was taken for one zone, its elements never checked."""
    name, unit, bound = field
    text = "[FALSE," + ",".join(value if j == k else "10" for j in range(6)) + "]"
    size = {"array": 2, "array of 7": 7}.get(written, 0)
    declarations = {"literal": "", "declared": f"CONST zonedata zz:={text};\n"}.get(
        written, f"CONST zonedata zz{{{size}}}:=[{'[FALSE,1,1,1,1,1,1],' * (size - 1)}{text}];\n")
    path = _rapid(tmp_path, zone=text if written == "literal" else f"zz{{{size}}}" if size else "zz",
                  declarations=declarations, form=form)
    with pytest.raises(InputError, match=re.escape(f"zonedata {name}: expected a zone from 0 to {bound} {unit}, got "
                                                   f"{float(value):g}")) as info:
        read.read_program(path)
    assert info.value.row == (5 if written == "literal" else 3)


@pytest.mark.parametrize(("speed", "zone"), [
    ("vmax", "z200"), ("v7000", "fine"), ("[7000,500,0,0]", "[TRUE,0,0,0,0,0,0]"),
    ("[5000,500,5000,1000]", "[FALSE,200,300,300,30,300,30]"), ("v100\\V:=7000", "z0"),
    ("[1E9,5.7E7,1E9,5.7E7]", "[false,1E9,1E9,1E9,5.7E7,1E9,5.7E7]"),
])
@pytest.mark.parametrize("form", ["run", "branch"])
def test_a_speed_and_zone_within_their_bounds_are_read(tmp_path, speed, zone, form):
    """The predefined data and the largest values a program writes (z200, v7000, vmax) are read as before."""
    motion = read.read_program(_rapid(tmp_path, speed, zone, form=form)).motions[-1]
    assert motion.points[-1].T_world_tcp[0, 3] == pytest.approx(0.51)


def test_a_tcp_speed_option_beyond_its_bound_is_refused(tmp_path):
    with pytest.raises(InputError, match=re.escape("MoveL \\V: speeddata v_tcp: expected a speed from 0 to 1e+09 mm/s, "
                                                   "got 1e+30")):
        read.read_program(_rapid(tmp_path, "v100\\V:=1E30"))


# ----- a mesh is refused before work out of proportion to its bytes: an OBJ face of thousands of vertices is as many
# ----- triangles (trimesh's fan), and a line of a million indices (2 MB) took 82 s before the mesh's message


@pytest.mark.parametrize(("vertices", "index"), [(4097, "{}"), (4097, "{}/1/1"), (1_000_000, "{}"), (5000, "-{}")])
def test_an_obj_face_of_too_many_vertices_is_refused_before_it_is_read(tmp_path, monkeypatch, vertices, index):
    import trimesh

    from thermocomp.io.meshes import MAX_OBJ_FACE_VERTICES, read_mesh

    path = tmp_path / "m.obj"
    face = " ".join(index.format(k % 3 + 1) for k in range(vertices))
    path.write_text(f"v 0 0 0\nv 1 0 0\nv 0 1 0\n# a comment\n  f {face}\n")
    monkeypatch.setattr(trimesh, "load_mesh", lambda *args, **kwargs: pytest.fail("the mesh was read"))
    with pytest.raises(InputError, match=f"expected a face of at most {MAX_OBJ_FACE_VERTICES:,} vertices") as info:
        read_mesh(path, 1.0)
    assert (info.value.row, info.value.column) == (5, 5 + MAX_OBJ_FACE_VERTICES * (len(index.format(1)) + 1))


@pytest.mark.parametrize("line", ["f " + " ".join(["1", "2", "3"] * 1365) + " 1", "# " + "f 1 2 3 " * 5000,
                                  "vt " + "0 " * 10000, " " * 20000])
def test_long_lines_that_are_no_face_of_too_many_vertices_are_read(tmp_path, line):
    from thermocomp.io.meshes import MAX_OBJ_FACE_VERTICES, read_mesh

    path = tmp_path / "m.obj"
    path.write_text(f"v 0 0 0\nv 1 0 0\nv 0 1 0\n{line}\nf 1 2 3\n")
    faces = read_mesh(path, 1.0).faces
    assert len(faces) == (1 + (MAX_OBJ_FACE_VERTICES - 2 if line.startswith("f") else 0))


# ----- a RAPID integer literal of another base beyond a num is refused as the decimal ones are, not an OverflowError


@pytest.mark.parametrize(("literal", "shown"), [
    ("0x" + "f" * 5000, "0xffffffffffffffffffff... (5000 hexadecimal digits)"), ("0X" + "F" * 33, "0X" + "F" * 33),
    ("0b" + "1" * 200, "0b11111111111111111111... (200 digits)"), ("0o" + "7" * 60, "0o77777777777777777777... (60 digits)"),
])
def test_a_literal_of_another_base_beyond_a_num_is_refused(tmp_path, literal, shown):
    """``x := 0xfff...`` (5,000 digits) was an OverflowError traceback (int too large to convert to float)."""
    path = tmp_path / "p.mod"
    path.write_text(f"MODULE M\nCONST robtarget p:={POINT};\nVAR num x;\nPROC main()\n  x := {literal};\n"
                    "  MoveL Offs(p,x,0,0),v100,z1,tool0;\nENDPROC\nENDMODULE\n")
    from thermocomp.errors import capped

    with pytest.raises(InputError, match="is out of range") as info:
        read.read_program(path)
    assert f"number {shown} is out of range (RAPID num holds at most" in capped(str(info.value))  # (as printed)
    assert info.value.row == 5


@pytest.mark.parametrize(("literal", "value"), [("0x10", 16), ("0b101", 5), ("0o17", 15), ("0xFFFFFF", 16777215)])
def test_a_literal_of_another_base_within_a_num_is_read(tmp_path, literal, value):
    path = tmp_path / "p.mod"
    path.write_text(f"MODULE M\nCONST robtarget p:={POINT};\nVAR num x;\nPROC main()\n  x := {literal};\n"
                    "  MoveL Offs(p,x / 1000000,0,0),v100,z1,tool0;\nENDPROC\nENDMODULE\n")
    assert read.read_program(path).motions[-1].points[-1].T_world_tcp[0, 3] == pytest.approx(0.5 + value * 1e-9)


# ----- every file read whole is read to a bound: a link to /dev/zero or /dev/urandom ends with a message naming it


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
@pytest.mark.parametrize(("argv", "name"), [
    (["robot", "show", "r.xacro"], "r.xacro"),
    (["robot", "export", "r.xacro", "--out", "o.urdf"], "r.xacro"),
    (["robot", "show", "r.urdf"], "r.urdf"),
    (["compensate", "--robot", "r.xacro", "--deformation", "d.csv", "--targets", "t.csv", "--static", "--out", "o.csv"],
     "r.xacro"),
    (["compensate", "--deformation", "d.csv", "--targets", "t.csv", "--time-law", "from:d.csv", "--out", "o.csv"],
     "d.law.toml"),
    (["servo", "identify", "--recording", "rec.csv", "--out", "o.toml"], "rec.csv"),
    (["servo", "track", "--models", "m.toml", "--path", "line:x", "--speed-mm-s", "10", "--out", "o.csv"], "m.toml"),
])
def test_a_device_given_as_a_file_is_refused_naming_it(case, capsys, argv, name, device):
    """``robot show r.xacro`` with r.xacro a link to /dev/zero read for ever (the xacro file was read whole, without
    the bound of the URDF's 16 MiB); the servo's recording and models files were read without one too."""
    from test_bad_input import refused

    (case / name).symlink_to(device)
    refused(case, capsys, argv, 1, name)


# ----- a models file's matrix of the right shape with a value that is not finite is named as such


@pytest.mark.parametrize("key", ["A", "B", "C"])
@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "1e999"])
def test_a_models_matrix_value_not_finite_is_named(key, value):
    """``A = [[inf, ...`` was refused as "expected finite numbers of shape (4, 4), got shape (4, 4)"."""
    from test_servo_core import RATE, servo_model

    from thermocomp.io.robots import load_robot
    from thermocomp.printing.identification import ServoModels
    from thermocomp.printing.models_toml import models_from_toml_text, models_toml_text

    chain = load_robot("ur5")
    text = models_toml_text(ServoModels(RATE, 4, (servo_model(2),) * 6, chain.joint_names), "ur5")
    text = re.sub(rf"^{key} = (\[*)[-0-9.e]+", rf"{key} = \g<1>{value}", text, count=1, flags=re.M)
    with pytest.raises(InputError, match=re.escape(f"key {key}: expected finite numbers, got {float(value):g}")):
        models_from_toml_text(text, "m.toml", chain.joint_names)


# ----- a print path has a bound on its samples (each an inverse kinematics solve and a servo step): a slow speed or
# ----- a far target ends with a message naming --path and --speed-mm-s, not "out of memory"


@pytest.mark.parametrize(("path", "speed"), [("line:x", 1e-9), ("line:z", 1e-3), ("far", 10.0), ("far", 1000.0)])
def test_a_print_path_of_too_many_samples_is_refused_naming_it(path, speed):
    from thermocomp.errors import ConfigurationError
    from thermocomp.printing.paths import MAX_PATH_SAMPLES, line_path, targets_path

    with pytest.raises(ConfigurationError, match=re.escape(f"expected at most {MAX_PATH_SAMPLES:,}")) as info:
        if path == "far":
            targets_path(np.tile(np.eye(3), (2, 1, 1)), [[0.4, 0.0, 0.3], [1e6, 0.0, 0.3]], speed, 125.0)
        else:
            line_path(path, speed, 125.0, np.eye(3))
    assert f"--path at --speed-mm-s {speed:g}" in str(info.value)


def test_a_print_path_within_the_bound_is_sampled():
    from thermocomp.printing.paths import line_path

    path = line_path("line:x", 10.0, 125.0, np.eye(3))
    assert path.p_world_tcp[-1, 0] - path.p_world_tcp[0, 0] == pytest.approx(0.2)
    assert path.t.size == pytest.approx((0.2 + 0.5 + 19.5 + 0.5 + 0.2) * 125.0, abs=2)
