"""Hostile input found by the seventh adversarial run, each a sample of a class, through the real command line
where a user meets it (``test_bad_input.refused``: exit status, the message naming file, line or option, no
traceback, nothing written or left). Robot files are written from the xacro and URDF forms of ROS's own files
(``xacro:property``, ``xacro.load_yaml``, ``package.xml``); programs from UR's "The URScript Programming Language"
(``movel(pose, a, v)``).
"""

from __future__ import annotations

import os
import struct
import time

import pytest
from helpers import REPO
from test_bad_input import case, refused, run_cli  # noqa: F401  (fixture)
from test_hostile_input import JOINT, xacro

from thermocomp.cli.common import EXIT_INPUT, EXIT_OK
from thermocomp.errors import InputError

# ----- the search for ROS packages ends: a folder linked back into itself is looked into once, and a search path
# ----- holding more folders than any workspace is refused naming it


def test_a_package_folder_linked_into_itself_is_searched_once(tmp_path):
    """12 links to '.' in a folder of the search path: 12^6 folders walked, over minutes (the depth bound alone)."""
    from thermocomp.io.robot_files import find_packages

    ws = tmp_path / "ws"
    (ws / "arm").mkdir(parents=True)
    (ws / "arm" / "package.xml").write_text("<package><name>arm_description</name></package>")
    for k in range(12):
        os.symlink(".", ws / f"loop{k}")
    started = time.process_time()
    assert find_packages((ws,)) == {"arm_description": ws / "arm"}
    assert time.process_time() - started < 5


def test_a_search_path_of_more_folders_than_the_bound_is_refused_naming_it(case, capsys, monkeypatch):
    """``--package-path /`` walked the disk (and /proc's links back to /) for minutes, with no message."""
    from thermocomp.io import robot_files

    monkeypatch.setattr(robot_files, "MAX_PACKAGE_FOLDERS", 20)
    for k in range(30):
        (case / "wide" / f"f{k}").mkdir(parents=True)
    xacro(case, JOINT.format(name="j1", axis="0 0 1"))
    refused(case, capsys, ["robot", "show", "r.xacro", "--package-path", "wide"], EXIT_INPUT, "wide",
            "looked into more than 20 folders", "--package-path")
    code, out, _ = run_cli(capsys, ["robot", "show", "r.xacro"])  # (no search path: nothing searched)
    assert code == EXIT_OK and "j1" in out


# ----- a value short as data but huge as text (YAML aliases, a list held many times over) is refused at its
# ----- expression before it is written out

#: Nine aliases of nine aliases, nine deep: 40 lines of YAML, 9^9 strings written out (3 GB).
ALIAS_BOMB = 'a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n' + "".join(
    f"a{k}: &a{k} [{', '.join([f'*a{k - 1}'] * 9)}]\n" for k in range(1, 9))


def test_yaml_aliases_that_write_out_to_gigabytes_are_refused_at_the_load(case, capsys):
    """Read in no time, then written out into a joint name (or str()) until the 60 s bound, which blamed the
    reading of the file."""
    (case / "cfg.yaml").write_text(ALIAS_BOMB)
    xacro(case, '  <xacro:property name="cfg" value="${xacro.load_yaml(\'cfg.yaml\')}"/>\n'
          + JOINT.format(name="j${cfg['a8']}", axis="0 0 1"))
    started = time.perf_counter()
    refused(case, capsys, ["robot", "show", "r.xacro"], EXIT_INPUT, "r.xacro, line 3",
            "characters written out", "xacro.load_yaml('cfg.yaml')")
    assert time.perf_counter() - started < 20


