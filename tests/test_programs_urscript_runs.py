"""Runs of plain URScript motions (one ``MOVES`` token each) read exactly as the grammar's general rules read them.

urscript.lark reads a run of ``movel``/``movej``/``movep`` lines with literal
poses or joint lists and numeric arguments as one token, so a 100,000-line
CAM script is a handful of tokens (its parse through the general rules took
about a minute); with a form feed inside each point (``general_rules_form``)
every statement goes through the general rules. Both must give the same program: the
same steps, spans, poses (to the bit), findings and errors, on PolyScope-style
scripts, on the corners of a run's shape, and on random mixes of statements
(hypothesis).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from program_builders import assert_same_steps, general_rules_form, random_configurations, ur_case, ur_pose_text

from thermocomp import fk, load_robot, nominal_model
from thermocomp.errors import InputError
from thermocomp.geometry.rotations import transform
from thermocomp.programs.urscript import parse_urscript_text, urscript_program_from_text

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "urscript_program.script"


def _read(text: str, runs: bool):
    try:
        return urscript_program_from_text(text if runs else general_rules_form(text, "urscript"), "s.script")
    except InputError as exc:
        return f"InputError: {exc}"


def assert_same_program(text: str) -> None:
    fast, plain = _read(text, True), _read(text, False)
    if isinstance(plain, str) or isinstance(fast, str):
        assert fast == plain
        return
    assert_same_steps(fast, plain)


def _no_fallback(text: str) -> None:
    """The general rules form of ``text`` has no runs (else the comparison above proves nothing)."""
    general = general_rules_form(text, "urscript")
    assert not any(True for _ in parse_urscript_text(general, "s.script").find_data("moves"))


def _poses(rng, count: int) -> list[str]:
    chain = load_robot("ur5")
    q = random_configurations(chain, rng, count)
    R, p = fk(nominal_model(chain), q)
    return [ur_pose_text(transform(R[i], p[i])) for i in range(count)]


def _joints(rng) -> str:
    q = random_configurations(load_robot("ur5"), rng, 1)[0]
    return "[" + ", ".join(f"{x:.9f}" for x in q) + "]"


def test_polyscope_scripts_and_the_example_read_the_same(rng):
    for _ in range(3):
        text = ur_case(rng).text
        assert_same_program(text)
        _no_fallback(text)
    example = EXAMPLE.read_bytes().decode("latin-1")
    assert_same_program(example)
    _no_fallback(example)


def test_a_cam_script_is_a_few_tokens_and_reads_the_same(rng):
    poses = _poses(rng, 40)
    lines = [f"  movel({p}, a=1.2, v=0.25)" for p in poses[:30]]
    lines[2] = f"  movel({poses[2]},a=1.2,v=0.25)   # a trailing comment"
    lines[4] = f"  movej({poses[4]}, 1.4, 1.05, 0, 0.002)"  # positional arguments
    lines[5] = "  # movel(p[1, 2, 3, 0, 0, 0])  (commented out)"
    lines[6] = f"  movel({poses[6]})\r"  # defaults, a CRLF line end
    lines[8] = f"  movep({poses[8]}, a=1.2, v=0.25, r=0.001)"
    lines[9] = f"  movej({_joints(rng)}, a=1.4, v=1.05)"
    lines[11] = "  sleep(0.25)"
    lines[13] = f"  movel({poses[13]}, a=1.2, v=0.25, t=2)"  # a stated time
    lines[15] = f"  movel({poses[15]}, a=1.2, v=speed)"  # a variable: the general rules read it
    lines[17] = "  set_tcp(p[0, 0, .1, 0, 0, 0])"
    lines[19] = f"  movel({poses[19]}, a=+1.2e0, v=.25)"
    lines[21] = f"  movec({poses[21]}, {poses[22]}, a=1.2, v=0.1, r=0, mode=0)"
    lines[23] = "\n\n"  # blank lines inside a run
    text = "def cam():\n  speed = 0.1\n" + "\n".join(lines) + "\nend\n"
    runs = list(parse_urscript_text(text, "s.script").find_data("moves"))
    assert 4 <= len(runs) <= 10  # the other statements split the runs
    assert_same_program(text)
    assert len(urscript_program_from_text(text).motions) == 26
    _no_fallback(text)


def test_a_cam_scripts_points_are_plain_columns_both_ways(rng):
    """A run is read into columns (no object a motion) whose points are their own texts, as the general rules'
    points are: each point's argument is its text, no two points share one, and none has a whole argument around it
    (the writer then writes each value at its own text, in either form)."""
    poses = _poses(rng, 12)
    lines = [f"  movel({p}, a=1.2, v=0.25)" for p in poses[:10]] + [f"  movej({_joints(rng)}, a=1.4, v=1.05)"]
    text = "def cam():\n" + "\n".join(lines) + "\nend\n"
    fast, plain = _read(text, True), _read(text, False)
    for prog in (fast, plain):
        np.testing.assert_array_equal(prog.run.argument, prog.run.text)
        assert len(np.unique(prog.run.text[:, :2], axis=0)) == len(prog.run.text)
        assert prog.run.whole_argument.count(None) == len(prog.run.whole_argument)
    np.testing.assert_array_equal(fast.run.text, plain.run.text)
    np.testing.assert_array_equal(fast.run.T_world_tcp, plain.run.T_world_tcp)
    assert all(p.whole_argument is None for mo in plain.motions for p in mo.points)


@pytest.mark.parametrize("statement", [
    "movel(p[.5, 0, .6, 0, 3.14, 0], a=0, v=0.25)",  # a = 0
    "movel(p[.5, 0, .6, 0, 3.14, 0], a=1.2, v=-0.25)",  # negative speed
    "movel(p[.5, 0, .6, 0, 3.14, 0], t=-1)",  # negative time
    "movep(p[.5, 0, .6, 0, 3.14, 0], t=1)",  # movep has no t
    "movel(p[.5, 0, .6, 0, 3.14, 0], 1, 1, 0, 0, 7)",  # too many arguments
    "movel(p[.5, 0, .6, 0, 3.14])",  # five values
    "movej([0, -1.5, 1.5, 0, 1.5])",  # five joints
    "movel(p[5e300, 0, .6, 0, 3.14, 0])",  # beyond the range taken
    "movel(p[1e999, 0, .6, 0, 3.14, 0])",  # beyond a double
    "movel(p[.5, 0, .6, 0, 3.14, 0], a=1e999)",  # an argument beyond a double
    "movel(p[.5 0, .6, 0, 3.14, 0])",  # two numbers, no comma
    "movel(p[.5e, 0, .6, 0, 3.14, 0])",  # not a number
    "movel(p[- .5, 0, .6, 0, 3.14, 0])",  # a signed expression
    "movel(p[.5, 0, .6, 0, 3.14, 0], e=1)",  # no such argument
    "movel(p[.5, 0, .6, 0, 3.14, 0]) $ 3 \"x\"",  # something after it
    "movel(p[.5, 0, .6, 0, 3.14, 0]",  # no closing parenthesis
    "movel(p[.5, 0, .6, 0, 3.14, 0], a=1.2, a=1.3)",  # twice: what the controller does not compile
])
def test_what_a_run_cannot_take_gives_the_general_rules_finding_or_error(statement):
    good = "  movel(p[.4, -.1, .5, 0, 3.14, 0], a=1.2, v=0.25)\n"
    text = "def main():\n" + good + "  " + statement + "\n" + good + "end\n"
    assert_same_program(text)
    inside_if = "def main():\n  if get_digital_in(1):\n" + good + good + "  end\n" + good + "end\n"
    assert_same_program(inside_if)


def test_a_long_script_with_a_bad_character_at_its_end_is_refused_at_it_quickly():
    """A 2,000-line run, then a stray character: the error names its line and column as the general rules do
    (the runs reading names it itself, not by reading the whole script again)."""
    good = "  movel(p[.4, -.1, .5, 0, 3.14, 0], a=1.2, v=0.25)\n"
    text = "def main():\n" + good * 2000 + "  movel(p[.4, -.1, .5, 0, 3.14, 0]) @\nend\n"
    fast, plain = _read(text, True), _read(text, False)
    assert fast == plain and "line 2002" in fast and "column 37" in fast


@pytest.mark.parametrize("bad", [".4 1", "1e", "1.2.3", "--5", "+-1", ",,"])
@pytest.mark.parametrize("then", ["  movel(p[.1, .2, .3, 0, 0, 0]))",  # a later syntax error
                                  "  movel(p[.1, .2, .3, 0, 0, 0], a=-1)"])  # a later refusal of the walk
def test_what_the_general_rules_refuse_inside_a_run_is_the_error_named(bad, then):
    """A run's terminal takes any digits, signs, points and exponents between a pose's brackets: a malformed
    number there is a syntax error the general rules name first, before a later syntax error or a refusal the
    walk would meet (fuzzing found both orders named differently)."""
    good = "  movel(p[.4, -.1, .3, 3.14, 0, 0], a=1.2, v=0.25)\n"
    broken = f"  movel(p[.4, -.1, {bad}, 3.14, 0, 0], a=1.2, v=0.25)\n"
    for order in ((then + "\n", good, broken), (good, broken, then + "\n")):
        assert_same_program("def main():\n" + good + "".join(order) + "end\n")


STATEMENTS = st.sampled_from([
    "movel({p}, a=1.2, v=0.25)", "movel({p})", "movej({p}, a=1.4, v=1.05)", "movej({j}, a=1.4, v=1.05)",
    "movep({p}, a=1.2, v=0.25, r=0.001)", "movel({p}, 1.2, 0.25)", "movel({p}, a=1.2, v=0.25, t=0.5)",
    "movel(wp, a=1.2, v=0.25)", "movel(pose_trans(wp, p[0, 0, -.01, 0, 0, 0]), a=1.2, v=0.25)",
    "movec({p}, {p}, a=1.2, v=0.1)", "sleep(0.5)", "# a comment", "set_digital_out(1, True)",
    "set_tcp(p[0, 0, .05, 0, 0, 0])", "movel({p},\n    a=1.2, v=0.25)", "$ 7 \"MoveL\"",
    "if get_digital_in(0):\n    movel({p})\n    movej({j})\n  end",
    "while (True):\n    movel({p}, a=1.2, v=0.25)\n    movel({p})\n  end",
    "movel({p}, a=1.2, v=0.25)  # movel(p[0, 0, 0, 0, 0, 0])",
])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(STATEMENTS, st.integers(0, 7)), min_size=1, max_size=25), st.booleans())
def test_random_mixes_of_statements_read_the_same(statements, in_a_function):
    rng = np.random.default_rng(7)
    poses, joints = _poses(rng, 8), _joints(rng)
    body = "\n".join("  " + s.format(p=poses[k], j=joints) for s, k in statements)
    text = f"global wp = {poses[0]}\n" + (f"def main():\n{body}\nend\n" if in_a_function else body + "\n")
    assert_same_program(text)


def test_the_grammars_run_is_the_statement_pattern_written_out():
    """urscript.lark's ``MOVES`` is urscript.MOVES_PATTERN (its statements, without the parts' names): the
    grammar's runs are what the reader splits."""
    from thermocomp.programs.urscript import MOVES_PATTERN, urscript_parser

    written = MOVES_PATTERN
    for escape, character in (("\\t", "\t"), ("\\r", "\r"), ("\\n", "\n"), ("\\f", "\f")):
        written = written.replace(escape, character)  # (lark gives a regular expression's escapes as characters)
    assert urscript_parser().get_terminal("MOVES").pattern.value == written


