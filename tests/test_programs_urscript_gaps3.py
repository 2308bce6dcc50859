"""URScript the third held-out trial (issue 35, item 5) found followed wrongly, each class tested from UR's manual.

URScript manual, "The structure of a program": a script holds functions (``def name(): ... end``); a file a driver
sends, or a URCap's library of defs, may hold several and call none of them. Which one runs is then the user's word:
``--entry NAME`` (as for RAPID), never ignored. The trial's program: a layup library whose ``Initialise`` moves to a
constant start pose and whose ``move_ply`` moves to poses read from a socket.
"""

from __future__ import annotations

import pytest

from thermocomp.errors import InputError, ThermocompError
from thermocomp.programs import read_program
from thermocomp.programs.rapid import RapidOptions

_LIBRARY = ("def Initialise():\n"
            "  set_standard_digital_out(0, True)\n"
            "  global START_LOC = p[0.100, -0.450, 0.300, 0, 3.14, 0]\n"
            "  movej(START_LOC)\n"
            "end\n"
            "def move_ply():\n"
            "  data = socket_read_ascii_float(6, \"socket_0\")\n"
            "  ply = p[data[1], data[2], data[3], data[4], data[5], data[6]]\n"
            "  movej(ply)\n"
            "end\n")


def _read(tmp_path, text: str, entry: str = "main"):
    path = tmp_path / "library.script"
    path.write_text(text)
    return read_program(path, rapid=RapidOptions(entry=entry))


def test_the_entry_chosen_by_the_user_is_the_function_run(tmp_path):
    """``--entry Initialise``: that function runs; ``move_ply``, never called, stays as written (a note), its
    socket-read pose is no reason to refuse the program."""
    prog = _read(tmp_path, _LIBRARY, "Initialise")
    assert prog.unsupported == (), prog.unsupported
    assert prog.entry == ("Initialise",)
    assert len(prog.points) == 1
    assert prog.points[0].T_world_tcp[0, 3] == pytest.approx(0.100, abs=1e-9) or len(prog.steps) == 1


def test_without_an_entry_the_last_function_still_runs(tmp_path):
    """No ``--entry``: the last function runs, as before (a note says so); here it reads a socket and is refused,
    naming its line."""
    prog = _read(tmp_path, _LIBRARY)
    assert prog.entry == ("move_ply",)
    assert {f.line for f in prog.unsupported} & {8, 9}, prog.unsupported


def test_an_entry_that_names_no_function_is_an_error_naming_the_option(tmp_path):
    with pytest.raises((InputError, ThermocompError), match=r"--entry.*Nowhere"):
        _read(tmp_path, _LIBRARY, "Nowhere")
