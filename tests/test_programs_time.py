"""When motions run (timing checked against hand-computed distances and speeds), and the time forms of the output."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_program
from lark import Tree
from program_builders import rapid_case, robtarget_text

from thermocomp import DeformationTable, fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import LinearRamp
from thermocomp.geometry.rotations import transform
from thermocomp.io.deformation_csv import read_deformation_csv
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.programs import ProgramOptions, read_program
from thermocomp.programs.compensate import nominal_configurations, point_poses
from thermocomp.programs.rapid import rapid_parser
from thermocomp.programs.timing import arc_length, estimate_timing
from thermocomp.programs.urscript import urscript_parser

EXAGGERATED = "deformations/exaggerated.csv"


def rapid_two_points(tmp_path, body: str, dx_mm: float = 100.0):
    """A module with robtargets a and b = a + dx_mm along x (same orientation), IRB140."""
    chain = load_robot("irb140")
    q = np.radians([0.0, 10.0, 10.0, 0.0, 40.0, 0.0])
    R, p = fk(nominal_model(chain), q)
    T = transform(R, p)
    cf = confdata_from_q(nominal_model(chain), q)[0]
    Tb = T.copy()
    Tb[0, 3] += dx_mm * 1e-3
    src = ("MODULE m\n  CONST robtarget a:=" + robtarget_text(T, cf) + ";\n  CONST robtarget b:="
           + robtarget_text(Tb, cf) + ";\n  PROC main()\n" + body + "  ENDPROC\nENDMODULE\n")
    path = tmp_path / "t.mod"
    path.write_text(src)
    return chain, path


def timing_of(chain, path, **timing):
    prog = read_program(path)
    poses = point_poses(chain, prog)
    q, _ = nominal_configurations(chain, prog, poses, CompensationOptions())
    return prog, estimate_timing(chain, prog, poses.T_world_tcp, q, **timing)


def test_rapid_linear_move_takes_distance_over_speed_and_waits_add(tmp_path):
    body = ("    MoveL a, v100, fine, tool0;\n    MoveL b, v100, fine, tool0;\n    WaitTime 2;\n"
            "    MoveL a, v200 \\T:=3, fine, tool0;\n    MoveL b, v50, fine, tool0;\n")
    chain, path = rapid_two_points(tmp_path, body)
    prog, timing = timing_of(chain, path)
    # a -> b: 100 mm at 100 mm/s = 1 s; wait 2 s; \T:=3 s; b: 100 mm at 50 mm/s = 2 s;
    # the first move starts from the cycle's last point (b): 1 s
    np.testing.assert_allclose(timing.step_duration_s, [1.0, 1.0, 2.0, 3.0, 2.0], rtol=1e-9)
    np.testing.assert_allclose(timing.point_arrival_s, [1.0, 2.0, 7.0, 9.0], rtol=1e-9)
    assert timing.cycle_s == pytest.approx(9.0)


def test_joint_move_is_limited_by_its_slowest_joint(tmp_path):
    src = ("MODULE m\n  PROC main()\n    MoveAbsJ [[0,0,0,0,30,0],[9E9,9E9,9E9,9E9,9E9,9E9]], v5000, fine, tool0;\n"
           "    MoveAbsJ [[20,0,0,0,30,90],[9E9,9E9,9E9,9E9,9E9,9E9]], v5000, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    path = tmp_path / "j.mod"
    path.write_text(src)
    chain = load_robot("irb140")
    _, timing = timing_of(chain, path)
    # axis 1: 20 deg at 200 deg/s = 0.1 s; axis 6: 90 deg at 450 deg/s = 0.2 s -> 0.2 s each way
    # (the TCP, 0.53 m from axis 1, travels 0.18 m at 5 m/s: 0.04 s, not limiting)
    np.testing.assert_allclose(timing.step_duration_s, [0.2, 0.2], rtol=1e-9)


def test_ur_trapezoid_and_leading_joint(tmp_path):
    src = ("def p():\n  movej([0, -1.57, 1.57, -1.57, -1.57, 0], a=1.4, v=1.05)\n"
           "  movej([0.5, -1.57, 1.57, -1.57, -1.57, 0], a=1.4, v=1.05)\n"
           "  movel(p[.4, .1, .3, 0, 3.1416, 0], a=1.2, v=0.25)\n  movel(p[.5, .1, .3, 0, 3.1416, 0], a=1.2, v=0.25)\n"
           "end\n")
    path = tmp_path / "t.script"
    path.write_text(src)
    chain = load_robot("ur5")
    _, timing = timing_of(chain, path)
    # movej 0.5 rad with v = 1.05, a = 1.4: never reaches v (v^2/a = 0.79 > 0.5): 2 sqrt(0.5 / 1.4)
    assert timing.step_duration_s[1] == pytest.approx(2 * np.sqrt(0.5 / 1.4), rel=1e-9)
    # movel 0.1 m with v = 0.25, a = 1.2: v^2/a = 0.052 < 0.1: d / v + v / a
    assert timing.step_duration_s[3] == pytest.approx(0.1 / 0.25 + 0.25 / 1.2, rel=1e-9)


def test_cycles_duration_and_measured_cycle_time(tmp_path):
    chain, path = rapid_two_points(tmp_path, "    MoveL a, v100, fine, tool0;\n    MoveL b, v100, fine, tool0;\n")
    _, timing = timing_of(chain, path, cycle_time_s=30.0, cycles=5)
    assert timing.estimated_cycle_s == pytest.approx(2.0) and timing.cycle_s == pytest.approx(30.0)
    np.testing.assert_allclose(timing.point_minutes(4), (4 * 30 + np.array([15.0, 30.0])) / 60)
    _, timing = timing_of(chain, path, duration_min=1.0)
    assert timing.cycles == 30 and timing.total_min == pytest.approx(1.0)


def test_arc_length_of_a_half_circle():
    r = 0.2
    assert arc_length(np.array([r, 0, 0]), np.array([0, r, 0]), np.array([-r, 0, 0])) == pytest.approx(np.pi * r)


def _top_level(text: str) -> list[str]:
    """``[a, [b], [[c]]]`` -> ``["a", "[b]", "[[c]]"]`` (whitespace around elements dropped)."""
    parts, depth, start = [], 0, 1
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if (ch == "," and depth == 1) or depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    return parts


def _aggregate_texts(text: str, parser, name: str) -> list[str]:
    """The entries of the table ``name`` in a time-indexed program, read with the language's own grammar."""
    tree = parser.parse(text)
    for node in tree.iter_subtrees():
        if node.data in ("data_decl", "assign") and any(str(t) == name for t in node.scan_values(lambda v: True)):
            value = node.children[-1]
            assert isinstance(value, Tree)
            if value.data == "numbers":  # one token: split its top-level elements
                return _top_level(str(value.children[0]))
            return [text[c.meta.start_pos:c.meta.end_pos] for c in value.children]
    raise AssertionError(f"no table {name}")


