"""The monitor: exact wealth and e-values against brute force, coverage, nesting, alarms."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.special import betaln

from bayesjudge.batches.monitor import (
    BET_FRACTIONS,
    below_alarms,
    below_log_wealth,
    drift_log_e,
    monitor_batches,
    ppi_cells,
)
from bayesjudge.batches.simulate import batch_counts, batch_counts_frame
from bayesjudge.errors import DataError
from bayesjudge.prevalence import JudgeCounts, exact_posterior


def _items(row: np.ndarray) -> np.ndarray:
    """The prediction-powered term of every item of one batch, listed one by one."""
    m1, x1, m0, x0, n, k = (int(v) for v in row)
    w = (m1 + m0 + n) / (m1 + m0)
    return np.array([1.0] * k + [0.0] * (n - k) + [1.0] * x1 + [w] * (m1 - x1)
                    + [1.0 - w] * x0 + [0.0] * (m0 - x0))  # fmt: skip


def test_ppi_terms_average_to_the_ppi_estimate() -> None:
    row = np.array([30, 27, 10, 2, 200, 150])
    values, weights, _ = ppi_cells(row[None, :])
    estimate = float((values * weights).sum() / weights.sum())
    m1, x1, m0, x0, n, k = row
    judged = (k + x1 + x0) / (m1 + m0 + n)  # the judge's pass rate over every item
    rectifier = (m1 - (x1 + x0)) / (m1 + m0)  # mean of gold - verdict on the gold items
    assert estimate == pytest.approx(judged + rectifier, abs=1e-12)
    assert np.mean(_items(row)) == pytest.approx(estimate, abs=1e-12)


def test_batch_wealth_is_the_product_over_items() -> None:
    row = np.array([6, 5, 4, 1, 12, 9])
    c = 0.7
    z = _items(row)
    w = len(z) / 10
    logs = below_log_wealth(row[None, :].astype(float), c)[0, 0]
    for j, frac in enumerate(BET_FRACTIONS):
        lam = frac / (w - c)
        assert logs[j] == pytest.approx(np.sum(np.log1p(lam * (c - z))), abs=1e-10)
    above = below_log_wealth(row[None, :].astype(float), c, side="above")[0, 0]
    lam = BET_FRACTIONS[0] / (c + w - 1.0)
    assert above[0] == pytest.approx(np.sum(np.log1p(lam * (z - c))), abs=1e-10)


def test_drift_e_value_matches_its_formula() -> None:
    counts = np.array([[10, 9, 5, 1, 0, 0], [8, 7, 6, 4, 0, 0], [9, 8, 7, 5, 0, 0]], float)
    log_e, _ = drift_log_e(counts)

    def bb(s: float, f: float) -> float:
        return betaln(s + 0.5, f + 0.5) - betaln(0.5, 0.5)

    def ml(s: float, f: float) -> float:
        r = s / (s + f)
        return (s * math.log(r) if s else 0.0) + (f * math.log(1 - r) if f else 0.0)

    for t in range(3):
        rows = counts[: t + 1]
        se = [(r[1], r[0] - r[1]) for r in rows]
        sp = [(r[3], r[2] - r[3]) for r in rows]

        def seg(stream: list[tuple[float, float]], lo: int, hi: int) -> float:
            return bb(sum(s for s, _ in stream[lo:hi]), sum(f for _, f in stream[lo:hi]))

        total = (1.0 / (t + 1)) * math.exp(seg(se, 0, t + 1) + seg(sp, 0, t + 1))
        for tau in range(1, t + 1):  # change at 0-based batch tau; prior 1/(tau (tau + 1))
            both_se = seg(se, 0, tau) + seg(se, tau, t + 1)
            both_sp = seg(sp, 0, tau) + seg(sp, tau, t + 1)
            kinds = [
                both_se + seg(sp, 0, t + 1),
                seg(se, 0, t + 1) + both_sp,
                both_se + both_sp,
            ]
            total += np.mean(np.exp(kinds)) / (tau * (tau + 1))
        den = ml(*map(sum, zip(*se, strict=True))) + ml(*map(sum, zip(*sp, strict=True)))
        assert log_e[t] == pytest.approx(math.log(total) - den, abs=1e-9)


def test_confidence_sequence_covers_a_fixed_truth_nested_and_shrinks() -> None:
    counts = batch_counts(pi=0.8, se=0.9, sp=0.85, n=800, m=80, batches=30, random_seed=11)[0]
    result = monitor_batches(batch_counts_frame(counts), threshold=0.7, bayes=False)
    low = np.array([s.low for s in result.statuses])
    high = np.array([s.high for s in result.statuses])
    assert np.all(low <= 0.8)
    assert np.all(high >= 0.8)
    assert np.all(np.diff(low) >= 0)  # nested: the running intersection
    assert np.all(np.diff(high) <= 0)
    assert (high - low)[-1] < 0.5 * (high - low)[2]
    assert not any(s.below or s.drift or s.changed for s in result.statuses)
    more = batch_counts(pi=0.8, se=0.9, sp=0.85, n=800, m=320, batches=30, random_seed=11)[0]
    wider = monitor_batches(batch_counts_frame(more), threshold=0.7, bayes=False).statuses[-1]
    assert wider.high - wider.low < (high - low)[-1]  # more gold labels, narrower


def test_time_uniform_coverage_over_replicates() -> None:
    # P(the sequence ever excludes the truth in 30 batches) <= alpha: the one-sided upper bound
    # (level alpha/2) over 300 seeded runs, at pi exactly on the boundary
    counts = batch_counts(pi=0.8, se=0.9, sp=0.8, n=300, m=40, batches=30, replicates=300,
                          random_seed=5).astype(float)  # fmt: skip
    logs = below_log_wealth(counts, 0.8)[..., 0, :]  # (R, T, J)
    wealth = np.log(np.mean(np.exp(np.cumsum(logs, axis=1)), axis=-1))
    excluded = (wealth >= math.log(2 / 0.05)).any(axis=1)
    assert excluded.mean() <= 0.025 + 3 * math.sqrt(0.025 * 0.975 / 300)


def test_below_alarm_rings_after_a_drop_and_not_before() -> None:
    pi = np.r_[np.full(10, 0.88), np.full(10, 0.70)]
    counts = batch_counts(pi=pi, se=0.9, sp=0.85, n=2000, m=200, batches=20, random_seed=3)
    alarms = below_alarms(counts.astype(float), 0.8, 0.025)[0]
    assert not alarms[:10].any()
    assert alarms[-1]


def test_drift_alarm_names_the_change() -> None:
    sp = np.r_[np.full(10, 0.9), np.full(10, 0.5)]
    counts = batch_counts(pi=0.6, se=0.9, sp=sp, n=500, m=200, batches=20, random_seed=4)[0]
    result = monitor_batches(batch_counts_frame(counts), threshold=0.5, bayes=False)
    assert not any(s.drift for s in result.statuses[:10])
    last = result.statuses[-1]
    assert last.drift
    assert last.change_at in {"b10", "b11", "b12"}
    assert result.alarm
    assert "judge drifted" in result.reasons()[-1]


def test_bayesian_rule_reads_the_exact_posterior() -> None:
    frame = pd.DataFrame({"batch": ["a", "b"], "m1": [40, 40], "x1": [36, 36], "m0": [20, 0],
                          "x0": [3, 0], "n": [400, 400], "k": [300, 300]})  # fmt: skip
    result = monitor_batches(frame, threshold=0.8)
    exact = float(exact_posterior(JudgeCounts(40, 36, 20, 3, 400, 300)).cdf(0.8))
    assert result.statuses[0].p_below == pytest.approx(exact, abs=1e-4)
    assert result.statuses[1].p_below is None  # no gold-FAIL item: not fitted alone
    assert result.to_dict()["batches"][0]["m1"] == 40
    assert list(result.to_frame()["batch"]) == ["a", "b"]


def test_bad_counts_are_named() -> None:
    frame = pd.DataFrame({"batch": ["a"], "m1": [0], "x1": [0], "m0": [0], "x0": [0],
                          "n": [10], "k": [3]})  # fmt: skip
    with pytest.raises(DataError, match="no batch has gold"):
        monitor_batches(frame, threshold=0.8)
    with pytest.raises(DataError, match="missing column"):
        monitor_batches(frame.drop(columns="k"), threshold=0.8)
    with pytest.raises(ValueError, match="threshold"):
        monitor_batches(frame, threshold=1.2)


def test_a_batch_without_gold_leaves_the_alarms_unchanged() -> None:
    counts = batch_counts(pi=0.8, se=0.9, sp=0.85, n=500, m=100, batches=6, random_seed=8)[0]
    gap = np.insert(counts, 3, [0, 0, 0, 0, 700, 600], axis=0)  # unlabelled items only
    plain = monitor_batches(batch_counts_frame(counts), threshold=0.75, bayes=False)
    holed = monitor_batches(batch_counts_frame(gap), threshold=0.75, bayes=False)
    kept = [s for i, s in enumerate(holed.statuses) if i != 3]
    for a, b in zip(plain.statuses, kept, strict=True):
        assert (a.low, a.high, a.recent_high) == pytest.approx((b.low, b.high, b.recent_high))
    # the drift e-process's change-point prior counts batches, so only earlier batches agree
    for a, b in zip(plain.statuses[:3], holed.statuses[:3], strict=True):
        assert a.drift_e == pytest.approx(b.drift_e, rel=1e-9)
    assert holed.statuses[3].estimate is None
    assert holed.statuses[3].p_below is None