@pytest.mark.parametrize("finding", ["  movel(pNowhere, a=1.2, v=0.25)",  # a variable with no value
                                     "  speedj([0, 0, 0, 0, 0, 0.1], 0.5)"])  # a motion thermocomp does not follow
def test_one_finding_among_a_runs_motions_leaves_the_rest_columns(finding):
    """No cliff: the statement the columns do not read goes to the general rules alone; the motions before and
    after it stay columns (no object a motion, no second reading), and the program is the general rules' own."""
    good = "  movel(p[.4, -.1, .5, 0, 3.14, 0], a=1.2, v=0.25)\n"
    text = "def main():\n" + good * 300 + finding + "\n" + good * 200 + "end\n"
    prog = urscript_program_from_text(text)
    assert [len(part) for part in prog.steps] == [500]  # (the program's motions: one run, one model)
    assert len(prog.unsupported) == 1 and prog.unsupported[0].line == 302
    assert_same_program(text)


@pytest.mark.parametrize("statement", ["movel(p[.5, 0, .6, 0, 3.14], a=1.2)", "movel(p[.5, 0, .6, 0, 3.14, 0], a=0)"])
def test_a_refused_statement_inside_a_run_is_the_general_rules_error(statement):
    good = "  movel(p[.4, -.1, .5, 0, 3.14, 0], a=1.2, v=0.25)\n"
    text = "def main():\n" + good * 50 + "  " + statement + "\n" + good * 50 + "end\n"
    got = _read(text, True)
    assert isinstance(got, str) and "line 52" in got
    assert_same_program(text)


