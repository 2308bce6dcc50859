"""A motion's speed, acceleration, stated time or blend known only while running changes its time, not its target
(issue 35, item 2: a motion is compensated when its target, tool and work object are known before running).

Written from the manuals' syntax: RAPID's ``\\V`` and ``\\T`` optional arguments and speeddata (the RAPID reference
manual's MoveL), URScript's ``a``, ``v``, ``t``, ``r`` of ``movel``/``movej``/``movep``, by keyword or by position
(the URScript manual). Each such value read from an input, a register or the operator: the motion is compensated,
timed with what the manual gives where the value is absent, and a note names the parameter and the data; a motion
whose target is known only while running is refused naming the target's data, not its speed.
"""

from __future__ import annotations

import pytest

from thermocomp.programs import read_program

P0 = "[[500,0,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]]"


def _read(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return read_program(path), text.splitlines()


def _line(lines: list[str], start: str) -> int:
    return next(i + 1 for i, line in enumerate(lines) if line.strip().startswith(start))


RAPID = {  # (declarations and statements before the motion, the motion, the datum the note names, the option named)
    "V from an analog input": ("", "MoveL p0, v100, fine, tool0 \\V:=AInput(ai2);", "AInput", "MoveL \\V"),
    "V from the operator": ("    TPReadNum nSpeed, \"speed?\";\n", "MoveL p0, v100, fine, tool0 \\V:=nSpeed;",
                            "nSpeed", "MoveL \\V"),
    "T from a register": ("    nTime := GInput(gi1) / 10;\n", "MoveJ p0, v100, z10, tool0 \\T:=nTime;", "nTime",
                          "MoveJ \\T"),
    "speeddata from an input": ("    vRun.v_tcp := AInput(ai1);\n", "MoveL p0, vRun, fine, tool0;", "vRun",
                                "MoveL's speed"),
}


@pytest.mark.parametrize("case", list(RAPID))
def test_a_rapid_speed_known_only_while_running_leaves_the_motion_compensated(tmp_path, case):
    before, motion, datum, option = RAPID[case]
    text = (f"MODULE M\n  CONST robtarget p0 := {P0};\n  VAR num nSpeed := 0;\n  VAR num nTime := 0;\n"
            f"  VAR speeddata vRun := [100,500,5000,1000];\n  PROC main()\n{before}    {motion}\n"
            "    MoveL Offs(p0, 0, 0, 50), v100, fine, tool0;\n  ENDPROC\nENDMODULE\n")
    prog, lines = _read(tmp_path, "m.mod", text)
    at = _line(lines, motion.split()[0] + " p0")
    assert not prog.unsupported, prog.unsupported
    assert [m.line for m in prog.motions] == [at, at + 1]
    notes = [n.message for n in prog.notes if n.line == at]
    assert len(notes) == 1 and datum in notes[0] and f"{option}" in notes[0] and "for the timing" in notes[0], notes
    assert prog.motions[0].duration_s is None  # (a \T known only while running: timed by the speed)


def test_a_rapid_motion_whose_target_too_is_known_only_while_running_is_refused_for_its_target(tmp_path):
    text = (f"MODULE M\n  VAR robtarget pRun := {P0};\n  PROC main()\n    pRun.trans.x := AInput(ai3);\n"
            "    MoveL pRun, v100, fine, tool0 \\V:=AInput(ai2);\n  ENDPROC\nENDMODULE\n")
    prog, lines = _read(tmp_path, "m.mod", text)
    at = _line(lines, "MoveL")
    assert [f.line for f in prog.unsupported] == [at] and "pRun" in prog.unsupported[0].message
    assert not prog.motions


UR = {  # (the motion's arguments after its pose, the parameter named, the kind of the motion and its default)
    "a by keyword": ("a=acc, v=0.2", "a", "movel", {"acceleration": 1.2, "tcp_speed": 0.2}),
    "v by keyword": ("a=1.0, v=speed", "v", "movel", {"acceleration": 1.0, "tcp_speed": 0.25}),
    "t by keyword": ("a=1.0, v=0.2, t=dt", "t", "movel", {"duration_s": None}),
    "r by keyword": ("a=1.0, v=0.2, r=blend", "r", "movel", {"acceleration": 1.0}),
    "a and v by position": ("acc, speed", "a", "movej", {"acceleration": 1.4, "joint_speed": 1.05}),
    "movep's v": ("a=1.0, v=speed, r=0", "v", "movep", {"tcp_speed": 0.25}),
}


@pytest.mark.parametrize("case", list(UR))
def test_a_urscript_speed_known_only_while_running_leaves_the_motion_compensated(tmp_path, case):
    arguments, parameter, motion, timed = UR[case]
    text = ("def prog():\n  acc = read_input_float_register(0)\n  speed = read_input_float_register(1)\n"
            "  dt = get_standard_analog_in(0)\n  blend = read_input_float_register(2)\n"
            f"  {motion}(p[0.4, 0.1, 0.3, 0, 3.14, 0], {arguments})\n"
            "  movel(p[0.4, 0.1, 0.35, 0, 3.14, 0], a=1.2, v=0.25)\nend\n")
    prog, lines = _read(tmp_path, "p.script", text)
    at = _line(lines, motion + "(")
    assert not prog.unsupported, prog.unsupported
    assert [m.line for m in prog.motions] == [at, at + 1]
    notes = [n.message for n in prog.notes if n.line == at]
    assert notes and all("not known before running" in n and "for the timing" in n for n in notes), notes
    assert any(f"{motion}'s {parameter} is taken as" in n for n in notes), notes
    for field, value in timed.items():
        assert getattr(prog.motions[0], field) == pytest.approx(value) if value is not None else \
            getattr(prog.motions[0], field) is None, (field, prog.motions[0])


def test_a_urscript_motion_whose_target_too_is_known_only_while_running_is_refused_for_its_target(tmp_path):
    text = ("def prog():\n  acc = read_input_float_register(0)\n  x = read_input_float_register(1)\n"
            "  movel(p[0.4, x, 0.3, 0, 3.14, 0], a=acc, v=0.2)\nend\n")
    prog, lines = _read(tmp_path, "p.script", text)
    assert [f.line for f in prog.unsupported] == [4] and "the value of x" in prog.unsupported[0].message
    assert not prog.motions and not any("acc" in n.message for n in prog.notes)
