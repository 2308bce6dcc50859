"""Bad robot programs and program options through the real command line (issues 9 and 11).

Found by an adversarial run over ``compensate --program``: numbers a controller
cannot hold, speeds that never arrive, and a time-indexed step small enough to
exhaust memory. Each is refused with the file, line and column (or the
option), no traceback, and nothing written (tests/test_bad_input.py's checks).
"""

from __future__ import annotations

import pytest
from helpers import REPO
from test_bad_input import case, refused, run_cli  # noqa: F401  (fixture)

from thermocomp.cli.common import EXIT_FAILED_ROWS, EXIT_INPUT, EXIT_OK
from thermocomp.cli.main import main
from thermocomp.deformation.thermal_laws import FirstOrder
from thermocomp.deformation.timelaw import LinearRamp
from thermocomp.errors import ConfigurationError
from thermocomp.io.timelaw_file import time_law_path, write_time_law
from thermocomp.programs.options import MAX_INDEXED_SETS, indexed_minutes

POINT = "[[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"


def rapid(*body: str, data: str = "") -> str:
    return "MODULE M\n" + data + f"CONST robtarget p:={POINT};\nPROC main()\n" + "".join(f"  {s}\n" for s in body) \
        + "ENDPROC\nENDMODULE\n"


def urscript(*body: str) -> str:
    return "def f():\n" + "".join(f"  {s}\n" for s in body) + "end\n"


@pytest.mark.parametrize(("name", "text", "line", "words"), [
    # a literal beyond what the controller stores: RAPID num is single precision, URScript double
    ("b.mod", rapid("MoveL Offs(p,0,0,1e39),v100,z1,tool0;"), 4, ["1e39", "out of range"]),
    ("b.mod", rapid("MoveL p,v100,z1,t;", data="PERS tooldata t:=[TRUE,[[0,0,1e400],[1,0,0,0]],"
                                             "[1,[0,0,1],[1,0,0,0],0,0,0]];\n"), 2, ["1e400", "out of range"]),
    ("b.script", urscript("movel(p[1e400,0,0.5,0,3.14,0], a=1, v=0.1)"), 2, ["1e400", "out of range"]),
    # finite but no place: it overflowed into NaN joints and a message without a location
    ("b.script", urscript("movel(p[1e308,-.15,.2,3.14159,0,0], a=1.2, v=0.25)"), 2, ["1e+308", "out of range"]),
    ("b.script", urscript("movej([0, 1e9, 0, 0, 0, 0], a=1, v=1)"), 2, ["1e+09 rad", "out of range"]),
    # speeds that never arrive: the timing would divide by them
    ("b.mod", rapid("MoveL p,vz,z1,tool0;", data="CONST speeddata vz:=[0,500,5000,1000];\n"), 5,
     ["speeddata must move", "0 mm/s"]),
    ("b.mod", rapid("MoveL p,vz,z1,tool0;", data="CONST speeddata vz:=[-5,500,5000,1000];\n"), 5, ["-5 mm/s"]),
    ("b.mod", rapid("MoveL p,v100,z1,tool0;", "MoveL Offs(p,0,0,9),v100\\V:=0,z1,tool0;"), 5, ["\\V", "> 0 mm/s"]),
    ("b.mod", rapid("MoveL p,v100\\T:=-2,z1,tool0;"), 4, ["\\T", "> 0 s"]),
    ("b.script", urscript("movel(p[0.4,0,0.5,0,3.14,0], a=1, v=0)"), 2, ["v > 0"]),
    ("b.script", urscript("movej([0,-1.5,1.5,0,1.5,0], a=-1, v=1)"), 2, ["a > 0"]),
    ("b.script", urscript("movel(p[0.4,0,0.5,0,3.14,0], a=1, v=0.1, t=-1)"), 2, ["t >= 0"]),
])
def test_values_a_controller_cannot_run_are_located(case, capsys, name, text, line, words):
    (case / name).write_text(text)
    robot = "irb140" if name.endswith(".mod") else "ur5"
    out = "o" + name[1:]
    err = refused(case, capsys, ["compensate", "--robot", robot, "--deformation", "d.csv", "--program", name,
                                 "--out", out, "--timed"], EXIT_INPUT, f"{name}, line {line}", "column", *words)
    assert "RuntimeWarning" not in err


def test_a_time_indexed_step_is_bounded_before_any_work(case, capsys):
    (case / "p.mod").write_bytes((REPO / "examples" / "rapid_program.mod").read_bytes())
    program = ["compensate", "--program", "p.mod", "--deformation", "d.csv", "--out", "o.mod"]
    for step in ("1e-9", "1e-300"):
        refused(case, capsys, [*program, "--time-indexed", step], EXIT_INPUT, "--time-indexed", f"at most {MAX_INDEXED_SETS:,}",
                "at least 0.0201 min")


