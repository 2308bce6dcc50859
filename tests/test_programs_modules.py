"""A RAPID task whose motions live in its other modules (issue 35, item 2): compensated, and every changed module
written.

Written from ABB's RAPID syntax ("Technical reference manual - RAPID overview", "Program modules": a task is
modules whose task-global data and routines every module sees; "RAPID Instructions": ``MoveJ``, ``MoveL``, a
procedure call), not from any fetched program. The main module calls a routine of a second module that moves to
that module's CONST robtargets (and to one of the main module's); in the three-module task the tool is declared
in a third module. The program goes to ``--out``, each other module whose targets change beside it as
``<out stem>.<module file name>``; a module with nothing changed is not written. Each output, read back as a task,
takes the warm robot (FK of the deformed model) to every programmed pose; a zero table gives the program back
byte for byte and writes no module; findings name the module file and line they are in.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from helpers import run_program
from program_builders import random_configurations, robtarget_text
from test_programs_rapid import controller_joints, small_table
from test_programs_rapid_cell import T_GRIP, ZERO

from thermocomp import deformed_model, fk, load_robot, nominal_model
from thermocomp.compensation.compensate import CompensationOptions
from thermocomp.deformation.timelaw import Static
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.geometry.rotations import transform
from thermocomp.kinematics.confdata import confdata_from_q
from thermocomp.programs import ProgramOptions, RapidOptions, read_program
from thermocomp.tolerances import IK_POSITION_TOL

TOOL_DECL = "  PERS tooldata tGrip := [TRUE,[[0,0,120],[1,0,0,0]],[1,[0,0,50],[1,0,0,0],0,0,0]];\n"


def _decls(chain, rng, names):
    q = random_configurations(chain, rng, len(names))
    R, p = fk(nominal_model(chain), q)
    T = transform(R, p) @ T_GRIP
    cf = confdata_from_q(nominal_model(chain), q)
    return "".join(f"  CONST robtarget {n}:=" + robtarget_text(T[i], cf[i]) + ";\n" for i, n in enumerate(names)), T


def _task(tmp_path, rng, three=False, parts_body=""):
    """The files of a task: ``cell.mod`` (main: home, the routine ``pick`` of ``parts.mod``, then ``c``),
    ``parts.mod`` (``pick``: to its ``a`` and ``b``, and to the main module's ``c``) and, for ``three``, the tool in
    ``tools.mod``. Returns the paths and the TCP poses in execution order."""
    chain = load_robot("irb140")
    main_decl, T_main = _decls(chain, rng, ["home", "c"])
    parts_decl, T_parts = _decls(chain, rng, ["a", "b"])
    tool = "" if three else TOOL_DECL
    cell = ("MODULE cell\n" + main_decl + tool + "  PROC main()\n    MoveJ home, v1000, z50, tGrip;\n    pick;\n"
            "    MoveL c, v200, fine, tGrip;\n  ENDPROC\nENDMODULE\n")
    parts = ("MODULE parts\n" + parts_decl + "  PROC pick()\n    MoveJ a, v500, z10, tGrip;\n"
             "    MoveL b, v100, fine, tGrip;\n" + parts_body + "    MoveL c, v100, z5, tGrip;\n  ENDPROC\nENDMODULE\n")
    paths = [tmp_path / "cell.mod", tmp_path / "parts.mod"]
    paths[0].write_text(cell)
    paths[1].write_text(parts)
    if three:
        paths.append(tmp_path / "tools.mod")
        paths[2].write_text("MODULE tools(SYSMODULE)\n" + TOOL_DECL + "ENDMODULE\n")
    want = [T_main[0], T_parts[0], T_parts[1], T_main[1], T_main[1]]
    return chain, paths, want


def _options(paths, **fields):
    return ProgramOptions(rapid=RapidOptions(modules=tuple(str(p) for p in paths[1:])), **fields)


def _reached(chain, table, program, modules):
    """TCP poses [m] the warm robot reaches running the written task (each point's controller joints: IK in its
    written confdata, or its written joints), then the deformed model's FK."""
    written = read_program(program, rapid=RapidOptions(modules=tuple(str(m) for m in modules)))
    if all(pt.is_joint for pt in written.points):  # (joints form: the joints as written)
        q = np.stack([pt.q for pt in written.points])
    else:
        q, status = controller_joints(chain, written)
        assert np.all(status == 0)
    R, p = fk(deformed_model(chain, table, 1.0), q)
    return transform(R, p) @ np.stack([pt.T_flange_tcp for pt in written.points])


@pytest.mark.parametrize("three", [False, True], ids=["two modules", "three modules"])
def test_task_compensated_and_changed_modules_written(tmp_path, rng, three):
    chain, paths, want = _task(tmp_path, rng, three)
    out = tmp_path / "out" / "cell_comp.mod"
    out.parent.mkdir()
    popts = _options(paths)
    # zero table: the program byte for byte, and no module written (none changed)
    report = run_program("irb140", ZERO, paths[0], out, program_options=popts)
    assert out.read_bytes() == paths[0].read_bytes()
    assert sorted(p.name for p in out.parent.iterdir()) == ["cell_comp.mod"]
    assert report.modules_written == []
    table = small_table(rng)
    report = run_program("irb140", table, paths[0], out, program_options=popts,
                         options=CompensationOptions(time_law=Static()))
    parts_out = out.parent / "cell_comp.parts.mod"
    assert report.modules_written == [(parts_out, len(parts_out.read_bytes()), str(paths[1]))]
    assert sorted(p.name for p in out.parent.iterdir()) == ["cell_comp.mod", "cell_comp.parts.mod"]
    assert f"wrote {parts_out}" in report.text()
    # only the targets' texts changed: the declarations' lines, in each file
    for before, after in ((paths[0], out), (paths[1], parts_out)):
        old, new = before.read_text().splitlines(), after.read_text().splitlines()
        assert len(old) == len(new)
        changed = [i for i, (x, y) in enumerate(zip(old, new)) if x != y]
        assert changed and all(old[i].startswith("  CONST robtarget ") for i in changed)
    modules = [parts_out, *paths[2:]]
    reached = _reached(chain, table, out, modules)
    assert len(reached) == len(want)
    assert np.max(np.linalg.norm(reached[:, :3, 3] - np.stack(want)[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL
    # the inputs are untouched
    assert "MODULE parts" in paths[1].read_text() and paths[1].read_text() != parts_out.read_text()


def test_task_in_joints_form(tmp_path, rng):
    chain, paths, want = _task(tmp_path, rng, three=True)
    out = tmp_path / "cell_j.mod"
    table = small_table(rng)
    run_program("irb140", table, paths[0], out, program_options=_options(paths, output="joints"),
                options=CompensationOptions(time_law=Static()))
    parts_out = tmp_path / "cell_j.parts.mod"
    assert "MoveAbsJ" in parts_out.read_text() and "MoveL" not in parts_out.read_text()
    assert not (tmp_path / "cell_j.tools.mod").exists()  # (the tool module: nothing changed)
    reached = _reached(chain, table, out, [parts_out, paths[2]])
    assert np.max(np.linalg.norm(reached[:, :3, 3] - np.stack(want)[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL


def test_module_output_onto_an_input_is_refused_naming_both(tmp_path, rng):
    _, paths, _ = _task(tmp_path, rng, three=True)
    clash = tmp_path / "o.parts.mod"  # where --out o.mod would write parts.mod: here, the tool module
    paths[2].rename(clash)
    paths[2] = clash
    out = tmp_path / "o.mod"
    with pytest.raises(InputError) as err:
        run_program("irb140", small_table(rng), paths[0], out, program_options=_options(paths))
    assert str(clash) in str(err.value) and "--module" in str(err.value) and "--out" in str(err.value)
    assert not out.exists() and clash.read_text().startswith("MODULE tools")


def test_two_changed_modules_of_one_name_are_refused_naming_both(tmp_path, rng):
    """Two modules of one file name from two folders: both changed, both would be written to ``o.parts.mod``."""
    chain, paths, _ = _task(tmp_path, rng)
    decl, _ = _decls(chain, rng, ["d"])
    (tmp_path / "lib").mkdir()
    other = tmp_path / "lib" / "parts.mod"
    other.write_text("MODULE place\n" + decl + "  PROC place()\n    MoveL d, v100, fine, tGrip;\n  ENDPROC\n"
                     "ENDMODULE\n")
    paths[0].write_text(paths[0].read_text().replace("    pick;\n", "    pick;\n    place;\n"))
    paths.append(other)
    out = tmp_path / "o.mod"
    with pytest.raises(InputError) as err:
        run_program("irb140", small_table(rng), paths[0], out, program_options=_options(paths))
    assert f"--module {paths[1]}" in str(err.value) and f"--module {other}" in str(err.value)
    assert str(tmp_path / "o.parts.mod") in str(err.value)
    assert not out.exists() and not (tmp_path / "o.parts.mod").exists()


def test_findings_name_the_module_file_and_line(tmp_path, rng):
    _, paths, _ = _task(tmp_path, rng, parts_body="    StorePath;\n")
    prog = read_program(paths[0], rapid=RapidOptions(modules=(str(paths[1]),)))
    (finding,) = [f for f in prog.unsupported if "StorePath" in f.message]
    line = paths[1].read_text().splitlines().index("    StorePath;") + 1
    assert (finding.file, finding.line, finding.column) == (1, line, 5)
    assert prog.where(finding).startswith(f"{paths[1]}:{line}:5: StorePath")
    with pytest.raises(InputError) as err:  # (refused by default, naming that file and line)
        run_program("irb140", small_table(rng), paths[0], tmp_path / "o.mod", program_options=_options(paths[:2]))
    assert f"{paths[1]}:{line}:5" in str(err.value) and f"{paths[1]}, line {line}, column 5" in str(err.value)


def test_time_indexed_tables_in_another_module_are_refused(tmp_path, rng):
    _, paths, _ = _task(tmp_path, rng)
    out = tmp_path / "o.mod"
    with pytest.raises(ConfigurationError, match="--time-indexed: .*parts.mod"):
        run_program("irb140", small_table(rng), paths[0], out,
                    program_options=_options(paths, indexed_minutes=(0.0, 60.0, 120.0)))
    assert not out.exists() and not (tmp_path / "o.parts.mod").exists()


def test_spans_know_their_file(tmp_path, rng):
    _, paths, _ = _task(tmp_path, rng, three=True)
    prog = read_program(paths[0], rapid=RapidOptions(modules=tuple(str(p) for p in paths[1:])))
    texts = {path: text for path, text in prog.files}
    got = []
    for motion in prog.motions:
        (point,) = motion.points
        where = prog.files[point.file][0]
        got.append((motion.instruction, motion.file, texts[prog.files[motion.file][0]][
            motion.name.start:motion.name.end], where, texts[where][point.text.start:point.text.end].split(":=")[0]))
    # the motions of pick are in parts.mod (file 1), its last target is the main module's c (file 0)
    assert [(g[0], g[1], g[2]) for g in got] == [("MoveJ", 0, "MoveJ"), ("MoveJ", 1, "MoveJ"), ("MoveL", 1, "MoveL"),
                                                 ("MoveL", 1, "MoveL"), ("MoveL", 0, "MoveL")]
    assert [prog.files.index((g[3], texts[g[3]])) for g in got] == [0, 1, 1, 0, 0]
    assert all(g[4].startswith("[[") for g in got)


def test_one_text_for_corrections_alike_within_the_solver_tolerance(tmp_path, rng):
    """Two motions to one CONST target: corrections that differ by less than ten times the solver's tolerance
    (solves from different seeds) are written as one text; corrections that differ more keep their own (and the
    writer then refuses or writes each at its motion)."""
    from thermocomp.programs.compensate import share_texts

    _, paths, _ = _task(tmp_path, rng)
    prog = read_program(paths[0], rapid=RapidOptions(modules=(str(paths[1]),)))
    run = prog.run
    shared = [i for i, name in enumerate(run.name_of_point) if name == "c"]  # (parts.mod's MoveL c, main's MoveL c)
    assert len(shared) == 2 and run.text[shared[0]].tolist() == run.text[shared[1]].tolist()
    pw = np.array(shared)
    R = np.stack([np.eye(3), np.eye(3)])
    for step_m, alike in ((5 * IK_POSITION_TOL, True), (1e-6, False)):
        p = np.array([[0.5, 0.1, 0.4], [0.5, 0.1, 0.4 + step_m]])
        values = [None] * len(run.text)
        values[shared[0]], values[shared[1]] = "[first]", "[second]"
        got = share_texts(prog, pa.array(values, pa.string()), np.isin(np.arange(len(run.text)), pw),
                          lambda at, p=p: (R[np.searchsorted(pw, at)], p[np.searchsorted(pw, at)]))[0].to_pylist()
        values[shared[1]] = "[first]" if alike else "[second]"
        assert got == values


def test_a_per_pass_table_in_another_module_is_written_there(tmp_path, rng):
    """A target that differs from pass to pass becomes a table and a counter (tests/test_programs_loops.py), declared
    LOCAL in the module of its motion (held-out-20: a RobotStudio backup's FOR loop of Offs in a routine of another
    module, refused before as written "in the program's own module only"). The written task, read back, takes the
    warm robot to every pass's programmed pose; the program's module gets no table."""
    loop = "    FOR k FROM 1 TO 3 DO\n      MoveL Offs(a, 0, 0, k * 5), v100, fine, tGrip;\n    ENDFOR\n"
    chain, paths, want = _task(tmp_path, rng, parts_body=loop)
    passes = []
    for k in (1, 2, 3):
        T = want[1].copy()
        T[2, 3] += k * 0.005
        passes.append(T)
    want = [*want[:3], *passes, *want[3:]]
    out = tmp_path / "out" / "o.mod"
    out.parent.mkdir()
    table = small_table(rng)
    report = run_program("irb140", table, paths[0], out, program_options=_options(paths),
                         options=CompensationOptions(time_law=Static()))
    parts_out = out.parent / "o.parts.mod"
    written = parts_out.read_text()
    assert "  LOCAL VAR num tcPassN1 := 0;" in written and "  LOCAL CONST robtarget tcPassT1{3}:=" in written
    assert "tcPass" not in out.read_text()
    line = paths[1].read_text().splitlines().index("    FOR k FROM 1 TO 3 DO") + 1
    assert f"{paths[1]}:{line}:5: FOR: the targets of the motion(s) at line {line + 1} differ" in report.text()
    reached = _reached(chain, table, out, [parts_out])
    assert len(reached) == len(want)
    assert np.max(np.linalg.norm(reached[:, :3, 3] - np.stack(want)[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL


def test_runs_of_motions_at_one_offset_of_two_files_are_each_read_from_their_file(tmp_path, rng):
    """The main module calls a routine of another module, then moves; each file's run of motions starts at the same
    character offset of its file (two headers of one length, as exports of one cell have): each run is read from its
    own file's text (read by the offset alone, the second run was the first's text and the task was not read), and
    the written task takes the warm robot to every programmed pose."""
    chain = load_robot("irb140")
    main_decl, T_main = _decls(chain, rng, ["home", "c"])
    parts_decl, T_parts = _decls(chain, rng, ["a", "b"])
    heads = ["MODULE cell\n" + main_decl + TOOL_DECL + "  PROC main()\n    pick;\n", "MODULE parts\n" + parts_decl
             + "  PROC pick()\n"]
    width = max(map(len, heads))  # (each run's first motion indented to that offset)
    cell = heads[0] + " " * (width - len(heads[0]) + 4) + "MoveJ home, v1000, z50, tGrip;\n" \
        "    MoveL c, v200, fine, tGrip;\n  ENDPROC\nENDMODULE\n"
    parts = heads[1] + " " * (width - len(heads[1]) + 4) + "MoveJ a, v500, z10, tGrip;\n" \
        "    MoveL b, v100, fine, tGrip;\n  ENDPROC\nENDMODULE\n"
    paths = [tmp_path / "cell.mod", tmp_path / "parts.mod"]
    for path, text in zip(paths, (cell, parts)):
        path.write_text(text)
    assert cell.index("MoveJ") == parts.index("MoveJ")
    out = tmp_path / "out.mod"
    table = small_table(rng)
    run_program("irb140", table, paths[0], out, program_options=_options(paths),
                options=CompensationOptions(time_law=Static()))
    reached = _reached(chain, table, out, [tmp_path / "out.parts.mod"])
    want = np.stack([T_parts[0], T_parts[1], T_main[0], T_main[1]])
    assert np.max(np.linalg.norm(reached[:, :3, 3] - want[:, :3, 3], axis=1)) < 1e-6 + 10 * IK_POSITION_TOL
