"""Every reader, any bytes in: a result or a located InputError out, never another exception (issue 9).

Property-based (hypothesis, derandomized so CI sees the same examples every
run): arbitrary bytes, and valid files of each kind with random damage
(bytes replaced, inserted or cut; tokens that broke readers before: NaN,
1e400, 400-digit integers, ``6_41``, digits of other scripts, quotes, NUL,
Latin-1 bytes, CR line ends). Bounded to run in a few seconds per reader.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from thermocomp.errors import InputError

#: Examples per reader in CI; a longer hunt: ``THERMOCOMP_FUZZ_EXAMPLES=3000 pytest tests/test_fuzz_readers.py``.
EXAMPLES = int(os.environ.get("THERMOCOMP_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

#: Cell contents that broke a reader or would: non-finite, huge, Python-only number syntax, other scripts.
TOKENS = [b"nan", b"inf", b"-inf", b"1e400", b"9" * 400, b"6_41", "\u0663".encode(), b'"', b'""', b",", b"\x00",
          b"\xff", b"\xe9", b"\r", b"\r\n", b"\n", b"#", b"-", b"", b"[", b"]", b"=", b"<", b"/>", b"\t", b"0x10",
          b"1,2,3", b"q999999999_deg", b"x" * 300]


def damaged(seed: bytes) -> st.SearchStrategy[bytes]:
    """``seed`` with one to three random edits: a slice replaced by random bytes or a token, or cut."""
    edit = st.tuples(st.integers(0, len(seed)), st.integers(0, 40),
                     st.one_of(st.sampled_from(TOKENS), st.binary(max_size=12)))

    def apply(edits: list[tuple[int, int, bytes]]) -> bytes:
        data = seed
        for at, cut, new in edits:
            at = min(at, len(data))
            data = data[:at] + new + data[at + cut:]
        return data

    return st.lists(edit, min_size=1, max_size=3).map(apply)


#: A value of a file: a number, a quoted string, or a cell between commas.
VALUE = re.compile(rb'-?[0-9][0-9.eE+-]*|"[^"\n]*"|(?<=,)[^,\n]*')
#: What a value may become: every token above, as it is and quoted, and long names and paths.
REPLACEMENTS = [*TOKENS, *(b'"' + tok + b'"' for tok in TOKENS), b'"' + b"r" * 300 + b'.urdf"', b'"../' * 40 + b'x"',
                b"1" * 20, b"-1", b"0", b"1e-320", b"[1, 2]", b"true", b'"/dev/null"', b'"."']


def replaced(seed: bytes) -> st.SearchStrategy[bytes]:
    """``seed`` with one to three of its values (numbers, strings, cells) replaced by a hostile one."""
    spans = [m.span() for m in VALUE.finditer(seed)] or [(0, 0)]
    edit = st.tuples(st.integers(0, len(spans) - 1), st.sampled_from(REPLACEMENTS))

    def apply(edits: list[tuple[int, bytes]]) -> bytes:
        chosen = dict(edits)  # the last replacement of a value wins
        out, at = [], 0
        for k, (start, stop) in enumerate(spans):
            if k in chosen:
                out += [seed[at:start], chosen[k]]
                at = stop
        return b"".join(out) + seed[at:]

    return st.lists(edit, min_size=1, max_size=3).map(apply)


def any_bytes_or_damaged(seed: bytes) -> st.SearchStrategy[bytes]:
    return st.one_of(st.binary(max_size=200), damaged(seed), replaced(seed), replaced(seed))


def check_reader(tmp_path: Path, name: str, data: bytes, read: Callable[[Path], object]) -> None:
    """``read`` the bytes ``data`` written to ``name``: a result or a located InputError, nothing else."""
    path = tmp_path / name
    path.write_bytes(data)
    try:
        read(path)
    except InputError as exc:
        assert exc.path is not None, f"InputError without a file: {exc}"
        assert str(exc).strip(), "empty message"


def _small_targets() -> bytes:
    return b"".join((REPO / "examples" / "targets_random50.csv").read_bytes().splitlines(keepends=True)[:9])


@FUZZ
@given(data=any_bytes_or_damaged(_small_targets()))
def test_targets_csv(tmp_path_factory, data):
    from thermocomp.io.targets_csv import read_targets_csv

    check_reader(tmp_path_factory.mktemp("t"), "targets.csv", data, lambda p: read_targets_csv(p, n_joints=6))


SELF_DESCRIBING = (b"name,x_mm,y_mm,z_mm,quat_w,quat_x,quat_y,quat_z,time_min,q1_deg,q2_deg,q3_deg,q4_deg,q5_deg,q6_deg\n"
                   b"A,500,0,600,0,0,1,0,0,0,10,10,0,20,0\nB,520,10,600,0,0,1,0,1.5,0,10,10,0,20,0\n")


@FUZZ
@given(data=st.one_of(damaged(SELF_DESCRIBING), replaced(SELF_DESCRIBING)))
def test_targets_csv_self_describing(tmp_path_factory, data):
    from thermocomp.io.targets_csv import read_targets_csv

    check_reader(tmp_path_factory.mktemp("t"), "targets.csv", data, lambda p: read_targets_csv(p, n_joints=6))


@FUZZ
@given(data=any_bytes_or_damaged((REPO / "deformations" / "exaggerated.csv").read_bytes()))
def test_deformation_csv(tmp_path_factory, data):
    from thermocomp.io.deformation_csv import read_deformation_csv

    check_reader(tmp_path_factory.mktemp("d"), "d.csv", data, lambda p: read_deformation_csv(p, n_joints=6))


@FUZZ
@given(data=any_bytes_or_damaged((REPO / "robots" / "irb140" / "chain.csv").read_bytes()))
def test_robot_csv(tmp_path_factory, data):
    from thermocomp.io.chain_csv import read_chain_csv

    check_reader(tmp_path_factory.mktemp("r"), "robot.csv", data, read_chain_csv)


def _urdf() -> bytes:
    from thermocomp.io.robots import load_robot
    from thermocomp.io.urdf import urdf_text
    from thermocomp.kinematics.model import nominal_model

    return urdf_text(nominal_model(load_robot("irb140")), robot_name="irb140").encode()


@FUZZ
@given(data=any_bytes_or_damaged(_urdf()))
def test_urdf(tmp_path_factory, data):
    from thermocomp.io.urdf import read_urdf

    check_reader(tmp_path_factory.mktemp("u"), "robot.urdf", data, read_urdf)


@FUZZ
@given(data=any_bytes_or_damaged((REPO / "scenes" / "irb140_paper_cell.toml").read_bytes()))
def test_scene_toml(tmp_path_factory, data):
    from thermocomp.io.scene_file import read_scene

    check_reader(tmp_path_factory.mktemp("s"), "cell.toml", data, read_scene)


MESH_MAP = b'thermocomp_meshes = 1\nmesh_unit = "m"\n[links.link6]\nvisual = "cube.stl"\n'


@FUZZ
@given(data=any_bytes_or_damaged(MESH_MAP))
def test_mesh_map_toml(tmp_path_factory, data):
    from thermocomp.io.scene_file import read_mesh_map

    folder = tmp_path_factory.mktemp("m")
    (folder / "cube.stl").write_bytes((REPO / "robots" / "irb140" / "meshes" / "link6.stl").read_bytes())
    check_reader(folder, "meshes.toml", data, read_mesh_map)


CORRECTIONS = b"link,lambda\nbase,1.0\nlink1,1.05\nlink2,0.95\n"


@FUZZ
@given(data=any_bytes_or_damaged(CORRECTIONS))
def test_inertia_corrections_csv(tmp_path_factory, data):
    from thermocomp.io.inertia_csv import read_corrections_csv

    names = ["base", *(f"link{k}" for k in range(1, 7))]
    check_reader(tmp_path_factory.mktemp("c"), "corrections.csv", data, lambda p: read_corrections_csv(p, names))


@pytest.fixture(scope="module")
def results_bytes(tmp_path_factory) -> bytes:
    from helpers import run_targets

    from thermocomp.compensation.compensate import CompensationOptions
    from thermocomp.deformation.timelaw import Static

    out = tmp_path_factory.mktemp("results") / "o.csv"
    targets = tmp_path_factory.mktemp("targets") / "t.csv"
    targets.write_bytes(_small_targets())
    run_targets("irb140", REPO / "deformations" / "exaggerated.csv", targets, out,
                     options=CompensationOptions(time_law=Static(), minutes=(0.0,)))
    return out.read_bytes()


def test_results_csv_for_play(tmp_path_factory, results_bytes):
    from thermocomp.app.coppeliasim import read_played_rows
    from thermocomp.io.robots import load_robot

    chain = load_robot("irb140")
    folder = tmp_path_factory.mktemp("p")

    @FUZZ
    @given(data=any_bytes_or_damaged(results_bytes))
    def run(data):
        check_reader(folder, "results.csv", data, lambda p: read_played_rows(p, chain, None))

    run()
    (folder / "ok.csv").write_bytes(results_bytes)
    assert read_played_rows(folder / "ok.csv", chain, None)[1].q.shape == (len(results_bytes.splitlines()) - 1, 6)


#: A CAM-style run of plain motions (one MOVES token) with a named point, a work object and a comment.
RAPID_RUN = (b"MODULE m\n  CONST robtarget p1:=[[500,0,600],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
             b"  PROC main()\n    MoveL [[500,0,600],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tool0;\n"
             b"    ! a comment\n    MoveJ p1, v200, fine, tool0\\WObj:=wobj0;\n"
             b"    MoveAbsJ [[0,0,0,0,30,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v100, z1, tool0;\n  ENDPROC\nENDMODULE\n")




def _written(write: Callable[[Path], None], name: str) -> bytes:
    """A valid file written by the library's own writer (the seed the damage starts from)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        write(path)
        return path.read_bytes()