def test_the_suggested_smallest_time_indexed_step_is_accepted():
    """The refusal's suggestion, rounded for the message, still fits (it once read 0.02, itself refused)."""
    with pytest.raises(ConfigurationError) as refusal:
        indexed_minutes(1e-9, LinearRamp(200.0))
    suggested = float(str(refusal.value).rsplit("at least ", 1)[1].split(" ")[0])
    assert len(indexed_minutes(suggested, LinearRamp(200.0))) <= MAX_INDEXED_SETS


def test_time_indexed_sets_follow_the_time_law_from_a_file(case, capsys):
    """--time-indexed runs to the law's own stabilisation, not to --stabilisation-min's default."""
    (case / "p.mod").write_bytes((REPO / "examples" / "rapid_program.mod").read_bytes())
    law = FirstOrder(30.0)  # stabilised (99.9 %) at tau * ln(1000) = 207.2 min, not the default 200
    write_time_law(law, time_law_path(case / "d.csv"), "d.csv")
    code, out, err = run_cli(capsys, ["compensate", "--program", "p.mod", "--deformation", "d.csv", "--out", "o.mod",
                                      "--time-indexed", "3", "--time-law", "from:d.csv"])
    assert code == EXIT_OK, err
    sets = int(law.stabilisation_min // 3) + 1
    assert sets != int(200 // 3) + 1
    assert f"({sets} sets)" in out
    assert f"{sets} sets, one every 3 min" in (case / "o.mod").read_text(encoding="latin-1")


@pytest.mark.parametrize(("name", "text"), [
    ("b.mod", rapid("MoveL " + "Offs(" * 2000 + "p" + ",0,0,0)" * 2000 + ",v100,z1,tool0;")),
    ("b.script", urscript("x = " + "[" * 5000 + "]" * 5000, "movel(p[-.45,-.15,.2,3.14,0,0], a=1, v=0.1)")),
    ("b.script", urscript("movel(" + "pose_trans(" * 2000 + "p[-.45,-.15,.2,3.14,0,0]" + ",p[0,0,0,0,0,0])" * 2000
                          + ", a=1, v=0.1)")),
])
def test_expressions_nested_thousands_deep_are_refused_naming_the_file(case, capsys, name, text):
    # RecursionError tracebacks before (issue 9 follow-up adversarial run)
    (case / name).write_text(text)
    robot = "irb140" if name.endswith(".mod") else "ur5"
    refused(case, capsys, ["compensate", "--robot", robot, "--deformation", "d.csv", "--program", name,
                           "--out", "o" + name[1:], "--at-minute", "100"], EXIT_INPUT,
            f"{name}, line {4 if name.endswith('.mod') else 2}, column", "an expression or a value nested too deeply")


def test_a_program_whose_points_fail_never_says_wrote(case, capsys):
    # the report printed on exit 2 said "wrote o.mod (0 bytes)" above "Nothing was written" (issue 9 follow-up run)
    (case / "far.mod").write_text(rapid("MoveL Offs(p,5000,0,0),v100,z1,tool0;"))
    refused(case, capsys, ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--program", "far.mod",
                           "--out", "o.mod", "--at-minute", "100"], EXIT_FAILED_ROWS, "unreachable",
            "Nothing was written")


def test_a_module_datum_declared_twice_is_refused_at_the_second(case, capsys):
    # two CONST robtarget p: one was used silently (issue 9 follow-up adversarial run); RAPID refuses the module
    (case / "b.mod").write_text(rapid("MoveL p,v100,z1,tool0;", data=f"CONST robtarget p:={POINT};\n"))
    refused(case, capsys, ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--program", "b.mod",
                           "--out", "o.mod", "--at-minute", "100"], EXIT_INPUT,
            "b.mod, line 3: p is declared twice in the module (first at line 2)")


@pytest.mark.parametrize(("data", "tool", "words"), [
    ("PERS tooldata t:=[TRUE,[[0,0,100],[0,0,0,0]],[1,[0,0,1],[1,0,0,0],0,0,0]];\n", "t", ["tooldata tframe"]),
    ("TASK PERS wobjdata w:=[FALSE,TRUE,\"\",[[450,-180,150],[0,0,0,0]],[[0,0,0],[1,0,0,0]]];\n", "tool0\\WObj:=w",
     ["wobjdata uframe"]),
    ("TASK PERS wobjdata w:=[FALSE,TRUE,\"\",[[0,0,0],[1,0,0,0]],[[0,0,0],[0,0,0,0]]];\n", "tool0\\WObj:=w",
     ["wobjdata oframe"]),
])
def test_a_tool_or_work_object_of_zero_quaternion_is_refused_at_its_use(case, capsys, data, tool, words):
    # issue 9's third adversarial run: a tooldata or wobjdata orientation [0,0,0,0] divided by zero normalising
    # it (ZeroDivisionError traceback); a robtarget's was already refused
    (case / "b.mod").write_text(rapid(f"MoveL p,v100,z1,{tool};", data=data))
    refused(case, capsys, ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--program", "b.mod",
                           "--out", "o.mod"], EXIT_INPUT, "b.mod, line 5", "column", "unit quaternion", "norm 0",
            *words)