def test_time_indexed_rapid_entries_equal_the_snapshots_at_their_minutes(tmp_path):
    from helpers import REPO

    program = REPO / "examples" / "rapid_program.mod"
    options = CompensationOptions(time_law=LinearRamp(200.0))
    indexed = tmp_path / "indexed.mod"
    report = run_program("irb140", REPO / EXAGGERATED, program, indexed, options=options,
                                program_options=ProgramOptions(indexed_minutes=(0.0, 50.0, 100.0, 150.0, 200.0),
                                                               joint_targets="compensate"))
    text = indexed.read_text()
    assert "MoveL tcR3{tcIdx()}, v200, fine, tWeldGun\\WObj:=wobjTable;" in text
    assert "ClkStart tcClock;" in text and "PERS num tcOffsetMin := 0;" in text
    entries = _aggregate_texts(text, rapid_parser(), "tcR3")  # parses: the program is valid RAPID
    assert len(entries) == 5
    snapshot = tmp_path / "snap.mod"
    run_program("irb140", REPO / EXAGGERATED, program, snapshot, options=options,
                       program_options=ProgramOptions(at_minute=100.0, joint_targets="compensate"))
    pstart = next(line for line in snapshot.read_text().splitlines() if "robtarget pStart" in line)
    assert pstart.split(":=")[1].rstrip(";\r") == entries[2]
    assert report.written_bytes == len(indexed.read_bytes())