def _friction_seed() -> bytes:
    import numpy as np

    from thermocomp.dynamics.friction import FrictionTable
    from thermocomp.io.friction_csv import write_friction_csv

    table = FrictionTable(Fc=np.full(6, 2.0), Fv=np.full(6, 0.5), Fs=np.full(6, 2.5), vs=np.full(6, 0.05))
    return _written(lambda p: write_friction_csv(p, table), "f.csv")


def _recording_seed() -> bytes:
    import numpy as np

    from thermocomp.io.recording_csv import Recording, write_recording_csv

    t = np.linspace(0.0, 0.4, 5)
    rec = Recording(time=t, q=np.outer(t, np.arange(1.0, 7.0)), tau=np.outer(np.cos(t), np.ones(6)))
    return _written(lambda p: write_recording_csv(p, rec), "r.csv")


def _measurements_seed() -> bytes:
    import numpy as np

    from thermocomp.io.measurements import Measurements
    from thermocomp.io.measurements_csv import write_measurements_csv

    q = np.radians([[0.0, 10, 20, 0, 30, 0], [5, 15, 25, 5, 35, 5], [10, 20, 10, -5, 40, 10]])
    meas = Measurements(q=q, p_tracker_tcp=np.array([[0.5, 0, 0.6], [0.52, 0.01, 0.6], [0.48, -0.02, 0.61]]),
                        minute=np.array([0.0, 30.0, 60.0]))
    return _written(lambda p: write_measurements_csv(meas, p), "m.csv")


