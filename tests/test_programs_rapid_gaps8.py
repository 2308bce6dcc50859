"""Gaps the eighth held-out gathering of real programs showed in the RAPID reader (issue 35), each tested from the
syntax of ABB's "Technical reference manual - RAPID kernel" and "RAPID Instructions, Functions and Data types",
not from the gathered texts.

1. A FOR loop whose bound reads data the program changes before the loop ("FOR": ``FOR i FROM 0 TO n{k} DO``; its
   bounds are evaluated when the loop starts). The reader counted every loop's passes before following anything,
   with the data's declared values, and refused the program for an error those stale values gave: a server that
   splits a received number into ``tens`` (declared ``VAR num tens := -1``) and loops ``FOR i FROM 0 TO
   lenghts{tens + 1}`` under ``IF tens <> -1`` was refused with "index 0 outside lenghts{1..10}", an index the
   controller never reads.
2. A module of the task holding its own ``LOCAL`` routines and data and its TRAPs ("Scope rules": a ``LOCAL``
   routine or datum is visible within its module; a TRAP is a routine like a PROC, named by ``CONNECT intno WITH
   trap``). Given with ``--module``, only its task-global declarations were read: its calls of its own ``LOCAL PROC
   set_tool``, its reads of its own ``LOCAL`` data and its ``CONNECT ... WITH reset_after_connection_stop`` were
   refused as "found in no module" (a gantry cell's motion library, held-out-8, createchaos).
"""

from __future__ import annotations

import numpy as np
import pytest

from thermocomp.errors import InputError
from thermocomp.programs import read_program
from thermocomp.programs.rapid import RapidOptions

_HEAD = ("MODULE m\n"
         "    CONST robtarget p := [[500,0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
         "    CONST num counts{3} := [1, 2, 3];\n"
         "    VAR num tens := -1;\n"
         "    VAR num answer;\n")


def _stale_bound_module(loop_bound: str, guard: str) -> str:
    """``main`` reads a number from the operator, may give ``tens`` a value from it, then loops to ``loop_bound``."""
    return (_HEAD +
            "    PROC main()\n"
            "        TPReadNum answer, \"count?\";\n"
            "        IF answer > 9 THEN\n"
            "            tens := Trunc(answer / 10);\n"
            "        ENDIF\n"
            f"        IF {guard} THEN\n"
            f"            FOR i FROM 0 TO {loop_bound} DO\n"
            "                MoveJ p, v100, z10, tool0;\n"
            "            ENDFOR\n"
            "        ENDIF\n"
            "    ENDPROC\n"
            "ENDMODULE\n")


@pytest.mark.parametrize(("loop_bound", "guard"), [
    ("counts{tens + 1}", "tens <> -1"),          # (the declared -1 gives index 0)
    ("counts{tens + 5}", "tens > 0"),            # (index 4 of 3)
])
def test_a_for_bound_is_not_judged_by_values_the_program_changes_before_the_loop(tmp_path, loop_bound, guard):
    """The loop's count is known only while running: its motion (one constant target) is followed once, and no
    error of the declared value is raised."""
    path = tmp_path / "stale.mod"
    path.write_text(_stale_bound_module(loop_bound, guard))
    prog = read_program(path)
    assert prog.unsupported == ()
    assert [m.line for m in prog.motions] == [13]


def test_a_for_bound_that_is_wrong_for_the_data_it_runs_with_is_still_refused_at_its_line(tmp_path):
    """Where the loop runs with the declared value (nothing changes it), the index error is the program's: refused
    naming the loop's line."""
    path = tmp_path / "wrong.mod"
    path.write_text(_HEAD +
                    "    PROC main()\n"
                    "        FOR i FROM 0 TO counts{tens + 1} DO\n"
                    "            MoveJ p, v100, z10, tool0;\n"
                    "        ENDFOR\n"
                    "    ENDPROC\n"
                    "ENDMODULE\n")
    with pytest.raises(InputError, match=r"index 0 outside counts\{1\.\.3\}") as caught:
        read_program(path)
    assert "line 7" in str(caught.value)


_MAIN = ("MODULE MainMod\n"
         "    PROC main()\n"
         "        run_{suffix};\n"
         "    ENDPROC\n"
         "ENDMODULE\n")


def _library(suffix: str, x: int, local_data: str = "LOCAL ", local_proc: str = "LOCAL ") -> str:
    """A module whose global PROC ``run_<suffix>`` connects its own TRAP and calls its own routine, which moves to
    its own target at ``x`` mm."""
    return (f"MODULE Lib{suffix}\n"
            f"    {local_data}CONST robtarget home := [[{x},0,500],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
            f"    VAR intnum irq_{suffix};\n"
            f"    PERS bool stop_{suffix} := FALSE;\n"
            f"    PROC run_{suffix}()\n"
            f"        CONNECT irq_{suffix} WITH on_stop_{suffix};\n"
            f"        IPers stop_{suffix}, irq_{suffix};\n"
            "        go_home;\n"
            "    ENDPROC\n"
            f"    {local_proc}PROC go_home()\n"
            "        MoveJ home, v100, fine, tool0;\n"
            "    ENDPROC\n"
            f"    TRAP on_stop_{suffix}\n"
            "        TPWrite \"stop\";\n"
            "    ENDTRAP\n"
            "ENDMODULE\n")