@pytest.mark.slow
@pytest.mark.parametrize("robot", ["gofa", "irb140"])
def test_time_indexed_rapid_of_a_flexpendant_module_holds_every_snapshot(tmp_path, rng, robot):
    """Every table of the time-indexed module, entry k, is the target text the snapshot at minute k writes."""
    import re

    case = rapid_case(robot, rng)
    program = tmp_path / "m.mod"
    program.write_bytes(case.text.encode("latin-1"))
    table = DeformationTable.from_mm_deg(np.hstack([rng.uniform(-0.3, 0.3, (6, 3)), rng.uniform(-0.03, 0.03, (6, 3))]))
    minutes = (0.0, 100.0, 200.0)
    indexed = tmp_path / "indexed.mod"
    run_program(robot, table, program, indexed, program_options=ProgramOptions(indexed_minutes=minutes))
    text = indexed.read_text(encoding="latin-1")
    names = sorted(set(re.findall(r"\btc[RJ]\d+\b", text)))
    assert names
    for k, minute in enumerate(minutes[1:], start=1):  # at minute 0 a snapshot keeps the source's own digits
        snapshot = tmp_path / f"s{k}.mod"
        run_program(robot, table, program, snapshot, program_options=ProgramOptions(at_minute=minute))
        flat = "".join(snapshot.read_text(encoding="latin-1").split())  # the snapshot may split a target's lines
        for name in names:
            entries = _aggregate_texts(text, rapid_parser(), name)
            assert len(entries) == len(minutes)
            assert "".join(entries[k].split()) in flat, (name, minute)


def test_time_indexed_urscript_entries_equal_the_snapshots(tmp_path):
    src = ("def job():\n  set_tcp(p[0, 0, .1, 0, 0, 0])\n  movej([0, -1.57, 1.57, -1.57, -1.57, 0])\n"
           "  movel(p[.4, .1, .3, 0, 3.1416, 0], a=1.2, v=0.25)\nend\n")
    path = tmp_path / "j.script"
    path.write_text(src)
    table = read_deformation_csv(EXAGGERATED)
    indexed = tmp_path / "i.script"
    run_program("ur5", table, path, indexed,
                       program_options=ProgramOptions(indexed_minutes=(0.0, 100.0, 200.0), joint_targets="compensate"))
    text = indexed.read_text()
    assert "  movel(tc_pose(tc_p2), a=1.2, v=0.25)" in text and "  run tc_clock_thread()" in text
    entries = _aggregate_texts(text, urscript_parser(), "tc_p2")
    assert len(entries) == 18
    snapshot = tmp_path / "s.script"
    run_program("ur5", table, path, snapshot,
                       program_options=ProgramOptions(at_minute=200.0, joint_targets="compensate"))
    pose = snapshot.read_text().splitlines()[3].split("movel(p[")[1].split("]")[0]
    assert [float(x) for x in pose.split(",")] == [float(x) for x in entries[12:18]]