def _time_law_seed() -> bytes:
    from thermocomp.deformation.timelaw import LinearRamp
    from thermocomp.io.timelaw_file import time_law_text

    return time_law_text(LinearRamp(120.0), "table.csv").encode()


def _scene_joints_seed() -> bytes:
    import numpy as np

    from thermocomp.io.scene_joints_csv import write_scene_joints_csv

    return _written(lambda p: write_scene_joints_csv(p, np.tile(np.eye(3), (6, 1, 1))), "j.csv")








#: The UR5's standard DH table (Universal Robots' published parameters).
DH_UR5 = (b"joint,a_mm,alpha_deg,d_mm,theta_offset_deg,lower_deg,upper_deg\n1,0,90,89.159,0,-360,360\n"
          b"2,-425,0,0,0,-360,360\n3,-392.25,0,0,0,-360,360\n4,0,90,109.15,0,-360,360\n5,0,-90,94.65,0,-360,360\n"
          b"6,0,0,82.3,0,-360,360\n")



#: A tetrahedron as an ASCII STL and as an OBJ (mm).
TETRA_STL = b"solid t\n" + b"".join(
    b"facet normal 0 0 0\n outer loop\n" + b"".join(b"  vertex %s\n" % v for v in face) + b" endloop\nendfacet\n"
    for face in ((b"0 0 0", b"0 10 0", b"10 0 0"), (b"0 0 0", b"10 0 0", b"0 0 10"), (b"0 0 0", b"0 0 10", b"0 10 0"),
                 (b"10 0 0", b"0 10 0", b"0 0 10"))) + b"endsolid t\n"