_SIGNS = st.sampled_from(["", "", "-", "+"])
_NUMBERS = st.one_of(
    st.builds(lambda s, i, f, e: f"{s}{i}{f}{e}", _SIGNS, st.sampled_from(["0", "1", "12", "0004", ""]),
              st.sampled_from(["", ".", ".5", ".25", ".000123"]), st.sampled_from(["", "", "e3", "E-2", "e+01"])),
    st.sampled_from(["1e", "--1", ".", "1.2.3", "+-2", "9e999", "3.1e307"]),  # (malformed, beyond a double or the range)
).filter(lambda text: text not in ("", "-", "+"))
_SEPARATORS = st.sampled_from([",", ", ", " , ", ",\t", ",  "])


@st.composite
def _plain_statement(draw) -> str:
    """A motion statement as a CAM post-processor or a hand writes it: any number text the grammar's run takes or
    nearly takes, any spacing, positional and keyword arguments (a wrong count or name too)."""
    name = draw(st.sampled_from(["movel", "movej", "movep"]))
    count = draw(st.sampled_from([6, 6, 6, 5, 7]))
    numbers = [draw(_NUMBERS) for _ in range(count)]
    point = numbers[0] + ", " + "".join(draw(_SEPARATORS) + n for n in numbers[1:])  # (", ": general_rules_form)
    args = []
    for _ in range(draw(st.integers(0, 5))):
        key = draw(st.sampled_from(["", "", "a", "v", "t", "r", "e"]))
        value = draw(_NUMBERS)
        args.append(draw(_SEPARATORS) + (f"{key}{draw(st.sampled_from(['=', ' = ', '= ']))}{value}" if key else value))
    return f"{name}({draw(st.sampled_from(['p[', '[']))}{point}]{''.join(args)})"