def test_a_list_held_many_times_over_is_refused_and_data_that_holds_itself_is_read():
    from thermocomp.io.xacro_expressions import MAX_WRITTEN_CHARS, UnsafeExpression, base_functions, evaluate, written_size

    names = {"a": [0] * 1_000_000}
    with pytest.raises(UnsafeExpression, match="characters written out"):
        evaluate("str([a] * 1000000)[0:3]", names.__getitem__, base_functions())
    assert evaluate("len([a] * 3)", names.__getitem__, base_functions()) == 3
    loop: list = [1]
    loop.append(loop)  # (YAML's ``&a [1, *a]``)
    assert len(str(loop)) <= written_size(loop) <= len(str(loop)) + 4  # (about: a separator counted per item)
    assert len(str({"k": [1.5, "ab"]})) <= written_size({"k": [1.5, "ab"]}) <= len(str({"k": [1.5, "ab"]})) + 8
    assert written_size([[0] * 1000] * 1000) > 1000 * 1000 and MAX_WRITTEN_CHARS >= 32 * 2**20


# ----- an integer is refused before Python cannot write it (xacro writes every attribute as text) or spends a
# ----- minute computing it


@pytest.mark.parametrize("expression", ["2**20000", "factorial(3000)", "comb(1000000, 500000)",
                                        "math.perm(100000)", "prod([2**10000, 2**10000])", "lcm(2**9000, 3**5000)"])
def test_an_integer_longer_than_a_text_can_hold_is_refused_before_it_is_built(expression):
    from thermocomp.io.xacro_expressions import UnsafeExpression, base_functions, evaluate

    started = time.process_time()
    with pytest.raises(UnsafeExpression, match="a number of more than 14000 bits"):
        evaluate(expression, {}.__getitem__, base_functions())
    assert time.process_time() - started < 2


def test_integer_functions_of_small_arguments_still_evaluate():
    from thermocomp.io.xacro_expressions import base_functions, evaluate

    functions = base_functions()
    assert evaluate("factorial(20)", {}.__getitem__, functions) == 2432902008176640000
    assert evaluate("comb(50, 25) + perm(5) + prod([2, 3]) + lcm(4, 6)", {}.__getitem__, functions) == \
        126410606437752 + 120 + 6 + 12
    assert evaluate("prod([0.5, 4])", {}.__getitem__, functions) == 2.0


def test_an_integer_python_cannot_write_names_the_line_of_the_xacro(case, capsys):
    """xacro's own str() of the attribute failed with "the expansion failed: ValueError", naming no line."""
    xacro(case, JOINT.format(name="j${2**20000}", axis="0 0 1"))
    refused(case, capsys, ["robot", "show", "r.xacro"], EXIT_INPUT, "r.xacro, line 5", "more than 14000 bits")


# ----- a URScript acceleration or speed that overflows to infinity is refused at its column


@pytest.mark.parametrize(("value", "shown"), [("1e308*10", "inf"), ("1e300", "1e+300")])
@pytest.mark.parametrize("key", ["a", "v"])
def test_a_urscript_speed_or_acceleration_beyond_any_robot_is_refused_at_its_column(case, capsys, key, value, shown):
    """v=inf timed the motion as taking no time and the program was written (exit 0); v=1e300 leaked a
    RuntimeWarning from the timing."""
    other = {"a": "v=0.25", "v": "a=1.2"}[key]
    (case / "b.script").write_text(f"def f():\n  movel(p[0.4,0.1,0.4,0,3.14,0], {other}, {key}={value})\nend\n")
    column = len(f"  movel(p[0.4,0.1,0.4,0,3.14,0], {other}, {key}=") + 1
    err = refused(case, capsys, ["compensate", "--robot", "ur5", "--deformation", "d.csv", "--program", "b.script",
                                 "--out", "o.script", "--timed"], EXIT_INPUT, "b.script, line 2",
                  f"movel: expected {key} of at most 1e+06 {dict(a='m/s^2', v='m/s')[key]}, got {shown} (column {column})")
    assert "RuntimeWarning" not in err


# ----- a named value of a repeatable option given twice is refused, not the last kept


