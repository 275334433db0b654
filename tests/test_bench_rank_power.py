"""The cell, schedule and summary logic of benchmarks/rank_power.py (no model fits)."""

from __future__ import annotations

import csv
import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "rank_power.py"


@pytest.fixture(scope="module")
def rp() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_rank_power", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


def test_grid_is_the_issue_grid_with_the_cheaper_cells_first(rp):
    cells = rp.grid()
    assert len(cells) == 3 * 3 * 2 * 2
    assert [c.systems for c in cells] == [2] * 18 + [4] * 18
    assert len({c.key for c in cells}) == len(cells)
    assert {(c.diff, c.gap, c.design) for c in cells if c.systems == 4} == {
        (d, g, s) for d in (0.0, 0.05, 0.10) for g in (0.0, 0.10, 0.25) for s in rp.DESIGNS
    }
    assert len(rp.grid([2])) == 18


def test_cell_rates_judges_and_pairs(rp):
    two = rp.Cell(2, "paired", 0.10, 0.25)
    assert two.pi == pytest.approx((0.60, 0.70))
    assert two.sp == pytest.approx((0.925, 0.675))
    assert two.pairs() == [(0, 1, pytest.approx(0.10))]
    shared = rp.Cell(2, "unpaired", 0.05, 0.0)
    assert shared.sp == (0.8, 0.8)
    assert shared.pi == pytest.approx((0.625, 0.675))
    four = rp.Cell(4, "paired", 0.05, 0.10)
    assert four.pi == pytest.approx((0.575, 0.625, 0.675, 0.725))
    assert four.sp[0] - four.sp[-1] == pytest.approx(0.10)
    assert np.mean(four.sp) == pytest.approx(0.80)
    diffs = sorted(round(d, 6) for _, _, d in four.pairs())
    assert diffs == [0.05, 0.05, 0.05, 0.1, 0.1, 0.15]
    assert all(d == 0 for _, _, d in rp.Cell(4, "paired", 0.0, 0.25).pairs())


def test_seeds_are_fixed_by_cell_and_replicate_and_distinct(rp):
    cells = rp.grid()
    seeds = [c.seed(r) for c in cells for r in range(1, 51)]
    assert len(set(seeds)) == len(seeds)
    again = [c.seed(r) for c in rp.grid() for r in range(1, 51)]
    assert seeds == again
    assert all(0 < s < 2**32 for s in seeds)


def test_schedule_is_replicate_major_and_skips_finished_pairs(rp):
    cells = rp.grid([2])
    order = rp.schedule(cells, 3)
    assert [r for r, _ in order] == [1] * 18 + [2] * 18 + [3] * 18
    # at every stopping time the cells' counts differ by at most one
    for stop in range(len(order) + 1):
        counts = {c.key: 0 for c in cells}
        for _, cell in order[:stop]:
            counts[cell.key] += 1
        assert max(counts.values()) - min(counts.values()) <= 1
    done = {(cells[0].key, 1), (cells[5].key, 2)}
    resumed = rp.schedule(cells, 3, done)
    assert len(resumed) == len(order) - 2
    assert (1, cells[0]) not in resumed
    assert (2, cells[5]) not in resumed
    assert resumed[0] == (1, cells[1])


def _row(rp, cell, replicate, method, a, b, truth, *, declared, covers="", passed=""):
    return {
        "cell": cell.key,
        "systems": cell.systems,
        "design": cell.design,
        "diff": cell.diff,
        "gap": cell.gap,
        "replicate": replicate,
        "seed": cell.seed(replicate),
        "method": method,
        "a": a,
        "b": b,
        "true_diff": truth,
        "declared": declared,
        "covers": covers,
        "passed": passed,
        "weight_shared": 0.5,
        "draws": 500,
        "seconds": 10.0,
        "default_rests_on": "average",
    }


def _through_csv(rp, rows, path: Path):
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=rp.FIELDS, restval="")
        writer.writeheader()
        for row in rows:
            writer.writerow(row)
    return rp.read_rows(path)