@settings(max_examples=60, deadline=None)
@given(st.lists(_plain_statement(), min_size=1, max_size=4))
def test_generated_plain_statements_read_as_the_grammar_s_general_rules_read_them(statements):
    """The bulk reading of a run (the grammar's MOVES token, split with numpy and resolved by the one resolver,
    urscript_motions.motion_parameters) equals the general rules' reading of the same statements one by one:
    steps, spans, poses to the bit, findings and errors."""
    good = "  movel(p[.4, -.1, .5, 0, 3.14, 0], a=1.2, v=0.25)\n"
    text = "def main():\n" + good + "".join(f"  {s}\n" for s in statements) + good + "end\n"
    assert_same_program(text)


def test_a_run_in_a_function_never_called_is_named_motion_by_motion():
    """A construct looked into but not run names its run's motions (Motions.general): their count, and for a thread
    never started each motion's line, without reading the run's statements through the general rules."""
    good = "  movel(p[.4, -.1, .5, 0, 3.14, 0], a=1.2, v=0.25)\n"
    text = ("def unused():\n" + good * 3000 + "end\nthread idle():\n" + good * 2 + "  # a comment\n" + good
            + "end\ndef main():\n" + good + "end\n")
    prog = urscript_program_from_text(text)
    notes = [note for note in prog.notes if "stays as written" in note.message or "is not run" in note.message]
    assert [(n.line, n.column) for n in notes if "thread" in n.message] == [(3004, 3), (3005, 3), (3007, 3)]
    assert any("function unused is not run: its 3000 motion(s) stay as written" in n.message for n in notes)