@pytest.mark.parametrize(("line", "old", "new", "words"), [
    (90, 'xyz="0.07 0.065 0.2475"', 'xyz="1e300 0.065 0.2475"', ["joint 'axis2' <origin> xyz"]),
    (92, 'velocity="3.490658503988659"', 'velocity="1e-300"', ["joint 'axis2'", "1e-06 rad/s"]),
    # a negative mass: compensation does not use it, but no exporter writes one (a broken file)
    (22, '<mass value="0.001" />', '<mass value="-1" />', ["link 'base' <inertial> <mass>", "got -1"]),
])
def test_a_robot_file_value_no_robot_has_is_refused_in_the_robot_file(case, capsys, line, old, new, words):
    """A URDF joint origin of 1e300 m was reported as a program-timing error at a RAPID line."""
    assert main(["robot", "export", "irb140", "--out", "r.urdf"]) == EXIT_OK
    lines = (case / "r.urdf").read_text().splitlines(keepends=True)
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new)
    (case / "r.urdf").write_text("".join(lines))
    (case / "p.mod").write_text(rapid("MoveL p,v100,z1,tool0;", "MoveL Offs(p,0,50,0),v100,z1,tool0;"))
    capsys.readouterr()
    err = refused(case, capsys, ["compensate", "--robot", "r.urdf", "--deformation", "d.csv", "--program", "p.mod",
                                 "--out", "o.mod", "--timed"], EXIT_INPUT, f"r.urdf, line {line}", *words)
    assert "p.mod" not in err and "RuntimeWarning" not in err


def test_the_program_report_csv_replaces_only_a_report_csv(case, capsys):
    """``--program-report r.txt`` also writes r.csv, a name the user did not give: a file there that is not a
    program report's CSV is refused, not replaced; the CSV of an earlier run is (a rerun)."""
    (case / "p.mod").write_text(rapid("MoveL p,v100,z1,tool0;"))
    (case / "r.csv").write_text("my measurements\n1,2,3\n")
    argv = ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--program", "p.mod", "--out", "o.mod",
            "--static", "--program-report", "r.txt"]
    refused(case, capsys, argv, EXIT_INPUT, "--program-report (its CSV) r.csv", "not a program report CSV")
    (case / "r.csv").unlink()
    for _ in range(2):  # the first run writes r.csv, the rerun replaces it
        code, _, err = run_cli(capsys, argv)
        assert code == EXIT_OK, err
        assert (case / "r.csv").read_text().startswith("motion,instruction,line,")


@pytest.mark.parametrize(("extra", "words"), [
    (["--program-report", "r.csv"], ["--program-report (its CSV) r.csv", "the same file as --program-report r.csv"]),
    (["--program-report", "r.txt", "--results", "r.csv"], ["the same file as --results r.csv"]),
    (["--program-report", "d.txt"], ["--program-report (its CSV) d.csv", "would overwrite the input d.csv"]),
])
def test_the_program_report_csv_never_lands_on_another_file_of_the_run(case, capsys, extra, words):
    (case / "p.mod").write_text(rapid("MoveL p,v100,z1,tool0;"))
    refused(case, capsys, ["compensate", "--robot", "irb140", "--deformation", "d.csv", "--program", "p.mod",
                           "--out", "o.mod", "--static", *extra], EXIT_INPUT, *words)


def test_a_script_unrolling_past_the_motion_bound_is_refused_with_its_count(case, capsys):
    """A 2 KB tree of calls stands for 2^40 motions: it ran until killed (issue 28.3); now refused at its call."""
    defs = ["def f0():\n  movel(p[.4, .1, .3, 0, 3.14, 0], a=1.2, v=0.25)\nend\n"]
    defs += [f"def f{k}():\n  f{k - 1}()\n  f{k - 1}()\nend\n" for k in range(1, 41)]
    (case / "b.script").write_text("".join(defs) + "f40()\n")
    refused(case, capsys, ["compensate", "--robot", "ur5", "--deformation", "d.csv", "--program", "b.script",
                           "--out", "o.script"], EXIT_INPUT, "b.script, line 164", "column 1",
            "the call of f40 unrolls to at least 3,298,534,883,327 motions", "--max-motions 2,000,000")


def test_max_motions_bounds_a_script_s_counted_loop(case, capsys):
    """PolyScope's "Loop 3 times" of one motion is 3 motions and 3 passes: --max-motions 5 refuses it at the motion
    that passes the bound (the loop runs pass by pass), 6 not."""
    (case / "l.script").write_text("def m():\n  Loop_1 = 0\n  while (Loop_1 < 3):\n"
                                   "    movel(p[.4, .1, .3, 0, 3.14, 0], a=1.2, v=0.25)\n    Loop_1 = Loop_1 + 1\n"
                                   "  end\nend\n")
    argv = ["compensate", "--robot", "ur5", "--deformation", "d.csv", "--program", "l.script", "--out", "o.script"]
    refused(case, capsys, [*argv, "--max-motions", "5"], EXIT_INPUT, "l.script, line 4", "--max-motions 5")
    code, _, err = run_cli(capsys, [*argv, "--max-motions", "6"])
    assert code == EXIT_OK, err