def test_tally_counts_coverage_false_winners_power_and_fits(rp, tmp_path):
    null = rp.Cell(2, "paired", 0.0, 0.0)
    step = rp.Cell(4, "paired", 0.05, 0.0)
    rows = []
    for r, (declared, covers, passed) in enumerate(
        [(True, False, True), (False, True, True), (False, True, False), (False, True, True)], 1
    ):
        rows.append(
            _row(
                rp,
                null,
                r,
                "default",
                "A",
                "B",
                0.0,
                declared=declared,
                covers=covers,
                passed=passed,
            )
        )
        rows.append(_row(rp, null, r, "mcnemar", "A", "B", 0.0, declared=not declared))
    # four systems, one replicate: pairs at 0.05 (x3), 0.10 (x2), 0.15 (x1)
    for (a, b, truth), declared, covers in zip(
        step.pairs(), [True, False, True, False, True, True], [True] * 5 + [False], strict=True
    ):
        rows.append(
            _row(
                rp,
                step,
                1,
                "shared",
                f"S{a}",
                f"S{b}",
                truth,
                declared=declared,
                covers=covers,
                passed=True,
            )
        )
    rows = _through_csv(rp, rows, tmp_path / "raw.csv")

    t = rp.tally(rows, null.key, "default")
    assert (t.replicates, t.covered, t.intervals) == (4, 3, 4)
    assert (t.false_winners, t.null_pairs) == (1, 4)
    assert (t.wins, t.step_pairs) == (0, 0)
    assert (t.passed, t.fits) == (3, 4)
    m = rp.tally(rows, null.key, "mcnemar")
    assert (m.intervals, m.false_winners, m.null_pairs, m.fits) == (0, 3, 4, 0)
    s = rp.tally(rows, step.key, "shared")
    assert (s.replicates, s.covered, s.intervals) == (1, 5, 6)
    assert (s.null_pairs, s.wins, s.step_pairs) == (0, 2, 3)  # only the three 0.05 pairs
    assert (s.passed, s.fits) == (1, 1)

    text = rp.table(rows, [null, step])
    assert "| 2 | paired | 0.00 | 0.00 | default | 4 | 3/4 = 0.75 [" in text
    assert "| 4 | paired | 0.05 | 0.00 | shared | 1 | 5/6 = 0.83 [" in text
    assert "mcnemar | 4 | - | 3/4 = 0.75" in text
    assert "| 3/4 | 0.50; average 4 |" in text  # the default's weight and what it rested on


def test_power_gap_pairs_default_and_shared_on_the_same_data(rp, tmp_path):
    cell = rp.Cell(2, "unpaired", 0.10, 0.0)
    outcomes = [(True, True), (False, True), (False, True), (True, False), (False, False)]
    rows = []
    for r, (default, shared) in enumerate(outcomes, 1):
        rows.append(_row(rp, cell, r, "default", "A", "B", 0.10, declared=default))
        rows.append(_row(rp, cell, r, "shared", "A", "B", 0.10, declared=shared))
        rows.append(_row(rp, cell, r, "system", "A", "B", 0.10, declared=True))
    rows = _through_csv(rp, rows, tmp_path / "raw.csv")
    assert rp.power_gap(rows, cell.key) == (2, 1, 2)
    text = rp.gap_table(rows, [cell, rp.Cell(2, "unpaired", 0.0, 0.0)])
    assert "| 2 | unpaired | 0.10 | 0.00 | 5 | 2 | 1 | 2 | -0.20 |" in text
    assert "| 0.00 | 0.00 |" not in text  # no power at difference 0


def test_done_pairs_and_binomial_interval(rp, tmp_path):
    cell = rp.Cell(2, "paired", 0.05, 0.10)
    rows = _through_csv(
        rp,
        [_row(rp, cell, r, "shared", "A", "B", 0.05, declared=True) for r in (1, 1, 3)],
        tmp_path / "raw.csv",
    )
    assert rp.done_pairs(rows) == {(cell.key, 1), (cell.key, 3)}
    assert rp.read_rows(tmp_path / "missing.csv") == []
    low, high = rp.binomial_interval(0, 10)
    assert low == 0.0
    assert high == pytest.approx(1 - 0.025 ** (1 / 10))  # Clopper-Pearson, closed form at k = 0
    low, high = rp.binomial_interval(19, 20)
    assert low < 0.95 < high
    assert all(math.isnan(v) for v in rp.binomial_interval(0, 0))


