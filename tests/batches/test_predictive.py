"""Tests of the family-wise posterior predictive check across batches (batches.predictive).

Fast tiers on posterior draws written down (no sampling): draws at the true rates pass on
counts drawn from them, at about the stated level over many datasets; a batch whose judged
rate lies outside what its judge can make fails the ``judged`` family and names that batch; a
batch whose judge passes many more gold-FAIL items fails ``gold_fail``. One short fit: the
check is among the diagnostics of :func:`fit_drift`, in place of the per-count checks.
"""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from bayesjudge.batches.predictive import drift_predictive_check

BATCHES = ["b1", "b2", "b3", "b4", "b5", "b6"]
PI = np.array([0.7, 0.7, 0.68, 0.66, 0.66, 0.65])
SE = np.full(6, 0.88)
SP = np.full(6, 0.9)


def _posterior(pi: np.ndarray, se: np.ndarray, sp: np.ndarray, draws: int = 400) -> xr.Dataset:
    """Draws concentrated at the given rates (a tight posterior around them)."""
    rng = np.random.default_rng(1)

    def jitter(values: np.ndarray) -> np.ndarray:
        return np.clip(values + rng.normal(0.0, 0.005, (1, draws, values.size)), 1e-4, 1 - 1e-4)

    p, s, c = jitter(pi), jitter(se), jitter(sp)
    dims = ("chain", "draw", "batch")
    return xr.Dataset(
        {"pi": (dims, p), "se": (dims, s), "sp": (dims, c),
         "judged_rate": (dims, p * s + (1 - p) * (1 - c))},
        coords={"batch": BATCHES},
    )  # fmt: skip


def _counts(rng: np.random.Generator) -> dict[str, np.ndarray]:
    m1 = np.full(6, 70)
    m0 = np.full(6, 30)
    n = np.full(6, 500)
    rate = PI * SE + (1 - PI) * (1 - SP)
    return {
        "m1": m1, "x1": rng.binomial(m1, SE), "m0": m0, "x0": rng.binomial(m0, 1 - SP),
        "n": n, "k": rng.binomial(n, rate),
    }  # fmt: skip


def test_passes_on_counts_from_the_model_at_about_its_level() -> None:
    """Counts drawn at the posterior's rates: the check fails in at most about 5% of datasets.

    With the posterior fixed at the truth (not refitted) each family's tail probability is
    uniform, so the Bonferroni rule fails with probability at most 0.05; of 100 datasets at
    most 12 fail with probability 0.998 when the rate is 0.05.
    """
    posterior = _posterior(PI, SE, SP, draws=100)
    rng = np.random.default_rng(2)
    failed = 0
    for _ in range(100):
        check = drift_predictive_check(posterior, _counts(rng), BATCHES, random_seed=rng)
        assert [t.family for t in check.tests] == ["gold_pass", "gold_fail", "judged"]
        assert check.threshold == pytest.approx(0.05 / 3)
        failed += not check.passed
    assert failed <= 12


def test_a_judged_rate_the_judge_cannot_make_fails_and_names_the_batch() -> None:
    counts = _counts(np.random.default_rng(3))
    counts["k"][3] = 20  # 4% passed, but this judge passes 10% of wrong answers alone
    check = drift_predictive_check(_posterior(PI, SE, SP), counts, BATCHES, random_seed=0)
    assert [t.family for t in check.failures] == ["judged"]
    assert check.failures[0].worst == "judged: b4: PASS verdicts among unlabelled items"
    block = check.to_dict()
    assert block["passed"] is False
    assert "b4" in block["failures"][0]
    assert [c.passed for c in check.checks()] == [True, True, False]


def test_a_batch_whose_judge_passes_many_wrong_items_fails_gold_fail() -> None:
    counts = _counts(np.random.default_rng(4))
    counts["x0"][5] = 15  # 15 of 30 gold-FAIL items passed where Sp is 0.9
    check = drift_predictive_check(_posterior(PI, SE, SP), counts, BATCHES, random_seed=0)
    assert [t.family for t in check.failures] == ["gold_fail"]
    assert "b6" in check.failures[0].worst


def test_batches_without_items_are_left_out_and_shapes_are_checked() -> None:
    counts = _counts(np.random.default_rng(5))
    counts["m0"][0], counts["x0"][0] = 0, 0
    check = drift_predictive_check(_posterior(PI, SE, SP), counts, BATCHES, random_seed=0)
    subjects = [s.subject for s in check.statistics if s.family == "gold_fail"]
    assert len(subjects) == 5
    assert not any(s.startswith("b1:") for s in subjects)
    counts["k"] = counts["k"][:5]
    with pytest.raises(ValueError, match="one entry per batch"):
        drift_predictive_check(_posterior(PI, SE, SP), counts, BATCHES)
