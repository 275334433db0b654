"""Tests of calibration allocation and the variance decomposition
(bayesjudge.prevalence.allocation)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bayesjudge.errors import DataError, NotIdentifiableError
from bayesjudge.prevalence.allocation import (
    Allocation,
    VarianceDecomposition,
    allocate,
    optimal_ratio,
    variance_decomposition,
)
from bayesjudge.prevalence.baselines import rogan_gladen
from bayesjudge.prevalence.data import JudgeCounts, JudgeData

SEED002 = JudgeCounts(m1=100, x1=90, m0=100, x0=15, n=1000, k=700)


# --------------------------------------------------------------------------- the bias-correction ar
def test_seed002_variance_decomposition():
    """The bias-correction article: sensitivity term about 62 %, specificity about 12 % of the
    variance, SE about
    0.037 (published to whole percent / 3 decimals: tolerance half a unit)."""
    d = variance_decomposition(SEED002)
    assert isinstance(d, VarianceDecomposition)
    assert d.share_q1 == pytest.approx(0.62, abs=0.005)
    assert d.share_q0 == pytest.approx(0.12, abs=0.005)
    assert d.share_test + d.share_q0 + d.share_q1 == pytest.approx(1.0, abs=1e-12)
    assert d.se == pytest.approx(0.037, abs=0.0005)
    assert d.se == pytest.approx(rogan_gladen(SEED002).se, abs=1e-15)
    assert d.theta == pytest.approx(0.55 / 0.75, abs=1e-12)
    assert d.j == pytest.approx(0.75, abs=1e-12)
    assert set(d.to_dict()) == {
        "variance",
        "se",
        "share_test",
        "share_q0",
        "share_q1",
        "theta",
        "j",
    }


def test_seed002_allocation_ratio():
    """The bias-correction article: "roughly 2.3 to 1 in favour of the pass class: about 140 pass
    labels and 60 fail
    labels out of a 200-label budget" (1 decimal / nearest 10 labels)."""
    ratio = optimal_ratio(p_hat=0.70, q0=0.85, q1=0.90)
    assert 1 / ratio == pytest.approx(2.3, abs=0.05)
    m1 = 200 / (1 + ratio)
    assert m1 == pytest.approx(140, abs=5)
    assert 200 - m1 == pytest.approx(60, abs=5)


def test_variance_decomposition_inputs():
    frame = JudgeData.from_counts(**SEED002.as_dict()).to_frame()
    a = variance_decomposition(SEED002)
    assert variance_decomposition(JudgeData.from_counts(**SEED002.as_dict())) == a
    assert variance_decomposition(frame) == a


def test_variance_decomposition_errors():
    with pytest.raises(NotIdentifiableError, match="no better than chance"):
        variance_decomposition(JudgeCounts(10, 5, 10, 5, 100, 50))
    scores = JudgeData(
        cal_label=np.array([0.0, 1.0]),
        cal_judge=np.array([0.2, 0.9]),
        test_judge=np.array([0.5]),
        kind="score",
    )
    with pytest.raises(DataError, match="need a binary 'verdict' column"):
        variance_decomposition(scores)
    with pytest.raises(DataError, match="m1=0"):
        variance_decomposition(JudgeCounts(0, 0, 10, 1, 100, 50))


def test_variance_decomposition_zero_variance_has_undefined_shares():
    d = variance_decomposition(JudgeCounts(10, 10, 10, 0, 50, 50))  # perfect judge, all pass
    assert d.variance == 0.0
    assert math.isnan(d.share_test)


# --------------------------------------------------------------------------- exact ratio
def _length(m0: float, m1: float, p: float, q0: float, q1: float) -> float:
    """Eq. 6 length (up to the constant 2 z) as a function of the adjusted class sizes."""
    j = q0 + q1 - 1
    theta = (p + q0 - 1) / j
    return math.sqrt((1 - theta) ** 2 * q0 * (1 - q0) / m0 + theta**2 * q1 * (1 - q1) / m1) / j