def test_declaring_rules(rp):
    assert rp.declared_bayes(0.975)
    assert rp.declared_bayes(0.025)
    assert not rp.declared_bayes(0.97)
    for estimate in (0.01, 0.05, -0.05, 0.1):
        row = rp._freq_row(estimate, 0.025, 0.05)
        assert row["declared"] == (row["low"] > 0 or row["high"] < 0)
        assert row["covers"] == (row["low"] <= 0.05 <= row["high"])


@pytest.mark.parametrize("design", ["paired", "unpaired"])
def test_ppi_py_reference_matches_the_package(rp, design):
    from bayesjudge.systems.baselines import ppi_difference
    from bayesjudge.systems.data import SystemsData
    from bayesjudge.systems.simulate import simulate_systems

    sim = simulate_systems(
        [0.6, 0.7],
        n_unlabelled=300,
        n_labelled=60,
        se=0.9,
        sp=0.8,
        design=design,
        random_seed=5,
    )
    data = SystemsData.from_frame(sim.frame)
    ours = ppi_difference(data, a="A", b="B")
    estimate, se = rp._ppi_py(data, "A", "B", design == "paired")
    assert estimate == pytest.approx(ours.estimate, abs=1e-12)
    assert se == pytest.approx(ours.se, rel=1e-9)


def test_shards_share_the_schedule_and_append_one_header(rp, tmp_path, monkeypatch):
    raw = tmp_path / "raw.csv"
    monkeypatch.setattr(rp, "RAW", raw)
    calls = []

    def fake(cell, seed, *, draws, tune):
        calls.append((cell.key, seed))
        return [_row(rp, cell, 0, "shared", "A", "B", cell.diff, declared=False)]

    monkeypatch.setattr(rp, "replicate", fake)
    order = [(cell.key, cell.seed(r)) for r, cell in rp.schedule(rp.grid([2]), 2)]
    rp.run(2, [2], 10, 10, "1/2")  # what the second of two processes started together runs
    assert calls == order[1::2]
    rp.run(2, [2], 10, 10, "0/1")  # the rest, as the first would have
    assert calls[18:] == order[0::2]
    rows = rp.read_rows(raw)
    assert raw.read_text(encoding="utf-8").count("cell,systems") == 1
    assert len(rows) == len(calls) == 36
    assert rp.done_pairs(rows) == {(c.key, r) for c in rp.grid([2]) for r in (1, 2)}
    rp.run(3, [2], 10, 10, "0/1")  # resumes: only replicate 3 is left
    assert len(calls) == 54
    assert {int(r["replicate"]) for r in rp.read_rows(raw)[36:]} == {3}
    with pytest.raises(SystemExit):
        rp.run(3, [2], 10, 10, "2/2")


def test_balanced_keeps_the_replicates_every_cell_of_a_size_finished(rp, tmp_path):
    two = rp.grid([2])[:2]
    four = rp.grid([4])[0]
    rows = [_row(rp, two[0], r, "shared", "A", "B", 0.0, declared=False) for r in (1, 2, 3, 5)]
    rows += [_row(rp, two[1], r, "shared", "A", "B", 0.0, declared=False) for r in (1, 2)]
    rows += [_row(rp, four, 1, "shared", "A", "B", 0.0, declared=False)]
    kept, complete = rp.balanced(_through_csv(rp, rows, tmp_path / "raw.csv"))
    assert complete == {2: 2, 4: 1}
    assert sorted((r["cell"], int(r["replicate"])) for r in kept) == sorted(
        [(two[0].key, 1), (two[0].key, 2), (two[1].key, 1), (two[1].key, 2), (four.key, 1)]
    )