def test_time_indexed_report_states_the_rounding_of_every_entry_joint_tables_too(tmp_path):
    """The rounding a time-indexed program's report states covers each of its entries: at least that of the
    snapshot at one of its minutes, in the joints form as well (its tables hold joint lists)."""
    path = tmp_path / "j.script"
    path.write_text("def job():\n  set_tcp(p[0, 0, .1, 0, 0, 0])\n  movel(p[.4, .1, .3, 0, 3.1416, 0], a=1.2, v=0.25)\n"
                    "  movel(p[.45, .1, .3, 0, 3.1416, 0], a=1.2, v=0.25)\nend\n")
    table = read_deformation_csv(EXAGGERATED)
    indexed = run_program("ur5", table, path, tmp_path / "i.script",
                          program_options=ProgramOptions(indexed_minutes=(0.0, 100.0, 200.0), output="joints"))
    snapshot = run_program("ur5", table, path, tmp_path / "s.script",
                           program_options=ProgramOptions(at_minute=100.0, output="joints"))
    assert "tc_joints(tc_q1)" in (tmp_path / "i.script").read_text()
    assert snapshot.rounding_position > 0 and snapshot.rounding_angle > 0
    assert indexed.rounding_position >= snapshot.rounding_position
    assert indexed.rounding_angle >= snapshot.rounding_angle


def test_timed_form_compensates_each_motion_at_its_own_minute(tmp_path):
    chain, path = rapid_two_points(tmp_path, "    MoveL a, v5, fine, tool0;\n    MoveL b, v5, fine, tool0;\n"
                                   "    WaitTime 1200;\n", dx_mm=100.0)
    table = read_deformation_csv(EXAGGERATED)
    report = run_program(chain, table, path, tmp_path / "o.mod",
                                program_options=ProgramOptions(timed=True), report=tmp_path / "r.txt")
    # a reached after 20 s (from b, 100 mm at 5 mm/s), b after 40 s; the wait is last
    assert [r.minute_first for r in report.rows] == pytest.approx([20 / 60, 40 / 60])
    zero = DeformationTable.from_mm_deg(np.zeros((6, 6)))
    assert run_program(chain, zero, path, tmp_path / "z.mod",
                              program_options=ProgramOptions(timed=True)).n_changed_texts == 0


def test_a_time_option_has_one_range_which_the_library_and_the_parser_both_refuse_naming_the_option():
    """The bounds of --at-minute, --time-indexed, --cycles, --duration-min, --cycle-time-s are the library's
    (timing.OPTION_RANGES): the command line's parser reads them, and the options' classes refuse the same values
    under the option as typed."""
    from thermocomp.cli.option_ranges import range_of
    from thermocomp.errors import ConfigurationError
    from thermocomp.programs.options import indexed_minutes
    from thermocomp.programs.timing import OPTION_RANGES

    build = {"--at-minute": lambda v: ProgramOptions(at_minute=v),
             "--time-indexed": lambda v: indexed_minutes(v, LinearRamp(1e7)),
             "--cycles": lambda v: ProgramOptions(cycles=v), "--duration-min": lambda v: ProgramOptions(duration_min=v),
             "--cycle-time-s": lambda v: ProgramOptions(cycle_time_s=v)}
    assert set(build) == set(OPTION_RANGES)
    for option, (low, high, low_open) in OPTION_RANGES.items():
        parsed = range_of("compensate", [option]).range  # (loaded from the library on first use)
        assert (parsed.low, parsed.high, parsed.open_low) == (low, high, low_open)
        for bad in (2 * high, low if low_open else low - 1):
            assert not parsed.holds(bad)
            with pytest.raises(ConfigurationError, match=f"^{option}: expected "):
                build[option](bad)
        assert parsed.holds(high)


@pytest.mark.parametrize("minutes", [(), (1.0, 2.0), (0.0, 50.0, 120.0), (0.0, 0.0)])
def test_time_indexed_minutes_given_to_the_library_must_start_at_0_evenly_spaced(minutes):
    """The program picks its index from the clock (minute / step): minutes not from 0, or not evenly spaced and
    increasing, are refused under the option's name; (0, 50, 100) is taken."""
    from thermocomp.errors import ConfigurationError

    assert ProgramOptions(indexed_minutes=(0.0, 50.0, 100.0)).indexed_minutes == (0.0, 50.0, 100.0)
    with pytest.raises(ConfigurationError, match=r"--time-indexed: expected evenly spaced increasing minutes"):
        ProgramOptions(indexed_minutes=minutes)