def test_a_xacro_argument_given_twice_is_refused_naming_both_values(case, capsys):
    xacro(case, '  <xacro:arg name="axis" default="0 0 1"/>\n' + JOINT.format(name="j1", axis="$(arg axis)"))
    refused(case, capsys, ["robot", "show", "r.xacro", "--xacro-arg", "axis:=0 0 1", "--xacro-arg", "axis:=1 0 0"],
            EXIT_INPUT, "--xacro-arg axis: given twice ('0 0 1', then '1 0 0')")


def test_a_package_given_twice_to_inertia_is_refused(case, capsys):
    refused(case, capsys, ["inertia", "--robot", "irb140", "--meshes", REPO / "robots" / "irb140" / "meshes",
                           "--units", "mm", "--total-mass", "98", "--package", "arm=a", "--package", "arm=b"],
            EXIT_INPUT, "--package arm: given twice ('a', then 'b')")


# ----- a mesh vertex far beyond any robot is refused naming the mesh


def _tetrahedron_stl(far: float) -> bytes:
    """A closed tetrahedron, outward facing, one vertex ``far`` [file units] along x (binary STL)."""
    v = [(0.0, 0.0, 0.0), (far, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
    faces = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]
    body = b"".join(struct.pack("<12fH", 0, 0, 0, *v[a], *v[b], *v[c], 0) for a, b, c in faces)
    return b"\0" * 80 + struct.pack("<I", len(faces)) + body


def test_a_mesh_vertex_beyond_a_kilometre_is_refused_naming_the_mesh(case, capsys):
    """1e30 mm passed as finite; the mass properties overflowed (a RuntimeWarning of trimesh) and the error
    said "centre of mass: expected finite numbers", naming no file."""
    from thermocomp.io.meshes import read_mesh

    meshes = case / "meshes"
    meshes.mkdir()
    for link in ("base", "link1", "link2", "link3", "link4", "link5"):
        (meshes / f"{link}.stl").write_bytes((REPO / "robots" / "irb140" / "meshes" / f"{link}.stl").read_bytes())
    (meshes / "link6.stl").write_bytes(_tetrahedron_stl(1e30))
    err = refused(case, capsys, ["inertia", "--robot", "irb140", "--meshes", "meshes", "--units", "mm",
                                 "--total-mass", "98"], EXIT_INPUT, "link6.stl", "at most 1000 m, got 1e+27 m")
    assert "RuntimeWarning" not in err
    (meshes / "link6.stl").write_bytes(_tetrahedron_stl(100.0))
    assert read_mesh(meshes / "link6.stl", 1e-3).vertices.max() == pytest.approx(0.1)
    with pytest.raises(InputError, match="at most 1000 m"):
        read_mesh(meshes / "link6.stl", 1e2)  # (100 units of 100 m)


# ----- a control character read from a file is shown escaped in the message, never sent to the terminal


def test_a_control_character_of_a_file_is_shown_escaped_in_the_message(case, capsys):
    """A NUL and an ESC [31m of a deformation header were printed raw ("got D^@x,..."), the ESC as a colour."""
    lines = (case / "d.csv").read_text().splitlines()
    at = next(k for k, line in enumerate(lines) if line.startswith("Dx"))
    lines[at] = lines[at].replace("Dx", "D\0x").replace("Doz", "\x1b[31mDoz")
    (case / "d.csv").write_text("\n".join(lines) + "\n")
    err = refused(case, capsys, ["compensate", "--deformation", "d.csv", "--targets", "t.csv", "--static", "--out",
                                 "o.csv"], EXIT_INPUT, f"d.csv, line {at + 1}", "got D\\x00x,", "\\x1b[31mDoz")
    assert "\0" not in err and "\x1b" not in err


# ----- a CSV line has a bound: a name of megabytes was copied into every row of the results, once a minute


@pytest.mark.parametrize("ends", ["\n", "\r\n", "\r"])
def test_a_csv_line_past_the_bound_is_refused_at_its_line(case, capsys, monkeypatch, ends):
    """A 2 MB target name was read and written 201 times (2 GB of results over the default 200 minutes); a file
    of gigabytes without a line end was read whole. (The bound lowered to 1,000 bytes here; the same at 1 MiB.)"""
    from thermocomp.io import csvtext

    monkeypatch.setattr(csvtext, "MAX_LINE_BYTES", 1000)
    header = "name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg"
    rows = [header, "P1,641,21,473,0,90,0", "P2" + "x" * 1000 + ",536,235,281,0,90,0"]
    (case / "t.csv").write_bytes(ends.join(rows).encode() + ends.encode())
    refused(case, capsys, ["compensate", "--deformation", "d.csv", "--targets", "t.csv", "--static", "--out", "o.csv"],
            EXIT_INPUT, "t.csv, line 3, column 1001", "more than 1,000 bytes")
    (case / "t.csv").write_bytes((ends.join(rows[:2]) + ends + "x" * 3000).encode())  # (no line end after it)
    refused(case, capsys, ["compensate", "--deformation", "d.csv", "--targets", "t.csv", "--static", "--out", "o.csv"],
            EXIT_INPUT, "t.csv, line 3, column 1001")
    rows[2] = "P2" + "x" * 900 + ",536,235,281,0,90,0"  # (within the bound: read)
    (case / "t.csv").write_bytes(ends.join(rows).encode() + ends.encode())
    code, out, err = run_cli(capsys, ["compensate", "--deformation", "d.csv", "--targets", "t.csv", "--static",
                                      "--out", "o.csv"])
    assert code == EXIT_OK, err
    assert (case / "o.csv").read_text().count("P2" + "x" * 900) == 1


# ----- a description read whole has a size bound, as a xacro file has


@pytest.mark.parametrize("kind", ["urdf", "package.xml", "scene", "time law"])
def test_a_description_past_its_size_bound_is_refused_naming_it(case, capsys, monkeypatch, kind):
    """A URDF, a package.xml, a scene or a time law of gigabytes was read whole (a xacro file had a bound).
    (The bound lowered to 4 KiB here; the same at 16 MiB.)"""
    from thermocomp.io import files, robot_files, scene_file, timelaw_file, urdf

    for module in (files, robot_files, scene_file, timelaw_file, urdf):
        monkeypatch.setattr(module, "MAX_DESCRIPTION_BYTES", 4096, raising=False)
    padding = "<!-- " + "x" * 5000 + " -->\n"
    code, _, _ = run_cli(capsys, ["robot", "export", "irb140", "--out", "r.urdf"])
    assert code == EXIT_OK
    urdf_text = (case / "r.urdf").read_text()
    (case / "r.urdf").write_text(urdf_text.replace("</robot>", padding + "</robot>"))
    argv = {"urdf": ["robot", "show", "r.urdf"],
            "package.xml": ["robot", "show", "irb140.urdf", "--package-path", "ws"],
            "scene": ["sim", "--scene", "cell.toml", "--headless", "--deformation", "d.csv", "--targets", "t.csv",
                      "--out", "m.csv"],
            "time law": ["compensate", "--deformation", "d.csv", "--targets", "t.csv", "--time-law",
                         "from:law.csv", "--out", "o.csv"]}[kind]
    name = {"urdf": "r.urdf", "package.xml": "ws/p/package.xml", "scene": "cell.toml", "time law": "law.law.toml"}[kind]
    if kind == "package.xml":
        (case / "irb140.urdf").write_text(urdf_text)
        (case / "ws" / "p").mkdir(parents=True)
        (case / name).write_text("<package><name>p</name>" + padding + "</package>\n")
    elif kind == "scene":
        (case / name).write_text("# " + "x" * 5000 + "\n")
    elif kind == "time law":
        (case / "law.csv").write_bytes((case / "d.csv").read_bytes())
        (case / name).write_text("# " + "x" * 5000 + "\n")
    refused(case, capsys, argv, EXIT_INPUT, name, "more than 4,096 bytes")