@settings(max_examples=100, deadline=None)
@given(
    p=st.floats(0.05, 0.95),
    q0=st.floats(0.55, 0.99),
    q1=st.floats(0.55, 0.99),
    total=st.integers(20, 5000),
)
def test_optimal_ratio_minimises_the_interval_length(p, q0, q1, total):
    """A brute-force search over the split of a fixed total finds no shorter eq. 6 interval than
    the closed-form ratio (tolerance 1e-9 relative, for the grid's rounding)."""
    theta = (p + q0 - 1) / (q0 + q1 - 1)
    assume(0.02 < theta < 0.98)
    r = optimal_ratio(p_hat=p, q0=q0, q1=q1)
    best = _length(total * r / (1 + r), total / (1 + r), p, q0, q1)
    grid = np.linspace(0.001, 0.999, 999) * total
    lengths = [_length(m0, total - m0, p, q0, q1) for m0 in grid]
    assert best <= min(lengths) * (1 + 1e-9)


def test_optimal_ratio_reduces_to_prop_5_2_near_perfect_judges():
    """Prop. 5.2: for q0, q1 -> 1 the ratio tends to (1/p - 1) sqrt(kappa); at q = 1 - 1e-6 the
    two agree to 1e-5 relative."""
    for p, e0, e1 in [(0.3, 1e-6, 2e-6), (0.7, 3e-6, 1e-6)]:
        q0, q1 = 1 - e0, 1 - e1
        approx = (1 / p - 1) * math.sqrt(e0 / e1)
        assert optimal_ratio(p_hat=p, q0=q0, q1=q1) == pytest.approx(approx, rel=1e-5)


def test_optimal_ratio_vectorises_and_handles_the_ends():
    out = optimal_ratio(p_hat=np.array([0.15, 0.7, 0.9]), q0=0.85, q1=0.9)
    assert isinstance(out, np.ndarray)
    assert out.shape == (3,)
    assert out[0] == np.inf  # theta = 0: every label should go to the FAIL class
    assert out[2] == 0.0  # theta = 1
    assert out[1] == pytest.approx(optimal_ratio(p_hat=0.7, q0=0.85, q1=0.9))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"p_hat": 1.5, "q0": 0.8, "q1": 0.9}, r"p_hat must lie in \[0, 1\]"),
        ({"p_hat": 0.5, "q0": 1.0, "q1": 0.9}, r"q0 must lie in \(0, 1\)"),
        ({"p_hat": 0.5, "q0": 0.8, "q1": 0.0}, r"q1 must lie in \(0, 1\)"),
        ({"p_hat": 0.5, "q0": 0.4, "q1": 0.5}, "q0 \\+ q1 must exceed 1"),
    ],
)
def test_optimal_ratio_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        optimal_ratio(**kwargs)


# --------------------------------------------------------------------------- Algorithm 1
def test_allocate_follows_algorithm_1_by_hand():
    """Pilot of 10 per class, 8/10 and 9/10 right: q~0 = 9/12, q~1 = 10/12, kappa = 1.5,
    m1* = round(200 / (1 + (1/0.7 - 1) sqrt(1.5)))."""
    a = allocate(200, p_hat=0.7, pilot_q0=0.8, pilot_q1=0.9, pilot_size=10)
    assert isinstance(a, Allocation)
    assert a.q0_tilde == pytest.approx(9 / 12, abs=1e-15)
    assert a.q1_tilde == pytest.approx(10 / 12, abs=1e-15)
    assert a.kappa == pytest.approx(1.5, abs=1e-12)
    ratio = (1 / 0.7 - 1) * math.sqrt(1.5)
    assert a.ratio == pytest.approx(ratio, abs=1e-12)
    assert a.m1 == round(200 / (1 + ratio)) == 131
    assert a.m0 == 69
    assert a.rule == "approximate"
    payload = a.to_dict()
    assert payload["m0"] == 69
    json.dumps(payload)  # plain values only
    with pytest.raises(AttributeError):
        a.m0 = 1  # type: ignore[misc]


def test_allocate_enforces_the_pilot():
    # p_hat near 0: Prop. 5.2 sends nearly everything to the FAIL class; m1 stays at the pilot
    low = allocate(100, p_hat=0.01, pilot_q0=0.9, pilot_q1=0.9, pilot_size=10)
    assert (low.m0, low.m1) == (90, 10)
    zero = allocate(100, p_hat=0.0, pilot_q0=0.9, pilot_q1=0.9, pilot_size=10)
    assert (zero.m0, zero.m1) == (90, 10)
    assert zero.ratio == math.inf
    high = allocate(100, p_hat=1.0, pilot_q0=0.9, pilot_q1=0.9, pilot_size=10)
    assert (high.m0, high.m1) == (10, 90)
    tight = allocate(20, p_hat=0.5, pilot_q0=0.5, pilot_q1=0.99, pilot_size=10)
    assert (tight.m0, tight.m1) == (10, 10)


