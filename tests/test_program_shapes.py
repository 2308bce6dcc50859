"""Any program shape at grid cost (issue 10): timed programs that jump, repeat, stream; progress that moves.

Cost is counted, not timed (timings live in ``make bench``): the number of
nominal problems solved, and the Newton work of the deformed solves as
row-iterations (each is one FK + Jacobian of one row), which are
deterministic.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import REPO, run_targets

import thermocomp.compensation.compensate as compensate_module
import thermocomp.kinematics.seeding as seeding_module
from thermocomp.compensation.compensate import PHASES, PROGRESS_ROWS, CompensationOptions, compensate
from thermocomp.compensation.targets import Targets
from thermocomp.errors import ConfigurationError, InputError
from thermocomp.io.deformation_csv import read_deformation_csv
from thermocomp.io.robots import load_robot
from thermocomp.io.targets_csv import read_targets_csv, write_targets_csv
from thermocomp.kinematics.dispatch import ENGINE_MIN_ROWS
from thermocomp.kinematics.ik import Status, solve_ik
from thermocomp.tolerances import NEAR_SINGULAR_SIGMA

MINUTES = np.linspace(0.0, 200.0, 60)
_NOMINAL_DISTINCT = compensate_module._nominal_distinct


@pytest.fixture(scope="module")
def targets():
    return read_targets_csv(REPO / "examples" / "targets_random50.csv")


@pytest.fixture(scope="module")
def exaggerated():
    return read_deformation_csv(REPO / "deformations" / "exaggerated.csv", n_joints=6)


def _jumping(targets: Targets, rng: np.random.Generator) -> tuple[Targets, np.ndarray]:
    """The grid's 3,000 rows (50 targets x 60 minutes) as a pick-and-place program: each minute
    visits the targets in a new random order, so neighbouring rows are different targets."""
    m = targets.n_targets
    order = np.concatenate([rng.permutation(m) for _ in MINUTES])
    return Targets(names=tuple(targets.names[i] for i in order), R_world_tcp=targets.R_world_tcp[order],
                   p_world_tcp=targets.p_world_tcp[order], time_min=np.repeat(MINUTES, m)), order


class Work:
    """Counts nominal problems and Newton row-iterations while a compensation runs."""

    def __init__(self, monkeypatch) -> None:
        self.nominal_problems = 0
        self.row_iterations = 0

        def nominal_distinct(chain, program, *args, **kwargs):
            self.nominal_problems += program.n_targets
            return _NOMINAL_DISTINCT(chain, program, *args, **kwargs)

        def counting_solve_ik(*args, **kwargs):
            result = solve_ik(*args, **kwargs)
            self.row_iterations += int(np.sum(result.iterations + 1))
            return result

        monkeypatch.setattr(compensate_module, "_nominal_distinct", nominal_distinct)
        monkeypatch.setattr(compensate_module, "solve_ik", counting_solve_ik)
        monkeypatch.setattr(seeding_module, "solve_ik", counting_solve_ik)


@pytest.mark.slow
@pytest.mark.parametrize("robot", ["irb140", "gofa"])
def test_a_jumping_timed_program_costs_at_most_twice_its_grid(robot, targets, exaggerated, rng, monkeypatch):
    """Same 3,000 rows as a grid and as a jumping timed program: at most 2x the Newton work, the same
    50 nominal problems (not 3,000), and the same angles. The GoFa has no closed form: multi-start, once per target."""
    chain = load_robot(robot)
    if robot == "gofa":  # the IRB140's targets, moved into the GoFa's reach
        targets = Targets(names=targets.names, R_world_tcp=targets.R_world_tcp,
                          p_world_tcp=targets.p_world_tcp * 0.9 + np.array([0.0, 0.0, 0.15]))
    table = exaggerated
    grid_work = Work(monkeypatch)
    grid = list(compensate(chain, table, targets, CompensationOptions(minutes=tuple(MINUTES))))
    program, order = _jumping(targets, rng)
    timed_work = Work(monkeypatch)
    timed = list(compensate(chain, table, program, CompensationOptions()))
    assert grid_work.nominal_problems == timed_work.nominal_problems == targets.n_targets
    assert timed_work.row_iterations <= 2 * grid_work.row_iterations
    q_grid = np.concatenate([c.q for c in grid]).reshape(MINUTES.size, targets.n_targets, 6)
    q_timed = np.concatenate([c.q for c in timed])
    status = np.concatenate([c.status for c in timed])
    assert np.all(status == Status.CONVERGED)
    minute_index = np.repeat(np.arange(MINUTES.size), targets.n_targets)
    assert np.max(np.abs(q_timed - q_grid[minute_index, order])) < 1e-6


@pytest.mark.slow
def test_a_streamed_program_solves_each_repeated_target_once(targets, exaggerated, rng, monkeypatch, tmp_path):
    """A 3,000-row timed CSV read in 300-row pieces: the memo carries the 50 nominal solutions across pieces;
    repeated names are allowed with time_min and come back in the results in program order."""
    program, order = _jumping(targets, rng)
    path = tmp_path / "cycle.csv"
    write_targets_csv(program, path)
    work = Work(monkeypatch)
    report = run_targets("irb140", exaggerated, path, tmp_path / "out.csv",
                              options=CompensationOptions(chunk_rows=300))
    assert work.nominal_problems == targets.n_targets
    assert report.summary.n_rows == 3000 and report.summary.n_failed == 0
    lines = (tmp_path / "out.csv").read_text().splitlines()[1:]
    assert [line.split(",")[1] for line in lines] == [targets.names[i] for i in order]


class Recorder:
    """A progress callback that knows phases (as the CLI's ProgressBar does)."""

    def __init__(self) -> None:
        self.events: list[tuple] = []

    def phase(self, name, total):
        self.events.append(("phase", name))

    def __call__(self, done, total):
        self.events.append(("rows", done, total))


def test_progress_moves_every_few_thousand_rows_in_every_phase(targets, exaggerated, rng, tmp_path):
    m = 40_000
    pick = rng.integers(0, targets.n_targets, m)
    program = Targets(names=tuple(targets.names[i] for i in pick), R_world_tcp=targets.R_world_tcp[pick],
                      p_world_tcp=targets.p_world_tcp[pick], time_min=np.linspace(0.0, 200.0, m))
    recorder = Recorder()
    report = run_targets("irb140", exaggerated, program, progress=recorder, keep_results=False)
    phases = [e[1] for e in recorder.events if e[0] == "phase"]
    assert phases == ["reading", "solving"]
    done = [0] + [e[1] for e in recorder.events if e[0] == "rows"]
    assert done[-1] == m and max(np.diff(done)) < PROGRESS_ROWS + ENGINE_MIN_ROWS
    # a grid announces its nominal phase, and a plain (done, total) function still sees only the solved rows
    grid_calls = []
    grid = run_targets("irb140", exaggerated, targets, progress=lambda d, t: grid_calls.append((d, t)))
    assert grid_calls[-1] == (grid.summary.n_rows, grid.summary.n_rows)
    recorder = Recorder()
    run_targets("irb140", exaggerated, targets, progress=recorder)
    assert [e[1] for e in recorder.events if e[0] == "phase"] == ["reading", "nominal configurations", "solving"]
    # the summary times every phase
    assert list(report.summary.phase_seconds) == list(PHASES)
    assert report.summary.phase_seconds["solving"] > 0 and report.summary.phase_seconds["nominal configurations"] > 0
    text = report.text()
    assert all(name in text for name in PHASES) and "whole run" in text


@pytest.mark.parametrize("m", [1, 999, 1_000, 16_384, 16_385, 17_383, 17_384, 50_000, 65_536, 66_535])
def test_a_timed_programs_slices_leave_no_short_remainder(m):
    """The slices cover the rows in order; none is shorter than ENGINE_MIN_ROWS unless the whole program is (the
    remainder joins the slice before), so none is longer than PROGRESS_ROWS plus that."""
    from thermocomp.kinematics.dispatch import engine_slices

    slices = engine_slices(m, PROGRESS_ROWS)
    assert slices[0][0] == 0 and slices[-1][1] == m
    assert all(a[1] == b[0] for a, b in zip(slices, slices[1:]))
    sizes = [stop - start for start, stop in slices]
    assert min(sizes) >= min(m, ENGINE_MIN_ROWS) and max(sizes) < PROGRESS_ROWS + ENGINE_MIN_ROWS


def test_every_row_of_a_long_timed_program_runs_in_the_engine(targets, exaggerated, monkeypatch):
    """Two slices and a 500-row remainder: numpy's kinematics see only the 50 distinct targets' nominal problems,
    never a slice's rows (the remainder used to run in numpy, its results depending on where the slices fell)."""
    import thermocomp.kinematics.fk as fk_module

    m = 2 * PROGRESS_ROWS + 500
    pick = np.arange(m) % targets.n_targets
    program = Targets(names=tuple(f"P{i}" for i in range(m)), R_world_tcp=targets.R_world_tcp[pick],
                      p_world_tcp=targets.p_world_tcp[pick], time_min=np.linspace(0.0, 200.0, m))
    batches = []
    walk = fk_module._walk

    def recording(model, q, *args, **kwargs):
        batches.append(int(np.prod(np.shape(q)[:-1])))
        return walk(model, q, *args, **kwargs)

    monkeypatch.setattr(fk_module, "_walk", recording)
    report = run_targets("irb140", exaggerated, program, keep_results=False)
    assert report.summary.status_counts["converged"] == m
    assert batches and max(batches) <= targets.n_targets


def test_results_as_a_dataframe_equal_the_results_csv(targets, exaggerated, tmp_path):
    """report.frame() has the CSV's columns and values (the CSV rounds to 12 significant digits)."""
    pd = pytest.importorskip("pandas")
    out = tmp_path / "out.csv"
    options = CompensationOptions(minutes=(0.0, 100.0, 200.0))
    report = run_targets("irb140", exaggerated, targets, out, options=options, keep_results=True)
    frame = report.frame()
    written = pd.read_csv(out)
    assert list(frame.columns) == list(written.columns)
    assert len(frame) == 150 and list(frame["target"][:3]) == list(targets.names[:3])
    assert list(frame["status"]) == list(written["status"])
    numeric = [c for c in frame.columns if c not in ("target", "status", "near_singular")]
    a, b = frame[numeric].to_numpy(float), written[numeric].to_numpy(float)
    assert np.allclose(a, b, rtol=1e-11, atol=1e-11 * np.abs(a).max())


def test_targets_from_a_dataframe_equal_the_same_csv(targets, exaggerated, tmp_path):
    """A DataFrame with the self-describing columns is read as the CSV it would be; errors are located."""
    pd = pytest.importorskip("pandas")
    from thermocomp.errors import InputError
    from thermocomp.io.targets_csv import read_targets_frame

    path = tmp_path / "targets.csv"
    write_targets_csv(targets, path)
    frame = pd.read_csv(path)
    from_frame = read_targets_frame(frame)
    from_file = read_targets_csv(path)
    assert from_frame.names == from_file.names
    assert np.array_equal(from_frame.p_world_tcp, from_file.p_world_tcp)
    assert np.array_equal(from_frame.R_world_tcp, from_file.R_world_tcp)
    report = run_targets("irb140", exaggerated, frame, options=CompensationOptions(minutes=(0.0,)))
    assert report.summary.n_rows == 50 and report.summary.n_failed == 0
    bad = frame.copy()
    bad.loc[7, "y_mm"] = float("nan")
    with pytest.raises(InputError) as info:
        read_targets_frame(bad)
    assert (info.value.path, info.value.row, info.value.column) == ("DataFrame", 9, "y_mm")
    twice = frame.copy()
    twice.loc[4, "name"] = twice.loc[1, "name"]
    with pytest.raises(InputError, match="duplicate target name"):
        read_targets_frame(twice)


def test_the_nominal_memo_never_confuses_two_problems_with_one_hash(targets):
    """Every key hashing alike: a lookup still finds only equal keys (a collision is a miss, never a wrong row)."""
    from thermocomp.compensation.compensate import NominalMemo, _take
    from thermocomp.kinematics.ik import IKResult

    first, _, keys, hashes = targets.distinct_rows()
    m = keys.size
    result = IKResult(q=np.arange(6.0 * m).reshape(m, 6), status=np.zeros(m, dtype=np.int8),
                      position_error=np.zeros(m), orientation_error=np.zeros(m),
                      iterations=np.zeros(m, dtype=np.int64), sigma_min=np.ones(m))
    for colliding in (False, True):
        memo = NominalMemo()
        if colliding:
            hashes = np.zeros(m, dtype=np.uint64)
        memo.add(keys[:30], hashes[:30], _take(result, np.arange(30)))
        found = memo.lookup(keys[::-1], hashes[::-1])
        known = found >= 0
        # every hit is the right row; without collisions every remembered key is found
        assert np.array_equal(found[known], (m - 1 - np.arange(m))[known])
        assert np.all(found[: m - 30] == -1)
        if not colliding:
            assert np.all(known[m - 30:])
        assert np.array_equal(memo.take(found[known]).q, result.q[(m - 1 - np.arange(m))[known]])


def test_the_nominal_memo_fed_in_pieces_finds_every_key_at_its_row():
    """Keys added in pieces (as a streamed path's): every one is found at the row it was added at, and the sorted
    hashes are those of one stable sort of all of them (the merge of each piece, with ties: a tie is a miss but
    for the first key added, as a collision is)."""
    from thermocomp.compensation.compensate import NominalMemo, _take
    from thermocomp.kinematics.ik import IKResult

    rng = np.random.default_rng(8)
    m = 700
    keys = np.ascontiguousarray(rng.normal(size=(m, 4))).view(np.dtype((np.void, 32))).ravel()
    hashes = rng.integers(0, 2**62, m).astype(np.uint64)
    hashes[600:] = hashes[:100]  # ties with keys added earlier
    result = IKResult(q=rng.normal(size=(m, 6)), status=np.zeros(m, dtype=np.int8), position_error=np.zeros(m),
                      orientation_error=np.zeros(m), iterations=np.zeros(m, dtype=np.int64), sigma_min=np.ones(m))
    memo = NominalMemo(capacity=650)
    for a, b in ((0, 5), (5, 300), (300, 301), (301, 700)):
        memo.add(keys[a:b], hashes[a:b], _take(result, np.arange(a, b)))
    assert len(memo) == 650
    assert np.array_equal(memo._order, np.argsort(hashes[:650], kind="stable"))
    found = memo.lookup(keys, hashes)
    assert np.array_equal(found[:600], np.arange(600)) and np.all(found[600:] == -1)
    assert np.array_equal(memo.take(found[:600]).q, result.q[:600])


def test_distinct_rows_are_those_numpy_finds():
    """distinct_rows (grouped by a 64-bit hash, each row checked word by word) against ``np.unique`` of the rows'
    bytes, on keys with many repeats, signed zeros and NaN, and with every hash alike (the fallback): the same
    first occurrences and the same row-to-problem map."""
    from thermocomp.compensation import targets as targets_module

    rng = np.random.default_rng(3)
    for m, w, values in ((20_000, 15, 50), (5_000, 3, 2), (1, 4, 3), (0, 12, 1)):
        key = rng.integers(0, values, (m, w)).astype(float)
        key[rng.random((m, w)) < 0.01] = np.nan
        key[rng.random((m, w)) < 0.01] = -0.0
        key = key[rng.integers(0, m // 4 + 1, m)]  # rows drawn from a quarter of them: repeats
        void = np.ascontiguousarray(key).view(np.dtype((np.void, 8 * w))).ravel()
        _, first_np, inverse_np = np.unique(void, return_index=True, return_inverse=True)
        order = np.argsort(first_np)
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        for colliding in (False, True):
            with pytest.MonkeyPatch.context() as patch:
                if colliding:
                    patch.setattr(targets_module, "hash_rows", lambda words: np.zeros(len(words), dtype=np.uint64))
                words = np.ascontiguousarray(key).view(np.uint64)
                first, inverse, hashes = targets_module.distinct_rows(words)
            assert np.array_equal(first, first_np[order]) and np.array_equal(inverse, rank[inverse_np.ravel()])
            assert np.array_equal(hashes, targets_module.hash_rows(words) if not colliding else np.zeros(m, np.uint64))
        assert m < 2 or first.size < m  # the repeats were found


def test_the_summary_folds_chunks_as_numpy_does():
    """CompensationSummary.add (a few array passes a chunk) against the same totals computed row set by row set: extremes
    over converged rows, the uncompensated miss over nominally solved rows, the table per minute, the counts; on
    chunks with every status, nominal failures and minutes out of order."""
    from thermocomp.compensation.compensate import CompensationChunk, CompensationSummary

    rng = np.random.default_rng(9)
    summary = CompensationSummary()
    rows = []
    for r in (500, 1, 2_000, 700):
        status = rng.choice(np.arange(5, dtype=np.int8), r, p=[0.8, 0.05, 0.05, 0.05, 0.05])
        nominal_status = np.where(rng.random(r) < 0.1, 3, 0).astype(np.int8)
        chunk = CompensationChunk(
            minute=rng.uniform(0, 30, r) if r != 2_000 else np.sort(rng.uniform(10, 40, r)),
            fraction=np.zeros(r), target=np.arange(r), q=rng.normal(size=(r, 6)), status=status,
            position_error=rng.uniform(0, 1e-9, r), orientation_error=rng.uniform(0, 1e-9, r),
            sigma_min=rng.uniform(0, 0.1, r), deviation=rng.normal(size=(r, 6)) * 1e-6,
            R_reached=np.zeros((r, 3, 3)), p_reached=np.zeros((r, 3)), q_nominal=rng.normal(size=(r, 6)),
            nominal_status=nominal_status, uncompensated_deviation=rng.normal(size=(r, 6)) * 1e-3,
            R_filtered=np.zeros((r, 3, 3)), p_filtered=np.zeros((r, 3)))
        summary.add(chunk, tuple(f"T{i}" for i in range(r)))
        rows.append(chunk)
    cat = {name: np.concatenate([getattr(c, name) for c in rows])
           for name in ("minute", "q", "status", "position_error", "orientation_error", "deviation", "q_nominal",
                        "nominal_status", "uncompensated_deviation", "sigma_min")}
    ok, nominal_ok = cat["status"] == 0, cat["nominal_status"] == 0
    u, d = cat["uncompensated_deviation"], cat["deviation"]
    assert summary.n_rows == cat["q"].shape[0] and summary.status_counts["converged"] == ok.sum()
    assert summary.near_singular == np.count_nonzero(cat["sigma_min"] < NEAR_SINGULAR_SIGMA)
    assert np.array_equal(summary.deviation_min, d[ok].min(axis=0))
    assert np.array_equal(summary.deviation_max, d[ok].max(axis=0))
    assert summary.max_position_error == cat["position_error"][ok].max()
    assert summary.max_orientation_error == cat["orientation_error"][ok].max()
    assert summary.uncompensated_max_position == np.linalg.norm(u[nominal_ok, :3], axis=1).max()
    assert summary.uncompensated_max_angle == np.linalg.norm(u[nominal_ok, 3:], axis=1).max()
    both = ok & nominal_ok
    values = np.column_stack([np.linalg.norm(u[both, :3], axis=1), np.linalg.norm(u[both, 3:], axis=1),
                              np.linalg.norm(d[both, :3], axis=1), np.linalg.norm(d[both, 3:], axis=1),
                              np.abs(cat["q"][both] - cat["q_nominal"][both])])
    minute = np.floor(cat["minute"][both]).astype(int)
    minutes, table = summary.by_minute()
    assert np.array_equal(minutes, np.unique(minute))
    assert np.array_equal(table, np.array([values[minute == m].max(axis=0) for m in minutes]))


def test_the_summary_fold_is_the_row_by_row_fold():
    """_fold (numpy's arg functions over the rows) against folding the rows one after another as
    ``x if x < extreme else extreme`` (``>`` for the largest), on columns with ties of 0.0 and -0.0, and NaN:
    the same bits."""
    from thermocomp.compensation.compensate import _fold

    rng = np.random.default_rng(4)
    rows = rng.choice(np.array([0.0, -0.0, 1.0, -1.0, np.nan]), size=(300, 40), p=[0.3, 0.3, 0.15, 0.15, 0.1])
    rows[:, :10] = np.where(np.isnan(rows[:, :10]), 0.0, rows[:, :10])  # columns without NaN too
    for smallest in (True, False):
        for extreme in (np.full(40, np.inf if smallest else -np.inf), np.full(40, -0.0), rng.normal(size=40)):
            expected = extreme.copy()
            for row in rows:
                for j, x in enumerate(row):
                    if (x < expected[j]) if smallest else (x > expected[j]):
                        expected[j] = x
                    elif np.isnan(x) and not np.isnan(expected[j]):
                        expected[j] = x
            got = _fold(extreme, rows, smallest)
            assert np.array_equal(np.signbit(got), np.signbit(expected))
            assert np.array_equal(got, expected, equal_nan=True)


def test_a_taken_program_is_the_one_its_rows_make():
    """Targets.take (views for a run of rows, no second check): every field equal to a Targets made from the
    same rows by its constructor, for runs, shuffled and repeated indices; an empty take is refused as before."""
    rng = np.random.default_rng(5)
    m = 300
    R = np.stack([np.linalg.qr(rng.normal(size=(3, 3)))[0] for _ in range(m)])
    whole = Targets(names=tuple(f"T{i % 40}" for i in range(m)), R_world_tcp=R, p_world_tcp=rng.normal(size=(m, 3)),
                    time_min=np.sort(rng.uniform(0, 200, m)), q_reference=rng.normal(size=(m, 6)),
                    confdata=rng.integers(0, 4, (m, 4)), orientation_convention="quat_wxyz", source="t.csv",
                    lines=np.arange(m) + 2)
    for index in (np.arange(17, 230), np.arange(0, m), np.array([5]), rng.permutation(m)[:90],
                  np.array([3, 3, 4, 9, 2]), np.arange(40, 10, -1)):
        taken = whole.take(index)
        made = Targets(names=tuple(whole.names[i] for i in index), R_world_tcp=R[index], p_world_tcp=whole.p_world_tcp[index],
                       time_min=whole.time_min[index], q_reference=whole.q_reference[index],
                       confdata=whole.confdata[index], orientation_convention="quat_wxyz", source="t.csv",
                       lines=whole.lines[index])
        for name in ("names", "orientation_convention", "source"):
            assert getattr(taken, name) == getattr(made, name)
        for name in ("R_world_tcp", "p_world_tcp", "time_min", "q_reference", "confdata", "lines"):
            assert np.array_equal(getattr(taken, name), getattr(made, name))
        assert taken.take(np.arange(taken.n_targets)[::-1]).names == made.names[::-1]
    with pytest.raises(InputError, match="at least one target"):
        whole.take(np.zeros(0, dtype=np.int64))


def test_known_nominal_solutions_are_not_solved_again(targets, exaggerated, monkeypatch):
    """A caller that found the nominal configurations (a robot program, along its path) hands them over
    (``compensate(..., nominal=)``): nothing nominal is solved or looked up again, and the compensation is the
    one that solves them itself; a timed program and a grid alike."""
    from thermocomp.compensation.compensate import _take, nominal_solutions

    chain = load_robot("irb140")
    program, _ = _jumping(targets, np.random.default_rng(5))
    solved: list[int] = []
    for timed in (True, False):
        rows = program if timed else program.take(np.arange(40))
        found = nominal_solutions(chain, rows, CompensationOptions())
        given = Targets(names=rows.names, R_world_tcp=rows.R_world_tcp, p_world_tcp=rows.p_world_tcp,
                        time_min=rows.time_min if timed else None, q_reference=found.q, source="known")
        options = CompensationOptions() if timed else CompensationOptions(minutes=(0.0, 60.0, 200.0))
        expected = list(compensate(chain, exaggerated, given, options))
        monkeypatch.setattr(compensate_module, "_nominal_distinct",
                            lambda *a, **k: solved.append(1) or _NOMINAL_DISTINCT(*a, **k))
        monkeypatch.setattr(compensate_module.NominalMemo, "lookup", lambda *a: solved.append(2))
        got = list(compensate(chain, exaggerated, given, options, nominal=found))
        monkeypatch.undo()
        assert solved == []
        assert sum(c.n_rows for c in got) == (rows.n_targets if timed else 3 * rows.n_targets)
        assert np.array_equal(np.vstack([c.q for c in got]), np.vstack([c.q for c in expected]))
        assert np.array_equal(np.concatenate([c.status for c in got]), np.concatenate([c.status for c in expected]))
        assert np.array_equal(np.vstack([c.q_nominal for c in got]), np.vstack([c.q_nominal for c in expected]))
    with pytest.raises(ConfigurationError, match="nominal solutions for"):
        next(compensate(chain, exaggerated, given, options, nominal=_take(found, np.arange(3))))


def test_a_streamed_run_reads_its_pieces_ahead_on_a_thread(targets, exaggerated, tmp_path):
    """A streamed run reads its pieces on a thread, at most READ_AHEAD_PIECES beyond the one being solved (each
    checked as it is read; the thread does not read a piece it has no room for: its memory); the results file is
    byte for byte that of a run which read each piece when it got to it; a bad cell in a piece read ahead stops
    the run at its line with nothing written, as an error while solving does, and the reading thread has ended
    when the run returns."""
    import threading
    import time

    import thermocomp.app.targets as pipeline

    copies = 100  # 5,000 rows: 5 pieces of 1,000
    program = Targets(names=tuple(f"{name}_{k}" for k in range(copies) for name in targets.names),
                      R_world_tcp=np.tile(targets.R_world_tcp, (copies, 1, 1)),
                      p_world_tcp=np.tile(targets.p_world_tcp, (copies, 1)),
                      time_min=np.linspace(0.0, 200.0, copies * targets.n_targets))
    path = tmp_path / "timed.csv"
    write_targets_csv(program, path)
    options = CompensationOptions(chunk_rows=1_000)
    pieces, most = 5, pipeline.READ_AHEAD_PIECES + 1

    def run(out, ahead: bool = True, fail_at: int | None = None) -> list[str]:
        events: list[str] = []
        check, solve = pipeline.check_references_within_limits, pipeline.compensate
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(pipeline, "check_references_within_limits", lambda *a: events.append("read") or check(*a))
            if not ahead:
                patch.setattr(pipeline, "_read_ahead", lambda p, phases: pipeline._timed(p, phases, "reading"))

            def solving(*args, **kwargs):
                solved = events.count("solve")
                if ahead:  # let the reader go as far as it may (until it stops reading), and a little more
                    seen, since = events.count("read"), time.monotonic()
                    while events.count("read") < min(pieces, solved + most) and time.monotonic() - since < 0.2:
                        time.sleep(0.005)
                        if events.count("read") != seen:
                            seen, since = events.count("read"), time.monotonic()
                    time.sleep(0.05)
                events.append("solve")
                if solved == fail_at:
                    raise RuntimeError("stopped while solving")
                yield from solve(*args, **kwargs)

            patch.setattr(pipeline, "compensate", solving)
            run_targets("irb140", exaggerated, path, out, options=options)
        return events

    def reading_threads() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "thermocomp-reading"]

    ahead, turns = tmp_path / "ahead.csv", tmp_path / "turns.csv"
    events = run(ahead)
    ahead_by = [events[:i].count("read") - events[:i].count("solve") for i in range(len(events) + 1)]
    assert max(ahead_by) == most and events.count("read") == events.count("solve") == pieces
    assert run(turns, ahead=False) == ["read", "solve"] * pieces
    assert ahead.read_bytes() == turns.read_bytes()
    assert not reading_threads()

    with pytest.raises(RuntimeError, match="stopped while solving"):
        run(tmp_path / "stopped.csv", fail_at=1)
    assert not reading_threads() and not (tmp_path / "stopped.csv").exists()

    bad, _ = _spoil_third_cell(path, 2_500)  # the third piece
    out = tmp_path / "bad.csv"
    with pytest.raises(InputError) as caught:
        run(out)
    assert caught.value.row == bad + 1 and not out.exists()
    assert not reading_threads()


def _spoil_third_cell(path, row: int) -> tuple[int, str]:
    """Row ``row`` (0-based, after the header) of the targets file ``path`` with ``nan?`` in its third cell: the
    line's 0-based index in the file and that column's name."""
    lines = path.read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("name,"))
    bad = header + 1 + row
    cells = lines[bad].split(",")
    cells[2] = "nan?"
    lines[bad] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")
    return bad, lines[header].split(",")[2]


def test_a_bad_cell_in_a_later_piece_is_refused_at_its_line_with_nothing_written(targets, exaggerated, tmp_path):
    """Earlier pieces of a streamed file are solved and their results written (on the writer's thread) before a
    bad cell in a later piece is read: it still stops the run with its file, line and column, and no results
    file appears."""
    program = Targets(names=tuple(f"{name}_{k}" for k in range(3) for name in targets.names),
                      R_world_tcp=np.tile(targets.R_world_tcp, (3, 1, 1)), p_world_tcp=np.tile(targets.p_world_tcp, (3, 1)),
                      time_min=np.linspace(0.0, 200.0, 3 * targets.n_targets))
    path = tmp_path / "timed.csv"
    write_targets_csv(program, path)
    bad, column = _spoil_third_cell(path, 120)  # the 121st target: the third 50-row piece
    out = tmp_path / "out.csv"
    with pytest.raises(InputError) as caught:
        run_targets("irb140", exaggerated, path, out, options=CompensationOptions(chunk_rows=50))
    assert caught.value.row == bad + 1 and caught.value.column == column
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["timed.csv"]
