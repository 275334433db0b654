"""Frequentist baselines for a difference of success rates, against references.

References: statsmodels (McNemar, Newcombe unpaired), ppi_py (PPI, PPI++), and the published
values of Fagerland, Lydersen and Laake, *Statistical Analysis of Contingency Tables* (2017),
Chapter 8, for the paired table of Cavo et al. (2012): [[59, 6], [16, 80]], estimate -0.0621,
McNemar mid-p 0.034690, exact conditional p 0.052479, Newcombe square-and-add
[-0.1186, -0.0046], Tango score [-0.1240, -0.0054] (published to 4 decimals: tolerance 5e-5).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from bayesjudge.errors import DataError
from bayesjudge.estimators.rogan_gladen import rogan_gladen_variance
from bayesjudge.systems.baselines import (
    DIFFERENCE_METHODS,
    _tango_score,
    difference_baselines,
    difference_baselines_frame,
    mcnemar_mid_p,
    mcnemar_test,
    naive_difference,
    newcombe_paired_interval,
    newcombe_unpaired_interval,
    paired_difference_variance,
    ppi_difference,
    rogan_gladen_difference,
    rogan_gladen_difference_variance,
    tango_paired_interval,
)
from bayesjudge.systems.data import SystemsData
from bayesjudge.systems.simulate import simulate_systems

# Cavo et al. in our orientation: table[i, j] = outcome i of a, j of b; the book's first
# variable is our b, so its n12 = 6 is our [0, 1] and its n21 = 16 our [1, 0].
CAVO = np.array([[80, 6], [16, 59]])
PUBLISHED = 5e-5  # published to four decimals


def _paired(seed: int = 2, **kwargs) -> SystemsData:
    options = {"n_unlabelled": 300, "n_labelled": 50, "se": 0.9, "sp": 0.85, "random_seed": seed}
    options.update(kwargs)
    return SystemsData.from_frame(simulate_systems([0.6, 0.7], **options).frame)


# ----------------------------------------------------------------------------- McNemar
def test_mcnemar_mid_p_published_value():
    assert mcnemar_mid_p(6, 16) == pytest.approx(0.034690, abs=5e-7)  # published to 6 decimals


def test_mcnemar_mid_p_is_statsmodels_exact_minus_the_point_probability():
    from statsmodels.stats.contingency_tables import mcnemar

    for b in range(0, 25, 3):
        for c in range(0, 25, 4):
            ours = float(mcnemar_mid_p(b, c))
            if b == c:
                assert ours == pytest.approx(1.0, abs=1e-12)  # symmetric table: mid-p is 1
                continue
            exact = mcnemar([[10, b], [c, 10]], exact=True).pvalue
            point = stats.binom.pmf(min(b, c), b + c, 0.5)
            assert ours == pytest.approx(exact - point, abs=1e-12), (b, c)


def test_mcnemar_test_on_data_matches_statsmodels():
    from statsmodels.stats.contingency_tables import mcnemar

    data = _paired()
    test = mcnemar_test(data)
    table = data.paired_table()
    assert (test.a_only, test.b_only) == (table[1, 0], table[0, 1])
    assert test.exact_p == pytest.approx(mcnemar(table, exact=True).pvalue, abs=1e-12)


# ----------------------------------------------------------------------------- intervals
def test_newcombe_paired_published_values():
    low, high = newcombe_paired_interval(CAVO)
    assert float(low) == pytest.approx(-0.1186, abs=PUBLISHED)
    assert float(high) == pytest.approx(-0.0046, abs=PUBLISHED)


def test_tango_published_values_and_score_at_bounds():
    low, high = tango_paired_interval(CAVO)
    assert float(low) == pytest.approx(-0.1240, abs=PUBLISHED)
    assert float(high) == pytest.approx(-0.0054, abs=PUBLISHED)
    z = stats.norm.ppf(0.975)
    n, b, c = np.array(161.0), np.array(6.0), np.array(16.0)
    assert float(_tango_score(low, b, c, n)) == pytest.approx(z, abs=1e-9)
    assert float(_tango_score(high, b, c, n)) == pytest.approx(-z, abs=1e-9)


@pytest.mark.parametrize("interval", [newcombe_paired_interval, tango_paired_interval])
def test_paired_intervals_are_antisymmetric_and_vectorised(interval):
    tables = np.array([CAVO, [[5, 0], [0, 3]], [[0, 7], [2, 0]], [[40, 1], [9, 50]]])
    low, high = interval(tables, prob=0.9)
    flipped = tables.transpose(0, 2, 1)  # swap the systems
    low_f, high_f = interval(flipped, prob=0.9)
    np.testing.assert_allclose(low, -high_f, atol=1e-9)
    np.testing.assert_allclose(high, -low_f, atol=1e-9)
    n = tables.sum(axis=(1, 2))
    estimate = (tables[:, 0, 1] - tables[:, 1, 0]) / n
    assert np.all(low <= estimate + 1e-12)
    assert np.all(estimate <= high + 1e-12)


def test_newcombe_unpaired_matches_statsmodels():
    from statsmodels.stats.proportion import confint_proportions_2indep

    for k_a, n_a, k_b, n_b in [
        (56, 70, 48, 80),
        (0, 10, 3, 12),
        (9, 9, 1, 20),
        (300, 600, 330, 600),
    ]:
        low, high = newcombe_unpaired_interval(k_a, n_a, k_b, n_b, prob=0.9)
        ref = confint_proportions_2indep(k_b, n_b, k_a, n_a, method="newcomb", alpha=0.1)
        assert float(low) == pytest.approx(ref[0], abs=1e-12)
        assert float(high) == pytest.approx(ref[1], abs=1e-12)


def test_paired_difference_variance_closed_form():
    n = CAVO.sum()
    p01, p10 = 6 / n, 16 / n
    expected = (p01 + p10 - (p01 - p10) ** 2) / n
    assert float(paired_difference_variance(CAVO)) == pytest.approx(expected, rel=1e-14)


# ----------------------------------------------------------------------------- Rogan-Gladen
def test_rg_difference_variance_equals_var_a_plus_var_b_minus_twice_the_covariance():
    p_a, p_b, q0, q1, n, m0, m1 = 0.62, 0.71, 0.85, 0.9, 800, 120, 180
    j = q0 + q1 - 1
    theta_a, theta_b = (p_a + q0 - 1) / j, (p_b + q0 - 1) / j
    v0, v1 = q0 * (1 - q0) / m0, q1 * (1 - q1) / m1
    # unpaired test sets (cov(p_a, p_b) = 0), so the judged-difference variance is the sum
    var_pa, var_pb = p_a * (1 - p_a) / n, p_b * (1 - p_b) / n
    var_a = rogan_gladen_variance(rate=p_a, se=q1, sp=q0, n=n, m1=m1, m0=m0)
    var_b = rogan_gladen_variance(rate=p_b, se=q1, sp=q0, n=n, m1=m1, m0=m0)
    cov = ((1 - theta_a) * (1 - theta_b) * v0 + theta_a * theta_b * v1) / j**2
    ours = rogan_gladen_difference_variance(theta_b - theta_a, var_pa + var_pb, q0, q1, m0, m1)
    assert float(ours) == pytest.approx(float(var_a + var_b - 2 * cov), rel=1e-12)


def test_rg_difference_variance_matches_a_numerical_delta_method():
    # gradient of (p_b - p_a) / (q0 + q1 - 1) by central differences, with independent inputs
    x = np.array([0.62, 0.71, 0.85, 0.9])  # p_a, p_b, q0, q1
    cov = np.diag([0.62 * 0.38 / 500, 0.71 * 0.29 / 500, 0.85 * 0.15 / 90, 0.9 * 0.1 / 110])

    def diff(v):
        return (v[1] - v[0]) / (v[2] + v[3] - 1)

    grad = np.array([(diff(x + h) - diff(x - h)) / 2e-6 for h in np.eye(4) * 1e-6])
    ours = rogan_gladen_difference_variance(diff(x), cov[0, 0] + cov[1, 1], 0.85, 0.9, 90, 110)
    assert float(ours) == pytest.approx(grad @ cov @ grad, rel=1e-8)


def test_rg_difference_estimate_is_the_judged_difference_over_j():
    data = _paired()
    est = rogan_gladen_difference(data)
    table = data.paired_table()
    counts = data.system_counts()
    q1 = counts.x1.sum() / counts.m1.sum()
    q0 = 1 - counts.x0.sum() / counts.m0.sum()
    judged = (table[0, 1] - table[1, 0]) / table.sum()
    assert est.unclipped == pytest.approx(judged / (q0 + q1 - 1), rel=1e-12)
    assert est.j == pytest.approx(q0 + q1 - 1, rel=1e-12)
    assert est.interval.contains(est.estimate)


def test_rg_difference_not_identifiable_when_j_is_not_positive():
    frame = pd.DataFrame(
        {
            "system": ["a", "b"] * 4,
            "item": [1, 1, 2, 2, 3, 3, 4, 4],
            "label": [1, 0, None, None, None, None, None, None],
            "verdict": [0, 1, 1, 0, 0, 1, 1, 1],
        }
    )
    est = rogan_gladen_difference(SystemsData.from_frame(frame))
    assert est.estimate is None
    assert "J=-1 <= 0" in est.notes[0]


# ----------------------------------------------------------------------------- PPI
def test_ppi_plus_plus_paired_difference_matches_ppi_py():
    ppi_py = pytest.importorskip("ppi_py")
    data = _paired(seed=5)
    pairs = data.paired_items()
    y = (pairs.label[:, 1] - pairs.label[:, 0]).astype(float)
    yhat = (pairs.verdict[:, 1] - pairs.verdict[:, 0]).astype(float)
    unl = (pairs.unlabelled_verdict[:, 1] - pairs.unlabelled_verdict[:, 0]).astype(float)
    for tuned, lam in ((True, None), (False, 1.0)):
        est = ppi_difference(data, prob=0.9, tuned=tuned)
        point = ppi_py.ppi_mean_pointestimate(y, yhat, unl, lam=lam)
        low, high = ppi_py.ppi_mean_ci(y, yhat, unl, alpha=0.1, lam=lam)
        # ppi_py returns length-1 arrays; same arithmetic up to rounding
        assert est.estimate == pytest.approx(float(np.ravel(point)[0]), abs=1e-12)
        assert est.interval.low == pytest.approx(float(np.ravel(low)[0]), abs=1e-12)
        assert est.interval.high == pytest.approx(float(np.ravel(high)[0]), abs=1e-12)


def test_ppi_unpaired_difference_is_the_difference_of_ppi_py_estimates():
    ppi_py = pytest.importorskip("ppi_py")
    sim = simulate_systems(
        [0.6, 0.7],
        n_unlabelled=300,
        n_labelled=60,
        se=0.9,
        sp=0.85,
        design="unpaired",
        random_seed=4,
    )
    data = SystemsData.from_frame(sim.frame)
    est = ppi_difference(data, prob=0.95)
    z = stats.norm.ppf(0.975)
    parts = []
    for name in ("A", "B"):
        part = sim.frame[sim.frame.system == name]
        gold = part.label.notna()
        y = part.label[gold].to_numpy(float)
        yhat = part.verdict[gold].to_numpy(float)
        unl = part.verdict[~gold].to_numpy(float)
        point = float(np.ravel(ppi_py.ppi_mean_pointestimate(y, yhat, unl, lam=None))[0])
        low, high = (float(np.ravel(v)[0]) for v in ppi_py.ppi_mean_ci(y, yhat, unl, alpha=0.05))
        parts.append((point, (high - low) / (2 * z)))
    assert est.estimate == pytest.approx(parts[1][0] - parts[0][0], abs=1e-12)
    assert est.se == pytest.approx(np.hypot(parts[0][1], parts[1][1]), abs=1e-12)


def test_ppi_not_identifiable_when_a_system_has_no_labels():
    sim = simulate_systems(
        [0.6, 0.7],
        n_unlabelled=100,
        n_labelled=30,
        se=0.9,
        sp=0.85,
        design="unpaired",
        labelled_systems=["A"],
        random_seed=1,
    )
    est = ppi_difference(SystemsData.from_frame(sim.frame))
    assert est.estimate is None
    assert "system 'B' has no gold-labelled answers" in est.notes[0]


# ----------------------------------------------------------------------------- designs
def test_naive_paired_and_unpaired():
    data = _paired()
    est = naive_difference(data, interval="tango")
    table = data.paired_table()
    assert est.estimate == pytest.approx((table[0, 1] - table[1, 0]) / table.sum())
    assert est.interval.kind == "tango"
    unpaired = naive_difference(data, design="unpaired")
    assert unpaired.interval.kind == "newcombe_unpaired"
    with pytest.raises(ValueError, match="interval='tango' is for paired designs"):
        naive_difference(data, design="unpaired", interval="tango")


def test_forcing_a_paired_design_without_shared_items_is_an_error():
    sim = simulate_systems(
        [0.6, 0.7],
        n_unlabelled=50,
        n_labelled=10,
        se=0.9,
        sp=0.85,
        design="unpaired",
        random_seed=1,
    )
    with pytest.raises(DataError, match="share no item"):
        naive_difference(SystemsData.from_frame(sim.frame), design="paired")


def test_difference_baselines_rows_and_frame():
    data = _paired()
    rows = difference_baselines(data)
    assert [r.method for r in rows] == list(DIFFERENCE_METHODS)
    frame = difference_baselines_frame(data, a="B", b="A")
    # swapping the systems negates every estimate
    np.testing.assert_allclose(
        frame["estimate"].to_numpy(), -np.array([r.estimate for r in rows]), atol=1e-12
    )


@pytest.mark.parametrize("prob", [0, 1, "0.9", True])
def test_bad_prob_is_rejected(prob):
    with pytest.raises(ValueError, match="prob must"):
        naive_difference(_paired(), prob=prob)


@given(st.lists(st.integers(0, 40), min_size=4, max_size=4).filter(lambda v: sum(v) > 0))
def test_paired_intervals_hold_the_estimate_inside_minus_one_one(cells):
    table = np.array(cells, dtype=float).reshape(2, 2)
    estimate = (table[0, 1] - table[1, 0]) / table.sum()
    for interval in (newcombe_paired_interval, tango_paired_interval):
        low, high = interval(table)
        assert -1.0 - 1e-12 <= float(low) <= estimate + 1e-9
        assert estimate - 1e-9 <= float(high) <= 1.0 + 1e-12


def test_system_baselines_report_a_chance_judge_as_not_identifiable():
    from bayesjudge.systems.baselines import system_baselines

    frame = pd.DataFrame(
        {
            "system": ["a", "a", "b", "b", "a", "b"],
            "item": ["1", "2", "1", "2", "3", "3"],
            "label": [1, 0, 1, 0, None, None],
            "verdict": [1, 1, 1, 1, 1, 0],  # the judge passes every gold answer: J = 0
        }
    )
    rows = dict(
        ((system, e.method), e) for system, e in system_baselines(SystemsData.from_frame(frame))
    )
    assert rows[("a", "naive")].estimate == 1.0
    assert rows[("a", "rogan_gladen_delta")].estimate is None
    assert "no better than chance" in rows[("a", "rogan_gladen_delta")].notes[0]
    assert rows[("b", "ppi_plus_plus")].identifiable


def _balanced_gold_frame(balanced: bool) -> pd.DataFrame:
    """Two systems, 1,000 unlabelled answers each (judged PASS 80% and 70% of the time), and
    100 gold answers each: 50 right and 50 wrong (class-balanced) or 80 right and 20 wrong."""
    rows = []
    for system, passed in (("A", 800), ("B", 700)):
        rows += [(system, None, int(i < passed)) for i in range(1000)]
        right = 50 if balanced else 80
        rows += [(system, 1, int(i < 0.9 * right)) for i in range(right)]
        rows += [(system, 0, int(i < 0.1 * (100 - right))) for i in range(100 - right)]
    return pd.DataFrame(rows, columns=["system", "label", "verdict"])


def test_ppi_rows_of_each_system_say_when_the_gold_set_is_not_a_random_sample():
    from bayesjudge.systems.baselines import system_baselines

    balanced = system_baselines(SystemsData.from_frame(_balanced_gold_frame(True)))
    ppi = [(s, e) for s, e in balanced if e.method == "ppi_plus_plus"]
    assert [s for s, _ in ppi] == ["A", "B"]
    for _, e in ppi:
        assert any("assumes the gold items are a random sample" in n for n in e.notes)
    # the same rule as estimate's rows: A's gold answers are judged PASS 50% of the time against
    # 80% of its unlabelled ones
    assert "passes 50% of gold items and 80% of test items" in ppi[0][1].notes[-1]
    others = [e for _, e in balanced if e.method != "ppi_plus_plus"]
    assert not any("random sample" in n for e in others for n in e.notes)
    random_like = system_baselines(SystemsData.from_frame(_balanced_gold_frame(False)))
    assert not any(
        "random sample" in n for _, e in random_like if e.method == "ppi_plus_plus" for n in e.notes
    )