def test_exact_rule_gives_a_shorter_interval_than_the_approximation():
    """For a moderately accurate judge (q0 = 0.7, q1 = 0.9, Lee et al. 2025, Fig. 3) the exact
    split gives an eq. 6 interval (n -> infinity, at the pilot's q~) no longer than the
    Prop. 5.2 split, and strictly shorter where the approximation is poor."""
    gains = []
    for p_hat in (0.3, 0.5, 0.7, 0.9):
        approx = allocate(200, p_hat=p_hat, pilot_q0=0.7, pilot_q1=0.9, pilot_size=10)
        exact = allocate(200, p_hat=p_hat, pilot_q0=0.7, pilot_q1=0.9, pilot_size=10, rule="exact")
        assert exact.rule == "exact"
        assert exact.m0 + exact.m1 == 200

        def length(a: Allocation, p_hat: float = p_hat) -> float:
            return _length(a.m0 + 2, a.m1 + 2, p_hat, a.q0_tilde, a.q1_tilde)

        assert length(exact) <= length(approx) * (1 + 1e-12)
        gains.append(1 - length(exact) / length(approx))
    assert max(gains) > 0.01


def test_exact_rule_picks_the_best_whole_split():
    """The exact rule's m1 gives the shortest eq. 6 interval among all whole splits that respect
    the pilot (brute force over m1 at the allocation's q~; n -> infinity)."""
    for p_hat in (0.2, 0.6, 0.95):
        a = allocate(150, p_hat=p_hat, pilot_q0=0.75, pilot_q1=0.85, pilot_size=5, rule="exact")
        m1s = range(5, 146)
        lengths = [_length(150 - m1 + 2, m1 + 2, p_hat, a.q0_tilde, a.q1_tilde) for m1 in m1s]
        assert a.m1 == m1s[int(np.argmin(lengths))]


@settings(max_examples=200, deadline=None)
@given(
    budget=st.integers(2, 5000),
    p_hat=st.floats(0, 1),
    q0=st.floats(0, 1),
    q1=st.floats(0, 1),
    pilot=st.integers(1, 50),
    rule=st.sampled_from(["approximate", "exact"]),
)
def test_allocation_sums_to_the_budget_and_respects_the_pilot(budget, p_hat, q0, q1, pilot, rule):
    assume(budget >= 2 * pilot)
    q0_t = (pilot * q0 + 1) / (pilot + 2)
    q1_t = (pilot * q1 + 1) / (pilot + 2)
    assume(q0_t + q1_t > 1)  # a pilot judge no better than chance is refused (tested below)
    a = allocate(budget, p_hat=p_hat, pilot_q0=q0, pilot_q1=q1, pilot_size=pilot, rule=rule)
    assert a.m0 + a.m1 == budget
    assert a.m0 >= pilot
    assert a.m1 >= pilot
    assert isinstance(a.m0, int)
    assert isinstance(a.m1, int)
    assert 0 < a.q0_tilde < 1
    assert 0 < a.q1_tilde < 1


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((19,), {}, r"budget must be at least 2 \* pilot_size = 20; got budget=19"),
        ((0,), {}, "budget must be a whole number >= 1"),
        ((100.0,), {}, "budget must be a whole number"),
        ((100,), {"pilot_size": 0}, "pilot_size must be a whole number >= 1"),
        ((100,), {"p_hat": -0.1}, r"p_hat must lie in \[0, 1\]"),
        ((100,), {"pilot_q0": 1.2}, r"pilot_q0 must lie in \[0, 1\]"),
        ((100,), {"pilot_q1": "high"}, "pilot_q1 must be a number"),
        ((100,), {"rule": "greedy"}, r"rule must be one of \['approximate', 'exact'\]"),
        ((100,), {"rule": "exact", "pilot_q0": 0.1, "pilot_q1": 0.2}, "no better than chance"),
        # the published rule too: a pilot judge worse than chance gets no allocation
        ((100,), {"pilot_q0": 0.3, "pilot_q1": 0.4}, r"no better than chance .* = 0\.75 <= 1"),
        ((100,), {"pilot_q0": 0.5, "pilot_q1": 0.5}, "no better than chance"),
    ],
)
def test_allocate_errors(args, kwargs, message):
    options = {"p_hat": 0.6, "pilot_q0": 0.8, "pilot_q1": 0.9, "pilot_size": 10} | kwargs
    with pytest.raises(ValueError, match=message):
        allocate(*args, **options)