TETRA_OBJ = b"v 0 0 0\nv 10 0 0\nv 0 10 0\nv 0 0 10\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"


@FUZZ
@given(data=st.one_of(any_bytes_or_damaged(TETRA_STL), damaged(TETRA_OBJ), replaced(TETRA_OBJ)))
def test_mesh(tmp_path_factory, data):
    from thermocomp.io.meshes import read_mesh

    folder = tmp_path_factory.mktemp("mesh")
    check_reader(folder, "link.stl", data, lambda p: read_mesh(p, 1e-3))
    check_reader(folder, "link.obj", data, lambda p: read_mesh(p, 1e-3))


def _reader(module: str, function: str, *args):
    """``module.function(path, *args)``, imported when first called."""
    def read(path: Path):
        import importlib

        return getattr(importlib.import_module(module), function)(path, *args)
    return read


def _read_inertials(path: Path):
    """The inertia file read (io) and its links checked as physics (the inertia feature), as the commands do."""
    from thermocomp.inertia.links import robot_inertials_from_rows
    from thermocomp.io.inertia_csv import read_inertia_csv

    return robot_inertials_from_rows(read_inertia_csv(path))


#: Readers fuzzed from seeds: id -> (file name, seed files (made when first needed), reader).
SEEDED = {
    "rapid": ("p.mod", lambda: [(REPO / "examples" / "rapid_program.mod").read_bytes(), RAPID_RUN],
              _reader("thermocomp.programs.rapid", "read_rapid")),
    "urscript": ("p.script", lambda: [(REPO / "examples" / "urscript_program.script").read_bytes()],
                 _reader("thermocomp.programs.urscript", "read_urscript")),
    "friction": ("friction.csv", lambda: [_friction_seed()], _reader("thermocomp.io.friction_csv", "read_friction_csv", 6)),
    "recording": ("recording.csv", lambda: [_recording_seed()],
                  _reader("thermocomp.io.recording_csv", "read_recording_csv", 6)),
    "measurements": ("measurements.csv", lambda: [_measurements_seed()],
                     _reader("thermocomp.io.measurements_csv", "read_measurements_csv", 6)),
    "time law": ("table.law.toml", lambda: [_time_law_seed()], _reader("thermocomp.io.timelaw_file", "read_time_law")),
    "scene joints": ("joints.csv", lambda: [_scene_joints_seed()],
                     _reader("thermocomp.io.scene_joints_csv", "read_scene_joints_csv", 6)),
    "inertia": ("inertia.csv", lambda: [(REPO / "robots" / "irb140" / "inertia.csv").read_bytes()],
                _read_inertials),
    "dh": ("ur5_dh.csv", lambda: [DH_UR5], _reader("thermocomp.io.dh_csv", "read_dh_csv")),
}


@functools.cache
def _strategy(reader: str) -> st.SearchStrategy[bytes]:
    seeds = SEEDED[reader][1]()
    return st.one_of(*(any_bytes_or_damaged(seed) for seed in seeds))


@pytest.mark.parametrize("reader", list(SEEDED))
@FUZZ
@given(data=st.data())
def test_seeded_reader(tmp_path_factory, reader, data):
    """Any bytes, or one of the reader's valid files damaged: a result or a located InputError."""
    name, _, read = SEEDED[reader]
    check_reader(tmp_path_factory.mktemp("f"), name, data.draw(_strategy(reader)), read)