@pytest.mark.parametrize(("local_data", "local_proc"), [("LOCAL ", "LOCAL "), ("", "LOCAL "), ("LOCAL ", "")])
def test_a_module_of_the_task_finds_its_own_local_routines_data_and_traps(tmp_path, local_data, local_proc):
    main, lib = tmp_path / "main.mod", tmp_path / "lib.mod"
    main.write_text(_MAIN.format(suffix="a"))
    lib.write_text(_library("a", 480, local_data, local_proc))
    prog = read_program(main, rapid=RapidOptions(modules=(str(lib),)))
    assert prog.unsupported == ()
    assert [(m.line, m.instruction) for m in prog.motions] == [(11, "MoveJ")]
    assert any("TRAP on_stop_a moves nothing" in note.message for note in prog.notes)


def test_another_modules_local_datum_does_not_clash_with_a_global_of_its_name(tmp_path):
    """``LOCAL PERS num shift`` of a library and the program's own ``VAR num shift``: two data, no "declared in two
    modules" (the program's motion reads its own, 0)."""
    main, lib = tmp_path / "main.mod", tmp_path / "lib.mod"
    main.write_text("MODULE MainMod\n"
                    "    CONST robtarget p := [[500,0,400],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];\n"
                    "    VAR num shift;\n"
                    "    PROC main()\n"
                    "        MoveJ Offs(p, shift, 0, 0), v100, fine, tool0;\n"
                    "    ENDPROC\n"
                    "ENDMODULE\n")
    lib.write_text("MODULE LibMod\n    LOCAL PERS num shift := 5800;\nENDMODULE\n")
    prog = read_program(main, rapid=RapidOptions(modules=(str(lib),)))
    assert prog.unsupported == () and [m.line for m in prog.motions] == [5]


_TARGET = "CONST robtarget p10 := [[{x},{y},{z}],[0,0,1,0],[0,0,0,0],[9E9,9E9,9E9,9E9,9E9,9E9]];"


def test_a_local_datum_read_by_its_modules_own_declarations_is_its_own(tmp_path):
    """``LOCAL p10`` and ``p20 := Offs(p10, 0, 0, 10)`` of a module beside the program's global ``p10``: ``p20`` is
    the module's ``p10`` raised 10 mm, never the program's, or refused; never the program's silently."""
    main, lib = tmp_path / "main.mod", tmp_path / "lib.mod"
    main.write_text("MODULE MainMod\n    " + _TARGET.format(x=500, y=0, z=500) + "\n    PROC main()\n"
                    "        Other;\n    ENDPROC\nENDMODULE\n")
    lib.write_text("MODULE OtherMod\n    LOCAL " + _TARGET.format(x=450, y=100, z=450) + "\n"
                   "    LOCAL CONST robtarget p20 := Offs(p10, 0, 0, 10);\n    PROC Other()\n"
                   "        MoveL p20, v100, fine, tool0;\n    ENDPROC\nENDMODULE\n")
    prog = read_program(main, rapid=RapidOptions(modules=(str(lib),)))
    for point in prog.points:
        assert point.T_world_tcp[:3, 3] * 1e3 == pytest.approx([450, 100, 460])
    assert prog.points or any("p10" in f.message for f in prog.unsupported)


def test_a_confdata_note_names_the_file_its_target_is_in(tmp_path):
    """The report's "confdata written" line of a target in a ``--module`` names that module's file (it named the
    program's, with the module's line and column)."""
    from helpers import run_program

    from thermocomp.deformation.table import DeformationTable
    from thermocomp.programs.options import ProgramOptions

    main, lib = tmp_path / "main.mod", tmp_path / "lib.mod"
    main.write_text("MODULE MainMod\n    PROC main()\n        ConfL \\Off;\n        Other;\n    ENDPROC\nENDMODULE\n")
    lib.write_text("MODULE OtherMod\n    " + _TARGET.format(x=450, y=-100, z=450) + "\n    PROC Other()\n"
                   "        MoveL p10, v100, fine, tool0;\n    ENDPROC\nENDMODULE\n")
    report = run_program("irb140", DeformationTable.from_mm_deg(np.full((6, 6), 0.5)), main, tmp_path / "out.mod",
                         program_options=ProgramOptions(rapid=RapidOptions(modules=(str(lib),))))
    notes = [n for n in report.notes if "confdata written" in n]
    assert notes and all(n.startswith(f"{lib}:4:15: ") for n in notes)


def test_another_modules_local_datum_is_not_read_from_the_program(tmp_path):
    """A ``LOCAL`` datum is seen only in its own module: the program's ``MoveL p10`` of another module's ``LOCAL
    p10`` is no reference the controller links. Refused at that read, naming the module (it was compensated)."""
    main, lib = tmp_path / "main.mod", tmp_path / "lib.mod"
    main.write_text("MODULE MainMod\n    PROC main()\n        MoveL p10, v100, fine, tool0;\n    ENDPROC\nENDMODULE\n")
    lib.write_text("MODULE OtherMod\n    LOCAL " + _TARGET.format(x=450, y=100, z=450) + "\nENDMODULE\n")
    prog = read_program(main, rapid=RapidOptions(modules=(str(lib),)))
    assert [(f.file, f.line) for f in prog.unsupported] == [(0, 3)]
    assert f"p10 is declared LOCAL in {lib}" in prog.unsupported[0].message
