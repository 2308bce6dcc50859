"""Every command taking a robot accepts every built-in name, and refuses an unknown one the same way.

A built-in name (:data:`thermocomp.io.robots.BUILTIN_NAMES`: the robots and their kinematic
variants) is never a file to read or protect; :func:`thermocomp.io.robots.robot_file` is the one
place that decides. Each case runs the real command line on tiny inputs. A command that needs what a
name lacks (a variant's inertials or meshes, a robot file's identified inertials) says so, naming the
robot; an unknown name gets one error naming the option and listing the built-in names.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest
from helpers import REPO

from thermocomp.cli.main import EXIT_INPUT, EXIT_OK, build_parser, main
from thermocomp.inertia.builtin import BUILTIN_TOTAL_MASS
from thermocomp.io.robots import BUILTIN_JOINT_OBJECTS, BUILTIN_NAMES, BUILTIN_ROBOTS, BUILTIN_VARIANTS

ZERO = REPO / "deformations" / "zero.csv"
TARGET = "name,x_mm,y_mm,z_mm,euler_xyz_a_deg,euler_xyz_b_deg,euler_xyz_c_deg\n"

#: How the refusals read (the robot named; never "no such file").
NEEDS_FILE = "robot file carrying the {what} inertials, got the built-in robot {name!r}"
VARIANT = "robot {name!r} is a kinematic variant of {folder!r} (a table only"


def _folder(name: str) -> str:
    return BUILTIN_VARIANTS[name][0] if name in BUILTIN_VARIANTS else name


def _targets(tmp: Path, name: str) -> Path:
    """One reachable target of ``name``: its TCP at a middle configuration (solved back by the command)."""
    from thermocomp.geometry.rotations import euler_xyz_from_matrix
    from thermocomp.io.robots import load_robot
    from thermocomp.kinematics.fk import fk_matrix
    from thermocomp.kinematics.model import nominal_model

    chain = load_robot(name)
    T = fk_matrix(nominal_model(chain), 0.6 * chain.lower + 0.4 * chain.upper)
    xyz, abc = T[:3, 3] * 1e3, np.degrees(euler_xyz_from_matrix(T[:3, :3]))
    path = tmp / "targets.csv"
    path.write_text(TARGET + "t1," + ",".join(repr(float(v)) for v in (*xyz, *abc)) + "\n")
    return path


def _tracked(tmp: Path, name: str) -> Path:
    out = tmp / "tracker.csv"
    assert main(["track", "--robot", name, "--deformation", str(ZERO), "--static", "--poses", "12", "--seed", "1",
                 "--noise-mm", "0.01", "--out", str(out)]) == EXIT_OK
    return out


#: Each command that takes a robot: (its argv for a robot name and a temporary folder, what a name gives).
#: ``ok``: runs (exit 0); ``file``: refused, a robot file with inertials needed; ``inertials``: a built-in
#: robot runs as far as its other (absent) input, a variant is refused for its missing inertials; ``joint
#: objects``: runs for a robot whose scene joint frames are built in, else refused for them.
COMMANDS = {
    "compensate": (lambda n, t: ["compensate", "--robot", n, "--deformation", str(ZERO), "--targets",
                                 str(_targets(t, n)), "--out", str(t / "out.csv")], "ok"),
    "robot show": (lambda n, t: ["robot", "show", n], "ok"),
    "robot export": (lambda n, t: ["robot", "export", n, "--out", str(t / "out.urdf")], "ok"),
    "inertia": (lambda n, t: ["inertia", "--robot", n, "--meshes", str(REPO / "robots" / _folder(n) / "meshes"),
                              "--units", "m", "--total-mass", str(BUILTIN_TOTAL_MASS[_folder(n)])], "ok"),
    "excite": (lambda n, t: ["excite", "--robot", n, "--duration-s", "4", "--rate-hz", "10",
                             "--out", str(t / "out.csv")], "ok"),
    "identify": (lambda n, t: ["identify", "--robot", n, "--recording", str(t / "absent.csv")], "file"),
    "identify --step 2": (lambda n, t: ["identify", "--step", "2", "--robot", n, "--recording",
                                        str(t / "absent.csv"), "--out", str(t / "out.csv")], "inertials"),
    "feedforward": (lambda n, t: ["feedforward", "--robot", n, "--trajectory", str(t / "absent.csv"),
                                  "--out", str(t / "out.csv")], "file"),
    "collisions": (lambda n, t: ["collisions", "--robot", n, "--recording", str(t / "absent.csv"),
                                 "--threshold-nm", "1"], "file"),
    "simulate-recording": (lambda n, t: ["simulate-recording", "--truth", n, "--trajectory", str(t / "absent.csv"),
                                         "--out", str(t / "out.csv")], "file"),
    "track": (lambda n, t: ["track", "--robot", n, "--deformation", str(ZERO), "--static", "--poses", "3",
                            "--out", str(t / "out.csv")], "ok"),
    "calibrate": (lambda n, t: ["calibrate", "--robot", n, "--measurements", str(_tracked(t, n)),
                                "--time-law", "static", "--out", str(t / "out.csv"), "--report",
                                str(t / "out.txt")], "ok"),
    "coppeliasim convention": (lambda n, t: ["coppeliasim", "convention", "--robot", n, "--deformation", str(ZERO),
                                             "--configurations", "5", "--out", str(t / "out.csv")], "joint objects"),
    "sim": (lambda n, t: ["sim", "--headless", "--no-scene", "--robot", n, "--deformation", str(ZERO),
                          "--targets", str(_targets(t, n)), "--out", str(t / "out.csv")], "ok"),
    # servo: UR robots only (speedj); the UR5 runs as far as its absent input
    "servo excite": (lambda n, t: ["servo", "excite", "--robot", n, "--out", str(t / "out.script")], "ur"),
    "servo identify": (lambda n, t: ["servo", "identify", "--robot", n, "--recording", str(t / "absent.csv"),
                                     "--out", str(t / "out.toml")], "ur"),
    "servo track": (lambda n, t: ["servo", "track", "--robot", n, "--models", str(t / "absent.csv"), "--path",
                                  "line:x", "--speed-mm-s", "10", "--out", str(t / "out.csv")], "ur"),
}
#: Commands that take a robot but need a running CoppeliaSim (its fake server): their robot goes through the
#: same :func:`~thermocomp.io.robots.robot_file`, tested with built-in names in test_coppeliasim_cli.py.
ELSEWHERE = {"coppeliasim check"}
SLOW = {"sim", "inertia"}


def _robot_commands() -> set[str]:
    """Every command of the parser with a robot argument (``--robot``, ``--truth``, ``--compare``, positional)."""
    found = set()

    def walk(parser: argparse.ArgumentParser, words: tuple[str, ...]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for word, sub in action.choices.items():
                    walk(sub, (*words, word))
            elif action.dest in ("robot", "truth", "compare") and words:
                found.add(" ".join(words))

    walk(build_parser(), ())
    return found


def test_every_robot_command_is_covered():
    assert _robot_commands() == {c.split(" --")[0] for c in COMMANDS} | ELSEWHERE


CASES = [pytest.param(command, name, marks=[pytest.mark.slow] if command in SLOW else [], id=f"{command}-{name}")
         for command in COMMANDS for name in BUILTIN_NAMES]


@pytest.mark.parametrize(("command", "name"), CASES)
def test_builtin_name_is_no_file(command, name, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text("a stray file named like the robot: never read\n")
    argv, kind = COMMANDS[command]
    code = main(argv(name, tmp_path))
    err = capsys.readouterr().err
    if kind == "ok":
        assert code == EXIT_OK, err
    elif kind == "file":
        what = {"simulate-recording": "true", "identify": "reference (CAD)"}.get(command, "(identified)")
        assert code == EXIT_INPUT and NEEDS_FILE.format(what=what, name=name) in err, err
    elif kind == "ur":
        if name == "ur5":
            assert code == (EXIT_OK if command == "servo excite" else EXIT_INPUT), err
            assert command == "servo excite" or f"{tmp_path / 'absent.csv'}" in err, err
        else:
            assert code == EXIT_INPUT and "servo runs a UR robot commanded by speedj" in err and repr(name) in err, err
    elif kind == "joint objects":
        if name in ("irb140", *BUILTIN_JOINT_OBJECTS):
            assert code == EXIT_OK, err
        else:
            assert code == EXIT_INPUT and f"robot {name!r}: the authors' scene convention needs the world " in err, err
    elif name in BUILTIN_VARIANTS:
        assert code == EXIT_INPUT and VARIANT.format(name=name, folder=_folder(name)) in err, err
    else:
        assert code == EXIT_INPUT and f"{tmp_path / 'absent.csv'}" in err and name not in err, err


@pytest.mark.parametrize("name", [n for n in BUILTIN_VARIANTS])
def test_variant_meshes_refused_by_name(name, tmp_path, capsys):
    """``robot export --with-meshes`` of a variant: refused for its missing meshes, not read as a file."""
    assert main(["robot", "export", name, "--with-meshes", "--out", str(tmp_path / "out.urdf")]) == EXIT_INPUT
    assert VARIANT.format(name=name, folder=_folder(name)) in capsys.readouterr().err
    assert not (tmp_path / "out.urdf").exists()


@pytest.mark.parametrize("command", list(COMMANDS))
def test_unknown_name_one_error(command, tmp_path, capsys):
    argv, _ = COMMANDS[command]
    args = argv(BUILTIN_ROBOTS[0], tmp_path)
    # (the option or argument that named the robot: robot show/export take it as their argument ROBOT)
    option = {"simulate-recording": "--truth", "robot show": "ROBOT", "robot export": "ROBOT"}.get(command, "--robot")
    args[args.index(BUILTIN_ROBOTS[0])] = "irb6700"
    assert main(args) == EXIT_INPUT
    err = capsys.readouterr().err
    assert err.count("error:") == 1, err
    assert (f"{option}: unknown robot 'irb6700'; expected a built-in robot ({', '.join(BUILTIN_NAMES)}) or a path "
            "to a .csv, .urdf or .xacro file") in err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("out")) == []


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_scene_model_takes_every_builtin_name(name, tmp_path, monkeypatch):
    """A scene's ``[robot] model`` is a built-in name or a file, decided as ``--robot`` is: a variant is no file."""
    from thermocomp.io.scene_file import read_scene

    monkeypatch.chdir(tmp_path)
    scene = tmp_path / "s.toml"
    scene.write_text(f'thermocomp_scene = 1\nname = "t"\n\n[robot]\nmodel = "{name}"\n')
    read = read_scene(scene)
    assert read.robot.model == name and read.files() == (scene,)
